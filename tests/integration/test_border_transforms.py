#!/usr/bin/env python3
"""A window's border is drawn whole at every output transform and scale.

Borders are scene rects. wlroots 0.15's pixman renderer fills a rect from
its matrix without the output's turn, so on an output rotated 90 or 270
degrees only a few pixels of a side border showed (session 37: the focused
border's box 660x4 where it is 1220x710 unrotated); the compositor now
fills rects itself (output/paint_direct.c). Here one focused window's
border must be the same frame, every pixel of its outline the focused
colour, at all eight transforms (grim shows the output as the user sees
it, so the frame does not move with the turn), and twice the size at scale
2. (test_render_culling compares partial and full repaints.)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Rect, Session, check, log  # noqa: E402

TRANSFORMS = ("normal", "90", "180", "270", "flipped", "flipped-90", "flipped-180",
              "flipped-270")


def frame_of(s, label):
    """The focused border's box and its pixel count, once the frame is
    still; fails naming what was drawn instead."""
    img = s.wait_still(label)
    box = img.bbox(FOCUSED, exclude=s.cursor_exclusion())
    if box is None:
        s.save(img, label)
        check(False, f"{label}: no pixel of the focused border's colour")
    match, total = img.frame_count(box, FOCUSED)
    if match != total:
        path = s.save(img, label)
        check(False, f"{label}: the focused border's box {box} has {total - match} of "
                     f"{total} outline pixels in other colours (saved {path})")
    return box, img.count(FOCUSED, exclude=s.cursor_exclusion())


def test(h):
    probe = os.environ["SMT_PROBE"]
    with Session(h) as s:
        s.spawn([probe, "--ssd", "--size", "200x150", "--color", "c03030"], name="probe")
        s.wait_window(lambda w: w["width"] == 200, what="the probe's window")
        s.wait_for_border(FOCUSED, what="the probe focused")
        s.park_pointer()
        box, count = frame_of(s, "normal-1")
        log(f"scale 1 normal: border box {box}, {count} pixels")
        for scale in ("1", "2"):
            k = int(scale)
            want = Rect(box.x * k, box.y * k, box.w * k, box.h * k)
            for transform in TRANSFORMS:
                label = f"{transform}-{scale}"
                s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", scale,
                       "--transform", transform])
                got, n = frame_of(s, label)
                check(got == want and n == count * k * k,
                      f"{label}: the focused border is {got} with {n} pixels; "
                      f"at normal it is {want} with {count * k * k}")
        log("the border whole at every transform, scale 1 and 2")


if __name__ == "__main__":
    harness.main(test)
