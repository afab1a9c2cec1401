#!/usr/bin/env python3
"""A client's wl_surface damage far outside its surface repaints no more
than the surface (session 39). wl_surface.damage and damage_buffer take
any int32 rectangle; wlroots 0.15 clips both to the surface (and the
buffer) when the commit is applied (surface_finalize_pending), and the
scene's output damage is clipped to the output, so a rectangle from
-2^30 to 2^30 - 1 repaints exactly the window, and rectangles wholly
outside it repaint nothing. This test pins that: smtwc adds no clip of
its own (there was nothing to mend; docs/reliability.md, "Debts, session
39"), and a later wlroots, or a commit handler of ours reading the
pending damage, must not change it.

smt-probe --damage commits a 64x64 window's new buffers, each shown
before the next; the outputs' damaged pixels (`stats` render
pixels_damaged) are compared between batches: far damage as much as
whole-surface damage (each commit still repaints the window), outside
damage no more than its last commit's 1x1 rectangle and what the frame
before it left (a frame repaints its buffer's age's damage too)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, build_program, check, log  # noqa: E402
from harness.clients import read_file  # noqa: E402

SIDE = 64
COMMITS = 10
OUTPUT_PIXELS = 1280 * 720


def test(h):
    tool = build_program("SMT_PROBE", "tests/tools/smt-probe")
    with Session(h) as s:
        s.park_pointer()
        p = s.spawn([tool, "--damage", "--size", f"{SIDE}x{SIDE}", "--app-id", "damage-far"],
                    name="damage-far", stdin=subprocess.PIPE)
        s.wait_until(lambda: "DAMAGE_READY" in (read_file(p.log_path) or "") or not p.alive(),
                     timeout=30, what="the probe's window shown")
        check(p.alive(), f"smt-probe --damage: {p.log_tail()}")

        def batch(kind):
            before = s.control("stats")["render"]
            p.popen.stdin.write(f"{kind} {COMMITS}\n".encode())
            p.popen.stdin.flush()
            s.wait_until(lambda: f"DAMAGED {kind} {COMMITS}" in (read_file(p.log_path) or "")
                         or not p.alive(), timeout=30, what=f"{COMMITS} {kind} commits shown")
            check(p.alive(), f"smt-probe died in the {kind} batch: {p.log_tail()}")
            after = s.control("stats")["render"]
            damaged = after["pixels_damaged"] - before["pixels_damaged"]
            log(f"{kind}: {COMMITS} commits, {after['frames'] - before['frames']} frames, "
                f"{damaged} pixels damaged, "
                f"{after['pixels_painted'] - before['pixels_painted']} painted")
            return damaged

        window = SIDE * SIDE
        inside = batch("inside")
        far = batch("far")
        outside = batch("outside")
        # Each shown commit repaints the window at least once.
        check(inside >= COMMITS * window, f"whole-surface damage repainted {inside} pixels")
        # Far damage: the window's part of it, each time; not the output.
        check(COMMITS * window <= far <= inside + 2 * window,
              f"{COMMITS} commits with damage from -2^30 to 2^30 - 1 repainted {far} pixels "
              f"(whole-surface damage: {inside}; one output is {OUTPUT_PIXELS})")
        # Outside damage: nothing but the last commit's pixel and the
        # damage the frame before it left (a buffer's age).
        check(outside <= 2 * window + 1,
              f"{COMMITS} commits with damage only outside the window repainted {outside} "
              f"pixels (the window is {window})")
        s.check_alive()
        p.popen.stdin.close()
        p.wait(10)


harness.main(test)
