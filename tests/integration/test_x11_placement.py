#!/usr/bin/env python3
"""An X window that asks for a place is shown there from its first frame
(session 34; docs/x11.md, "Where an X window is first shown").

Xt's shells (xterm -geometry 40x5+560+300) create their window at 0,0 and
ask for their size, then their place, by ConfigureRequests just before
they map, with WM_NORMAL_HINTS saying USPosition. The compositor paces a
window's ConfigureRequests (the first at once, the next within 50 ms held
for a timer); the held place was applied after the window mapped, so the
window was shown at 0,0 clamped below the title bar, (2, 27), and moved
where it asked a moment later. Three CI-like runs read it there.

Every place the X server gives each window is recorded by a watcher on the
root (smt-x11-place watch: CreateNotify, ConfigureNotify, MapNotify in the
X server's order). The compositor moves the X window wherever it shows it
(its X position follows the view), so from the window's MapNotify on, every
place must be the one asked for, and so must the place it was mapped at:
X programs (xdotool, the other X tests) read a window's place as soon as
it is viewable in X, which is before the compositor shows it. Cases: xterm; the same sequence by
smt-x11-place configure; and two that were right before too: a window
created where it asks (create), and one whose hints come just after its
map (hints-late: read when the window manager pairs it with its surface,
which is after the map).

Then a mapped window its client moves (xdotool windowmove: a
ConfigureRequest): to a place on the output it goes exactly there; to 0,0
(what a Java frame asks for after it maps) its title bar stays on the
output, at (2, 27) as at a map (session 40: it went to 0,0 with its title
bar above the output, out of reach), in the compositor and in X."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log, read_file  # noqa: E402
from harness.programs import build_program  # noqa: E402

PLACE = build_program("SMT_X11_PLACE", "tests/tools/smt-x11-place")


def cases():
    return [
        ("xterm", ["xterm", "-name", "placexterm", "-geometry", "40x5+560+300"],
         "placexterm", (560, 300)),
        ("configure", [PLACE, "configure", "400", "150", "200", "100", "placeconf"],
         "placeconf", (400, 150)),
        ("create", [PLACE, "create", "150", "420", "200", "100", "placecreate"],
         "placecreate", (150, 420)),
        ("hints-late", [PLACE, "hints-late", "300", "350", "200", "100", "placelate"],
         "placelate", (300, 350)),
    ]


def history(path, wid):
    """The watcher's lines about X window wid since it was last created
    (a later client may get an earlier one's ids): [(what, x, y)], x and y
    None for map, unmap and destroy."""
    out = []
    for line in (read_file(path) or "").splitlines():
        f = line.split()
        if len(f) >= 2 and f[1] == str(wid):
            if f[0] == "create":
                out = []
            xy = (int(f[2]), int(f[3])) if f[0] in ("create", "configure") else (None, None)
            out.append((f[0],) + xy)
    return out


def last_place(events):
    places = [(x, y) for what, x, y in events if x is not None]
    return places[-1] if places else None


def test(h):
    with Session(h, x11=True) as s:
        watcher = s.spawn([PLACE, "watch"], name="watcher")
        s.wait_until(lambda: "watching" in (read_file(watcher.log_path) or ""), timeout=30,
                     what="the watcher's selection on the root")
        misplaced = []
        for name, argv, wm_class, asked in cases():
            p = s.spawn(argv, name=name)
            wid = s.wait_x_window("--classname", wm_class, timeout=60)
            seen = []

            def listed():
                w = next((w for w in s.windows() if w["pid"] == p.pid), None)
                place = w and (w["x"], w["y"])
                if not seen or seen[-1] != place:
                    seen.append(place)
                return w if place == asked else None

            try:
                win = s.wait_until(listed, timeout=60, what=f"{name}'s window listed at {asked}")
            finally:
                log(f"{name}: places the compositor listed (None: not listed) {seen}; "
                    f"X server's events {history(watcher.log_path, wid)}")
            # The watcher has seen everything up to the place the window
            # is at now once it has seen that place.
            s.wait_until(lambda: last_place(history(watcher.log_path, wid)) == asked,
                         timeout=30, what=f"the watcher seeing {name}'s window at {asked}")
            events = history(watcher.log_path, wid)
            log(f"{name}: window {wid:#x}, compositor at ({win['x']}, {win['y']}), "
                f"X server's events {events}")
            maps = [i for i, e in enumerate(events) if e[0] == "map"]
            check(len(maps) == 1, f"{name}: {len(maps)} MapNotify for {wid:#x}: {events}")
            when_mapped = last_place(events[:maps[0]])
            after = [e[1:] for e in events[maps[0]:] if e[1] is not None]
            elsewhere = [p for p in [when_mapped] + after if p != asked]
            if elsewhere:
                misplaced.append(f"{name}: window {wid:#x} at {elsewhere} from when it was "
                                 f"mapped on, not only at the {asked} it asked for: {events}")
            s.stop_client(p)
        check(not misplaced, "\n".join(misplaced))
        moved_by_client(s)


def moved_by_client(s):
    p = s.spawn(["xterm", "-name", "movexterm", "-geometry", "40x5+300+300"], name="xterm")
    wid = s.wait_x_window("--classname", "movexterm", timeout=60)
    s.wait_until(lambda: any(w["pid"] == p.pid for w in s.windows()), timeout=60,
                 what="the xterm listed")
    for asked, expected in (((200, 150), (200, 150)), ((0, 0), (2, 27))):
        s.run(["xdotool", "windowmove", str(wid), str(asked[0]), str(asked[1])], timeout=30)
        seen = []

        def placed():
            w = next((w for w in s.windows() if w["pid"] == p.pid), None)
            g = s.x_geometry(wid)
            place = w and ((w["x"], w["y"]), w["title_bar"]["y"], (g.x, g.y))
            if not seen or seen[-1] != place:
                seen.append(place)
            return place is not None and place[0] == expected and place[2] == expected

        try:
            s.wait_until(placed, timeout=30,
                         what=f"the xterm moved by its client to {asked} shown at {expected}")
        finally:
            log(f"moved to {asked}: (compositor place, title bar y, X place) seen {seen}")
        check(seen[-1][1] >= 0, f"the title bar at y {seen[-1][1]}, above the output")
    s.stop_client(p)


harness.main(test)
