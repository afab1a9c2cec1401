#!/usr/bin/env python3
"""Two foot windows: the newer one has focus; clicking the older one focuses
and raises it (border colours swap) and keyboard input then goes to it."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, UNFOCUSED, Rect, Session, check, fail, log, read_file  # noqa: E402


def reader(path):
    return ["foot", "sh", "-c", f'read l; printf %s "$l" > {shlex.quote(path)}']


def test(h):
    with Session(h) as s:
        f1 = os.path.join(s.tmp, "file1")
        f2 = os.path.join(s.tmp, "file2")
        foot1 = s.spawn(reader(f1), name="foot1")
        _, r1 = s.wait_for_border(FOCUSED, timeout=15, what="the first foot window")
        log(f"window 1 at {r1}")

        foot2 = s.spawn(reader(f2), name="foot2")

        def two_windows(img):
            r2 = s.window_border(img, FOCUSED)
            if r2 is None or r2 == r1:
                return None
            u = img.bbox(UNFOCUSED, exclude=s.cursor_exclusion())
            return (r2, u) if u is not None else None

        img, (r2, u1) = s.wait_screenshot(
            two_windows, timeout=15,
            what="a second focused window and the first one with an unfocused border")
        log(f"window 2 at {r2}; unfocused border bbox {u1}")
        check(u1 == r1, lambda: f"the first window's unfocused border spans {u1}, expected {r1} "
                        f"(did it move?) (saved {s.save(img, 'two')})")
        check(r2 != r1, "the two windows are exactly on top of each other (no cascading)")

        # A point inside window 1, well away from window 2 and from the border.
        inner = r1.inset(20)
        candidates = [(inner.x, inner.y), (inner.x2 - 1, inner.y), (inner.x, inner.y2 - 1),
                      (inner.x2 - 1, inner.y2 - 1), inner.center()]
        grown = Rect(r2.x - 10, r2.y - 10, r2.w + 20, r2.h + 20)
        spot = next((p for p in candidates if not grown.contains(*p)), None)
        if spot is None:
            fail(f"no spot of window 1 {r1} is clear of window 2 {r2}")
        log(f"clicking window 1 at {spot}")
        s.click(*spot)
        s.park_pointer()

        def swapped(img):
            a = s.window_border(img, FOCUSED)
            if a != r1:
                return None
            b = img.bbox(UNFOCUSED, exclude=s.cursor_exclusion())
            return b if b == r2 else None

        s.wait_screenshot(swapped, timeout=15,
                          what=f"window 1 {r1} with a complete focused border (focused and raised) "
                               f"and window 2 {r2} with an unfocused one")

        s.type_text("first", enter=True)
        rc = foot1.wait(10)
        check(rc is not None, f"window 1's shell did not get the line; file1={read_file(f1)!r} "
                              f"file2={read_file(f2)!r}")
        check(read_file(f1) == "first", f"file1 holds {read_file(f1)!r}, expected 'first'")
        check(read_file(f2) is None, f"window 2 received input: file2={read_file(f2)!r}")
        check(foot2.alive(), f"window 2's foot exited unexpectedly:\n{foot2.log_tail()}")


harness.main(test)
