#!/usr/bin/env python3
"""WL_SURFACE_ID messages that do not name their window's surface are not
handed to wlroots' window manager (xwayland-glue/wm/wm_event_pacer.c;
docs/x11.md "WL_SURFACE_ID messages that name the wrong object").

wlroots 0.15 pairs an X window with whatever object of Xwayland's has the
id a WL_SURFACE_ID ClientMessage names, and asserts it is a wl_surface.

- forged: any X client can send the root such a message for its own window
  (SendEvent); naming Xwayland's wl_display (id 1), one message ended the
  compositor in that assertion (checked with the build before: SIGABRT).
  Now it is dropped, said in the log, and the session carries on: another
  X window shows after it.
- stale: override-redirect windows mapped and unmapped in turn while an X
  title flood keeps the window manager busy; each map's surface is
  destroyed at the unmap and its id taken again by Xwayland's next
  objects. The messages whose window is unmapped behind them, or whose
  surface was destroyed since, are dropped (counted), the compositor lives
  through the loop and a new X window shows after it. (The pairing of a
  window with another's surface this prevents was not seen with the build
  before in these loops: the compositor read each message before the
  surface it named was destroyed.)
"""
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
import interactive as bench  # noqa: E402  (program(), wait_line())

DROPPED = re.compile(r"WL_SURFACE_ID of X window 0x[0-9a-f]+ naming Wayland object \d+ "
                     r"dropped: .*\((\d+) sent by X clients, (\d+) naming a surface gone")


def dropped(s):
    """(forged, stale) as the compositor last said them, or (0, 0)."""
    said = DROPPED.findall(s.stderr_text())
    return (int(said[-1][0]), int(said[-1][1])) if said else (0, 0)


def window_after(s, title):
    x = s.spawn(["xmessage", "-name", title, "-title", title, title], name=title)
    s.wait_window(lambda w: w["title"] == title, timeout=60,
                  what=f"{title}, an X window after the attack")
    s.stop_client(x)


def test(h):
    with Session(h, "surface-id", x11=True) as s:
        forger = s.spawn([wm_hostile_tool(h), "forge-surface-id", "1"], name="forge")
        bench.wait_line(s, forger, "sent", 30, "the forged WL_SURFACE_ID sent")
        s.wait_until(lambda: dropped(s)[0] >= 1 or not s.compositor.alive(), timeout=30,
                     what="the forged WL_SURFACE_ID dropped")
        check(s.compositor.alive(), "the compositor died of a forged WL_SURFACE_ID message")
        log(f"forged: {dropped(s)}")
        window_after(s, "after-forged")
        s.stop_client(forger)

        flooder = s.spawn([bench.program("x11-titleflood"), "--start-on-usr1", "--until-usr2"],
                          name="x11-titleflood")
        bench.wait_line(s, flooder, "ready", 30, "x11-titleflood to map its window")
        flooder.signal_group(signal.SIGUSR1)
        remap = s.spawn([wm_hostile_tool(h), "remap-or", "4"], name="remap-or")
        bench.wait_line(s, remap, "count", 60, "remap-or to end")
        check(s.compositor.alive(), "the compositor died during remap-or")
        stale = dropped(s)[1]
        log(f"remap-or: {open(remap.log_path).read().strip()}; stale messages dropped: {stale}")
        check(stale > 0, "no stale WL_SURFACE_ID message dropped during remap-or (premise)")
        window_after(s, "after-remap")
        s.stop_client(flooder)


if __name__ == "__main__":
    harness.main(test)
