#!/usr/bin/env python3
"""Resizing a ring client's window resizes its canvas without garbage: after
Logo+right-drag the window has the new size, the client redraws into the
whole new canvas (no desktop or stale pixels show through: the content is
reference/ring-resize-grown.png), and the frame still comes only from the
ring. And the resize keeps what fits: a client
that presents the resized canvas without drawing shows its old frame
pixel for pixel (the compositor copies the old pixels into the new images
in bands over the ring's slices; test_canvas_copy checks those bands
split after every band)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Rect, Session, check, log  # noqa: E402

BORDER = 2


def demo_tool(h):
    build = os.path.dirname(os.path.dirname(os.path.dirname(h.vpointer)))
    return os.environ.get("SMT_DEMO") or os.path.join(build, "clients", "smt-demo")


def grow(s, frame, dx, dy):
    """Logo+right-drag of the bottom-right corner by (dx, dy); returns the
    screenshot and the frame once the window has grown."""
    start = (frame.x + frame.w - 20, frame.y + frame.h - 20)
    end = (start[0] + dx, start[1] + dy)
    hold = s.hold_modifiers("logo")
    s.vpointer("move", *start, "down", "right", "move", *end, "up", "right")
    s.release_modifiers(hold)
    s.park_pointer()
    excl = s.cursor_exclusion()

    def grown(img):
        f = img.bbox(FOCUSED, exclude=excl)
        return f if f is not None and f.w >= frame.w + dx - 10 and f.h >= frame.h + dy - 10 \
            else None
    return s.wait_screenshot(grown, what="the window to grow by the drag")


def kept_pixels(h):
    with Session(h, "kept") as s:
        s.park_pointer()  # off the window in both screenshots
        excl = s.cursor_exclusion()
        demo = s.spawn([demo_tool(h), "--static", "--keep-on-resize"])
        s.wait_until(lambda: "DEMO_READY" in open(demo.log_path).read(), timeout=15,
                     what="smt-demo to draw")
        img0, frame = s.wait_screenshot(lambda img: img.bbox(FOCUSED, exclude=excl),
                                        what="the demo window")
        _, after = grow(s, frame, 150, 60)
        s.wait_until(lambda: "KEPT" in open(demo.log_path).read(), timeout=15,
                     what="the PRESENT of the resized canvas to be reported")
        img1 = s.screenshot()
        old = frame.inset(BORDER)
        check(after.x == frame.x and after.y == frame.y, f"the window moved: {frame} -> {after}")
        d = img1.diff_count(img0, old)
        check(d == 0, lambda: f"{d} pixels of the old frame changed by the resize "
                              f"(saved {s.save(img0, 'kept-before')}, "
                              f"{s.save(img1, 'kept-after')})")
        log(f"resize {frame} -> {after}: the old {old.w}x{old.h} pixels kept")


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

        def content(img):
            # The canvas, as the compositor places it: inside the border and
            # below the title bar (server-side decorations).
            if grown(img) is None:
                return None
            w = next(w for w in s.windows() if w["focused"])
            return Rect(w["x"], w["y"], w["width"], w["height"])

        # The client redraws the whole new canvas after the resize: until its
        # PRESENT the grown canvas still shows the old frame in its top left.
        # Settled, the content is the reference picture: no desktop or stale
        # pixels anywhere, the new area the demo's own background.
        _, after = s.wait_reference(content, "ring-resize-grown")
        log(f"content after: {after}")
    kept_pixels(h)


harness.main(test)
