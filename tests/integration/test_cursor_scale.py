#!/usr/bin/env python3
"""The compositor's cursor after an output's scale changes at run time: the
image of the new scale, as at an output created at that scale. Before
session 37 the theme was loaded only at an output's creation, so after
`wlr-randr --scale 2` the output kept the scale-1 image: a cursor half the
size of everything else, in 1-pixel detail a scale-2 theme has finer.

The theme is the test's own (written here, found through XCURSOR_PATH):
left_ptr is a 24x24 red square at size 24 and a 48x48 green one at size 48,
so what the output shows says which image it got, whatever cursor themes
the machine has."""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Rect, Session, check, log  # noqa: E402

RED = (255, 0, 0)
GREEN = (0, 255, 0)
SQUARES = {24: (0xFFFF0000, RED), 48: (0xFF00FF00, GREEN)}  # nominal size: ARGB, RGB


def xcursor_file(sizes):
    """An Xcursor file holding one square image per nominal size, hotspot
    0,0 (the format of libXcursor's xcursor.c)."""
    image_type = 0xFFFD0002
    header_len, toc_len, chunk_header_len = 16, 12, 36
    out = struct.pack("<4sIII", b"Xcur", header_len, 0x10000, len(sizes))
    pos = header_len + toc_len * len(sizes)
    chunks = b""
    for size, argb in sizes:
        out += struct.pack("<III", image_type, size, pos)
        chunk = struct.pack("<IIIIIIIII", chunk_header_len, image_type, size, 1,
                            size, size, 0, 0, 0)
        chunk += struct.pack("<I", argb) * (size * size)
        chunks += chunk
        pos += len(chunk)
    return out + chunks


def write_theme(root):
    cursors = os.path.join(root, "smt-test", "cursors")
    os.makedirs(cursors)
    with open(os.path.join(cursors, "left_ptr"), "wb") as f:
        f.write(xcursor_file([(size, argb) for size, (argb, _) in SQUARES.items()]))
    with open(os.path.join(root, "smt-test", "index.theme"), "w") as f:
        f.write("[Icon Theme]\nName=smt-test\n")


def test(h):
    s = Session(h, config="[general]\ncursor-theme = smt-test\ncursor-size = 24\n", start=False, park=False)
    with s:
        themes = os.path.join(s.tmp, "icons")
        write_theme(themes)
        s.env["XCURSOR_PATH"] = themes  # (the environment is made at Session())
        s.start()

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


harness.main(test)
