#!/usr/bin/env python3
"""weston-simple-shm's 250x250 window appears and animates."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402

SIZE = 250


def test(h):
    with Session(h) as s:
        s.spawn(["weston-simple-shm"])
        excl = s.cursor_exclusion()

        def window(img):
            r = img.bbox_not(BACKGROUND, exclude=excl)
            return r if r is not None and r.w == SIZE and r.h == SIZE else None

        img1, r = s.wait_screenshot(window, timeout=10,
                                    what=f"a {SIZE}x{SIZE} non-background region (simple-shm)")
        log(f"simple-shm window at {r}")
        nonbg = img1.count_not(BACKGROUND, rect=r)
        check(nonbg >= 0.9 * SIZE * SIZE, lambda:
              f"only {nonbg} of {SIZE * SIZE} pixels of the window differ from the background "
              f"(saved {s.save(img1, 'window')})")
        # simple-shm paints a 20 px white margin, then its pattern inside.
        white = img1.count((255, 255, 255), rect=harness.Rect(r.x, r.y, SIZE, 20))
        check(white >= 0.9 * SIZE * 20, lambda:
              f"top margin of simple-shm should be white, {white} of {SIZE * 20} pixels are "
              f"(saved {s.save(img1, 'margin')})")
        inner = r.inset(20)
        distinct = len(img1.colors(inner, top=1000))
        check(distinct > 20, lambda: f"simple-shm pattern has only {distinct} colours "
                             f"(saved {s.save(img1, 'pattern')})")

        # It animates (frame callbacks are answered): the inside changes.
        def changed(img):
            if window(img) != r:
                return None
            d = img.diff_count(img1, inner)
            return d if d > 1000 else None

        img2, d = s.wait_screenshot(changed, timeout=15,
                                    what="the simple-shm pattern to change (animation)")
        log(f"{d} pixels changed between screenshots")
        # And outside the window nothing but background.
        outside = img2.count_not(BACKGROUND, exclude=[r] + excl)
        check(outside == 0, lambda: f"{outside} non-background pixels outside the window "
                            f"(saved {s.save(img2, 'outside')})")


harness.main(test)
