#!/usr/bin/env python3
"""Strings an X client gives wlroots' X window manager reach Wayland
clients only if one Wayland message carries them (compositor/desktop/
wayland_string.h; red team, session 28).

libwayland cannot send an event longer than 4096 bytes: it fails it ("Data
too big for buffer") and disconnects the client it was for. A Wayland
client's own strings always fit (its requests have the same bound), but an
X client's reach the compositor through the window manager, bounded only by
what wlroots reads: titles and WM_CLASS of up to 8 KB, atom names (the MIME
types of its selections) of up to 64 KB, up to 4,096 of them. Any X
client the display lets in can send them.
Before: an X window with an 8,000-byte title ended every taskbar
(wlr-foreign-toplevel) at once; an X client that took the clipboard (or
PRIMARY) with one 5,000-byte MIME type ended the clipboard manager at once
and every Wayland client that got the keyboard focus afterwards (foot
here), for as long as it held the selection.

What is checked is what happened, never a duration:
- taskbars: an X window with an 8,000-byte title and class maps while a
  taskbar (smt-desktop-tool toplevels --watch) runs: the taskbar shows it
  with both cut to 4,083 bytes (the longest one event carries, at a
  character's boundary), and still sees the next window;
- selections, the clipboard and PRIMARY: smt-x11-wm-hostile takes the
  selection with one 5,000-byte type while foot and a clipboard manager
  (wl-paste --watch, on wlr-data-control) run; the compositor logs the
  refusal (input/selection_limits.h); foot is given the focus and a line
  typed into it reaches its shell (it is connected); the manager then
  sees a wl-copy (it is connected). Again with 300 short types (past
  source-mime-types=256, as a Wayland client's offers are held) for the
  clipboard: not even read (xwayland-glue/wm/wm_selection_targets.c:
  wlroots asked each name with a round trip of its own, 4,096 per take of
  the selection);
- 200 targets reach wl-paste --list-types exactly and in order, their
  names asked ahead in batches (logged), not one round trip each. A real
  X selection still reaches Wayland: x11_clipboard.
"""
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log, read_file  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

REFUSED = re.compile(r"(a clipboard selection refused|an X primary selection refused|"
                     r"an X selection's TARGETS not read): (.*)$")
AHEAD = re.compile(r"X selections' targets: (\d+) lists, (\d+) names asked ahead")


def refusals(s):
    return [m.groups() for m in map(REFUSED.search, s.stderr_text().splitlines()) if m]


def attack(s, h, label, primary, args, expect):
    """One attacker holding the selection; foot and the manager must be
    alive and served afterwards."""
    flag = ["--primary"] if primary else []
    watch_log = os.path.join(s.tmp, f"watch-{label}.log")
    watcher = s.spawn(["wl-paste"] + flag + ["--watch", "sh", "-c",
                      f"cat > /dev/null; echo changed >> {shlex.quote(watch_log)}"],
                      name=f"wl-paste-watch-{label}")
    out = os.path.join(s.tmp, f"foot-{label}")
    foot = s.spawn(["foot", "--app-id", f"foot-{label}", "sh", "-c",
                    f'read line; printf %s "$line" > {shlex.quote(out)}; sleep 600'],
                   name=f"foot-{label}")
    s.wait_window(lambda w: w["app_id"] == f"foot-{label}", timeout=30, what="foot's window")

    before = len(refusals(s))
    p = s.spawn([wm_hostile_tool(h), "targets", args[0], "0"] + args[1:] + ["--once"] + flag,
                name=f"x11-selection-{label}")
    s.wait_until(lambda: "owner" in (read_file(p.log_path) or ""), timeout=60,
                 what="the window manager to ask the attacker for its TARGETS")
    got = s.wait_until(lambda: refusals(s)[before:] or not watcher.alive()
                       or not foot.alive(), timeout=60,
                       what="the compositor to refuse the selection")
    check(watcher.alive(), f"{label}: the clipboard manager was disconnected by the X "
                           f"selection:\n{watcher.log_tail()}")
    check(isinstance(got, list) and expect in got[0][1],
          f"{label}: refusal {got!r}, expected one naming {expect!r}")
    log(f"{label}: refused: {got[0]}")

    # foot gets the focus (and with it the selection, were it set).
    win = s.wait_window(lambda w: w["app_id"] == f"foot-{label}", what="foot's window")
    # Its bottom-right corner: the attacker's window is near the top left.
    s.click(win["x"] + win["width"] - 20, win["y"] + win["height"] - 20)
    s.wait_window(lambda w: w["app_id"] == f"foot-{label}" and w["focused"],
                  what="foot focused")
    s.type_text(f"alive {label}", enter=True)
    s.wait_until(lambda: read_file(out) == f"alive {label}" or not foot.alive(), timeout=30,
                 what="the line typed into foot to reach its shell")
    check(foot.alive() and read_file(out) == f"alive {label}",
          f"{label}: foot lost its connection once focused:\n{foot.log_tail()}")

    # The manager still follows the clipboard.
    lines = len((read_file(watch_log) or "").splitlines())
    # wl-copy serves the selection from a child it leaves running (the
    # session's end stops it); run() waits for the output's end.
    s.run(["sh", "-c", f"wl-copy {' '.join(flag)} 'after {label}' >/dev/null 2>&1 </dev/null"],
          timeout=30)
    s.wait_until(lambda: len((read_file(watch_log) or "").splitlines()) > lines
                 or not watcher.alive(), timeout=30,
                 what="the clipboard manager to see a wl-copy")
    check(watcher.alive(), f"{label}: the clipboard manager was disconnected:\n"
                           f"{watcher.log_tail()}")
    check(s.compositor.alive(), "the compositor died")
    for q in (p, watcher, foot):
        s.stop_client(q)


