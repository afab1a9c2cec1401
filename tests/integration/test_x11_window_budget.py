#!/usr/bin/env python3
"""The X windows the compositor tracks are counted per X client and
bounded (xwayland-glue/wm/wm_window_budget.c; docs/reliability.md, "What
a client can make the compositor hold").

wlroots 0.15 makes a wlr_xwayland_surface (and the compositor a view) for
every top-level window of any X client, mapped or not: one client holding
100,000 windows grew the compositor by 213 MiB, counted nowhere. Now a
window past its client's `x11-client-windows`, or past `x11-windows` for
every client together once the client has its first `x11-first-windows`,
is left alone: wlroots never sees its CreateNotify, so it is not tracked
(a managed one never maps), the log says so once naming the client
(pid and program), and `smtctl stats` counts it under `x11_windows`.

Checked (what happened, never a duration), with small limits (16 per
client, 24 in all, 4 kept for each client's first): an X client mapping
40 windows gets exactly 16 tracked and shown, 24 refused, one log line
naming its pid; another X client's window is still shown (the windows of
every client before it have been handled then: the window manager takes
events in order); a second client holding 40 unmapped windows gets what
is left of the 24 in all and is refused past it, naming `x11-windows`; a
third client's first window is shown all the same (the reserve); when
the first client goes, its windows are no longer counted (waited for in
the statistics), and a new client's windows are tracked again. Another
Wayland client's round trips are answered at the end."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, round_trips_answered  # noqa: E402

CLIENT_WINDOWS = 16
WINDOWS = 24
HOLD = 40  # windows each holder makes
FIRST_WINDOWS = 4
CONFIG = f"""[limits]
x11-client-windows = {CLIENT_WINDOWS}
x11-windows = {WINDOWS}
x11-first-windows = {FIRST_WINDOWS}
"""
TITLE = "smt-x11-wm-hostile"  # what the tool names every window it holds


def said(p, text):
    with open(p.log_path) as f:
        return text in f.read()


def budget(s):
    st = s.control("stats")
    check("x11_windows" in st, f"`smtctl stats` has no x11_windows: {sorted(st)}")
    return st["x11_windows"]


def client_of(s, pid):
    """The budget's row of the X client of process pid (None: none)."""
    return next((c for c in budget(s)["clients"] if c["pid"] == pid), None)


def refusal_lines(s, pid):
    return [ln for ln in s.stderr_text().splitlines()
            if "X client 0x" in ln and f"(pid {pid}," in ln]


def hold(s, h, n, name, mapped=False):
    p = s.spawn([wm_hostile_tool(h), "windows-hold", str(n)] + (["--map"] if mapped else []),
                name=name)
    s.wait_until(lambda: said(p, f"holding {n}"), timeout=120, what=f"{name} holding {n}")
    return p


def sentinel(s, h, title):
    """Another X client's window, shown: every window manager event of the
    clients before it has been handled."""
    p = s.spawn([wm_hostile_tool(h), "steal-focus", title], name=title)
    s.wait_window(lambda w: w["title"] == title, timeout=120, what=f"the X window {title!r}")
    return p


def test(h):
    with Session(h, x11=True, config=CONFIG) as s:
        # 1. One client past its own limit: 16 tracked and shown.
        a = hold(s, h, HOLD, "holder-a", mapped=True)
        sentinel(s, h, "after-a")
        # (At least: without the budget all 40 come, and the checks below fail.)
        s.wait_until(lambda: sum(w["title"] == TITLE for w in s.windows()) >= CLIENT_WINDOWS,
                     timeout=90, what=f"{CLIENT_WINDOWS} of holder-a's windows shown")
        row = client_of(s, a.pid)
        check(row is not None, f"no budget row names holder-a's pid {a.pid}: {budget(s)}")
        check(row["windows"] == CLIENT_WINDOWS and row["refused"] == HOLD - CLIENT_WINDOWS,
              f"holder-a: {row} (expected {CLIENT_WINDOWS} tracked, "
              f"{HOLD - CLIENT_WINDOWS} refused)")
        shown = sum(w["title"] == TITLE for w in s.windows())
        check(shown == CLIENT_WINDOWS, f"{shown} of holder-a's windows shown")
        lines = refusal_lines(s, a.pid)
        check(len(lines) == 1 and f"x11-client-windows={CLIENT_WINDOWS}" in lines[0] and
              "smt-x11-wm-host" in lines[0], f"the log on holder-a: {lines}")

        # 2. All clients together: the next holder gets what is left.
        before = budget(s)["windows"]
        check(before < WINDOWS and WINDOWS - before < CLIENT_WINDOWS,
              f"{before} windows tracked before holder-c")
        c = hold(s, h, HOLD, "holder-c")
        sentinel(s, h, "after-c")  # the reserve: its first window is shown
        row = client_of(s, c.pid)
        check(row is not None and row["windows"] == WINDOWS - before and
              row["refused"] == HOLD - (WINDOWS - before),
              f"holder-c: {row} ({before} tracked before it)")
        lines = refusal_lines(s, c.pid)
        check(len(lines) == 1 and f"x11-windows={WINDOWS}" in lines[0],
              f"the log on holder-c: {lines}")
        st = budget(s)
        check(st["windows"] == WINDOWS + 1 and
              st["refused_total_limit"] == HOLD - (WINDOWS - before) and
              st["refused_client_limit"] == HOLD - CLIENT_WINDOWS,
              f"x11_windows after holder-c and its sentinel: {st}")

        # 3. A client that goes gives its share back.
        s.stop_client(a)
        s.wait_until(lambda: client_of(s, a.pid) is None and
                     budget(s)["windows"] == WINDOWS + 1 - CLIENT_WINDOWS,
                     timeout=60, what="holder-a's windows no longer counted")
        e = hold(s, h, 10, "holder-e")
        s.wait_until(lambda: (client_of(s, e.pid) or {}).get("windows") == 10,
                     timeout=60, what="holder-e's 10 windows tracked")
        check(client_of(s, e.pid)["refused"] == 0, f"holder-e: {client_of(s, e.pid)}")

        round_trips_answered(s, h, "the attack", "0.2")
        log(f"x11_windows at the end: {budget(s)}")


harness.main(test)
