#!/usr/bin/env python3
"""Resizing a ring client's window resizes its canvas without garbage: after
Logo+right-drag the window has the new size, the client redraws into the
whole new canvas (no desktop or stale pixels show through), and the frame
still comes only from the ring."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, FOCUSED, Rect, Session, check, log  # noqa: E402

DEMO_BG = (16, 18, 20)
BORDER = 2


def demo_tool(h):
    build = os.path.dirname(os.path.dirname(os.path.dirname(h.vpointer)))
    return os.environ.get("SMT_DEMO") or os.path.join(build, "clients", "smt-demo")


def test(h):
    with Session(h) as s:
        excl = s.cursor_exclusion()
        demo = s.spawn([demo_tool(h), "--static"])
        s.wait_until(lambda: "DEMO_READY" in open(demo.log_path).read(), timeout=15,
                     what="smt-demo to draw")
        _, frame = s.wait_screenshot(lambda img: img.bbox(FOCUSED, exclude=excl),
                                     what="the demo window")
        log(f"frame before: {frame}")
        # Grab near the bottom-right corner: that corner follows the pointer.
        start = (frame.x + frame.w - 20, frame.y + frame.h - 20)
        end = (start[0] + 150, start[1] + 60)
        hold = s.hold_modifiers("logo")
        s.vpointer("move", *start, "down", "right", "move", *end,
                   "up", "right")
        s.release_modifiers(hold)
        s.park_pointer()
        excl = s.cursor_exclusion()

        def grown(img):
            f = img.bbox(FOCUSED, exclude=excl)
            return f if f is not None and f.w >= frame.w + 140 and f.h >= frame.h + 50 else None

        img, after = s.wait_screenshot(grown, what="the window to grow by the drag")
        log(f"frame after: {after}")
        content = after.inset(BORDER)
        desktop = img.count(BACKGROUND, rect=content, exclude=excl)
        check(desktop == 0, lambda: f"{desktop} desktop pixels show through the resized canvas "
                                    f"(saved {s.save(img, 'resized')})")
        # The strip the window gained is the demo's background, redrawn by
        # the client, not left-over or undefined pixels.
        strip = Rect(content.x + content.w - 120, content.y + content.h - 40, 120, 40)
        bg = img.count(DEMO_BG, rect=strip, exclude=excl)
        check(bg >= 0.9 * strip.w * strip.h,
              lambda: f"only {bg} of {strip.w * strip.h} pixels of the new area are the "
                      f"demo's background (saved {s.save(img, 'strip')})")


harness.main(test)
