#!/usr/bin/env python3
"""Every rule of "The client is hostile" (docs/architecture.md, "The design") against a real
compositor: each misbehaving client (tests/tools/smt-hostile) gets the
documented protocol error naming what it did (or is refused), the compositor
keeps serving a well-behaved client that keeps drawing, and its file
descriptors, mappings and RSS return to where they were.

Besides the named cases: every opcode with out-of-range ids, rectangles,
counts (incl. 32-bit wrap-around of count * element size), strides and pool
offsets (smt-hostile --list-ops, each checks the status page names the
expected error, opcode and offset); a client that floods requests without
ever reading its socket while another keeps drawing; and drawing into
another client's canvas (two processes: ids are per ring), checked on
screen."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402
from harness.accounts import at_rest, memory_at_rest, usage_at_rest  # noqa: E402

ERROR_AT_DEAD_RUNS = 10

# case -> text the protocol error must contain (None: no error expected)
CASES = {
    "unsealed": "not sealed against shrinking",
    "short": "smaller than the declared size",
    "not-pow2": "not a power of two",
    "too-large": "not a power of two",
    "not-eventfd": "must be eventfds",
    "not-a-memfd": "not a memfd",
    "status-read-only": None,
    "head-beyond": "bad_head",
    "head-unaligned": "bad_head",
    "size-zero": "bad_size: size 0 (opcode NOOP, offset 0)",
    "size-odd": "bad_size",
    "size-past-end": "wrap: command runs past the end of the area (missing PAD) "
                     "(opcode NOOP, offset 4080)",
    "bad-opcode": "bad_opcode",
    "foreign-drawable": "bad_drawable: unknown drawable (opcode SET_TARGET, offset 0)",
    "rect-overflow": "bad_geometry",
    "count-overflow": "bad_length",
    "pool-offset-overflow": "out_of_bounds",
    "bad-stride": "bad_stride",
    "pixmap-flood": "limit",
    # a SET_CLIP of rows and columns whose union would be 4 million boxes
    # (64 MiB held with the ring before session 41) is refused first
    "clip-grid": "limit: rectangles whose union could have more than 16384 boxes "
                 "(opcode SET_CLIP",
    "race": None,
    "wakeup-storm": None,
    # the client writes its whole header page (all but head) between batches:
    # the server's tail lives in its own memory and is unaffected
    "header-scribble": "after scribbling",
    "head-backwards": "bad_head",
    # in range but far outside the target: clipped by the server, no error
    "giant-geometry": "clipped and executed",
    "head-huge": "bad_head",
    # pools: sealed against shrinking, never shrunk, drained before destroy
    "pool-unsealed": "memfd is not sealed against shrinking",
    # and against writes (session 41): a page the compositor found in the
    # file could otherwise be punched out before it reads it
    "pool-writable": "create_pool 3: memfd is not sealed against writes "
                     "(F_SEAL_FUTURE_WRITE or F_SEAL_WRITE)",
    "pool-short": "memfd is smaller than the declared size",
    "pool-shrink": "would shrink it",
    "pool-grow-lie": "memfd is smaller than the declared size",
    "pool-destroy-pending": "bad_pool: unknown pool id (opcode PUT_IMAGE_POOL",
    "pool-resize-destroy-pending": "bad_pool: unknown pool id (opcode PUT_IMAGE_POOL",
    # 10000 small pixmaps are fine; 20000 64x64 ones hit the per-client limit
    "pixmaps-10k": "limit: limit client-memory-mib=256 reached",
    # resource attacks: refused with the limit's name and value, and the
    # compositor's usage returns to zero (checked below)
    "ring-flood": "create_ring: limit client-rings=8 reached: 8 in use",
    "pool-flood": "create_pool: limit client-pools=32 reached: 32 in use",
    "canvas-huge": "get_canvas: limit client-memory-mib=256 reached",
    "canvas-grow": "smt_canvas_v1.resize: limit client-memory-mib=256 reached",
    "memory-rings": "rings with a 64 MiB pixmap: 3",
    # requests that need hours of queued fills answered without running
    # them; a second connection's requests complete meanwhile
    "drain-stall": "DRAIN_STALL refused",
    # a full-damage PRESENT of a 4500x4500 canvas copies in bands: other
    # connections' round trips are answered before it is reported
    "present-split": "PRESENT_SPLIT",
    # socket path: a command split over two submits runs after a request
    # sent between its pieces (create_pool: found; destroy: bad_pool)
    "split-around-request": "SPLIT_COMMAND ordered after the request",
    # a client's eventfd made blocking (O_NONBLOCK cleared on the shared
    # file description): the compositor never waits on it
    "wake-full": "WAKE_FULL answered; the ring ended with bad_fd",
    "wake-steal": "WAKE_STEAL answered",
    # a server eventfd made with EFD_SEMAPHORE: a read takes one count, so
    # one write would keep it readable and the loop busy for good
    "wake-semaphore": "WAKE_SEMAPHORE refused",
    # pools of every kind of fd: only memfds sealed against shrinking and
    # against writes
    "fd-kinds-pool": "POOL_FD_KINDS as expected",
    # one stream per ring: a submit on a shared-memory ring is refused
    "submit-shared-ring": "SUBMIT_SHARED refused",
}


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def stable_screenshot(s, rect):
    """A screenshot of a window that no longer changes: the same in two
    consecutive screenshots."""
    prev = [None]

    def same(img):
        ok = prev[0] is not None and img.diff_count(prev[0], rect) == 0
        prev[0] = img
        return ok
    img, _ = s.wait_screenshot(same, what="the window to stop changing")
    return img


def foreign_canvas(h):
    """Two processes: smt-demo owns canvas N (on screen); a hostile client
    names N as its target, or creates its own pixmap N and presents it. Both
    die with bad_drawable and the demo's pixels do not change."""
    demo = os.environ.get("SMT_DEMO") or os.path.join(
        os.path.dirname(os.path.dirname(h.smtwc)), "clients", "smt-demo")
    with Session(h, "foreign") as s:
        excl = s.cursor_exclusion()
        p = s.spawn([demo, "--static"])
        s.wait_until(lambda: "DEMO_READY" in open(p.log_path).read(), what="DEMO_READY")
        canvas = int(re.search(r"canvas=(\d+)", open(p.log_path).read()).group(1))
        _, win = s.wait_screenshot(lambda img: img.bbox_not(BACKGROUND, exclude=excl),
                                   what="the demo's window")
        img0 = stable_screenshot(s, win)
        for case in ("foreign-target", "foreign-present"):
            res = s.run([hostile_tool(h), case, str(canvas)], timeout=20, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0 and "bad_drawable" in out,
                  f"{case} {canvas}: exit {res.returncode}\n{out[-1500:]}")
            log(f"{case} {canvas}: ok")
        # Whatever a hostile PRESENT did happened before its error was
        # posted; a screenshot renders a frame after that.
        img1 = s.screenshot()
        d = img1.diff_count(img0, win)
        check(d == 0, lambda: f"the demo's window changed in {d} pixels "
                              f"({s.save(img1, 'foreign-after')})")
        check(p.alive(), "the demo died")


