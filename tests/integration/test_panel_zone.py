#!/usr/bin/env python3
"""A panel's exclusive zone applied after windows were placed (session 38).

Windows and a panel started together race: a window that maps before the
panel's first commit is placed in the whole output, the zone comes after,
and the window's title bar stayed under the panel for good (render_culling
failed once so, its focused window 24 pixels higher than in passing runs).
The test takes that order deterministically: the windows map first, then
the panel starts (its first commit, which reserves the zone, comes after
every placement). A window the zone now covers moves down by as much as
the zone's edge came in (where it would have opened had the panel been
first); one below the zone stays where it is; a window opened afterwards
opens below the panel. The same along the left edge, and for an X window
(xterm), whose new place X learns.

Before the mend the covered window did not move (its title bar at y 4,
under the 24-pixel panel)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

ZONE = 24


def panel_tool(h):
    return os.environ.get("SMT_PANEL") or os.path.join(os.path.dirname(h.vpointer), "smt-panel")


def frame_top(w):
    """The top of what the compositor shows of a window: its title bar when
    it has one, else its geometry."""
    tb = w["title_bar"]
    return min(w["y"], tb["y"]) if tb["height"] > 0 else w["y"]


def frame_left(w):
    tb = w["title_bar"]
    return min(w["x"], tb["x"]) if tb["width"] > 0 else w["x"]


def add_panel(s, h, window_of, near, far, anchor, size, color):
    """Starts a panel reserving size pixels along anchor; waits for the near
    window to move out from under it, by size, along that axis only, and
    checks that the far one stays where it was."""
    axis, other = ("y", "x") if anchor == "top" else ("x", "y")
    near_w, far_w = window_of(near), window_of(far)
    s.spawn([panel_tool(h), "--anchor", anchor, "--size", size, "--exclusive", size,
             "--color", color], name=f"{anchor}-panel")
    moved = s.wait_until(
        lambda: (lambda w: w if w and w[axis] != near_w[axis] else None)(window_of(near)),
        timeout=10, what=f"the window under the {anchor} panel's zone to move")
    log(f"after the {anchor} panel: near at {moved['x']},{moved['y']} "
        f"(frame top {frame_top(moved)}, left {frame_left(moved)})")
    check(moved[axis] == near_w[axis] + size and moved[other] == near_w[other],
          f"near moved from {near_w['x']},{near_w['y']} to {moved['x']},{moved['y']}, "
          f"not by the {anchor} zone's {size} along {axis}")
    still = window_of(far)
    check((still["x"], still["y"]) == (far_w["x"], far_w["y"]),
          f"far, outside the {anchor} zone, moved from {far_w['x']},{far_w['y']} to "
          f"{still['x']},{still['y']}")


def test(h):
    demo = os.environ["SMT_DEMO"]
    with Session(h) as s:
        def window_of(proc):
            return next((w for w in s.windows() if w["pid"] == proc.pid), None)

        def open_window(name):
            proc = s.spawn([demo, "--static"], name=name)
            return proc, s.wait_until(lambda: window_of(proc), what=f"{name}'s window")

        near, near_w = open_window("near")
        far, far_w = open_window("far")
        log(f"before the panel: near at {near_w['x']},{near_w['y']} (frame top "
            f"{frame_top(near_w)}), far at {far_w['x']},{far_w['y']} "
            f"(frame top {frame_top(far_w)})")
        check(frame_top(near_w) < ZONE <= frame_top(far_w),
              f"the cascade changed: near's frame top {frame_top(near_w)} and far's "
              f"{frame_top(far_w)} should straddle the zone's edge {ZONE}")

        # The panel reserves the top ZONE pixels once both windows are placed.
        add_panel(s, h, window_of, near, far, "top", ZONE, "3050c0")
        check(frame_top(window_of(near)) >= ZONE,
              f"near's frame top {frame_top(window_of(near))} under the panel")

        # A window opened now opens below the panel.
        _, late_w = open_window("late")
        check(frame_top(late_w) >= ZONE,
              f"a window opened after the panel has its frame top at {frame_top(late_w)}")

        # Along the left edge: a zone twice as wide, which covers near's
        # frame (its left border at x 32 - border width) but not far's.
        near_w, far_w = window_of(near), window_of(far)
        left = 2 * ZONE
        check(frame_left(near_w) < left <= frame_left(far_w),
              f"near's frame left {frame_left(near_w)} and far's {frame_left(far_w)} "
              f"should straddle the left zone's edge {left}")
        add_panel(s, h, window_of, near, far, "left", left, "30c050")
        log("windows the new zones covered moved out by the zones' width; the others stayed")

    # An X window under a new zone: moved, and X is told (a configure), so
    # what X programs and their popups compute from their position agrees.
    with Session(h, x11=True) as s:
        xterm = s.spawn(["xterm", "-name", "zoneterm"], name="xterm")
        before = s.wait_until(lambda: next((w for w in s.windows() if w["pid"] == xterm.pid),
                                           None), what="xterm's window")
        check(frame_top(before) < ZONE, f"xterm's frame top at {frame_top(before)}")
        s.spawn([panel_tool(h), "--anchor", "top", "--size", ZONE, "--exclusive", ZONE,
                 "--color", "3050c0"], name="top-panel")
        after = s.wait_until(
            lambda: next((w for w in s.windows() if w["pid"] == xterm.pid and
                          w["y"] != before["y"]), None),
            timeout=10, what="xterm under the new zone to move")
        check((after["x"], after["y"]) == (before["x"], before["y"] + ZONE),
              f"xterm moved from {before['x']},{before['y']} to {after['x']},{after['y']}")
        xid = s.wait_until(lambda: s.x_search("--classname", "zoneterm") or None,
                           what="xterm's X window")[0]
        s.wait_until(lambda: f"Position: {after['x']},{after['y']} " in
                     s.run(["xdotool", "getwindowgeometry", xid]).stdout,
                     what=f"X to place xterm at {after['x']},{after['y']}")
        log(f"xterm moved to {after['x']},{after['y']}, and X has it there")


harness.main(test)
