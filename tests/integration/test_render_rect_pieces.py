#!/usr/bin/env python3
"""A background cut into hundreds of pieces costs what is painted, not a
full-output fill per piece (red team of session 35;
compositor/output/render.c, paint_node).

wlroots 0.15's pixman renderer makes an image the size of the box
wlr_render_rect is given and fills it whole at every call, whatever the
scissor. The culling renderer paints a rectangle node (the background, a
border) piece by piece of its visible region, and gave each piece the
node's whole box: 3,000 override-redirect X windows in a staircase
(`smt-x11-wm-hostile windows-hold 3000 --map --or`, any X client) cut the
background into hundreds of pieces, each a 1280x720 clear and fill: a
Wayland client's round trips waited up to 0.2 s behind such frames. Now
each piece is filled as its own box.

Counted, never timed: while 300 such windows map, the pixels handed to
wlr_render_rect (`render.rect_fill_pixels`) are no more than the pixels
the frames painted (`render.pixels_painted`: with the node's whole box per
piece they were many times more)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

WINDOWS = 300


def test(h):
    with Session(h, x11=True) as s:
        before = s.control("stats")["render"]
        holder = s.spawn([wm_hostile_tool(h), "windows-hold", str(WINDOWS), "--map", "--or"],
                         name="holder")
        s.wait_until(lambda: "holding" in open(holder.log_path).read(), timeout=60,
                     what=f"{WINDOWS} override-redirect windows mapped")
        # (a frame after the last one mapped: the pointer moved)
        frames = s.control("stats")["render"]["frames"]
        s.vpointer("move", 1000, 600, "move", 1010, 610)
        s.wait_until(lambda: s.control("stats")["render"]["frames"] > frames, timeout=30,
                     what="a frame after the windows mapped")
        after = s.control("stats")["render"]
        filled = after["rect_fill_pixels"] - before["rect_fill_pixels"]
        painted = after["pixels_painted"] - before["pixels_painted"]
        log(f"{WINDOWS} windows: {after['frames'] - before['frames']} frames, "
            f"{painted} pixels painted, {filled} filled by rectangle nodes")
        check(filled > 0, f"no rectangle node painted: {before} -> {after}")
        check(filled <= painted,
              f"rectangle nodes filled {filled} pixels for {painted} painted "
              f"(a whole box per piece)")
        check(holder.alive(), f"the holder ended: {holder.log_tail()}")


harness.main(test)
