#!/usr/bin/env python3
"""Pools of holes (docs/reliability.md, "Pools of holes, session 40"): a
ring client's pool that it never wrote (a memfd only ftruncate'd) read
whole by PUT_IMAGE_POOL. A shared mapping's read of a shmem hole creates
the page in the process that reads it, so before session 40 the
compositor's RssShmem grew by the pool's size (256 MiB) while the client's
account showed none of it. Now a band with pages not known to be in the
file is read with pread, which returns zeros for a hole and creates
nothing, and the pages mincore found are read through the mapping (for
good: the pool is sealed against writes, which create_pool requires since
session 41, so no page can leave it): the compositor's shared memory does
not grow, the client is not refused, and another client's round trips are
answered after. (A pool sealed against shrinking only, read with pread
throughout in session 40, is refused now: ring_hostile's pool-writable.)

Holes in a ring's area (session 41): a PUT_IMAGE's pixels are read in
place, and a ring area cannot be sealed against writes, so its pages are
what the client's account pays for: `smt-hostile ring-holes 2` (two
rings of 16 MiB whose pixels were never written) makes the compositor's
shared memory grow by their size, and the client's account must hold at
least that much memory (before: 32 MiB grown, about 0.1 MiB charged);
killed, the pages go with the rings."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.accounts import process_account  # noqa: E402

POOL_MIB = 256
# What the compositor may map in of its own meanwhile (its ring pages, a
# pixmap's worth of nothing: shmem is only client memfds here).
ALLOWED_GROWTH_KIB = 16 << 10


def rss_shmem_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"RssShmem:\s+(\d+)", f.read()).group(1))


def read_holes(s, h, case):
    """`smt-hostile CASE 256` reads a pool of holes whole: the compositor's
    shared memory must not grow by it."""
    pid = s.compositor.pid
    clients = s.wayland_clients()
    shmem0 = rss_shmem_kib(pid)
    p = s.spawn([hostile_tool(h), case, str(POOL_MIB)], name=case)
    s.wait_until(lambda: "SPARSE_POOL read" in open(p.log_path).read() or not p.alive(),
                 what="the pool of holes to be read", timeout=100)
    check(p.alive(), f"{case}: {p.log_tail()}")
    shmem1 = rss_shmem_kib(pid)
    account = process_account(s, p.pid)
    log(f"{case}: compositor RssShmem {shmem0} -> {shmem1} KiB after {POOL_MIB} MiB of "
        f"holes read; the client's account: memory {account and account.get('memory')} "
        f"bytes, address space {account and account.get('address_space')}")
    check(shmem1 - shmem0 < ALLOWED_GROWTH_KIB,
          f"{case}: the compositor's shared memory grew by {shmem1 - shmem0} KiB reading "
          f"a pool the client never wrote (its account: {account})")
    # The compositor and another client carry on.
    res = s.run([hostile_tool(h), "echo-probe", "1"], timeout=60, check_rc=False)
    check(res.returncode == 0, f"echo-probe: {res.stdout[-500:]} {res.stderr[-500:]}")
    check(p.alive() and s.compositor.alive(), "a process died")
    p.signal_group(9)
    p.wait(10)
    s.wait_clients(clients)
    log(f"{case}: another client answered; the pool's client was not refused")


RING_HOLES_RINGS = 2
# The compositor's own shared memory that may come and go meanwhile.
SLACK_KIB = 1 << 10


def ring_holes(s, h):
    """Rings whose pixels are holes: what the compositor makes resident is
    in the client's account."""
    pid = s.compositor.pid
    clients = s.wayland_clients()
    shmem0 = rss_shmem_kib(pid)
    p = s.spawn([hostile_tool(h), "ring-holes", str(RING_HOLES_RINGS)], name="ring-holes")
    s.wait_until(lambda: "RING_HOLES read" in open(p.log_path).read() or not p.alive(),
                 what="the rings' holes to be read", timeout=100)
    check(p.alive(), f"ring-holes: {p.log_tail()}")
    grown = rss_shmem_kib(pid) - shmem0
    account = process_account(s, p.pid)
    memory_kib = (account or {}).get("memory", 0) // 1024
    log(f"ring-holes: compositor RssShmem grew {grown} KiB reading {RING_HOLES_RINGS} rings "
        f"of holes; the client's account: memory {memory_kib} KiB")
    check(grown > (RING_HOLES_RINGS * 16 << 10) - SLACK_KIB,
          f"ring-holes: the compositor's shared memory grew only {grown} KiB: no holes read?")
    check(memory_kib >= grown - SLACK_KIB,
          f"ring-holes: the compositor made {grown} KiB of the client's rings resident, "
          f"its account holds {memory_kib} KiB of memory")
    p.signal_group(9)
    p.wait(10)
    s.wait_clients(clients)
    s.wait_until(lambda: rss_shmem_kib(pid) - shmem0 < SLACK_KIB,
                 what="the rings' pages to go with them", timeout=30)
    log("ring-holes: charged while held, gone with the client")


def test(h):
    with Session(h) as s:
        read_holes(s, h, "sparse-pool")
        ring_holes(s, h)


harness.main(test)
