#!/usr/bin/env python3
"""Every rule of DESIGN.md's "The client is hostile" against a real
compositor: each misbehaving client (tests/tools/smt-hostile) gets the
documented protocol error naming what it did (or is refused), the compositor
keeps serving a well-behaved client that keeps drawing, and its file
descriptors and mappings return to where they were."""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402

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
    "race": None,
    "wakeup-storm": None,
}


def hostile_tool(h):
    return os.environ.get("SMT_HOSTILE") or os.path.join(os.path.dirname(h.vpointer),
                                                         "smt-hostile")


def resources(pid):
    fds = len(os.listdir(f"/proc/{pid}/fd"))
    with open(f"/proc/{pid}/maps") as f:
        maps = sum(1 for _ in f)
    return fds, maps


def test(h):
    with Session(h) as s:
        pid = s.compositor.pid
        excl = s.cursor_exclusion()
        s.spawn(["weston-simple-shm"])
        img0, win = s.wait_screenshot(
            lambda img: img.bbox_not(BACKGROUND, exclude=excl), what="simple-shm's window")
        time.sleep(0.3)
        base = resources(pid)
        log(f"baseline: {base[0]} fds, {base[1]} mappings")

        for case, expected in CASES.items():
            res = s.run([hostile_tool(h), case], timeout=60, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0, f"case {case}: exit {res.returncode}\n{out[-1500:]}")
            if expected is not None:
                check(expected in out, f"case {case}: error text '{expected}' missing in:\n"
                                       f"{out[-1500:]}")
            check(s.compositor.alive(), f"the compositor died in case {case}")
            log(f"{case}: ok")

        # SIGKILL halfway through writing a command, with a pixmap and a pool.
        res = s.run([hostile_tool(h), "kill-mid-command"], timeout=20, check_rc=False)
        check(res.returncode == -9, f"kill-mid-command should die by SIGKILL, got {res.returncode}")

        # The well-behaved client still draws.
        s.wait_screenshot(lambda img: img.diff_count(img0, win) > 1000 or None,
                          what="simple-shm to keep animating after the hostile clients")
        # Everything the hostile clients made the compositor map or open is gone.
        deadline = time.monotonic() + harness.scaled(5)
        while resources(pid) != base and time.monotonic() < deadline:
            time.sleep(0.1)
        now = resources(pid)
        check(now == base, f"fds/mappings {now} did not return to the baseline {base}")
        check(s.run(["wayland-info"]).returncode == 0, "a new client cannot connect")


harness.main(test)
