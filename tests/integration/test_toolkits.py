#!/usr/bin/env python3
"""Real toolkit windows where the compositor says they are.

Client-side-decorated windows (weston-terminal, GTK3, GTK4) draw a shadow
around their window geometry; a Qt5 window asks for server-side decoration
and gets our border. For each, the visible frame in a screenshot (its opaque,
light pixels: shadows only darken the desktop) must be exactly the window
geometry the control socket reports, a screencopy of that region must show
the same pixels, the window must open in the next cascade slot instead of
on the previous window, and maximizing must fill the usable area exactly.
The Qt5 window's title bar (ours, above its geometry) must show its title in
the focused colours exactly where the compositor says, and a plain left drag
on it must move the window by the drag.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, OUTPUT_H, OUTPUT_W, QT_GALLERY, Image, Rect, \
    Session, check, log  # noqa: E402

BORDER = 2  # the default border-width
FOCUSED_TITLE = (0x28, 0x55, 0x77)  # the default focused-title
LIGHT = 150  # every channel at least this: a window's frame, never the desktop or a shadow

PROGRAMS = [
    # (argv, env, app_id, decorated by the client)
    # weston-terminal snaps its size to whole cells by dividing by the cell
    # height truncated to an integer and multiplying by the real one, so a
    # configure of its own size grows it by a row unless the cell height is
    # whole: DejaVu Sans Mono's is (Noto Sans Mono's is not: 517 px restored
    # as 536; sway 1.7 grows it the same way, 536 to 555). The face is named.
    (["weston-terminal", "--font=DejaVu Sans Mono"], {}, "org.freedesktop.weston.wayland-terminal",
     True),
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


def title_bar_rect(w):
    t = w["title_bar"]
    return Rect(t["x"], t["y"], t["width"], t["height"])


def check_frame(s, img, win, csd, label):
    geo = window_rect(win)
    if csd:
        frame = light_bbox(s, img)
        log(f"{label}: geometry {geo}, light frame on screen {frame}")
        check(frame == geo, lambda: f"{label}: the window's frame is drawn at {frame}, "
              f"the compositor says its geometry is {geo} (shot: {s.save(img, label)})")
        check(title_bar_rect(win).w == 0, f"{label}: decorates itself but has a title bar "
              f"{win['title_bar']}")
        return
    # Server-side: our title bar sits on the geometry, our border goes
    # around both, the content fills the geometry.
    bar = title_bar_rect(win)
    check(bar.h > 0 and bar == Rect(geo.x, geo.y - bar.h, geo.w, bar.h),
          f"{label}: title bar {bar} is not right above the geometry {geo}")
    border = s.window_border(img, FOCUSED)
    want = Rect(geo.x - BORDER, bar.y - BORDER, geo.w + 2 * BORDER, geo.h + bar.h + 2 * BORDER)
    check(border == want, lambda: f"{label}: border at {border}, expected {want} around "
          f"the title bar {bar} and the geometry {geo} (shot: {s.save(img, label)})")
    check_title_bar(s, img, bar, label)
    m, r = img.mask((255, 255, 255), tol=255 - LIGHT, rect=geo, exclude=s.cursor_exclusion())
    content = Image._mask_bbox(m, r)
    log(f"{label}: geometry {geo}, title bar {bar}, light content {content}")
    check(content is not None and content.w >= geo.w - 4,
          lambda: f"{label}: content {content} does not fill the geometry {geo}")


def check_title_bar(s, img, bar, label):
    """The bar is the focused title colour with the title's text in it: white
    pixels starting a few pixels in from its left edge, nowhere else."""
    background = img.count(FOCUSED_TITLE, rect=bar)
    text = img.bbox((255, 255, 255), tol=255 - LIGHT, rect=bar)
    log(f"{label}: title bar {bar}: {background} px of its colour, text at {text}")
    check(background >= bar.w * bar.h // 2,
          lambda: f"{label}: only {background} of the title bar's {bar.w * bar.h} pixels "
          f"have its colour {FOCUSED_TITLE} (shot: {s.save(img, label + '-title')})")
    check(text is not None and bar.x < text.x <= bar.x + 10 and text.w >= 40 and
          bar.y < text.y and text.y2 < bar.y2,
          lambda: f"{label}: no title text in the title bar {bar} (light pixels at {text}; "
          f"shot: {s.save(img, label + '-title')})")


def check_title_drag(s, win, label):
    """A plain left drag on the title bar moves the window by the drag."""
    geo, bar = window_rect(win), title_bar_rect(win)
    x0, y0 = bar.x + bar.w // 2, bar.y + bar.h // 2
    dx, dy = -40, 50
    s.vpointer("move", x0, y0, "down", "left", "move", x0 + dx // 2, y0 + dy // 2,
               "move", x0 + dx, y0 + dy, "up", "left")
    s.park_pointer()
    want = Rect(geo.x + dx, geo.y + dy, geo.w, geo.h)
    img, moved = wait_settled(s, win["app_id"])
    check(window_rect(moved) == want, f"{label}: dragging the title bar by ({dx}, {dy}) "
          f"moved the window from {geo} to {window_rect(moved)}, expected {want}")
    check_frame(s, img, moved, False, label + "-dragged")


def check_region_capture(s, img, win, label):
    """grim -g of the window geometry shows exactly those pixels."""
    geo = window_rect(win).intersect(Rect(0, 0, OUTPUT_W, OUTPUT_H))
    path = os.path.join(s.tmp, "region.ppm")

    # Compared with whole-output shots taken just before and just after:
    # a window may change between two captures (a blinking text cursor),
    # so the comparison counts when those two agree.
    def captured():
        before = s.screenshot()
        s.run(["grim", "-t", "ppm", "-g", f"{geo.x},{geo.y} {geo.w}x{geo.h}", path],
              timeout=10)
        with open(path, "rb") as f:
            region = Image.from_ppm(f.read())
        full = s.screenshot()
        if before.crop(geo).diff_count(full.crop(geo)) != 0:
            return None
        return region, full
    region, full = s.wait_until(captured, timeout=30, interval=0,
                                what=f"{label}: the window unchanged around a region capture")
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
            if not csd:
                check_title_drag(s, win, app_id)
            p.terminate()
            s.wait_until(lambda: all(w["app_id"] != app_id for w in s.windows()),
                         what=f"{app_id}'s window to go")


harness.main(test)
