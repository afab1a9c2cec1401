#!/usr/bin/env python3
"""An X client cannot make the compositor write its log at will
(compositor/log_limit.c, log_limit_wlroots; red team, session 28).

wlroots 0.15's X window manager logs every X error its requests get, and
its requests on windows a client has already destroyed each get one
(BadWindow on ChangeWindowAttributes, MapWindow, ConfigureWindow,
ChangeProperty). A client creating, mapping and destroying windows as fast
as it can made the compositor write about five lines per window: 159,567
lines in 20 s, from any X client the display lets in. Those lines now
go through the compositor's log
rate limit.

What is checked is what happened, never a duration: smt-x11-wm-hostile
creates, maps and destroys 2,000 windows and exits; then an X window
(a sentinel, made after them) reaches the compositor's window list, so
the window manager has handled every event of the 2,000 before it (it
takes them in order); by then the compositor has logged X errors (some
lines pass), but fewer lines than windows (before: about five per
window). The compositor answers another client throughout (the harness's
control socket and a round trip at the end).
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log, read_file  # noqa: E402
from harness.hostile import wm_hostile_tool, round_trips_answered  # noqa: E402

WINDOWS = 2000


def test(h):
    with Session(h, x11=True) as s:
        res = s.run([wm_hostile_tool(h), "window-churn", "0", "--count", str(WINDOWS)], timeout=300)
        check(f"count {WINDOWS} " in res.stdout, f"the churn: {res.stdout!r}")
        sentinel = s.spawn([wm_hostile_tool(h), "steal-focus", "sentinel"], name="sentinel")
        s.wait_window(lambda w: w["title"] == "sentinel", timeout=300,
                      what="the sentinel X window after the 2,000 churned ones")
        errors = [ln for ln in s.stderr_text().splitlines() if "xcb error:" in ln]
        check(errors, "no X error was logged at all (the churn should cause some)")
        check(len(errors) < WINDOWS,
              f"{len(errors)} lines of X errors logged for {WINDOWS} windows")
        round_trips_answered(s, h, "the attack", "0.2")
        log(f"{WINDOWS} windows churned: {len(errors)} lines of X errors logged; "
            f"last: {errors[-1][:160]}")
        s.stop_client(sentinel)


harness.main(test)
