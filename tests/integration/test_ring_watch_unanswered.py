#!/usr/bin/env python3
"""Input a ring client never answers keeps nobody's pieces short
(session 35, red team).

Since session 33, input sent to the client of an idle ring while a worker
runs makes the workers' pieces 0.1 ms (and ends the pieces in progress)
until that ring publishes, for 3 ms at most (ring_workers_watch_locked).
Bounded per input event, but not in all: a pointer moved over a window
that draws nothing for it (a static smt-demo: a ring client that received
input and never reported) renewed the watch at every motion event, so the
flooders beside it ran in short pieces for as long as the pointer moved.

Now a ring's watch lasts 3 ms from the first input it has not published
since, then rests 27 ms: later input neither extends nor renews it
before. Counted: with one worker and three smt-plaid flooders, 300
motion events over the static window make at most one watch per 30 ms
of their span, and fewer than one per three events (before the mend:
one per event that found the worker running: 300 of 300); the
flooders are served throughout; and a client that does answer its input
(smt-rubberband) is still watched for at its events."""
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

FLOODERS = 3
MOVES = 300
# RING_WORKERS_WATCH_NS + RING_WORKERS_WATCH_REST_NS: one watch per cycle
CYCLE_S = 0.030


def client(h, name):
    build = os.path.dirname(os.path.dirname(h.smtwc))
    return os.path.join(build, "clients", name)


def test(h):
    # (a test's own [scheduler] keys: not the _workers runs' switch)
    os.environ.pop("SMT_TEST_WORKERS", None)
    with Session(h, config="[scheduler]\nworkers = 1\n") as s:
        plaid = [s.spawn([client(h, "smt-plaid"), "--seconds", "300"], name=f"plaid{i}")
                 for i in range(FLOODERS)]
        s.wait_served(plaid)
        demo = s.spawn([client(h, "smt-demo"), "--static"], name="demo")
        s.wait_until(lambda: "DEMO_READY" in open(demo.log_path).read(), timeout=30,
                     what="the static demo drawn")
        win = s.wait_window(lambda w: w["pid"] == demo.pid, what="the demo's window")
        # (mapped last: on top of the flooders' windows)
        x0, y0 = win["x"] + 20, win["y"] + 20
        moves = []
        for i in range(MOVES):
            moves += ["move", x0 + (i % 2) * 40, y0 + (i % 3) * 30, "sleep", 1]
        s.vpointer("move", x0, y0)
        served = s.ring_commands(plaid)
        before = s.server_stats()
        start = time.monotonic()
        s.vpointer(*moves)
        elapsed = time.monotonic() - start
        after = s.server_stats()
        watches = after["worker_watches"] - before["worker_watches"]
        pieces = after["worker_watch_pieces"] - before["worker_watch_pieces"]
        log(f"{MOVES} moves over the static window in {elapsed:.3f} s: {watches} watches, {pieces} short "
            f"pieces; worker runs {after['worker_runs'] - before['worker_runs']}")
        # (the bound follows from the rule and the moves' span as this
        # process saw it, which holds every event: a slower machine only
        # widens it; each motion event was a watch before the mend)
        cycles = 1 + int(elapsed / CYCLE_S)
        check(watches <= cycles and watches < MOVES // 3,
              f"{watches} watches for {MOVES} motion events a client never answered "
              f"in {elapsed:.3f} s, at most {cycles} allowed ({pieces} short pieces)")
        s.wait_served(plaid, since=served, what="the flooders served during the moves")

        # A client that answers its input is still watched for.
        s.vpointer("move", 1279, 719)
        rb = s.spawn([client(h, "smt-rubberband"), "--seconds", "3", "--warmup", "0.5"],
                     name="rubberband")
        check(rb.wait(120) == 0, f"smt-rubberband: {rb.log_tail()}")
        last = s.server_stats()
        check(last["worker_watches"] > after["worker_watches"],
              f"the rubber band's input not watched for: {after} -> {last}")
        for p in plaid + [demo]:
            check(p.alive(), f"{p.name} ended: {p.log_tail()}")
        check(not re.search("ring of client pid", open(s.compositor_log).read()),
              "a client got a ring error")


harness.main(test)
