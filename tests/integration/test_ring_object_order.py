#!/usr/bin/env python3
"""The ring extension's objects in odd orders and with odd arguments
(session 24, red team; smt-hostile life:* cases, tests/tools/hostile/
hostile_lifecycle.c): each ends in the documented protocol error, or the
client carries on and is served, and the compositor, a drawing client and
a new ring client are unaffected.

- the manager destroyed before its ring, pool and canvas: they carry on;
- the ring destroyed before its pool and canvas, also with 21 canvas
  resizes and a pool resize and destroy queued behind a full ring of
  work: later requests on them are harmless, a new ring is served;
- a descriptor of every kind (pipe, socket, directory, O_PATH, /dev/zero,
  /dev/null, eventfd, memfd, regular file) as the ring's memfd, either
  eventfd and a pool's memfd: only the right kind is taken;
- zero and huge sizes in every request that takes one, canvas ids 0 and
  2^32-1: the named error;
- 300 rings made and destroyed one after another (client-rings is 8):
  each is served;
- a canvas of a second ring on a surface that has one: bad_surface."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, ResourceBaseline, Session, check, log  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case  # noqa: E402

CASES = [
    ("life:manager-first", [], "ring, pool and canvas carried on"),
    ("life:ring-first", [], "a new ring served"),
    ("life:ring-first-pending", [], "dropped, a new ring served"),
    ("life:ring-cycle", ["300"], "300 rings made and destroyed, each served"),
    ("life:two-rings-one-surface", [], "get_canvas: the surface already has canvas 5"),
]

# smt-hostile life:size NAME -> the protocol error it must get
SIZES = {
    "ring-0": "ring area size 0 is not a power of two",
    "ring-huge": "ring area size 2147483648 is not a power of two",
    "pool-0": "create_pool 4: memfd is smaller than the declared size",
    "pool-resize-0": "resize to 0 bytes would shrink it",
    "pool-resize-huge": "resize to 4294967295 bytes: memfd is smaller than the declared size",
    "canvas-0": "size 0x10 outside 1..16384",
    "canvas-resize-0": "size 10x0 outside 1..16384",
    "canvas-id-0": "get_canvas: drawable id 0 is 0, out of range or in use",
    "canvas-id-max": "get_canvas: drawable id 4294967295 is 0, out of range or in use",
}

FD_KINDS = ["pipe", "socket", "dir", "path", "zero", "null", "eventfd", "memfd", "file"]


def test(h):
    with Session(h) as s:
        shm = s.spawn(["weston-simple-shm"])
        pid = s.compositor.pid
        # The baseline once simple-shm draws with both its buffers (two
        # different frames on screen) and the compositor has processed the
        # screenshot clients' disconnects (counted: the keyboard anchor and
        # simple-shm), so that neither a buffer mapped later nor a grim
        # connection still open is in it. Taken at the first screenshot, a
        # loaded machine could leave either in or out.
        excl = s.cursor_exclusion()
        img0, win = s.wait_screenshot(
            lambda img: img.count_not(BACKGROUND) > 100 * 100 and
            img.bbox_not(BACKGROUND, exclude=excl), what="weston-simple-shm on screen")
        s.wait_screenshot(lambda img: img.diff_count(img0, win) > 1000 or None,
                          what="weston-simple-shm to animate")
        s.wait_clients(2)
        base = ResourceBaseline(pid)
        for case, args, expected in CASES:
            run_hostile_case(s, h, case, expected, *args)
        for name, expected in SIZES.items():
            res = s.run([hostile_tool(h), "life:size", name], timeout=30, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0 and expected in out,
                  f"life:size {name}: exit {res.returncode}, '{expected}' expected:\n{out}")
            log(f"size {name}: {expected}")
        for where, right in (("ring", "memfd"), ("server", "eventfd"), ("client", "eventfd"),
                             ("pool", "memfd")):
            res = s.run([hostile_tool(h), "life:fd-kinds", where], timeout=60, check_rc=False)
            out = res.stdout + res.stderr
            check(res.returncode == 0, f"fd-kinds {where}: exit {res.returncode}\n{out}")
            for kind in FD_KINDS:
                want = "accepted" if kind == right else "error"
                check(f"{where} fd {kind}: {want}" in out,
                      f"fd-kinds {where}: {kind} not {want}:\n{out}")
            log(f"{where} fd: only {right} taken")
        s.check_alive()
        check(shm.alive(), "weston-simple-shm died")
        # What the attackers held is given back (teardown runs in pieces
        # after a disconnect: wait for it).
        base.wait_back(s, "fds and mappings back at the start", timeout=20)
        log(f"fds and mappings back at the start: {base.counts}")
        run_hostile_case(s, h, "echo-probe", "ECHO", "1")


harness.main(test)