def desktop_tool(h):
    return os.environ.get("SMT_DESKTOP_TOOL") or os.path.join(
        os.path.dirname(h.vpointer), "smt-desktop-tool")


def taskbar_lines(p):
    return [ln for ln in (read_file(p.log_path) or "").splitlines() if ln.startswith("toplevel ")]


def long_names(s, h):
    bar = s.spawn([desktop_tool(h), "toplevels", "--watch"], name="taskbar")
    p = s.spawn([wm_hostile_tool(h), "long-names", "8000", "8000"], name="x11-long-names")
    line = s.wait_until(lambda: next((ln for ln in taskbar_lines(bar)
                                      if ln.startswith("toplevel long title ")), None)
                        or not bar.alive(), timeout=60,
                        what="the taskbar to show the X window with the long title")
    check(bar.alive(), f"the taskbar was disconnected by the X window's names:\n"
                       f"{bar.log_tail()}")
    title, app_id = line[len("toplevel "):].split("|")[:2]
    check(len(title) == 4083 and title == "long title " + "x" * (4083 - 11),
          f"the title shown is {len(title)} bytes: {title[:40]!r}...")
    check(len(app_id) == 4083 and app_id.startswith("longclassx"),
          f"the app id shown is {len(app_id)} bytes: {app_id[:40]!r}...")
    # Still connected: it sees the next window.
    foot = s.spawn(["foot", "--app-id", "after-long-names"], name="foot-after-names")
    s.wait_until(lambda: any("|after-long-names|" in ln for ln in taskbar_lines(bar))
                 or not bar.alive(), timeout=60, what="the taskbar to show the next window")
    check(bar.alive(), f"the taskbar was disconnected:\n{bar.log_tail()}")
    log("taskbar: the X window's 8,000-byte title and class shown cut to 4,083 bytes")
    for q in (p, foot, bar):
        s.stop_client(q)


def names_in_order(s, h):
    """200 targets: their names are asked ahead (xwayland-glue/wm/
    wm_selection_targets.c), and Wayland clients see exactly the X
    client's MIME types, in its order."""
    def ahead():
        found = [tuple(int(g) for g in m.groups())
                 for m in map(AHEAD.search, s.stderr_text().splitlines()) if m]
        return found[-1] if found else (0, 0)
    lists0, names0 = ahead()
    p = s.spawn([wm_hostile_tool(h), "targets", "200", "0", "--once"], name="x11-selection-200")
    s.wait_until(lambda: "owner" in (read_file(p.log_path) or ""), timeout=60,
                 what="the window manager to ask for the 200 targets")
    expected = [f"application/x-smt-{i}" for i in range(200)]
    seen = []

    def offered():
        seen[:] = s.run(["wl-paste", "--list-types"], timeout=30, check_rc=False).stdout.split()
        return seen == expected
    s.wait_until(offered, timeout=30, what="wl-paste --list-types to list the X client's 200 "
                 "types in order")
    lists, names = s.wait_until(lambda: ahead() if ahead()[1] >= names0 + 200 else None,
                                timeout=30, what="the compositor to log the 200 names asked "
                                                 "ahead")
    log(f"200 targets offered in order; {lists - lists0} list(s), {names - names0} names "
        f"asked ahead")
    s.stop_client(p)


def test(h):
    with Session(h, x11=True) as s:
        long_names(s, h)
        attack(s, h, "long-clipboard", False, ["1", "--name-bytes", "5000"],
               "a MIME type of more than 4083 bytes")
        attack(s, h, "long-primary", True, ["1", "--name-bytes", "5000"],
               "a MIME type of more than 4083 bytes")
        attack(s, h, "many-clipboard", False, ["300"],
               "300 names (limit source-mime-types=256")
        names_in_order(s, h)


harness.main(test)
