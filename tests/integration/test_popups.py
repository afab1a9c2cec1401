#!/usr/bin/env python3
"""xdg popups (menus): placed where the client's positioner asks, relative to
its window, and flipped or slid to stay on the output when they would not
fit; drawn above their window, whole (the window's area is the reference
picture reference/popup-*.png). A window geometry and a positioner at the
int32 limits (any client may send them) leave the compositor running, the
window's geometry held within the view's limit, and a menu opened after it
placed as usual (session 38: the sums overflowed; the UBSan build died).
A menu 2^31 - 1 from its window (`--far-menu`) overflows any 32-bit sum of
the window's place and the menu's: popup_unconstrain's (session 38's mend,
in 64 bits) and the frame walk's (render.c, session 39): the sanitizer
build dies without either; the release build wraps and shows nothing."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

WINDOW = (128, 128, 128)
MENU = (255, 128, 0)


def popup_tool(h):
    return os.environ.get("SMT_POPUP") or os.path.join(os.path.dirname(h.vpointer), "smt-popup")


def open_menu(s, h, args):
    excl = s.cursor_exclusion()
    p = s.spawn([popup_tool(h)] + [str(a) for a in args])

    def both(img):
        w, m = img.bbox(WINDOW, exclude=excl), img.bbox(MENU, exclude=excl)
        return (w, m) if w is not None and m is not None else None

    img, (win, menu) = s.wait_screenshot(both, what="the window and its menu")
    log(f"window {win}, menu {menu}")
    return p, img, win, menu


def test(h):
    with Session(h) as s:
        # Room enough: the menu's top-left is the anchor point (bottom-right
        # anchor and gravity on a 1x1 rectangle at 100,50 -> 101,51).
        p, img, win, menu = open_menu(s, h, [400, 300, 100, 50, 150, 120])
        check((menu.x - win.x, menu.y - win.y) == (101, 51),
              f"menu at {menu.x - win.x},{menu.y - win.y} relative to its window, expected 101,51")
        check((menu.w, menu.h) == (150, 120), f"menu is {menu.w}x{menu.h}, expected 150x120")
        s.check_reference(img, win, "popup-inside")
        p.terminate()

    with Session(h, "constrained") as s:
        # A wide window whose menu opens near its right edge would run off
        # the output: flip_x puts it to the left of the anchor instead.
        p, img, win, menu = open_menu(s, h, [1100, 200, 1090, 20, 300, 100])
        check(menu.x + menu.w <= 1280, f"menu {menu} runs off the 1280 px wide output")
        check(menu.x + menu.w <= win.x + 1091, f"menu {menu} was not flipped left of the anchor")
        check(menu.w == 300 and menu.h == 100, f"menu is {menu.w}x{menu.h}, expected 300x100")
        s.check_reference(img, win, "popup-flipped-left")
        # Near the bottom edge it flips upwards. (The first window gone from
        # the screen first: its end is read by the compositor in its own
        # time, and the next look must not find its colours.)
        p.terminate()
        s.wait_screenshot(lambda img: img.bbox(WINDOW) is None and img.bbox(MENU) is None,
                          what="the first window and its menu gone")
        p, img, win, menu = open_menu(s, h, [600, 680, 20, 670, 200, 150])
        check(menu.y + menu.h <= 720, f"menu {menu} runs off the bottom of the output")
        check(menu.y >= 0, f"menu {menu} runs off the top of the output")

    with Session(h, "extreme") as s:
        for mode in ("--extreme-menu", "--extreme", "--far-menu"):
            extreme_window(s, h, mode)
        p, img, win, menu = open_menu(s, h, [400, 300, 100, 50, 150, 120])
        check((menu.x - win.x, menu.y - win.y) == (101, 51),
              f"after the extreme windows: menu at {menu.x - win.x},{menu.y - win.y}, "
              f"expected 101,51")
        s.check_alive()


def extreme_window(s, h, mode):
    """A window whose menu's anchor and offset (and with --extreme its
    geometry; with --far-menu the anchor only, the menu at 2^31 - 1 in the
    window) are at the int32 limits: the compositor lives, the window's
    geometry is listed within the view's limit, and it goes cleanly."""
    p = s.spawn([popup_tool(h), "300", "200", "10", "10", "100", "80", mode])
    s.wait_until(lambda: "popup " in open(p.log_path).read() or not p.alive(),
                 what="the extreme window's menu to be configured")
    s.wait_until(lambda: any(w.get("title") == "smt-popup" for w in s.windows()),
                 what="the extreme window to be listed")
    s.check_alive()
    win = [w for w in s.windows() if w.get("title") == "smt-popup"][0]
    check(win["width"] <= 1 << 24 and win["height"] <= 1 << 24,
          f"a window geometry of 2^31 - 1 listed as {win}")
    log(f"{mode}: window listed as {win['width']}x{win['height']}, "
        f"its menu: {open(p.log_path).read().strip()}")
    p.terminate()
    s.wait_until(lambda: not any(w.get("title") == "smt-popup" for w in s.windows()),
                 what="the extreme window gone")


harness.main(test)
