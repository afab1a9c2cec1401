#!/usr/bin/env python3
"""Logo + left drag moves a window by exactly the drag distance; Logo + right
drag resizes it from the corner nearest to the pointer."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Rect, Session, check, log  # noqa: E402


def test(h):
    with Session(h) as s:
        s.spawn(["foot", "sh", "-c", "read l"])
        _, r0 = s.wait_for_border(FOCUSED, timeout=15, what="foot's window")
        log(f"window at {r0}")

        # Move: grab the middle, drag by (+200, +100).
        dx, dy = 200, 100
        s.logo_drag("left", r0.center(), (dx, dy))
        want = Rect(r0.x + dx, r0.y + dy, r0.w, r0.h)
        _, r1 = s.wait_screenshot(
            lambda img: s.window_border(img, FOCUSED) == want and want, timeout=15,
            what=f"Logo+left drag by ({dx},{dy}) to move the window from {r0} to {want}")
        log(f"moved to {r1}")

        # Resize from the bottom-right corner: grab near it, drag by (-150, -100).
        dw, dh = -150, -100
        grab = (r1.x2 - 40, r1.y2 - 40)
        s.logo_drag("right", grab, (dw, dh))
        want2 = Rect(r1.x, r1.y, r1.w + dw, r1.h + dh)

        def resized(img):
            r = s.window_border(img, FOCUSED)
            if r is None:
                return None
            ok = (r.x, r.y) == (want2.x, want2.y) and abs(r.w - want2.w) <= 2 \
                and abs(r.h - want2.h) <= 2
            return r if ok else None

        _, r2 = s.wait_screenshot(
            resized, timeout=15,
            what=f"Logo+right drag near the bottom-right corner by ({dw},{dh}) to resize "
                 f"{r1} to about {want2} (top-left fixed)")
        log(f"resized (bottom-right) to {r2}")

        # Resize from the top-left corner: the bottom-right corner stays put.
        dl, dt = -60, -40
        grab = (r2.x + 40, r2.y + 40)
        s.logo_drag("right", grab, (dl, dt))
        want3 = Rect(r2.x + dl, r2.y + dt, r2.w - dl, r2.h - dt)

        def resized_tl(img):
            r = s.window_border(img, FOCUSED)
            if r is None:
                return None
            ok = (r.x2, r.y2) == (want3.x2, want3.y2) and abs(r.x - want3.x) <= 2 \
                and abs(r.y - want3.y) <= 2
            return r if ok else None

        _, r3 = s.wait_screenshot(
            resized_tl, timeout=15,
            what=f"Logo+right drag near the top-left corner by ({dl},{dt}) to resize "
                 f"{r2} to about {want3} (bottom-right fixed)")
        log(f"resized (top-left) to {r3}")
        check(r3.w > r2.w and r3.h > r2.h, f"top-left resize did not grow the window: {r3}")


harness.main(test)
