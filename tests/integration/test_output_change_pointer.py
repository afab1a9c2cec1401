#!/usr/bin/env python3
"""The pointer, its image and the windows when outputs change under a user
(session 38, found with real programs: wlr-randr, foot, xterm).

Three things went wrong before session 38, each seen in a headless session:
- wlr_cursor keeps an image per output and moves them only when the
  pointer moves. An output's image starts at the output's corner, so until
  the first motion every output showed a pointer at its top-left while the
  pointer was at 100,100 (wlroots' start), and an output plugged in later
  showed a second, stray pointer in its corner.
- After a change of scale the image stayed where the old scale put it
  (wlroots 0.15 compares the new place in logical units with the kept one
  in pixels): at scale 2 it showed at half the pointer's place.
- `wlr-randr --output A --scale 2`, with both outputs placed automatically,
  applies the configuration head by head; wlroots re-places the other,
  automatic output after each head, so for a step A lay beyond the other
  one: the pointer jumped onto the other output and every window on A, X
  ones included, was moved there.

The cursor theme is the test's own (harness/cursor_theme.py): a red 24x24
square at scale 1, a green 48x48 one at scale 2, hotspot at its corner, so
the screen says where the image is and at which scale."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Rect, Session, check, log  # noqa: E402
from harness.cursor_theme import (CURSOR_COLOURS, CURSOR_THEME_CONFIG, SQUARES,  # noqa: E402
                                  session_with_theme)

LAYOUT = (2560, 720)  # two 1280x720 outputs side by side, before any change


def output_positions(s):
    """name -> (x, y) in the layout, from wlr-randr."""
    text = s.run(["wlr-randr"]).stdout
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in re.finditer(r"^(\S+) .*?\n(?:  .*\n)*?  Position: (-?\d+),(-?\d+)",
                                 text, re.M)}


def cursor_pixels(img):
    return sum(img.count(colour) for colour in CURSOR_COLOURS)


def seat_pointer(s):
    seat = s.control("seat")["seat"]
    return (seat["cursor_x"], seat["cursor_y"])


def wait_image_at(s, output, px, py, size, what):
    """The output shows the square of `size` pixels at its pixel (px, py)
    and no other cursor pixel."""
    colour = SQUARES[size][1]

    def there(img):
        return img if (img.bbox(colour) == Rect(px, py, size, size)
                       and cursor_pixels(img) == size * size) else None

    def describe(img):
        return ", ".join(f"{c}: {img.bbox(c)}" for c in CURSOR_COLOURS)

    try:
        s.wait_screenshot(there, timeout=10, output=output,
                          what=f"{what}: on {output} only the {size}-pixel image, at {px},{py}")
    except harness.TestFailure:
        log(f"{output} shows the cursor's colours at {describe(s.last_image)}")
        raise
    log(f"{what}: {output} shows the {size}-pixel image at {px},{py}")


def wait_no_image(s, output, what):
    def clean(img):
        return img if img.count(BACKGROUND) > 0 and cursor_pixels(img) == 0 else None
    try:
        s.wait_screenshot(clean, timeout=10, output=output,
                          what=f"{what}: no pointer image on {output}")
    except harness.TestFailure:
        img = s.last_image
        log(f"{output} shows the cursor's colours at "
            + ", ".join(f"{c}: {img.bbox(c)}" for c in CURSOR_COLOURS))
        raise
    log(f"{what}: no pointer image on {output}")


def test(h):
    # Both outputs placed automatically: the layout a user gets without
    # positions in the config file.
    s = Session(h, config=CURSOR_THEME_CONFIG, outputs=2, x11=True, start=False, park=False)
    with s:
        session_with_theme(s)
        positions = output_positions(s)
        log(f"outputs: {positions}")
        check(sorted(positions.values()) == [(0, 0), (1280, 0)],
              f"two outputs side by side expected, wlr-randr says {positions}")
        first = next(n for n, p in positions.items() if p == (0, 0))
        other = next(n for n in positions if n != first)

        # Before any motion: the pointer where wlroots starts it, its image
        # there and on no other output.
        check(seat_pointer(s) == (100, 100), f"the pointer starts at {seat_pointer(s)}")
        wait_image_at(s, first, 100, 100, 24, "before any motion")
        wait_no_image(s, other, "before any motion")

        s.vpointer("--extent", f"{LAYOUT[0]}x{LAYOUT[1]}", "move", 300, 300)
        check(seat_pointer(s) == (300, 300), f"the pointer moved to {seat_pointer(s)}")
        s.spawn(["foot"])
        s.spawn(["xterm"])
        s.wait_until(lambda: {w["app_id"] for w in s.windows()} >= {"foot", "XTerm"},
                     timeout=20, what="foot's and xterm's windows")
        before = {w["app_id"]: (w["x"], w["y"]) for w in s.windows()}
        xterm = s.wait_x_window("--class", "XTerm")
        x_before = s.x_geometry(xterm)
        log(f"windows: {before}; xterm in X: {x_before}")
        check(all(x < 1280 for x, _ in before.values()), f"windows not on {first}: {before}")

        # The scale of the pointer's output changes (wlr-randr sends every
        # head): the pointer and the windows stay, the image follows the scale.
        s.run(["wlr-randr", "--output", first, "--scale", "2"])
        check(seat_pointer(s) == (300, 300),
              f"after {first}'s change of scale the pointer is at {seat_pointer(s)}, not 300,300")
        after = {w["app_id"]: (w["x"], w["y"]) for w in s.windows()}
        check(after == before, f"windows moved by {first}'s change of scale: {before} -> {after}")
        x_after = s.x_geometry(xterm)
        check(x_after == x_before, f"X moved xterm: {x_before} -> {x_after}")
        wait_image_at(s, first, 600, 600, 48, "at scale 2")
        wait_no_image(s, other, "at scale 2")
        # Both outputs have their places now (wlr-randr gave them): no
        # step of the next changes moves an output, so only the image's own
        # move is left to put it at the pointer's place at each scale.
        s.run(["wlr-randr", "--output", first, "--scale", "1"])
        wait_image_at(s, first, 300, 300, 24, "back at scale 1")
        s.run(["wlr-randr", "--output", first, "--scale", "2"])
        wait_image_at(s, first, 600, 600, 48, "at scale 2 again")
        check(seat_pointer(s) == (300, 300), f"the pointer is at {seat_pointer(s)}")

        # An output plugged in: no stray pointer in its corner.
        added = s.control("output add")["output"]
        wait_no_image(s, added, "an output plugged in")
        wait_image_at(s, first, 600, 600, 48, "an output plugged in")
        check(seat_pointer(s) == (300, 300), f"the pointer is at {seat_pointer(s)}")


harness.main(test)
