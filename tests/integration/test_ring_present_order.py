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
client is served.

Then every PRESENT of two canvases no output shows is reported once, in
each canvas's order, with display time 0 (smt-hostile present-each): 40
single PRESENTs, each waited for, then 40 bursts of 24 alternating between
the canvases. With workers (session 32) the copy is the worker's and the
main thread only sends the event: between the single PRESENTs it sleeps
and nothing but the worker's wake for the posted PRESENT (present_post.h)
makes it send one; a burst is more than a ring's outbox holds, so some
are left to the main thread (presents_refused) and still come in order
(session 33's CI, `_workers` under ASan: one burst's refused PRESENT was
reported before the eight posted ahead of it, when a worker posted and
handed the ring while the main thread was between its take of the posted
PRESENTs and its look at the handed rings; a 300 us sleep put there by
hand failed 5 of 5 runs of 100 rounds before the mend, 0 of 10 after).
Last, 6 PRESENTs each between fills of a big pixmap: most of their events
come while the fills after them still run (a posted PRESENT does not wait
for the run to end; not all: a loaded machine may keep the main thread
from a CPU that long). This does not isolate the worker's wake for a
posted PRESENT: with it disabled the events still came early, woken by a
frame or a run's end within a few ms (session 32)."""
import os
import re
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
        # (a ring goes with its connection's teardown, which the client
        # count may see first: waited for, not read once)
        s.wait_until(lambda: s.server_stats()["rings"] == 0,
                     what="the rings gone with their clients")

        before = s.server_stats()
        out = run_hostile_case(s, h, "present-each", "PRESENT_EACH", "40")
        log(out.strip().splitlines()[-1])
        m = re.search(r"(\d+) of (\d+) reported before the fills", out)
        check(m is not None and 2 * int(m.group(1)) >= int(m.group(2)),
              f"present-each: most PRESENTs' events waited for the fills after them: {out[-300:]}")
        st = s.server_stats()
        posted = st["presents_posted"] - before["presents_posted"]
        if os.environ.get("SMT_TEST_WORKERS", "0") != "0":
            check(posted > 0, f"no PRESENT copied and posted by a worker: {st}")
        else:
            check(posted == 0, f"{posted} PRESENTs posted without workers")
        log(f"present-each: {posted} posted by workers, "
            f"{st['presents_refused'] - before['presents_refused']} left to the main thread, "
            f"{st['worker_posted_wakeups'] - before['worker_posted_wakeups']} wake-ups for them, "
            f"{st['worker_main_wakeups'] - before['worker_main_wakeups']} in all, "
            f"{st['worker_handoffs'] - before['worker_handoffs']} handoffs, {st['sleeps'] - before['sleeps']} sleeps")


harness.main(test)
