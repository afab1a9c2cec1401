#!/usr/bin/env python3
"""Screen power (wlr-output-power-management) and night light
(wlr-gamma-control) on an output that can do neither.

wlroots 0.15's headless outputs can be neither disabled nor given gamma
ramps (only DRM outputs can), so what can be checked here is that the
compositor answers as the protocols ask instead of pretending or leaving
clients waiting:
- a client turning the output off (what swayidle's "dpms off" command
  does; smt-desktop-tool, as Debian 12 has no wlopm) gets its control
  failed, and the output keeps showing the session;
- wlsunset's gamma control fails for that output; wlsunset and the session
  carry on.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines  # noqa: E402
from harness import Rect, Session, check  # noqa: E402

BLUE = (0x30, 0x70, 0xc0)


def test(h):
    probe = desktop_clients.probe(h)
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h) as s:
        s.spawn([probe, "--title", "shown", "--size", "300x200"])
        w = s.wait_window(lambda w: w["title"] == "shown", what="a window")
        box = Rect(w["x"], w["y"], w["width"], w["height"])
        s.wait_screenshot(lambda img: img.bbox(BLUE) == box or None, what="the window drawn")

        res = s.run([desktop_tool, "power", "off"], timeout=10, check_rc=False)
        out = res.stdout.splitlines()
        check(res.returncode == 1 and out == ["mode on", "failed"],
              f"turning the headless output off: exit {res.returncode}, {out} (expected its "
              "current mode, then failed)")
        s.wait_screenshot(lambda img: img.bbox(BLUE) == box or None,
                          what="the output still showing the window")

        sunset = s.spawn(["wlsunset", "-t", "4000", "-T", "6500", "-l", "0", "-L", "0"])
        s.wait_until(lambda: any("gamma control of output" in l and "failed" in l
                                 for l in lines(sunset)),
                     what="wlsunset to learn the headless output has no gamma ramps")
        s.wait_screenshot(lambda img: img.bbox(BLUE) == box or None,
                          what="the session unchanged with wlsunset running")
        check(sunset.alive(), f"wlsunset exited: {lines(sunset)}")


harness.main(test)
