#!/usr/bin/env python3
"""The compositor's cursor after an output's scale changes at run time: the
image of the new scale, as at an output created at that scale. Before
session 37 the theme was loaded only at an output's creation, so after
`wlr-randr --scale 2` the output kept the scale-1 image: a cursor half the
size of everything else, in 1-pixel detail a scale-2 theme has finer.

The theme is the test's own (harness/cursor_theme.py): left_ptr is a 24x24
red square at size 24 and a 48x48 green one at size 48, so what the output
shows says which image it got, whatever cursor themes the machine has.
Themes of scales no output has any more are unloaded (smtctl stats'
cursor_themes)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Rect, Session, check, log  # noqa: E402
from harness.cursor_theme import (CURSOR_THEME_CONFIG, SQUARES,  # noqa: E402
                                  session_with_theme)

CONFIG = CURSOR_THEME_CONFIG + """
[output HEADLESS-1]
position = 0,0

[output HEADLESS-2]
scale = 3
position = 1280,0
"""


def test(h):
    s = Session(h, config=CONFIG, start=False, park=False)
    with s:
        session_with_theme(s)

        def cursor_at(px, py, size, what):
            """The square of `size` pixels at the pointer's pixel (px, py)."""
            argb, colour = SQUARES[size]
            other = [c for n, (_, c) in SQUARES.items() if n != size][0]
            area = Rect(px - 8, py - 8, 64, 64)

            def square(img):
                box = img.bbox(colour, rect=area)
                return img if box == Rect(px, py, size, size) else None

            img, _ = s.wait_screenshot(square, timeout=10,
                                    what=f"{what}: a {size}x{size} square of {colour} at "
                                         f"{px},{py}")
            check(img.count(other, rect=area) == 0,
                  f"{what}: pixels of the other size's image {other} beside the cursor")
            log(f"{what}: the {size}-pixel image at {px},{py}")

        s.vpointer("move", 300, 300)
        cursor_at(300, 300, 24, "scale 1")
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "2"])
        # Over the desktop the compositor sets its image again at every
        # motion: the image must be the scale-2 one from the change on.
        s.vpointer("--extent", "640x360", "move", 150, 150)
        cursor_at(300, 300, 48, "scale 2 after wlr-randr")
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--transform", "90"])
        cursor_at(300, 300, 48, "scale 2 rotated 90 (grim turns the picture upright)")
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--transform", "normal", "--scale", "1"])
        s.vpointer("--extent", "1280x720", "move", 300, 300)
        cursor_at(300, 300, 24, "back at scale 1")

        # The theme is loaded per scale (about 2 MB each for Adwaita): a
        # client stepping through scales must not leave one loaded for each
        # (100 scales grew the compositor by 200 MB). Only scale 1 and the
        # outputs' scales stay loaded.
        check(s.server_stats()["cursor_themes"] == 1,
              f"cursor themes loaded at scale 1: {s.server_stats()['cursor_themes']}")
        for i in range(1, 13):
            s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", f"{1 + i / 8}"])
        themes = s.server_stats()["cursor_themes"]
        check(themes == 2, f"after 12 scales, {themes} cursor themes loaded (expected 2: 1 and 2.5)")
        s.vpointer("--extent", "512x288", "move", 120, 120)
        cursor_at(300, 300, 48, "scale 2.5 after 12 scales")
        s.run(["wlr-randr", "--output", "HEADLESS-1", "--scale", "1"])
        themes = s.server_stats()["cursor_themes"]
        check(themes == 1, f"back at scale 1, {themes} cursor themes loaded")
        # An output added at a scale of its own brings its theme, which goes
        # with the output.
        s.control("output add")
        s.wait_until(lambda: s.server_stats()["cursor_themes"] == 2, timeout=10,
                     what="HEADLESS-2 (scale 3) to load the theme at its scale")
        s.control("output remove HEADLESS-2")
        s.wait_until(lambda: s.server_stats()["cursor_themes"] == 1, timeout=10,
                     what="the theme of scale 3 to go with HEADLESS-2")
        log("cursor themes: only scale 1's and the output's stay loaded")


harness.main(test)
