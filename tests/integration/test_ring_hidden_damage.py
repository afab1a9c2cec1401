#!/usr/bin/env python3
"""A ring window's damage under opaque windows is not repainted, and
nothing of it is lost (session 36).

wlroots adds a node's damage to the outputs whatever covers it, so every
PRESENT of a window under another repainted its area with the pixels of
the window on top: among a dozen flooding ring windows under one, most of
a frame's render, and input waits behind the render. A canvas's damage
now loses what opaque nodes above it hide (ring/canvas.c,
output_hide_under_opaque in output/render.c).

smt-present-colours fills its canvas with a new colour per PRESENT and
waits for each one's `presented`:
- under a fullscreen foot (opaque), 20 PRESENTs each get their
  `presented` with a display time (a frame still comes for them), and the
  outputs' damage grows by less than one canvas (before: 20 canvases);
- once foot is gone, the whole canvas shows the last colour (nothing was
  lost by not repainting it);
- half covered by a window above it, the part that shows takes each new
  colour;
- the frame then equals wlroots' scene renderer's full repaint."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Rect, Session, build_program, check, log  # noqa: E402
from harness.present_colours import present_colours, start_colours  # noqa: E402

SIDE = 256
HIDDEN_PRESENTS = 20
BORDER = 40  # more than a window's decorations around its geometry


def canvas_rect(s):
    w = s.wait_window(lambda w: w["app_id"] == "present-colours", what="the colours window")
    return Rect(w["x"], w["y"], w["width"], w["height"])


def wait_colour(s, rect, rgb, what):
    def shows(img):
        return img if img.count_not(rgb, tol=1, rect=rect, exclude=s.cursor_exclusion()) == 0 \
            else None
    return s.wait_screenshot(shows, timeout=15, what=what)[0]


def wait_colour_any(s, rect):
    """The one colour the window shows once drawn."""
    def one(img):
        top = img.colors(rect=rect, top=2)
        return top[0][0] if len(top) == 1 else None
    return s.wait_screenshot(one, timeout=15, what="the window drawn")[1]


def test(h):
    tool = build_program("SMT_PRESENT_COLOURS", "tests/tools/smt-present-colours")
    with Session(h) as s:
        p = start_colours(s, tool, SIDE)
        rect = canvas_rect(s)
        s.park_pointer()
        first = wait_colour_any(s, rect)
        check(rect.w == SIDE and rect.h == SIDE, f"the window is {rect}, not {SIDE}x{SIDE}")

        # Hidden whole under an opaque fullscreen terminal.
        foot = s.spawn(["foot", "--fullscreen", "sleep", "600"], name="foot-fullscreen")
        s.wait_window(lambda w: w["app_id"] == "foot" and w["fullscreen"],
                      what="foot fullscreen")
        s.park_pointer()

        def covered(img):
            # one colour, not the tool's: foot's background over all of it
            top = img.colors(rect=rect, top=2)
            return img if len(top) == 1 and top[0][0] != first else None
        s.wait_screenshot(covered, timeout=15, what="foot's background over the window")
        before = s.control("stats")["render"]
        came, shown, last = present_colours(s, p, HIDDEN_PRESENTS)
        after = s.control("stats")["render"]
        damaged = after["pixels_damaged"] - before["pixels_damaged"]
        frames = after["frames"] - before["frames"]
        log(f"{HIDDEN_PRESENTS} hidden PRESENTs: {came} reported, {shown} with a display time; "
            f"{frames} frames, {damaged} pixels damaged")
        check(came == HIDDEN_PRESENTS and shown == HIDDEN_PRESENTS,
              f"hidden PRESENTs: {came} reported, {shown} shown of {HIDDEN_PRESENTS}")
        check(damaged < SIDE * SIDE,
              f"{HIDDEN_PRESENTS} PRESENTs under an opaque window damaged {damaged} pixels "
              f"(a canvas is {SIDE * SIDE}): hidden damage is repainted")

        # Revealed: the last colour everywhere.
        s.stop_client(foot)
        wait_colour(s, rect, last, "the last colour on the revealed window")

        # Half covered: what shows follows each PRESENT.
        s.spawn(["foot", "sleep", "600"], name="foot")
        top = s.wait_window(lambda w: w["app_id"] == "foot", what="foot over the window")
        cover = Rect(top["x"], top["y"], top["width"], top["height"]).intersect(rect)
        check(0 < cover.w * cover.h < rect.w * rect.h,
              f"foot at {top} does not cover part of the window {rect}")
        s.park_pointer()
        for _ in range(3):
            came, shown, last = present_colours(s, p, 1)
            check(came == 1 and shown == 1, f"a half-covered PRESENT: {came}, {shown}")
            # The strip of the window left of (or above) foot.
            # (short of foot's border and title bar: BORDER pixels)
            strip = (Rect(rect.x, rect.y, cover.x - rect.x - BORDER, rect.h)
                     if cover.x > rect.x else
                     Rect(rect.x, rect.y, rect.w, cover.y - rect.y - BORDER))
            check(strip.w > 0 and strip.h > 0, f"no uncovered strip: {rect} under {cover}")
            wait_colour(s, strip, last, "the uncovered part taking the new colour")

        culled = s.screenshot()
        check(s.control("render scene").get("ok"), "render scene refused")
        scene = s.wait_screenshot(lambda img: img if img.diff_count(culled) == 0 else None,
                                  timeout=15, what="the scene renderer's frame equal")[0]
        log(f"half covered ({cover} of {rect} under foot): the rest took 3 colours; "
            f"the frame equals the scene renderer's ({scene.width}x{scene.height})")
        s.check_alive()


if __name__ == "__main__":
    harness.main(test)
