#!/usr/bin/env python3
"""A wl_shm pool whose fd is a file on FUSE is refused
(compositor/ring/core_request_limits.c, check_waiting_fd; red team of
session 28). libwayland maps the pool's fd and the compositor reads and
writes its pages on the main loop whenever it draws or copies into a
buffer of it; a page of a FUSE file is a request to the process serving
it, which need never answer. Before: a client whose FUSE daemon never
answered a read, capturing the screen into such a pool, stopped the
whole session.

tests/tools/fuse_stall.py serves one file whose reads never answer;
smt-hostile shm-pool-file asks for a screen capture into a pool of it.
Checked: the client gets wl_display's implementation error naming
wl_shm.create_pool and the filesystem, the FUSE server was never asked
for a page, another client's round trips are answered, and the
compositor lives."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
FUSE_TOOL = os.path.join(HERE, "..", "tools", "fuse_stall.py")
# Larger than any capture of the test's output (1280x720, 4 bytes a pixel).
POOL_FILE_SIZE = 16 << 20


def test(h):
    with Session(h) as s:
        mnt = os.path.join(s.tmp, "fuse")
        os.mkdir(mnt)
        server = s.spawn(["/usr/bin/python3", FUSE_TOOL, mnt, str(POOL_FILE_SIZE)],
                         name="fuse-stall")
        try:
            s.wait_until(lambda: os.path.ismount(mnt), timeout=30,
                         what="the FUSE filesystem (fuse_stall.py) to be mounted")
            pool = os.path.join(mnt, "pool")
            run_hostile_case(s, h, "shm-pool-file",
                             ["shm pool of a file: refused after 1"], pool)
            s.wait_until(lambda: "wl_shm.create_pool: the pool's fd is on a filesystem whose "
                                 "reads wait" in s.stderr_text(), timeout=15,
                         what="the compositor's line naming the refused pool")
            probe = s.run([hostile_tool(h), "sync-probe", "0.3"], timeout=60, check_rc=False)
            check(probe.returncode == 0 and "SYNC n=" in probe.stdout,
                  f"another client's round trips after the refused pool: {probe.stdout}"
                  f"{probe.stderr}")
            with open(server.log_path) as f:
                reads = [ln for ln in f.read().splitlines() if ln.startswith("READ")]
            check(not reads, f"the FUSE server was asked for pages: {reads[:5]}")
            check(s.compositor.alive(), "the compositor died")
            log(f"refused; another client's round trips: {probe.stdout.strip()}")
        finally:
            # Lazily: detached at once, whatever still holds it.
            subprocess.run(["umount", "-l", mnt], check=False, capture_output=True)
            s.stop_client(server)


harness.main(test)
