#!/usr/bin/env python3
"""Real toolkit windows where the compositor says they are.

Client-side-decorated windows (weston-terminal, GTK3, GTK4) draw a shadow
around their window geometry; a Qt5 window asks for server-side decoration
and gets our border. For each, the visible frame in a screenshot (its opaque,
light pixels: shadows only darken the desktop) must be exactly the window
geometry the control socket reports, a screencopy of that region must show
the same pixels, the window must open in the next cascade slot instead of
on the previous window, and maximizing must fill the usable area exactly.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, OUTPUT_H, OUTPUT_W, QT_GALLERY, Image, Rect, \
    Session, check, log  # noqa: E402

BORDER = 2  # the default border-width
LIGHT = 150  # every channel at least this: a window's frame, never the desktop or a shadow

PROGRAMS = [
    # (argv, env, app_id, decorated by the client)
    (["weston-terminal"], {}, "org.freedesktop.weston.wayland-terminal", True),
    (["gtk3-demo"], {}, "gtk3-demo", True),
    (["gtk4-demo"], {}, "gtk4-demo", True),
    ([QT_GALLERY], {"QT_QPA_PLATFORM": "wayland"}, "gallery", False),
]
TOOLKIT_ENV = {"GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1", "GDK_BACKEND": "wayland"}


def light_bbox(s, img):
    m, r = img.mask((255, 255, 255), tol=255 - LIGHT, exclude=s.cursor_exclusion())
    return Image._mask_bbox(m, r)


def window_rect(w):
    return Rect(w["x"], w["y"], w["width"], w["height"])


def cascade_axis(slot, size, frame, output_size):
    """Where a new window goes on one axis: its cascade slot (32 px steps),
    or centred when it would not fit there."""
    return slot if slot + size + frame <= output_size else (output_size - size) // 2


def wait_settled(s, app_id):
    """The window of app_id and a screenshot, once the geometry reported and
    the light frame on screen are the same in two screenshots in a row."""
    prev = [None]

    def settled(img):
        wins = [w for w in s.windows() if w["app_id"] == app_id]
        if len(wins) != 1:
            return None
        state = (window_rect(wins[0]), light_bbox(s, img))
        ok = state == prev[0] and state[1] is not None
        prev[0] = state
        return wins[0] if ok else None

    return s.wait_screenshot(settled, timeout=30, what=f"{app_id}'s window to settle")


def check_frame(s, img, win, csd, label):
    geo = window_rect(win)
    frame = light_bbox(s, img)
    log(f"{label}: geometry {geo}, light frame on screen {frame}")
    if csd:
        check(frame == geo, lambda: f"{label}: the window's frame is drawn at {frame}, "
              f"the compositor says its geometry is {geo} (shot: {s.save(img, label)})")
    else:
        # Server-side: our border goes around the geometry, the content fills it.
        border = s.window_border(img, FOCUSED)
        want = Rect(geo.x - BORDER, geo.y - BORDER, geo.w + 2 * BORDER, geo.h + 2 * BORDER)
        check(border == want, lambda: f"{label}: border at {border}, expected {want} around "
              f"the geometry {geo} (shot: {s.save(img, label)})")
        check(frame is not None and geo.x <= frame.x and geo.y <= frame.y and
              frame.x2 <= geo.x2 and frame.y2 <= geo.y2 and frame.w >= geo.w - 4,
              lambda: f"{label}: content {frame} does not fill the geometry {geo}")


def check_region_capture(s, img, win, label):
    """grim -g of the window geometry shows exactly those pixels."""
    geo = window_rect(win).intersect(Rect(0, 0, OUTPUT_W, OUTPUT_H))
    path = os.path.join(s.tmp, "region.ppm")
    s.run(["grim", "-t", "ppm", "-g", f"{geo.x},{geo.y} {geo.w}x{geo.h}", path], timeout=10)
    with open(path, "rb") as f:
        region = Image.from_ppm(f.read())
    full = s.screenshot()
    check((region.width, region.height) == (geo.w, geo.h),
          f"{label}: grim -g {geo} gave {region.width}x{region.height}")
    diff = region.diff_count(full.crop(geo))
    check(diff == 0, lambda: f"{label}: the region capture of {geo} differs from the "
          f"screen in {diff} pixels (shot: {s.save(full, label + '-region')})")


def test(h):
    with Session(h, config="[general]\nbackground = #303040\n") as s:
        # foot with its text cursor hidden: a dark window, nothing light.
        s.spawn(["foot", "sh", "-c", "printf '\\033[?25l'; read l"])
        s.wait_for_border(FOCUSED, timeout=15, what="foot's window")
        previous = window_rect(s.wait_window(lambda w: w["app_id"] == "foot"))
        for n, (argv, env, app_id, csd) in enumerate(PROGRAMS):
            e = dict(TOOLKIT_ENV)
            e.update(env)
            p = s.spawn(argv, env=e)
            img, win = wait_settled(s, app_id)
            geo = window_rect(win)
            frame = 0 if csd else BORDER
            slot = 32 * (n + 2)  # foot took the first one
            want = (cascade_axis(slot, geo.w, frame, OUTPUT_W),
                    cascade_axis(slot, geo.h, frame, OUTPUT_H))
            check((geo.x, geo.y) == want and geo != previous,
                  f"{app_id} opened at {geo.x},{geo.y} (previous window: {previous}); "
                  f"its cascade slot is {want}")
            check(not win["server_side_decoration"] == csd,
                  f"{app_id}: server_side_decoration is {win['server_side_decoration']}")
            previous = geo
            # Only this window is light: foot behind it is dark.
            check_frame(s, img, win, csd, app_id)
            check_region_capture(s, img, win, app_id)

            # Maximized, the geometry is the whole output and so is the frame.
            s.key("logo+m")

            def maximized(img):
                w = next((w for w in s.windows() if w["app_id"] == app_id), None)
                ok = w is not None and w["maximized"] and \
                    window_rect(w) == Rect(0, 0, OUTPUT_W, OUTPUT_H) and \
                    light_bbox(s, img) == Rect(0, 0, OUTPUT_W, OUTPUT_H)
                return w if ok else None

            s.wait_screenshot(maximized, timeout=15,
                              what=f"{app_id} maximized to fill the 1280x720 output")
            s.key("logo+m")
            img, win = wait_settled(s, app_id)
            check(window_rect(win) == geo, f"{app_id}: restored to {window_rect(win)}, "
                  f"was {geo} before maximizing")
            check_frame(s, img, win, csd, app_id + "-restored")
            p.terminate()
            s.wait_until(lambda: all(w["app_id"] != app_id for w in s.windows()),
                         what=f"{app_id}'s window to go")


harness.main(test)
