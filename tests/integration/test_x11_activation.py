#!/usr/bin/env python3
"""_NET_ACTIVE_WINDOW from an X client moves the focus among X windows
only; it never takes the keyboard from a Wayland window (xwayland-glue/wm/
xwayland.c, xview_handle_request_activate; red team, session 28).

Any X client can send _NET_ACTIVE_WINDOW for any window (of the session's
uid, or one let onto the display: uid nobody is refused). Before, the
compositor focused the window at once: an X program could take the
keyboard from a Wayland terminal in the middle of a password (keys typed
then went to the X program), or flip the focus in a loop.

What is checked is what happened, never a duration:
- X window A asks while X window B has the focus: A gets it (X's own
  rules among X windows, as before);
- foot (Wayland) maps and has the focus; A asks: the compositor logs that
  it left the focus where it is, foot still has it, and a line typed
  then reaches foot's shell (before: A got the focus, and the keys).
"""
import os
import re
import shlex
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log, read_file  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

REFUSED = re.compile(r"X window 0x([0-9a-f]+) \(pid (-?\d+)\) asked for the focus a Wayland "
                     r"window has: left where it is")


def x_window(s, name):
    """An smt-x11-wm-hostile steal-focus window, mapped: (process, its
    window id)."""
    p = s.spawn([wm_hostile_tool(s.h), "steal-focus", name], name=name)
    line = s.wait_until(lambda: next((ln for ln in (read_file(p.log_path) or "").splitlines()
                                      if ln.startswith("mapped ")), None),
                        timeout=60, what=f"{name} to map its window")
    return p, int(line.split()[1])


def asks(s, p, times):
    """Makes p ask for the focus (its times-th request) and waits until the
    X server has passed it on."""
    p.signal_group(signal.SIGUSR1)
    s.wait_until(lambda: (read_file(p.log_path) or "").count("asked") >= times, timeout=30,
                 what=f"{p.name} to send _NET_ACTIVE_WINDOW")


def focused(s):
    return next((w for w in s.windows() if w["focused"]), None)


def refusals(s):
    return [m.groups() for m in map(REFUSED.search, s.stderr_text().splitlines()) if m]


def test(h):
    with Session(h, x11=True) as s:
        a, a_id = x_window(s, "x-window-a")
        s.wait_until(lambda: (focused(s) or {}).get("title") == "x-window-a", timeout=30,
                     what="A focused once mapped")
        b, _ = x_window(s, "x-window-b")
        s.wait_until(lambda: (focused(s) or {}).get("title") == "x-window-b", timeout=30,
                     what="B focused once mapped")

        # Among X windows, X's rule.
        asks(s, a, 1)
        s.wait_until(lambda: (focused(s) or {}).get("title") == "x-window-a", timeout=30,
                     what="A focused after asking while B had the focus")
        log("A took the focus from B (both X)")

        out = os.path.join(s.tmp, "typed")
        foot = s.spawn(["foot", "--app-id", "victim", "sh", "-c",
                        f'read line; printf %s "$line" > {shlex.quote(out)}; sleep 600'])
        s.wait_window(lambda w: w["app_id"] == "victim" and w["focused"], timeout=30,
                      what="foot focused once mapped")

        before = len(refusals(s))
        asks(s, a, 2)
        s.wait_until(lambda: len(refusals(s)) > before
                     or (focused(s) or {}).get("title") == "x-window-a", timeout=30,
                     what="the compositor to answer A's _NET_ACTIVE_WINDOW")
        now = focused(s) or {}
        check(now.get("app_id") == "victim",
              f"an X window's _NET_ACTIVE_WINDOW took the focus from foot: {now}")
        got = refusals(s)[before:]
        check(got and int(got[0][0], 16) == a_id,
              f"the refusal names A's window 0x{a_id:x}: {got}")

        s.type_text("still foot", enter=True)
        s.wait_until(lambda: read_file(out) is not None, timeout=30,
                     what="the line typed after A asked to reach foot")
        check(read_file(out) == "still foot", f"foot's shell read {read_file(out)!r}")
        for p in (a, b, foot):
            s.stop_client(p)


harness.main(test)
