#!/usr/bin/env python3
"""Rings' commands on worker threads ([scheduler] workers = 2), many clients
at once: animated ring clients keep presenting frames while hostile clients
concurrently flood pixmaps, race their own ring, destroy a pool with
commands pending, send bad commands and die mid-command, and one keeps its
ring full of huge PRESENTs, copied by the workers, until it is killed in
the middle of one. Each bad client
gets its protocol error (posted by the main thread, the compositor logging
it with the client's pid), the animated clients keep drawing, the main
loop keeps answering, and once everyone is gone (the animated clients
killed mid-stream) every fd, mapping and byte charged is back: nothing
depends on which worker ran what. Last, the compositor is ended (SIGTERM)
while clients draw: it exits 0, and under ASan with nothing leaked."""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Every compositor of this test runs two workers (the harness's switch; the
# ring tests' *_workers runs set it the same way).
os.environ.setdefault("SMT_TEST_WORKERS", "2")
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness.accounts import memory_at_rest, usage_at_rest  # noqa: E402

# case -> text its output must hold (test_ring_hostile.py's expectations)
CONCURRENT = {
    "bad-opcode": "bad_opcode",
    "pool-destroy-pending": "bad_pool: unknown pool id (opcode PUT_IMAGE_POOL",
    "pixmaps-10k": "limit: limit client-memory-mib=256 reached",
    "race": None,
}
ROUNDS = 3


def demo_path(h):
    return os.environ.get("SMT_DEMO") or os.path.join(
        os.path.dirname(os.path.dirname(h.smtwc)), "clients", "smt-demo")


def rings_by_pid(s):
    return {c["pid"]: c for c in s.control("stats")["clients"]}


def test(h):
    with Session(h) as s:
        pid = s.compositor.pid
        excl = s.cursor_exclusion()
        check("worker threads" in open(s.compositor_log).read(),
              "the compositor did not start its worker threads")
        clients = 1  # the harness's keyboard anchor
        s.wait_clients(clients)
        base = harness.ResourceBaseline(pid)
        rest = usage_at_rest(s)

        for r in range(ROUNDS):
            demos = [s.spawn([demo_path(h)], name=f"demo{i}") for i in range(3)]
            img0, _ = s.wait_screenshot(
                lambda img: img.bbox_not(BACKGROUND, exclude=excl), what="the demos' windows")
            # Every demo has its ring before the hostile clients come (one
            # window on screen says nothing of the other two on a loaded
            # machine), so the count below is of live rings only.
            s.wait_until(lambda: s.server_stats()["rings"] >= len(demos),
                         what="the demos' rings")
            bad = {case: s.spawn([hostile_tool(h), case], name=case) for case in CONCURRENT}
            # A client whose ring is full of full-damage PRESENTs of a huge
            # canvas (each a 77 MiB copy in bands, on a worker since
            # session 32): killed below in the middle of one.
            before = s.server_stats()["presents_posted"]
            present = s.spawn([hostile_tool(h), "present-attack", "600"], name="present-attack")
            # The demos keep presenting while the hostile clients run.
            s.wait_screenshot(lambda img: img.diff_count(img0) > 0 or None,
                              what="the demos to animate beside the hostile clients")
            for case, p in bad.items():
                rc = p.wait(60)
                out = open(p.log_path).read()
                check(rc == 0, f"round {r}: {case}: exit {rc}\n{out[-1500:]}")
                expected = CONCURRENT[case]
                if expected is not None:
                    check(expected in out, f"round {r}: {case}: '{expected}' missing:\n"
                                           f"{out[-1500:]}")
            # The bad command's error was posted by the main thread, which
            # logged it with the client's pid (in the first round: ring
            # errors are logged at a bounded rate, log_limit.h).
            bad_pid = bad["bad-opcode"].pid
            log_text = open(s.compositor_log).read()
            check(r > 0 or re.search(rf"ring of client pid {bad_pid}: bad_opcode", log_text),
                  f"round {r}: no logged error for the bad-opcode client {bad_pid}")
            # The main loop answers while the demos draw.
            check(s.server_stats()["rings"] >= len(demos),
                  "the control socket did not answer with the demos' rings")
            # The PRESENT client's copies run on the workers: killed while
            # its ring runs, almost surely inside a copy (its ring holds
            # nothing else), with the PRESENTs it had copied maybe still
            # waiting for the main thread.
            s.wait_until(lambda: present.pid in rings_by_pid(s) and
                         rings_by_pid(s)[present.pid]["present_ms"] > 0 and
                         s.server_stats()["presents_posted"] > before,
                         timeout=60, what="a PRESENT copied and posted by a worker")
            check(present.alive(), f"present-attack: {present.log_tail()}")
            # Killed mid-stream, in the middle of whatever their workers run.
            for d in demos + [present]:
                d.signal_group(signal.SIGKILL)
            for d in demos + [present]:
                d.wait(5)
            s.wait_clients(clients)
            s.wait_until(lambda: (lambda st: memory_at_rest(st, rest) and
                                  st["reclaim_items"] == 0)(s.server_stats()),
                         what="every client's memory to be released")
            base.wait_back(s, f"round {r}: fds and mappings back at the start")
            log(f"round {r}: 3 demos, a PRESENT client and {len(CONCURRENT)} hostile "
                f"clients at once; all released")
        check(s.compositor.alive(), "the compositor died")

        # The session ends while clients draw: when SIGTERM comes, runs may
        # be handed back to the main thread and not settled (PRESENTs, a
        # socket ring's FENCEs, a bad command's error, a full ring's
        # wake-up). The compositor exits 0 with its socket gone, and in the
        # ASan build LeakSanitizer finds nothing at exit (it fails the exit).
        last = [s.spawn([demo_path(h)], name=f"last-demo{i}") for i in range(2)]
        last.append(s.spawn([demo_path(h), "--transport", "socket"], name="last-socket-demo"))
        s.wait_until(lambda: s.server_stats()["rings"] >= len(last), what="the last demos' rings")
        for case in ("ring-full", "bad-opcode", "race"):
            s.spawn([hostile_tool(h)] + ([case, "60"] if case == "ring-full" else [case]),
                    name=f"last-{case}")
        img1 = s.screenshot()
        s.wait_screenshot(lambda img: img.diff_count(img1) > 0 or None,
                          what="the last demos to draw")
        s.stop()
        log("ended while 3 demos, a full ring and bad commands ran: exit 0")


harness.main(test)
