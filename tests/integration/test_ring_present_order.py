#!/usr/bin/env python3
"""A PRESENT stays with the canvas it was written for (docs/protocol.md,
"Requests in stream order"): a client writes a PRESENT of canvas 7, then
destroys canvas 7 and makes a new canvas 7 on the same surface. The new
canvas exists from its request on, but its id is the executor's only once
the commands before it ran, so the PRESENT is the old canvas's, and the new
canvas is reported only its own PRESENTs (smt-hostile present-recanvas:
every presented event carries the serial of the canvas it came on).

Both ways the requests can meet the PRESENT: published without a wake-up
and run after the compositor read the requests (the new canvas found under
the id took the PRESENT and its event), and run first with the requests
sent at once (with workers, `_workers` run: the requests arrived while the
run's PRESENT waited for the main thread, and a destroy applied at once
overtook it; 3 of 400 replacements beside three clients making round
trips, none without them). Then the compositor is alive and the next
client is served."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case  # noqa: E402


# Clients making round trips keep the main thread dispatching: a worker's
# handed-back PRESENT then waits while the requests behind it are read
# (without them the main thread settles it first, nearly always).
BUSY = 3


def test(h):
    with Session(h) as s:
        busy = [s.spawn([hostile_tool(h), "sync-probe", "120"], name=f"busy{i}")
                for i in range(BUSY)]
        out = run_hostile_case(s, h, "present-recanvas", "0 stale", "200")
        log(out.strip().splitlines()[-1])
        for p in busy:
            s.stop_client(p)
        s.wait_clients(1)
        check(s.server_stats()["rings"] == 0, "a ring outlived its client")


harness.main(test)
