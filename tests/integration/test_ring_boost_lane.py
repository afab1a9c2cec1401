#!/usr/bin/env python3
"""The boost lane (session 42): a client sent input runs on a thread of its
own beside the one busy worker, in order, and may end there.

With one worker (nice +5, worker-nice) and four smt-plaid clients flooding
their rings, the worker is always in a flooder's slice. The compositor has
one more thread, ring-lane (/proc/PID/task/TID/comm), at the main thread's
nice, not the workers': it runs only a ring the scheduler gives it, that
of a client sent input within the input-boost interval and not penalised
below base, while every worker runs (smt_sched_pick_lane).

The rubber band (seed 001's echo client: a virtual pointer moves over its
window, it draws after every motion event) must: run on the lane
(worker_lane_runs grows), and also on the worker (its drawing before any
input is not the lane's: its ring moves between the two mid-stream, so its
slices outnumber the lane's runs); have its PRESENTs executed in the order it
wrote them (the compositor's execution times rise with the events), every
event it received executed; nobody gets a ring error. Then a second rubber
band is killed (SIGKILL) while it answers input, on the lane or about to
be: the compositor frees it as any client (the sanitizer builds check the
exit), the lane and the worker serve on (the flooders served again, a third
rubber band runs on the lane), and the lane thread is gone at exit with the
workers. Nothing here depends on which run took which command or when."""
import csv
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (Session, build_program, check, log, thread_nice,  # noqa: E402
                     thread_nices)

NICE = 5
FLOODERS = 4
PLAID = build_program("SMT_PLAID", "clients/smt-plaid")
RUBBERBAND = build_program("SMT_RUBBERBAND", "clients/smt-rubberband")


def rubberband_rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(f)]


def check_in_order(rows, who):
    check(len(rows) > 100, f"{who}: only {len(rows)} events")
    # (a move merged with the next one was never received, so never drawn;
    # the last moves' drawing may still be under way when the client ends)
    missing = [int(r["seq"]) for r in rows[:-2]
               if int(r["recv_ns"]) != 0 and int(r["exec_ns"]) == 0]
    check(not missing, f"{who}: received, never executed: events {missing[:10]}")
    execs = [int(r["exec_ns"]) for r in rows if int(r["exec_ns"]) != 0]
    check(len(execs) > 100, f"{who}: only {len(execs)} events executed")
    out_of_order = [i for i in range(1, len(execs)) if execs[i] <= execs[i - 1]]
    check(not out_of_order, f"{who}: PRESENTs executed out of order at {out_of_order[:10]}")


def test(h):
    config = f"[scheduler]\nworkers = 1\nworker-nice = {NICE}\n"
    os.environ.pop("SMT_TEST_WORKERS", None)  # (this test's own workers)
    with Session(h, config=config) as s:
        pid = s.compositor.pid
        main_nice = thread_nice(pid, pid)
        s.wait_until(lambda: thread_nices(pid, "ring-lane") == [main_nice] and
                     len(thread_nices(pid, "ring-worker")) == 1, timeout=10,
                     what=f"one ring-lane thread at the main thread's nice {main_nice}")
        plaid = [s.spawn([PLAID, "--seconds", "120"], name=f"plaid{i}")
                 for i in range(FLOODERS)]
        s.wait_served(plaid)
        before = s.server_stats()
        check("worker_lane_runs" in before, f"no worker_lane_runs in stats: {before}")
        check(before["worker_lane_runs"] == 0,
              f"the lane ran with nobody sent input: {before['worker_lane_runs']}")

        rb_csv = os.path.join(s.tmp, "rubberband.csv")
        rb = s.spawn([RUBBERBAND, "--seconds", "3", "--warmup", "0.5",
                      "--csv", rb_csv], name="rubberband")
        slices = {}

        def note_slices():
            for c in s.control("stats")["clients"]:
                if c["pid"] == rb.pid:
                    slices["rb"] = c["slices"]
            return rb.poll() is not None
        s.wait_until(note_slices, timeout=120, what="the rubber band's end")
        check(rb.returncode == 0, f"smt-rubberband: {rb.log_tail()}")
        lane_runs = s.server_stats()["worker_lane_runs"] - before["worker_lane_runs"]
        check(lane_runs > 0, "the rubber band never ran on the lane")
        check(slices.get("rb", 0) > lane_runs,
              f"the rubber band ran on the lane only ({slices} slices, {lane_runs} lane runs)")
        check_in_order(rubberband_rows(rb_csv), "rubberband")
        log(f"rubber band: {slices.get('rb')} slices, {lane_runs} on the lane, in order")

        # Ended while it answers input (on the lane, or about to be).
        doomed = s.spawn([RUBBERBAND, "--seconds", "60", "--warmup", "0.5",
                          "--csv", os.path.join(s.tmp, "doomed.csv")], name="doomed")
        mark = s.server_stats()["worker_lane_runs"]
        s.wait_until(lambda: s.server_stats()["worker_lane_runs"] > mark + 20, timeout=60,
                     what="the second rubber band on the lane")
        doomed.signal_group(signal.SIGKILL)
        doomed.wait(10)
        s.wait_until(lambda: doomed.pid not in {c["pid"] for c in s.control("stats")["clients"]},
                     timeout=30, what="the killed rubber band freed")
        served = s.ring_commands(plaid)
        s.wait_served(plaid, since=served, what="the flooders served after the kill")
        rb3_csv = os.path.join(s.tmp, "rubberband3.csv")
        mark = s.server_stats()["worker_lane_runs"]
        rb3 = s.spawn([RUBBERBAND, "--seconds", "2", "--warmup", "0.5",
                       "--csv", rb3_csv], name="rubberband3")
        check(rb3.wait(120) == 0, f"smt-rubberband 3: {rb3.log_tail()}")
        check(s.server_stats()["worker_lane_runs"] > mark, "the lane did not run after the kill")
        check_in_order(rubberband_rows(rb3_csv), "rubberband3")

        for p in plaid:
            check(p.alive(), f"{p.name} ended: {p.log_tail()}")
        check("ring of client pid" not in open(s.compositor_log).read(),
              "a client got a ring error")


harness.main(test)
