#!/usr/bin/env python3
"""The light echo goes before the held flooders' next batch (docs/x11.md
"The tail: held clients' buffered requests",
xwayland-glue/xserver/input_boost.c).

The timed echo that nobody types into (seed 001's method, x11-echo) among
4 x11-plaid flooders, on the ring and on the socket (the echo and the
flooders on the same transport). A held flooder leaves the X server's
ready list only at its next read, so whatever the X server buffered for it
runs before a light client it is held back for. What is checked is what
the X server's half did and counted, never a duration:
- `[xwayland] light-read-cap = 256` (the default until session 29, now
  2048; pinned here, the mechanism is the same and "clear" is measured
  against one plaid request): the echo gets light
  grants, its waiting requests are read while the flooders are
  held back (`boost_served`, the flooders' `yields`), and at most of its
  grants no flooder had more than the request under way buffered in the
  X server (`light_clear`: the flooders' reads are cut to the request
  under way plus 256 bytes, and a plaid request is 412), so its requests
  are run before any flooder's next batch; every flooder keeps executing
  requests; the same among socket flooders (their reads are cut too since
  session 26: a shorter read is one a stream socket may always return);
- `light-read-cap = 0` (grants at the X server's polls only, the
  flooders' reads cut to 1 KiB past the request under way only while a
  grant is live): no grant at a read, and a smaller share of clear grants.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.x11_flood import echo_among, start_flooders, stop  # noqa: E402

FLOODERS = 4
# The echo's runs among the same flooders: until they had MIN_GRANTS light
# grants, at most RUNS.
MIN_GRANTS = 10
RUNS = 4
TRANSPORTS = ("ring", "socket")


def echo_among_flooders(s, what, transport):
    """Runs the timed echo among the flooders, again until its runs had
    MIN_GRANTS light grants (at most RUNS runs); returns the runs'
    statistics added up (and the last run's transport)."""
    what = f"{what}, {transport}"
    flooders = start_flooders(s, {transport: FLOODERS})
    # A light grant needs the echo measured light against the flooders for
    # a window or two: a 2 s run on a loaded machine can have none (ASan
    # beside two busy loops: 0 for the socket's echo with the cap off, 5
    # for the ring's), and the share of clear grants below is judged over
    # too few (2 of 5 in one such run, 15 of 16 in the next). So the echo
    # runs again among the same flooders, bounded: an X server that never
    # grants the light echo, or never clears the flooders' reads, fails
    # over any number of runs.
    runs = []
    for run in range(1, RUNS + 1):
        echo_among(s, flooders, transport, f"{what.replace(' ', '-').replace(',', '')}-{run}")
        runs.append([r for r in s.x11ring_closed() if r.get("comm") == "x11-echo"][-1])
        check(runs[-1]["transport"] == transport,
              f"the echo should be on the {transport}: {runs[-1]}")
        log(f"{what}: echo run {run}: {runs[-1]}")
        if sum(r["light_grants"] for r in runs) >= MIN_GRANTS:
            break
    echo = {k: sum(r[k] for r in runs) for k in
            ("input_events", "boosts", "light_grants", "boost_served", "light_early",
             "light_clear")}
    echo.update(runs=len(runs), transport=transport)
    pids = {p.pid for _, p in flooders}
    fl = [r for r in s.x11ring_stats() if r.get("pid") in pids]
    check(len(fl) == FLOODERS and all(r["transport"] == transport for r in fl),
          f"the flooders should be on the {transport}: {fl}")
    log(f"{what}: echo over {len(runs)} run(s) {echo}")
    for r in fl:
        log(f"{what}: flooder {r['pid']}: yields={r['yields']} light_grants={r['light_grants']}")
    stop(s, [p for _, p in flooders])
    check(echo["input_events"] == 0 and echo["boosts"] == 0,
          f"the timed echo got input or an input grant: {runs}")
    check(echo["light_grants"] > 0, f"the timed echo got no light grant: {runs}")
    check(echo["boost_served"] > 0,
          f"the echo's requests were never read while the flooders were held back: {runs}")
    check(sum(r["yields"] for r in fl) > 0, f"no flooder was ever held back for the echo: {fl}")
    return echo


def test(h):
    cut, old = {}, {}
    with Session(h, "cut", x11=True, config="[xwayland]\nlight-read-cap = 256\n") as s:
        for transport in TRANSPORTS:
            cut[transport] = echo_among_flooders(s, "light-read-cap 256", transport)
    with Session(h, "nocut", x11=True, config="[xwayland]\nlight-read-cap = 0\n") as s:
        for transport in TRANSPORTS:
            old[transport] = echo_among_flooders(s, "light-read-cap 0", transport)
    for transport in TRANSPORTS:
        c, o = cut[transport], old[transport]
        # Grants at a flooder's read (`light_early`) happen when the
        # echo's requests arrive while the X server is in a flooder's pick
        # rather than about to poll: most of them with 12 flooders on a
        # busy X server (tests/bench/x11/light_tail.py), none in some runs
        # of this one, so only logged here.
        log(f"{transport}: light grants at a flooder's read: {c['light_early']} of "
            f"{c['light_grants']}")
        clear = c["light_clear"] / c["light_grants"]
        # Most, not all: a grant after a pause in which the echo was not
        # active follows the flooders' uncut reads (the first grant, and
        # more on a loaded machine: 12 of 17 clear on the ring in one ASan
        # run beside other tests, 9 of 14 in another, 5 of 13 and 2 of 5
        # in ASan runs beside two busy loops, 15-27 of 16-29 in the others).
        # How many is the scheduler's, so it is logged; what the cut must
        # do is the paired check below: without it (light-read-cap = 0) at
        # most 1 of 14-24 was clear in those runs, and with a cut that did
        # nothing both shares are 0 and the check fails.
        log(f"{transport}: {clear:.0%} of the light grants clear with the cut "
            f"({'most' if clear > 0.5 else 'not most'}; the echo's runs: {c['runs']})")
        check(o["light_early"] == 0, f"{transport}: light-read-cap = 0, yet grants at reads: {o}")
        log(f"{transport}: clear grants: {c['light_clear']} of {c['light_grants']} with the cut, "
            f"{o['light_clear']} of {o['light_grants']} without")
        check(o["light_clear"] / o["light_grants"] < clear,
              f"{transport}: without the cut as many clear grants as with it: {o} against {c}")


if __name__ == "__main__":
    harness.main(test)
