#!/usr/bin/env python3
"""A PRESENT whose damage is many separate rectangles costs the main thread
a bounded amount (session 33, red team).

A ring client's PRESENT may name up to ~4,000 damage rectangles (a 64 KiB
command). Each shown one damaged the outputs rectangle by rectangle, and
wlroots unions each into the output's damage, walking every rectangle it
already holds: for a checkerboard that never merges, ~8 million
rectangle steps per PRESENT on the main thread, repeated for every
PRESENT until the next frame (before: a second client's round trips
waited up to 14 ms behind one client's PRESENTs of 4,000 1x1 rectangles,
and the output's damage held 4,000 rectangles at the frame). wlroots
renders an output's damage as its extents past 20 rectangles anyway
(wlr_output_damage.max_rects), so the canvas now adds a damage of more
rectangles as its extents and keeps an output's damage within that many.

smt-present-damage maps a window and writes 200 PRESENTs of 4,000 1x1
rectangles, none touching: the last one's `presented` comes, and those
reported (one replaced before a frame showed it is not) in order; the
most rectangles an output's damage held at a frame (smtctl stats render
damage_rects_max) stays within twice wlroots' 20 (the window's own map
adds a few of wlroots' own); a second client is served after it, and
every ring, canvas, fd and byte charged is back once it is gone. Run plain and with
two ring workers (_workers)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, build_program, check, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness.accounts import at_rest, usage_at_rest  # noqa: E402

RECTS = 4000
PRESENTS = 200
# wlr_output_damage.max_rects (wlroots 0.15's default), twice.
DAMAGE_RECTS_BOUND = 2 * 20


def test(h):
    tool = build_program("SMT_PRESENT_DAMAGE", "tests/tools/smt-present-damage")
    with Session(h) as s:
        clients = s.wayland_clients()  # the harness's own (a keyboard anchor)
        rest = usage_at_rest(s)
        res = s.run([tool, str(RECTS), str(PRESENTS)], timeout=harness.scaled(120))
        check(re.search(r"PRESENTED \d+ LAST yes IN-ORDER yes", res.stdout),
              f"smt-present-damage: {res.stdout!r} {res.stderr[-300:]!r}")
        render = s.control("stats")["render"]
        check(render["damage_rects_max"] <= DAMAGE_RECTS_BOUND,
              f"an output's damage held {render['damage_rects_max']} rectangles at a frame, "
              f"more than {DAMAGE_RECTS_BOUND}: {render}")
        out = s.run([hostile_tool(h), "sync-probe", "0.5"], timeout=30).stdout
        check(out.startswith("SYNC n="), f"a second client's round trips: {out!r}")
        s.wait_clients(clients)
        st = s.server_stats()
        check(st["rings"] == 0 and st["total_canvases"] == 0 and at_rest(st, rest),
              f"the client's resources outlived it: {st}")
        s.check_alive()
        log(f"{PRESENTS} PRESENTs of {RECTS} rectangles: {res.stdout.strip()}; an output's "
            f"damage held at most {render['damage_rects_max']} rectangles at a frame "
            f"({render['frames']} frames)")


harness.main(test)
