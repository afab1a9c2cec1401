#!/usr/bin/env python3
"""wlr-layer-shell: a wallpaper (swaybg, which nobody here wrote) on the
background layer, a panel whose exclusive zone keeps maximized windows out
of it, and an overlay that takes the keyboard exclusively."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Rect, Session, check, log  # noqa: E402

WALLPAPER = (0x20, 0x80, 0x20)
PANEL = (0xc0, 0x30, 0x30)
PANEL_H = 30
FOOT_BG = (17, 17, 17)


def panel_tool(h):
    return os.environ.get("SMT_PANEL") or os.path.join(os.path.dirname(h.vpointer), "smt-panel")


def test(h):
    with Session(h) as s:
        excl = s.cursor_exclusion()
        s.spawn(["swaybg", "-c", "#208020", "-m", "solid_color"])
        s.wait_screenshot(
            lambda img: img.count(WALLPAPER, tol=2, exclude=excl) > 1280 * 700 or None,
            what="swaybg's wallpaper to cover the output")

        s.spawn([panel_tool(h), "--anchor", "top", "--size", PANEL_H,
                 "--exclusive", PANEL_H, "--color", "c03030"])
        img, _ = s.wait_screenshot(
            lambda img: img.count(PANEL, rect=Rect(0, 0, 1280, PANEL_H), exclude=excl)
            > 1200 * PANEL_H or None, what="the panel along the top edge")
        below = img.count(PANEL, rect=Rect(0, PANEL_H, 1280, 720 - PANEL_H))
        check(below == 0, f"{below} panel pixels below the panel's {PANEL_H} px")

        # A window opened now and maximized must stay out of the panel.
        s.spawn(["foot"])
        s.wait_for_border(FOCUSED)
        s.key("logo+m")

        def maximized(img):
            # foot's background fills the usable area: all of the output
            # but the panel's exclusive zone (maximized windows have no frame).
            r = img.bbox(FOOT_BG, exclude=excl)
            return r if r == Rect(0, PANEL_H, 1280, 720 - PANEL_H) else None

        img, r = s.wait_screenshot(maximized, timeout=10,
                                   what="the maximized window below the panel")
        log(f"maximized window border at {r}")
        check(img.count(PANEL, rect=Rect(0, 0, 1280, PANEL_H), exclude=excl) > 1200 * PANEL_H,
              lambda: f"the panel is covered (saved {s.save(img, 'panel')})")

        # An overlay with exclusive keyboard interactivity gets the keys.
        overlay = s.spawn([panel_tool(h), "--anchor", "bottom", "--size", 40,
                           "--layer", "overlay", "--keyboard", "exclusive",
                           "--color", "3030c0"])
        s.wait_until(lambda: "keyboard enter" in open(overlay.log_path).read(),
                     what="the overlay to receive keyboard focus")
        s.type_text("x")
        s.wait_until(lambda: "key " in open(overlay.log_path).read(),
                     what="a key to reach the exclusive overlay")


harness.main(test)