def test(h):
    with Session(h) as s:
        pid = s.compositor.pid
        excl = s.cursor_exclusion()
        s.spawn(["weston-simple-shm"])
        img0, win = s.wait_screenshot(
            lambda img: img.bbox_not(BACKGROUND, exclude=excl), what="simple-shm's window")
        # Two different frames on screen: simple-shm has both its buffers.
        s.wait_screenshot(lambda img: img.diff_count(img0, win) > 1000 or None,
                          what="simple-shm to animate")
        # The keyboard anchor and simple-shm; counted once the screenshot
        # clients' disconnects are processed (their fds are not baseline).
        clients = 2
        s.wait_clients(clients)
        rest = usage_at_rest(s)
        base = harness.ResourceBaseline(pid)
        rss0 = rss_kb(pid)
        log(f"baseline: {base.counts[0]} fds, {base.counts[1]} mappings, RSS {rss0} KiB")

        for case, expected in CASES.items():
            res = s.run([hostile_tool(h), case], timeout=60, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0, f"case {case}: exit {res.returncode}\n{out[-1500:]}")
            if expected is not None:
                check(expected in out, f"case {case}: error text '{expected}' missing in:\n"
                                       f"{out[-1500:]}")
            check(s.compositor.alive(), f"the compositor died in case {case}")
            log(f"{case}: ok")

        # A client that stops at DEAD and makes one round trip gets its
        # error, every time: queued before DEAD, with workers too
        # (docs/protocol.md, "What a client sees first").
        for i in range(ERROR_AT_DEAD_RUNS):
            res = s.run([hostile_tool(h), "error-at-dead"], timeout=60, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0 and "ERROR_AT_DEAD the round trip after DEAD brought: "
                  "smt_ring_v1@" in out and "bad_opcode" in out,
                  f"error-at-dead run {i + 1}: exit {res.returncode}\n{out[-1500:]}")
        log(f"error-at-dead: a round trip after DEAD brought the error in "
            f"{ERROR_AT_DEAD_RUNS} runs")

        # The server maps client memory read-only: while a ring client runs,
        # none of the compositor's mappings of its memfd is writable.
        probe = s.spawn([hostile_tool(h), "echo-probe", "2"], name="echo")

        def ring_maps():
            with open(f"/proc/{pid}/maps") as f:
                return [l.split() for l in f if "memfd:smt-hostile" in l]
        ring_maps = s.wait_until(ring_maps, what="the compositor to map the probe's ring")
        check(ring_maps, "no mapping of the client's ring in the compositor")
        check(all("w" not in m[1] for m in ring_maps),
              f"the compositor maps client memory writable: {ring_maps}")
        check(probe.wait(20) == 0, f"echo-probe: {probe.log_tail()}")
        log(f"client memory mapped {sorted(set(m[1] for m in ring_maps))} by the compositor; "
            f"{open(probe.log_path).read().strip().splitlines()[-1]}")

        # Every opcode with out-of-range values, one process per case.
        ops = subprocess.run([hostile_tool(h), "--list-ops"], capture_output=True, text=True,
                             check=True).stdout.split()
        check(len(ops) >= 60, f"only {len(ops)} op cases")
        for case in ops:
            res = s.run([hostile_tool(h), case], timeout=20, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0 and "(opcode " in out,
                  f"case {case}: exit {res.returncode}\n{out[-1500:]}")
        log(f"{len(ops)} per-opcode cases: ok")

        # A client that never reads its socket while flooding requests that
        # make events: the compositor must not block on it (it may drop it);
        # the well-behaved client keeps drawing meanwhile.
        flood = s.spawn([hostile_tool(h), "no-read", "4"], name="no-read")
        s.wait_until(lambda: "NO_READ started" in open(flood.log_path).read(),
                     what="the no-read client to flood")
        shot = s.screenshot()
        s.wait_screenshot(lambda img: img.diff_count(shot, win) > 1000 or None,
                          what="simple-shm to keep animating during the no-read flood")
        check(s.run(["wayland-info"], timeout=10).returncode == 0,
              "no new client during the no-read flood")
        check(flood.wait(20) == 0, f"no-read: {flood.log_tail()}")
        log(f"no-read: {open(flood.log_path).read().strip().splitlines()[-1]}")

        # SIGKILL halfway through writing a command, with a pixmap and a pool.
        res = s.run([hostile_tool(h), "kill-mid-command"], timeout=20, check_rc=False)
        check(res.returncode == -9, f"kill-mid-command should die by SIGKILL, got {res.returncode}")

        # The well-behaved client still draws.
        s.wait_screenshot(lambda img: img.diff_count(img0, win) > 1000 or None,
                          what="simple-shm to keep animating after the hostile clients")
        # Everything the hostile clients made the compositor map or open is
        # gone once it has processed their disconnects.
        # Nothing is still counted against anyone (limits released; what a
        # gone ring leaves is freed in pieces after it, memory counted until
        # then, mappings unmapped: reclaim_items says when all is done), and
        # then nothing is still mapped or open either.
        s.wait_clients(clients)
        # (what stays counted: each remaining connection's socket, 2 fds,
        # simple-shm's surface and the keyboard anchor's keymap)
        s.wait_until(lambda: (lambda st: at_rest(st, rest) and st["total_rings"] == 0 and
                              st["reclaim_items"] == 0)(
            s.server_stats()), what="usage back to 0 after every ring client left")
        base.wait_back(s, "fds and mappings back at the baseline")
        # Leaks: the heap's bytes in use (smtctl's heap_in_use, glibc's
        # mallinfo2), not RSS, which glibc trims only now and then (seen:
        # samples of 22, 29, 67, 64 MiB over identical runs). Running the
        # memory-heavy cases again must not grow what stays allocated; a
        # leak in them (tens of MiB per run) would grow it run after run.
        heavy = ("pixmaps-10k", "pixmap-flood", "pool-destroy-pending", "race",
                 "pixmaps-10k", "kill-mid-command")
        heap_runs, rss_runs = [s.server_stats()["heap_in_use"]], [rss_kb(pid)]
        for _ in range(3):
            for case in heavy:
                s.run([hostile_tool(h), case], timeout=60, check_rc=False)
            s.wait_clients(clients)
            s.wait_until(lambda: (lambda st: memory_at_rest(st, rest) and
                                  st["reclaim_items"] == 0)(s.server_stats()),
                         what="the heavy cases' pixmaps to be freed")
            heap_runs.append(s.server_stats()["heap_in_use"])
            rss_runs.append(rss_kb(pid))
        log(f"RSS {rss0} KiB at the baseline, then after all cases and three runs of the "
            f"heavy ones: {rss_runs} KiB; heap in use {[x >> 10 for x in heap_runs]} KiB")
        with open(f"/proc/{pid}/maps") as f:
            asan = "libasan" in f.read()
        if asan:
            # ASan's allocator is not glibc's and its quarantine holds freed
            # memory: LeakSanitizer checks leaks at exit instead.
            log("ASan build: heap and RSS checks skipped (LeakSanitizer checks at exit)")
            heap_runs, rss_runs, rss0 = [0] * 4, [0] * 4, 0
        check(min(heap_runs[2:]) <= max(heap_runs[:2]) + 8 * 1024 * 1024,
              f"the heap in use keeps growing over identical runs: {heap_runs} bytes")
        # What stays resident is logged, not bounded: teardown trims the
        # heap only per 8 MiB freed (heap_reclaim.c), so a sample can hold
        # much of a run's freed heap (seen: 96 and 138 MiB, and in a
        # CI-like run beside two busy loops 138 and 134 MiB in the last two
        # runs, against 24 MiB, the heap in use not growing): the heap in
        # use and the mappings judge leaks.
        log(f"RSS after the last two runs {rss_runs[2:]} KiB, baseline {rss0} KiB")
        base.wait_back(s, "fds and mappings back at the baseline after the second run")
        check(s.run(["wayland-info"]).returncode == 0, "a new client cannot connect")
    foreign_canvas(h)


harness.main(test)
