#!/usr/bin/env python3
"""Client-side-decorated windows move, resize and go fullscreen by their
window geometry, not their shadow.

weston-terminal draws its own frame and a shadow around it. For each step
the visible frame in the screenshot (its light pixels; the shadow only
darkens the desktop) must be exactly the geometry the compositor reports:
- Logo + left drag moves it by exactly the drag distance;
- Logo + right drag from near its top-left corner resizes it there while
  its bottom-right corner stays exactly where it was (the terminal picks a
  size in whole character cells, and the frame still ends on that corner);
- a click just inside its frame reaches it (the shadow does not shift
  hit-testing), and fullscreen gives it the whole output (the terminal
  then draws no frame: no pixel of the desktop shows).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, OUTPUT_H, OUTPUT_W, Image, Rect, Session, check, log  # noqa: E402

APP = "org.freedesktop.weston.wayland-terminal"
LIGHT = 150


def light_bbox(s, img):
    m, r = img.mask((255, 255, 255), tol=255 - LIGHT, exclude=s.cursor_exclusion())
    return Image._mask_bbox(m, r)


def rect(w):
    return Rect(w["x"], w["y"], w["width"], w["height"])


def settled(s):
    """The terminal's window and its frame on screen, once the compositor has
    no configure unanswered and the frame drawn is the geometry reported."""
    def check_once(img):
        w = next((w for w in s.windows() if w["app_id"] == APP), None)
        if w is None or w["configure_pending"]:
            return None
        return w if light_bbox(s, img) == rect(w) else None
    return s.wait_screenshot(check_once, timeout=15, what="the frame drawn at the geometry")[1]


def drag(s, button, start, delta):
    x0, y0 = start
    hold = s.hold_modifiers("logo")
    try:
        s.vpointer("move", x0, y0, "down", button, "move", x0 + delta[0] // 2,
                   y0 + delta[1] // 2, "move", x0 + delta[0], y0 + delta[1], "up", button)
    finally:
        s.release_modifiers(hold)
    s.park_pointer()


def test(h):
    with Session(h, config="[general]\nbackground = #303040\n") as s:
        s.spawn(["weston-terminal"])
        g0 = rect(settled(s))
        log(f"weston-terminal at {g0}")

        drag(s, "left", (g0.x + g0.w // 2, g0.y + g0.h // 2), (150, 90))
        g1 = rect(settled(s))
        check(g1 == Rect(g0.x + 150, g0.y + 90, g0.w, g0.h),
              f"moved by (150, 90) from {g0}: now {g1}")

        drag(s, "right", (g1.x + 20, g1.y + 20), (-60, -40))
        g2 = rect(settled(s))
        log(f"resized from the top-left: {g2}")
        check(g2.w > g1.w and g2.h > g1.h, f"not resized: {g1} -> {g2}")
        check((g2.x2, g2.y2) == (g1.x2, g1.y2),
              f"resizing from the top-left moved the bottom-right corner: {g1} -> {g2}")

        # A click just inside the frame's bottom-right corner focuses it.
        s.spawn(["foot", "sh", "-c", "read l"])
        s.wait_window(lambda w: w["app_id"] == "foot" and w["focused"], what="foot on top")
        foot = rect(next(w for w in s.windows() if w["app_id"] == "foot"))
        cx, cy = g2.x2 - 3, g2.y2 - 3
        check(not foot.contains(cx, cy), f"foot {foot} covers the test point {(cx, cy)}")
        s.click(cx, cy)
        s.park_pointer()
        s.wait_window(lambda w: w["app_id"] == APP and w["focused"],
                      what="a click just inside the frame to focus the terminal")

        s.key("logo+f")
        s.wait_until(lambda: next(w for w in s.windows() if w["app_id"] == APP)["fullscreen"],
                     what="the terminal fullscreen")
        s.wait_screenshot(
            lambda img: (not next(w for w in s.windows() if w["app_id"] == APP)[
                "configure_pending"] and img.count(BACKGROUND, exclude=s.cursor_exclusion()) == 0)
            or None, what="the fullscreen terminal to cover the whole output")
        w = next(w for w in s.windows() if w["app_id"] == APP)
        check(rect(w) == Rect(0, 0, OUTPUT_W, OUTPUT_H), f"fullscreen geometry: {w}")


harness.main(test)
