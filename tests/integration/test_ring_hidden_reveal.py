#!/usr/bin/env python3
"""What hid a ring window's damage changes, and the window shows its last
PRESENT (red team of the hidden-damage clipping, session 36).

A PRESENT under opaque windows damages the outputs only where it shows
(ring/canvas.c, output_hide_under_opaque), so the screen keeps the pixels
of what hid it. Whatever later shows that part must damage it itself, or
the window's old pixels stay. Each case below covers smt-present-colours
with something, presents colours under it (each gets its `presented`
with a display time), changes what covers it, waits for the screen to
settle and compares the frame with `render scene`'s full repaint byte
for byte; then `render culled` again (a whole repaint) for the next case:
- a foot window maximized over it: unmaximized, moved by a Logo drag,
  resized by a Logo right drag, minimized, restored, made fullscreen and
  back, the ring window raised by a click, foot closed;
- an xterm and an override-redirect xeyes (shaped) over it, closed; a
  layer-shell panel filling the overlay layer, a popup's menu, closed;
- the ring window under another ring window whose translucent rows move
  with each PRESENT (smt-present-colours bands: its opaque rows change);
- the ring window across the edge of two outputs, foot maximized on the
  first over its left part, closed;
- output scale 2 and a rotated output (the clipping is off there);
- the scene renderer itself (`render scene` left on): a window whose
  opaque region covers translucent pixels over the ring window, which the
  scene renderer blends (it knows no opaque regions)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from harness import Rect, Session, build_program, check, log  # noqa: E402
from harness.clients import read_file  # noqa: E402
from harness.present_colours import present_colours, start_colours  # noqa: E402

SIDE = 256
HIDDEN = 4
COVER = "hidecover"


def present(s, p, n, hidden=True):
    """Tells the tool to present n colours; checks each got `presented`
    with a display time."""
    came, shown, _ = present_colours(s, p, n)
    check(came == n and shown == n,
          f"{n} {'hidden ' if hidden else ''}PRESENTs: {came} reported, {shown} shown")


def window(s, app_id, key="app_id"):
    w = s.wait_window(lambda w: w[key] == app_id, what=app_id)
    return Rect(w["x"], w["y"], w["width"], w["height"])


def settled(s):
    """A screenshot equal to the one before it (clients done redrawing)."""
    return s.wait_still("the screen settled", timeout=30, interval=0.3)


def same_as_scene(s, what):
    """The settled culled frame equals the scene renderer's full repaint."""
    culled = settled(s)
    check(s.control("render scene").get("ok"), "render scene refused")

    def equal(img):
        return img if img.diff_count(culled) == 0 else None
    try:
        s.wait_screenshot(equal, timeout=10, what=f"{what}: the frame equal to the scene "
                          f"renderer's full repaint (culled saved as {s.save(culled, 'culled')})")
    finally:
        check(s.control("render culled").get("ok"), "render culled refused")
    log(f"{what}: the frame equals the scene renderer's")


def cover_with_foot(s, desktop_tool, colours_rect):
    """foot maximized and on top, over all of the ring window."""
    s.run([desktop_tool, "toplevels", "activate", COVER], timeout=10)
    s.run([desktop_tool, "toplevels", "maximize", COVER], timeout=10)

    def over():
        for w in s.windows():
            if w["app_id"] == "foot" and w.get("maximized"):
                r = Rect(w["x"], w["y"], w["width"], w["height"])
                return r if r.intersect(colours_rect) == colours_rect else None
        return None
    s.wait_until(over, timeout=20, what="foot maximized over the ring window")
    s.park_pointer()
    settled(s)


