#!/usr/bin/env python3
"""A client's own fullscreen requests are honoured: weston-fullscreen (a
program nobody here wrote) asks for fullscreen when 'f' is pressed, covers
the whole output, and comes back to its window when asked again."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Rect, Session, log  # noqa: E402


def test(h):
    with Session(h) as s:
        excl = s.cursor_exclusion()
        s.spawn(["weston-fullscreen", "-w", "300", "-h", "200"])

        def windowed(img):
            r = img.bbox_not(BACKGROUND, exclude=excl)
            return r if r is not None and r.w < 400 and r.h < 300 else None

        _, r = s.wait_screenshot(windowed, what="weston-fullscreen's 300x200 window")
        log(f"window at {r}")
        s.type_text("f")

        def fullscreen(img):
            return img.count(BACKGROUND, exclude=excl) == 0 or None

        s.wait_screenshot(fullscreen, what="the fullscreen window to cover the whole output")
        log("fullscreen covers the output")
        s.type_text("f")
        _, r2 = s.wait_screenshot(windowed, what="the window back from fullscreen")
        log(f"back to a window at {r2}")
        harness.check(r2 == r, f"restored at {r2}, was {r}")


harness.main(test)
