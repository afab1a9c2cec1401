#!/usr/bin/env python3
"""Ring worker threads (issue 28) yield to a more favoured client, and run
below the main thread's OS priority.

Priority: every worker thread (named ring-worker, /proc/PID/task/TID/comm)
runs at the main thread's nice plus `worker-nice` ([scheduler], here 5),
the main thread keeps its own; after `smtctl set workers 3` the three new
threads, and after `set worker-nice 9` the replaced ones, at the new value.
Waited for, never sampled once: a thread sets its own nice as it starts.

Preemption: with two workers and four smt-plaid clients flooding their
rings, the rubber band (seed 001's echo client: a virtual pointer moves
over its window, it draws after every motion event and so gets the input
boost) waits for no flooder's slice: the main thread or a worker that sees
it ready ends a less favoured runner's piece early (worker_preempts
counts them). What that must not change: its PRESENTs run in the order it
wrote them (the compositor's execution times, one per motion event, rise
with the events), every event it received is executed, nobody gets a ring error, and
the flooders are still served after it.

Input watched for: a motion event sent to the rubber band while workers
run makes their pieces short (and ends the ones in progress) until its
publish is reported, so the publish is not seen up to a whole piece late
(worker_watches, worker_watch_pieces); the flooders alone, sent no input,
never get a short piece."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Session, build_program, check, log, thread_nice,  # noqa: E402
                     thread_nices)

NICE = 5
FLOODERS = 4
PLAID = build_program("SMT_PLAID", "clients/smt-plaid")
RUBBERBAND = build_program("SMT_RUBBERBAND", "clients/smt-rubberband")


def workers_at(pid, n, nice):
    """The compositor has exactly n ring-worker threads, each at nice."""
    seen = thread_nices(pid, "ring-worker")
    return len(seen) == n and all(v == nice for v in seen)


def test(h):
    # (boost-lane off: this tests the workers' watch for input; with the
    # lane on, the rubber band may run on the lane and no worker piece is
    # cut short: under TSan this test failed so once the lane came,
    # session 42. The lane has its own test, ring_boost_lane.)
    config = f"[scheduler]\nworkers = 2\nworker-nice = {NICE}\nboost-lane = 0\n"
    # (a test's own [scheduler] keys: not the _workers runs' switch)
    os.environ.pop("SMT_TEST_WORKERS", None)
    with Session(h, config=config) as s:
        pid = s.compositor.pid
        main_nice = thread_nice(pid, pid)
        want = min(19, main_nice + NICE)
        s.wait_until(lambda: workers_at(pid, 2, want), timeout=10,
                     what=f"two ring-worker threads at nice {want}")
        check(thread_nice(pid, pid) == main_nice, "the main thread's nice changed")
        sched = s.control("get")["scheduler"]
        check(sched.get("worker-nice") == NICE, f"get: {sched}")
        log(f"main thread nice {main_nice}, workers {want}")

        plaid = [s.spawn([PLAID, "--seconds", "120"], name=f"plaid{i}")
                 for i in range(FLOODERS)]
        s.wait_served(plaid)
        # Input watched for (ring_workers_watch_locked): while the
        # flooders run and nobody is sent input, no piece is cut short
        # (a watch ends 3 ms after its input at the latest: one a window's
        # focus caused before this is over)
        quiet = s.server_stats()
        served = s.ring_commands(plaid)
        s.wait_served(plaid, since=served, what="the flooders served again")
        idle = s.server_stats()
        check(idle["worker_watch_pieces"] == quiet["worker_watch_pieces"],
              f"pieces cut short with no input sent: {quiet} -> {idle}")
        before = idle["worker_preempts"]
        rb_csv = os.path.join(s.tmp, "rubberband.csv")
        rb = s.spawn([RUBBERBAND, "--seconds", "3", "--warmup", "0.5",
                      "--csv", rb_csv], name="rubberband")
        check(rb.wait(120) == 0, f"smt-rubberband: {rb.log_tail()}")
        stats = s.server_stats()
        preempts = stats["worker_preempts"] - before
        check(preempts > 0, "no worker's run ended early for the rubber band")
        # its motion events came while flooders ran: the workers watched
        # for its publish in short pieces
        check(stats["worker_watches"] > 0 and stats["worker_watch_pieces"] > 0,
              f"the rubber band's input not watched for: {stats}")
        with open(rb_csv) as f:
            rows = [r for r in csv.DictReader(f)]
        check(len(rows) > 100, f"only {len(rows)} events")
        # (a move whose motion event the compositor merged with the next
        # one was never received, so never drawn; the last moves' drawing
        # may still be under way when the client ends)
        missing = [int(r["seq"]) for r in rows[:-2]
                   if int(r["recv_ns"]) != 0 and int(r["exec_ns"]) == 0]
        check(not missing, f"received, never executed: events {missing[:10]}")
        execs = [int(r["exec_ns"]) for r in rows if int(r["exec_ns"]) != 0]
        check(len(execs) > 100, f"only {len(execs)} events executed")
        out_of_order = [i for i in range(1, len(execs)) if execs[i] <= execs[i - 1]]
        check(not out_of_order,
              f"PRESENTs executed out of order at events {out_of_order[:10]}")
        log(f"{len(rows)} events executed in order; {preempts} runs ended early")

        after = s.ring_commands(plaid)
        s.wait_served(plaid, since=after, what="the flooders served after the rubber band")

        answer = s.control("set workers 3")
        check(answer.get("ok"), f"set workers 3: {answer}")
        s.wait_until(lambda: workers_at(pid, 3, want), timeout=10,
                     what=f"three ring-worker threads at nice {want}")
        answer = s.control("set worker-nice 9")
        check(answer.get("ok") and answer["scheduler"]["worker-nice"] == 9,
              f"set worker-nice 9: {answer}")
        want = min(19, main_nice + 9)
        s.wait_until(lambda: workers_at(pid, 3, want), timeout=10,
                     what=f"three ring-worker threads at nice {want}")
        check(thread_nice(pid, pid) == main_nice, "the main thread's nice changed")

        for p in plaid:
            check(p.alive(), f"{p.name} ended: {p.log_tail()}")
        check("ring of client pid" not in open(s.compositor_log).read(),
              "a client got a ring error")


harness.main(test)
