#!/usr/bin/env python3
"""A ConfigureRequest arriving while an earlier one is held keeps the held
values of the fields it does not ask (xwayland-glue/wm/xwayland.c,
xview_handle_request_configure; session 34).

The window manager paces a window's ConfigureRequests: the first at once,
those within the next 50 ms merged into one applied when the interval
ends. wlroots fills a request's missing x, y, width and height from the
window's geometry, which has not got the held request's values: without
the session-34 change a size asked while a move was held undid the move.

Arranged without timing (`smt-x11-wm-hostile configure-held`): the X
client asks a geometry and waits for it (the interval starts), asks a move
(held), waits until the window manager has configured a new probe window
(its first request, applied at once: so the move was handed over in an
earlier turn), then asks a size only. The tries start once the compositor
shows the window (it places a window without a program-given position
when its surface maps, which comes after X's MapNotify). If the held move was applied before
the size came (a ConfigureNotify with the new place and the old size: a
loaded machine), the try does not count and the next one is made.

Checked: some try merged; the window then has the asked place and the
asked size, both in the X client's ConfigureNotify and where the
compositor shows it. With the change taken out by hand, the window is left
at the old place (the test fails)."""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

TRIES = 20
MERGED = re.compile(r"merged try (\d+) at (-?\d+) (-?\d+) (\d+) (\d+) "
                    r"want (-?\d+) (-?\d+) (\d+) (\d+)")


def output(p):
    with open(p.log_path) as f:
        return f.read()


def test(h):
    with Session(h, x11=True) as s:
        tool = s.spawn([wm_hostile_tool(h), "configure-held", str(TRIES)], name="held")
        # Placed by the compositor when its surface maps (after X's map):
        # the tries start once that is done.
        s.wait_window(lambda w: w["title"] == "smt-x11-wm-hostile", timeout=60,
                      what="the X client's window")
        os.kill(tool.pid, signal.SIGUSR1)
        s.wait_until(lambda: "done " in output(tool) or not tool.alive(), timeout=120,
                     what="the X client's tries")
        text = output(tool)
        check(tool.alive() and "done " in text, f"the X client ended:\n{tool.log_tail(10)}")
        tries = text.count("not merged try")
        log(f"{tries} tries not merged")
        m = MERGED.search(text)
        check(m is not None, f"no try merged in {TRIES} (machine too slow?):\n{text[-800:]}")
        got = tuple(int(g) for g in m.groups()[1:5])
        want = tuple(int(g) for g in m.groups()[5:9])
        log(m.group(0))
        check(got == want, f"the X client's window is at {got}, asked {want}: the held "
              "move was lost")
        try:
            s.wait_window(lambda w: w["title"] == "smt-x11-wm-hostile" and
                          (w["x"], w["y"], w["width"], w["height"]) == want, timeout=30,
                          what=f"the compositor to show the window at {want}")
        finally:
            log("windows: " + ", ".join(f"{w['title']} {w['x']},{w['y']} "
                                        f"{w['width']}x{w['height']}" for w in s.windows()))
        s.stop_client(tool)
        s.stop()


harness.main(test)
