#!/usr/bin/env python3
"""Issue 24, part B: what the compositor holds beyond the protocol's
objects is counted, by connection, process and uid, and bounded; the
accounting matches the compositor's /proc/PID/fd and /proc/PID/maps
before, during and after each attack; other clients are served throughout.

- fds parked in libwayland's buffer by a message that never completes:
  past client-fds-in-flight the connection is disconnected with an error
  naming the limit; connections of one process parking fds each are
  stopped by process-fds (fds in flight count as the process's fds).
- many connections of one process: process-connections refuses the rest.
- pool resizes queued behind hours of work: the pool stays one mapping.
- pools of 4 GiB: client-address-space-mib refuses the fifth; core wl_shm
  pools of 2 GiB likewise (libwayland maps them; the client is charged),
  and a wl_shm pool destroyed while a buffer lives stays counted.
- one process's connections share one memory allowance (process-memory-mib),
  and the total keeps a reserve that only a newcomer may use: with one
  process at the total less the reserve, a new process's first 64 MiB
  pixmap is made; a third process is refused by the total.
"""
import os
import time
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case as run_case  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.accounts import Accounts, at_rest, memfd_mappings, usage_at_rest  # noqa: E402

CONFIG = """
[limits]
client-memory-mib = 256
process-memory-mib = 257
total-memory-mib = 322
first-window-reserve-mib = 65
"""


def spawn_until(s, h, case, arg, line):
    p = s.spawn([hostile_tool(h), case, arg], name=case)
    s.wait_until(lambda: line in open(p.log_path).read() or not p.alive(),
                 what=f"{case} to hold")
    check(p.alive(), f"{case}: {p.log_tail()}")
    return p


def stop(s, clients, *procs):
    for p in procs:
        p.signal_group(9)
        p.wait(10)
        s.clients.remove(p)
    s.wait_clients(clients)


def teardown_round(s, h, acc, clients):
    """Three gone clients' 8 x 26,000 pixmaps, then four gone clients' pools
    queued behind them for unmapping; samples /proc/PID/maps against the
    compositor's counts until the queue is empty. Returns how many samples
    fell while the pools were still queued and mapped."""
    # (26,000 a ring: about the memory 31,000 were before pixmaps were
    # charged 320 bytes beyond their pixels, session 38; 31,000 are
    # refused by the total now)
    pixmaps = [spawn_until(s, h, "hold-pixmaps", "8x26000", "HOLDING") for _ in range(3)]
    holders = [spawn_until(s, h, "hold-address", "3", "HOLDING") for _ in range(4)]
    acc.check("during hold-address", address=True)
    for p in pixmaps:
        p.signal_group(9)
    # (the holders' pools queue behind the pixmaps only if these are still
    # queued when the holders go; a round that did not see them queued
    # within 10 s is one without a sample during the teardown)
    queued_deadline = time.monotonic() + 10
    while s.server_stats()["reclaim_items"] == 0 and time.monotonic() < queued_deadline:
        time.sleep(0.002)
    for p in holders:
        p.signal_group(9)
    base, samples, during = acc.base, 0, 0
    deadline = time.monotonic() + 120
    while True:
        m1 = memfd_mappings(acc.pid)
        st = s.server_stats()
        m2 = memfd_mappings(acc.pid)
        if m1 == m2:
            samples += 1
            check(m1[0] - base["maps"] == st["total_mappings"] - base["counted_maps"] and
                  m1[1] - base["address"] ==
                  st["total_address_space"] - base["counted_address"],
                  f"teardown: {m1} mapped, counted {st['total_mappings']} mappings, "
                  f"{st['total_address_space']} bytes (start: {base})")
            during += (st["reclaim_items"] > 0 and
                       st["wayland_clients"] <= clients and m1[1] > base["address"])
        if st["reclaim_items"] == 0 and st["total_address_space"] == base["counted_address"]:
            break
        check(time.monotonic() < deadline, f"teardown not done in 120 s: {st}")
    log(f"teardown of 3 x 8 x 26,000 pixmaps and 48 GiB of pools: {samples} samples "
        f"matched /proc, {during} of them with the gone clients' pools still mapped and "
        f"queued")
    for p in pixmaps + holders:
        p.wait(10)
        s.clients.remove(p)
    s.wait_clients(clients)
    return during


