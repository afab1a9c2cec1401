#!/usr/bin/env python3
"""Windows open where they fit, and menus stay on the output.

- Under a panel with an exclusive zone, a window asking for more than the
  usable area (foot at 2000x1200 px) is configured to fit it and opens inside.
- gtk3-widget-factory insists on being larger than the output (its minimum
  size is): it still opens with its title bar (header bar) on the output,
  at the top-left of the usable area; its file chooser dialog opens centred
  over it as far as the output allows, whole, Cancel and Open reachable.
- A menu of each toolkit (a GTK3 combo box menu, GTK4's primary menu
  popover, a Qt5 combo box) opened from a window dragged near the bottom or
  right edge of the output is placed inside the output, and it is really
  drawn there. Qt 5 allows its popups no adjustment at all; they are slid
  onto the output anyway.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import OUTPUT_H, OUTPUT_W, QT_GALLERY, Rect, Session, check, log  # noqa: E402

PANEL_H = 40
BORDER = 2
OUTPUT = Rect(0, 0, OUTPUT_W, OUTPUT_H)
TOOLKIT_ENV = {"GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1", "GDK_BACKEND": "wayland",
               "QT_QPA_PLATFORM": "wayland"}


def panel_tool(h):
    return os.environ.get("SMT_PANEL") or os.path.join(os.path.dirname(h.vpointer), "smt-panel")


def window_rect(w):
    return Rect(w["x"], w["y"], w["width"], w["height"])


def inside(inner, outer):
    return inner.x >= outer.x and inner.y >= outer.y and inner.x2 <= outer.x2 \
        and inner.y2 <= outer.y2


def app_window(s, app_id):
    return next((w for w in s.windows() if w["app_id"] == app_id), None)


def settle(s, app_id):
    """The window once it has answered every configure and its geometry is
    the same in two looks in a row."""
    prev = [None]

    def same():
        w = app_window(s, app_id)
        ok = w is not None and prev[0] is not None and not w["configure_pending"] and \
            window_rect(w) == window_rect(prev[0])
        prev[0] = w
        return w if ok else None

    return s.wait_until(same, timeout=30, what=f"{app_id}'s window to settle", interval=0.3)


def settle_pid(s, pid, first):
    """A window of pid other than the first one it mapped, once settled (as
    settle)."""
    prev = [None]

    def same():
        w = next((w for w in s.windows() if w["pid"] == pid and w["title"] == first["title"]),
                 None)
        ok = w is not None and prev[0] is not None and not w["configure_pending"] and \
            window_rect(w) == window_rect(prev[0])
        prev[0] = w
        return w if ok else None

    return s.wait_until(same, timeout=30, what=f"the window '{first['title']}' to settle",
                        interval=0.3)


def drag_window(s, win, delta):
    """Logo + left drag from a point of the window by delta."""
    x0, y0 = win["x"] + 10, win["y"] + 10
    hold = s.hold_modifiers("logo")
    try:
        s.vpointer("move", x0, y0, "down", "left", "move", x0 + delta[0] // 2,
                   y0 + delta[1] // 2, "move", x0 + delta[0], y0 + delta[1], "up", "left")
    finally:
        s.release_modifiers(hold)
    s.park_pointer()
    want = (win["x"] + delta[0], win["y"] + delta[1])
    return s.wait_until(
        lambda: next((w for w in [app_window(s, win["app_id"])]
                      if w and (w["x"], w["y"]) == want), None),
        what=f"{win['app_id']} dragged to {want}")


def check_menu(s, app_id, delta, click_at, label, close_at=None):
    """Drags the window by delta, clicks at click_at (relative to the window
    geometry), and checks the menu that opens is inside the output and drawn
    where the compositor says it is."""
    win = drag_window(s, settle(s, app_id), delta)
    before = s.screenshot()
    x, y = win["x"] + click_at[0], win["y"] + click_at[1]
    s.click(x, y)
    s.park_pointer()

    def menu_drawn(img):
        w = app_window(s, app_id)
        if w is None or not w["popups"]:
            return None
        box = Rect(*(w["popups"][-1][k] for k in ("x", "y", "width", "height")))
        visible = box.intersect(OUTPUT)
        changed = img.diff_bbox(before, visible)
        # Drawn there: what changed spans (nearly) all of the menu's visible box.
        ok = changed is not None and changed.w >= visible.w - 8 and changed.h >= visible.h - 8
        return (box, changed) if ok else None

    img, (box, changed) = s.wait_screenshot(menu_drawn, timeout=15,
                                            what=f"{label}: the menu opened at {x},{y}")
    log(f"{label}: window {window_rect(win)}, menu {box}, pixels changed in {changed}")
    check(inside(box, OUTPUT), lambda: f"{label}: the menu {box} runs off the output "
          f"(window {window_rect(win)}; shot {s.save(img, label)})")
    if close_at is None:
        s.key("Escape")
    else:
        s.click(*close_at)
        s.park_pointer()
    s.wait_until(lambda: not (app_window(s, app_id) or {"popups": [1]})["popups"],
                 what=f"{label}: the menu to close on " +
                 ("Escape" if close_at is None else f"a click at {close_at}"))


def test(h):
    with Session(h) as s:
        s.spawn([panel_tool(h), "--anchor", "top", "--size", PANEL_H, "--exclusive", PANEL_H,
                 "--color", "c03030"])
        area = Rect(0, PANEL_H, OUTPUT_W, OUTPUT_H - PANEL_H)
        s.wait_screenshot(lambda img: img.count((192, 48, 48), rect=Rect(0, 0, 1200, PANEL_H))
                          > 1000 * PANEL_H or None, what="the panel")

        # Larger than the usable area, and willing to shrink: fits.
        s.spawn(["foot", "--window-size-pixels=2000x1200", "sh", "-c", "read l"])
        foot = settle(s, "foot")
        framed = Rect(foot["x"] - BORDER, foot["y"] - BORDER, foot["width"] + 2 * BORDER,
                      foot["height"] + 2 * BORDER)
        check(inside(framed, area), f"foot asked for 2000x1200 and was given {framed} "
              f"(frame included), not inside the usable area {area}")
        log(f"foot asked for 2000x1200 and got {window_rect(foot)}")

        # Larger than the output and unwilling to shrink: its title bar shows.
        s.spawn(["gtk3-widget-factory"], env=TOOLKIT_ENV)
        gwf = settle(s, "gtk3-widget-factory")
        g = window_rect(gwf)
        log(f"gtk3-widget-factory: {g}")
        check(g.w > OUTPUT_W, f"gtk3-widget-factory shrank to {g}: the test needs a window "
              "that does not fit")
        check((g.x, g.y) == (area.x, area.y),
              f"gtk3-widget-factory at {g.x},{g.y}, expected the usable area's top-left "
              f"{area.x},{area.y}")
        img = s.screenshot()
        header = Rect(g.x, g.y, OUTPUT_W - g.x, 40)
        light = img.count((255, 255, 255), tol=75, rect=header, exclude=s.cursor_exclusion())
        check(light > 0.5 * header.w * header.h,
              lambda: f"gtk3-widget-factory's header bar is not at the top of its window "
              f"on screen (shot {s.save(img, 'header')})")

        # Its file chooser button (470,425 in the window) opens a dialog: centred
        # over the window, and inside the usable area whole, buttons included.
        s.click(g.x + 470, g.y + 425)
        s.park_pointer()
        dialog = s.wait_window(lambda w: w["pid"] == gwf["pid"] and w["app_id"] ==
                               "gtk3-widget-factory" and w["width"] < OUTPUT_W,
                               what="gtk3-widget-factory's file chooser dialog")
        d = window_rect(settle_pid(s, gwf["pid"], dialog))
        log(f"file chooser dialog: {d}")
        check(inside(d, area), f"the file chooser dialog {d} is not inside the usable area "
              f"{area}")
        want_x = max(area.x, min(g.x + (g.w - d.w) // 2, area.x2 - d.w))
        check(abs(d.x - want_x) <= 1, f"the dialog {d} is not centred over its window {g} "
              f"(as far as the output allows: x {want_x})")
        s.click(d.x + 47, d.y + 22)  # its Cancel button
        s.park_pointer()
        s.wait_until(lambda: len([w for w in s.windows() if w["pid"] == gwf["pid"]]) == 1,
                     what="the file chooser to close on its Cancel button")

        # GTK3: the "Left" combo box (70,293 in the window) near the bottom edge.
        check_menu(s, "gtk3-widget-factory", (0, 690 - 293 - g.y), (70, 293), "gtk3-combo",
                   close_at=(600, PANEL_H // 2))
        s.run(["kill", str(gwf["pid"])])

    with Session(h, "gtk4") as s:
        # GTK4: the primary menu button (71 px from the right, 23 down) near the
        # right edge, and then near the bottom edge.
        s.spawn(["gtk4-demo"], env=TOOLKIT_ENV)
        w = settle(s, "gtk4-demo")
        button = (w["width"] - 71, 23)
        check_menu(s, "gtk4-demo", (OUTPUT_W - 10 - w["x"] - button[0], 0), button,
                   "gtk4-menu-right")
        w = settle(s, "gtk4-demo")
        check_menu(s, "gtk4-demo", (0, OUTPUT_H - 40 - w["y"] - button[1]), button,
                   "gtk4-menu-bottom")

    with Session(h, "qt5") as s:
        # Qt5: the gallery's "Style" combo box (93,22 in the window) near the bottom.
        s.spawn([QT_GALLERY], env=TOOLKIT_ENV)
        w = settle(s, "gallery")
        check_menu(s, "gallery", (0, OUTPUT_H - 12 - w["y"] - 22), (93, 22), "qt5-combo",
                   close_at=(1000, 300))


if __name__ == "__main__":
    harness.main(test)
