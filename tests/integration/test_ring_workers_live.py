#!/usr/bin/env python3
"""Ring worker threads (issue 28) changed live, and work charged to its
client whichever thread does it.

A PRESENT's copy from the canvas's back image to the front buffer runs on
the thread that runs the ring (with workers, the worker: the main thread
only damages the outputs and sends `presented`, session 32); its time
counts in the client's run time (smtctl's sched_time_ms, which sets its
priority) and in time_ms, as when the main thread runs everything. A client
doing almost nothing but full-damage PRESENTs of a huge canvas (smt-hostile
present-attack) shows it: its charged time is never below the copies'
(present_ms), read while it runs (with the run in progress, run_ms:
a worker's run is charged when it ends); with workers its PRESENTs were copied
and posted by them (presents_posted), none handed back for that.

`smtctl set workers N` starts, stops or replaces the threads while two
animated demos and that client draw: after each change `get` and the
statistics show N threads (0: the main thread), every client is served
again (its counters move), the charge still holds, nobody gets an error,
and once everyone is gone every fd and every byte charged is back.

Run plain (workers = 0 at start) and as _workers (two threads at start,
SMT_TEST_WORKERS)."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness.accounts import memory_at_rest, usage_at_rest  # noqa: E402

SAMPLES = 3
CHANGES = [2, 0, 1, 3, 0, 2, 1]


def demo_path(h):
    return os.environ.get("SMT_DEMO") or os.path.join(
        os.path.dirname(os.path.dirname(h.smtwc)), "clients", "smt-demo")


def rings_by_pid(s):
    return {c["pid"]: c for c in s.control("stats")["clients"]}


def check_charged(r, what):
    # A worker's run is charged when it ends; its copies so far are in
    # present_ms already, and in run_ms, the run's time until now.
    charged = r["sched_time_ms"] + r["run_ms"]
    check(charged >= r["present_ms"],
          f"{what}: charged {r['sched_time_ms']} ms and {r['run_ms']} ms running, below "
          f"its PRESENTs' copies' {r['present_ms']} ms")
    check(r["time_ms"] >= r["present_ms"],
          f"{what}: time_ms {r['time_ms']} below present_ms {r['present_ms']}")


def served_again(s, procs, what):
    """Every client's ring runs more commands (the PRESENT client: more
    copies) than it had: served after the change."""
    s.wait_until(lambda: all(p.pid in rings_by_pid(s) for p in procs.values()),
                 timeout=30, what=f"{what}: every client's ring")
    before = rings_by_pid(s)

    def moved():
        now = rings_by_pid(s)
        return all(p.pid in now and (now[p.pid]["present_ms"] > before[p.pid]["present_ms"]
                                     if name == "present" else
                                     now[p.pid]["commands"] > before[p.pid]["commands"])
                   for name, p in procs.items())
    s.wait_until(moved, timeout=60, what=f"{what}: every client served again")


def test(h):
    workers = int(os.environ.get("SMT_TEST_WORKERS", "0"))
    with Session(h) as s:
        pid = s.compositor.pid
        s.wait_clients(1)  # the harness's keyboard anchor
        base = harness.ResourceBaseline(pid)
        rest = usage_at_rest(s)
        sched = s.control("get")["scheduler"]
        check(sched.get("workers") == workers,
              f"get shows workers {sched.get('workers')}, the compositor runs {workers}")
        check(s.server_stats()["worker_threads"] == workers, "worker_threads")

        present = s.spawn([hostile_tool(h), "present-attack", "600"], name="present-attack")
        s.wait_until(lambda: "PRESENT_ATTACK started" in open(present.log_path).read()
                     or not present.alive(), timeout=60, what="the PRESENT client to start")
        check(present.alive(), f"present-attack: {present.log_tail()}")
        for i in range(SAMPLES):
            served_again(s, {"present": present}, f"sample {i}")
            check_charged(rings_by_pid(s)[present.pid], f"workers {workers}, sample {i}")
        if workers > 0:
            # (a copy of 77 MiB takes a while: polled, not read once)
            s.wait_until(lambda: s.server_stats()["presents_posted"] > 0, timeout=120,
                         what="a PRESENT copied and posted by a worker")

        demos = [s.spawn([demo_path(h)], name=f"demo{i}") for i in range(2)]
        procs = {"present": present, "demo0": demos[0], "demo1": demos[1]}
        served_again(s, procs, "before any change")
        for n in CHANGES:
            answer = s.control(f"set workers {n}")
            check(answer.get("ok") and answer["scheduler"]["workers"] == n,
                  f"set workers {n}: {answer}")
            check(s.server_stats()["worker_threads"] == n, f"set workers {n}: threads")
            served_again(s, procs, f"workers {n}")
            check_charged(rings_by_pid(s)[present.pid], f"after set workers {n}")
            for name, p in procs.items():
                check(p.alive(), f"workers {n}: {name} ended: {p.log_tail()}")
            log(f"workers {n}: every client served, copies charged")
        check(s.control(f"set workers {workers}").get("ok"), "back to the start's number")

        for p in procs.values():
            p.signal_group(signal.SIGKILL)
        for p in procs.values():
            p.wait(10)
        s.wait_clients(1)
        s.wait_until(lambda: (lambda st: memory_at_rest(st, rest) and
                              st["reclaim_items"] == 0)(s.server_stats()),
                     what="every client's memory to be released")
        base.wait_back(s, "fds back at the start", mappings=False)
        log_text = open(s.compositor_log).read()
        check("ring of client pid" not in log_text, "a client got a ring error")
        check(s.compositor.alive(), "the compositor died")


harness.main(test)