def foot_cases(s, tool, desktop_tool):
    p = start_colours(s, tool, SIDE)
    rect = window(s, "present-colours")
    foot = s.spawn(["foot", "--title", COVER, "sleep", "600"], name="foot")
    s.wait_window(lambda w: w["app_id"] == "foot", what="foot")

    def act(name, *argv):
        return lambda: s.run([desktop_tool, "toplevels", name, COVER, *argv], timeout=10)

    def drag_foot(button, delta):
        def do():  # from near its bottom right corner, up and left
            r = window(s, "foot")
            s.logo_drag(button, (r.x + r.w - 40, r.y + r.h - 40), delta)
        return do

    cases = [
        ("unmaximized", act("unmaximize")),
        ("moved by a drag", drag_foot("left", (-300, -200))),
        ("resized by a drag", drag_foot("right", (-400, -300))),
        ("minimized", act("minimize")),
        ("fullscreen", act("fullscreen")),
        ("raised by a click", lambda: (s.click(rect.x + 5, rect.y + 5), s.park_pointer())),
    ]
    for what, change in cases:
        cover_with_foot(s, desktop_tool, rect)
        present(s, p, HIDDEN)
        change()
        same_as_scene(s, f"foot {what}")
        present(s, p, 1, hidden=False)
        same_as_scene(s, f"foot {what}, then a PRESENT")
    # restored from minimized, back from fullscreen: foot over it again
    cover_with_foot(s, desktop_tool, rect)
    act("minimize")()
    present(s, p, HIDDEN, hidden=False)
    act("unminimize")()
    act("activate")()
    same_as_scene(s, "foot restored")
    act("unfullscreen")()
    present(s, p, HIDDEN)
    same_as_scene(s, "foot back from fullscreen")
    cover_with_foot(s, desktop_tool, rect)
    present(s, p, HIDDEN)
    s.stop_client(foot)
    same_as_scene(s, "foot closed")
    return p


def ring_above_ring(s, tool, desktop_tool, p):
    """A ring window whose translucent band moves with each PRESENT, over
    the other: the lower one's PRESENTs are hidden in its opaque rows."""
    bands = start_colours(s, tool, SIDE, "bands", app_id="present-bands")
    low = window(s, "present-colours")
    high = window(s, "present-bands")
    check(high.intersect(low).w > 0, f"the band window {high} is not over {low}")
    for _ in range(4):
        present(s, p, HIDDEN, hidden=False)
        present(s, bands, 1, hidden=False)
        same_as_scene(s, "a ring window's translucent band moved over another's hidden rows")
    s.stop_client(bands)


def untouched_outputs(s, p):
    """At scale 2 and rotated, the damage is not clipped."""
    foot = s.spawn(["foot", "--fullscreen", "sleep", "600"], name="foot-fullscreen")
    s.wait_window(lambda w: w["app_id"] == "foot" and w["fullscreen"], what="foot fullscreen")
    for scale, transform in (("2", "normal"), ("1", "90")):
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", scale,
               "--transform", transform])
        settled(s)  # (the pointer stays parked: the layout is smaller at scale 2)
        before = s.control("stats")["render"]["pixels_damaged"]
        present(s, p, HIDDEN)
        damaged = s.control("stats")["render"]["pixels_damaged"] - before
        log(f"scale {scale}, transform {transform}: {HIDDEN} hidden PRESENTs damaged "
            f"{damaged} pixels")
        check(damaged > 0, f"scale {scale}, transform {transform}: hidden PRESENTs damaged "
              f"nothing (the clipping is on there)")
    s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "1", "--transform", "normal"])
    s.stop_client(foot)


def scene_renderer_liar(s, p):
    """`render scene` blends a window whose opaque region covers
    translucent pixels: the ring window's PRESENTs under it show."""
    geometry = build_program("SMT_SHM_GEOMETRY", "tests/tools/smt-shm-geometry")
    rect = window(s, "present-colours")
    liar = s.spawn([geometry, f"size=1280x720", "format=argb", "opaque=1"],
                   name="liar")
    s.wait_until(lambda: "ready" in (read_file(liar.log_path) or ""), timeout=30,
                 what="the liar's window")
    r = window(s, "smt-shm-geometry", key="title")
    check(r.intersect(rect) == rect, f"the liar {r} does not cover the ring window {rect}")
    s.park_pointer()
    check(s.control("render scene").get("ok"), "render scene refused")
    try:
        settled(s)
        present(s, p, HIDDEN, hidden=False)
        shown = settled(s)
        check(s.control("render culled").get("ok"), "render culled refused")
        check(s.control("render scene").get("ok"), "render scene refused")
        s.wait_screenshot(lambda img: img if img.diff_count(shown) == 0 else None, timeout=10,
                          what="render scene: PRESENTs under a lying opaque region shown "
                          f"(the frame before the repaint saved as {s.save(shown, 'stale')})")
        log("render scene: PRESENTs under a window that calls translucent pixels opaque show")
    finally:
        s.control("render culled")
    s.stop_client(liar)