def test(h):
    with Session(h, config=CONFIG) as s:
        clients = s.wayland_clients()
        rest = usage_at_rest(s)
        acc = Accounts(s)
        acc.check("start")
        served = lambda: run_case(s, h, "echo-probe", "ECHO n=", "0.2")  # noqa: E731

        # fds parked by a message that never completes
        run_case(s, h, "park-fds", ["DISCONNECTED: wl_display error 3",
                                    "fds in flight: limit client-fds-in-flight=64 reached"],
                 "1000")
        s.wait_clients(clients)
        acc.check("after park-fds")

        # connections parking 56 fds each: the process's fds run out
        p = spawn_until(s, h, "hold-parked", "6", "HOLDING")
        out = open(p.log_path).read()
        check("limit process-fds=192 reached" in out and "refused=0" not in out,
              f"hold-parked: the process's fd limit did not refuse:\n{out[-1500:]}")
        a = acc.check("during hold-parked")
        check(a["in_flight"] >= 3 * 56, f"fds in flight not counted: {a}")
        served()
        stop(s, clients, p)
        acc.check("after hold-parked")

        # many connections of one process
        p = spawn_until(s, h, "hold-connections", "30", "CONNECTIONS")
        out = open(p.log_path).read()
        check("CONNECTIONS accepted=16 refused=15" in out and
              "connection refused: limit process-connections=16 reached" in out,
              f"hold-connections:\n{out[-1500:]}")
        acc.check("during hold-connections")
        served()    # another process still connects
        accounts = s.control("accounts")["accounts"]
        mine = [a for a in accounts if a.get("pid") == p.pid]
        check(any(a["level"] == "process" and a["connections"] == 16 for a in mine) and
              sum(1 for a in mine if a["level"] == "connection") == 16,
              f"smtctl accounts does not show the process's 16 connections: {mine}")
        stop(s, clients, p)
        acc.check("after hold-connections")

        # pool resizes queued behind hours of work: one mapping
        p = spawn_until(s, h, "resize-stack", "60", "RESIZED 60")
        acc.check("during resize-stack", address=False)
        with open(f"/proc/{s.compositor.pid}/maps") as f:
            pool_maps = sum(1 for line in f if "/memfd:smt-hostile" in line)
        check(pool_maps == 2, f"{pool_maps} mappings of the attacker's memfds (ring + pool: 2)")
        served()
        stop(s, clients, p)
        s.wait_until(lambda: at_rest(s.server_stats(), rest),
                     what="the attacker's pixmap to be freed")
        acc.check("after resize-stack")

        run_case(s, h, "address-flood", "create_pool: limit client-address-space-mib=16384 "
                                        "reached")
        s.wait_clients(clients)
        acc.check("after address-flood")

        # Gone clients' pools are unmapped in pieces by the teardown queue
        # (heap_reclaim.h): each stays counted, as a mapping until its last
        # piece and as address space less what the pieces took, so the
        # accounting matches /proc/PID/maps while the teardown runs too. The
        # pools' pieces queue behind three gone clients' 8 x 26,000 pixmaps
        # (freed over many turns of the loop). A sample counts when the
        # maps did not change around the stats read.
        # Whether a sample falls while the queue still holds the pools is a
        # race with the compositor's loop (on a loaded machine the whole
        # teardown can end between two samples: seen once in a CI-like
        # run; in session 35's, with a cheaper frame render, none of three
        # rounds had more than one sample: three clients' pixmaps since,
        # not two): the round is made again, 5 times at most, until one
        # does; every sample of every round must match /proc.
        for attempt in range(1, 6):
            during = teardown_round(s, h, acc, clients)
            if during > 0:
                break
            log(f"teardown round {attempt}: no sample while the pools were queued; again")
        check(during > 0, "no sample while the gone clients' pools were queued for unmapping "
                          "(3 rounds)")
        acc.check("after hold-address")

        # core wl_shm pools: libwayland maps each, the client is charged
        run_case(s, h, "shm-pool-flood", "wl_shm.create_pool: limit "
                                         "client-address-space-mib=16384 reached")
        s.wait_clients(clients)
        acc.check("after shm-pool-flood")
        # a destroyed wl_shm pool stays mapped (and counted) for its buffer
        p = spawn_until(s, h, "hold-shm-buffers", "20", "HOLDING 20")
        a = acc.check("during hold-shm-buffers")
        check(a["counted_maps"] - acc.base["counted_maps"] == 20,
              f"20 wl_shm mappings held, counted {a['counted_maps']}")
        stop(s, clients, p)
        acc.check("after hold-shm-buffers")

        # one process's connections share its memory; the reserve
        p = spawn_until(s, h, "hold-memory-conns", "3", "HOLDING")
        out = open(p.log_path).read()
        check("HOLDING connections=2 refused=1" in out and
              "limit process-memory-mib=257 reached" in out,
              f"hold-memory-conns: the process's share was not enforced:\n{out[-1500:]}")
        # 256 MiB + overheads held: the 66 left, less one MiB of slack, are the newcomers' reserve
        newcomer = spawn_until(s, h, "hold-memory", "1", "HOLDING 64 MiB")
        run_case(s, h, "memory-rings", "limit total-memory-mib=322 reached")
        served()
        acc.check("during the memory holders")
        stop(s, clients, p, newcomer)
        s.wait_until(lambda: at_rest(s.server_stats(), rest),
                     what="the holders' memory to be freed")
        a = acc.check("at the end")
        check(a == acc.base, f"not back to the start: {a} vs {acc.base}")


harness.main(test)