def x_windows_above(s, p):
    """An xterm, then an override-redirect (shaped) xeyes, over the ring
    window, closed after hidden PRESENTs."""
    rect = window(s, "present-colours")
    for name, argv in (
            ("xterm", ["xterm", "-bg", "white", "-geometry", "100x40+0+0"]),
            ("xeyes", ["xeyes", "-xrm", "*overrideRedirect: True",
                       "-geometry", "420x420+0+0"])):
        x = s.spawn(argv, name=name)
        if name == "xeyes":  # (x_search finds no override-redirect window by class)
            wid = s.wait_until(lambda: next(iter(s.x_override_redirect_windows(400)), None),
                               timeout=30, what="xeyes' override-redirect window")
        else:
            wid = s.wait_x_window("--classname", name, timeout=30)
        g = s.x_geometry(wid)
        check(g.intersect(rect) == rect, f"{name} {g} does not cover the ring window {rect}")
        s.park_pointer()
        settled(s)
        present(s, p, HIDDEN, hidden=False)  # (xeyes is shaped: parts show)
        same_as_scene(s, f"{name} over the ring window")
        s.stop_client(x)
        same_as_scene(s, f"{name} closed")


def wayland_covers(s, p):
    """A layer-shell panel filling the overlay layer, then a popup's menu
    over the ring window, closed after hidden PRESENTs."""
    panel = build_program("SMT_PANEL", "tests/tools/smt-panel")
    popup = build_program("SMT_POPUP", "tests/tools/smt-popup")
    rect = window(s, "present-colours")
    for name, argv, ready in (
            ("panel", [panel, "--anchor", "fill", "--layer", "overlay"], "configured"),
            ("popup", [popup, "120", "80", "10", "10", "600", "500"], "popup ")):
        c = s.spawn(argv, name=name)
        s.wait_until(lambda: ready in (read_file(c.log_path) or ""), timeout=30,
                     what=f"the {name} shown")
        if name == "popup":  # its menu (X Y W H from the window's geometry) over it
            x, y, w, hh = map(int, [ln for ln in (read_file(c.log_path) or "").splitlines()
                                    if ln.startswith("popup ")][-1].split()[1:])
            top = window(s, "smt-popup", key="title")
            menu = Rect(top.x + x, top.y + y, w, hh)
            check(menu.intersect(rect).w > 0, f"the menu {menu} is not over {rect}")
            log(f"the menu {menu} over the ring window {rect}")
        s.park_pointer()
        settled(s)
        present(s, p, HIDDEN, hidden=False)
        same_as_scene(s, f"a {name} over the ring window")
        s.stop_client(c)
        same_as_scene(s, f"the {name} gone")


def two_outputs(s, p, desktop_tool):
    """A second output right of the first, the ring window dragged across
    their edge, foot maximized on the first over its left part: hidden
    PRESENTs there, foot closed."""
    ans = s.control("output add")
    check(ans.get("ok"), f"output add: {ans}")
    rect = window(s, "present-colours")
    s.logo_drag("left", rect.center(), (1280 - rect.x - rect.w // 2, 0))
    rect = s.wait_until(lambda: next((r for r in [window(s, "present-colours")]
                                      if r.x < 1280 < r.x + r.w), None),
                        timeout=20, what="the ring window across the outputs' edge")
    foot = s.spawn(["foot", "--title", COVER, "sleep", "600"], name="foot-left")
    s.wait_window(lambda w: w["app_id"] == "foot", what="foot")
    s.run([desktop_tool, "toplevels", "maximize", COVER], timeout=10)
    left = Rect(rect.x, rect.y, 1280 - rect.x, rect.h)
    s.wait_until(lambda: next((w for w in s.windows() if w["app_id"] == "foot" and
                               w["maximized"] and Rect(w["x"], w["y"], w["width"],
                                                       w["height"]).intersect(left) == left),
                              None), timeout=20, what="foot maximized over the left part")
    s.park_pointer()
    settled(s)
    present(s, p, HIDDEN)
    same_as_scene(s, f"the ring window {rect} across two outputs, its left part under foot")
    s.stop_client(foot)
    same_as_scene(s, "foot closed on the first of two outputs")


def test(h):
    tool = build_program("SMT_PRESENT_COLOURS", "tests/tools/smt-present-colours")
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h, x11=True) as s:
        p = foot_cases(s, tool, desktop_tool)
        x_windows_above(s, p)
        wayland_covers(s, p)
        ring_above_ring(s, tool, desktop_tool, p)
        scene_renderer_liar(s, p)
        untouched_outputs(s, p)
        two_outputs(s, p, desktop_tool)
        s.check_alive()


if __name__ == "__main__":
    harness.main(test)
