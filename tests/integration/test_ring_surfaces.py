#!/usr/bin/env python3
"""Issue 24: every wl_surface a client makes is counted against it, its
process and its uid, and canvases against the process and the uid too,
because libwayland destroys all of a gone client's surfaces in one event
dispatch (40 clients x 1,000 canvases killed together: 23 ms of CPU there).
Each limit refuses with an error naming it; the last few of a uid's
surfaces are kept for a process's first windows; when the clients are
gone every count is back where it was. The uid's memory has a limit of
its own too (uid-memory-mib), and every Wayland object counts
(client-objects). Text inputs are charged the surrounding texts wlroots
keeps for them, layer surfaces their namespaces, and an input method's
commits hold no more than its last
(session 38). (Behaviour only: what was refused,
what was counted. The latency is the hostile benchmark's, `surfaces x40`
and `canvases x40`.)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case as run_case  # noqa: E402
from harness import Session, check, log  # noqa: E402

CONFIG = """
[limits]
client-surfaces = 300
uid-surfaces = 600
process-canvases = 80
uid-canvases = 200
first-window-reserve-surfaces = 50
uid-memory-mib = 100
client-objects = 2000
# 60 pools held below (hold-objects pool)
client-pools = 64
# the uid's whole memory for whoever comes (test_ring_accounts tests the reserve)
first-window-reserve-mib = 0
"""


def uid_used(s, resource):
    """What the compositor counts for this test's uid (every client of
    the session runs under it)."""
    for a in s.control("accounts")["accounts"]:
        if a["level"] == "uid" and a["uid"] == os.getuid():
            return a[resource]
    return 0


def hold(s, h, case, *args):
    what = " ".join([case, *map(str, args)])
    p = s.spawn([hostile_tool(h), case, *map(str, args)], name="-".join([case, *map(str, args)]))
    ready = "CONNECTIONS accepted" if case == "hold-connections" else "HOLDING"
    s.wait_until(lambda: ready in open(p.log_path).read() or not p.alive(),
                 what=f"{what} to hold", interval=0.05)
    check(p.alive(), f"{what}: {p.log_tail()}")
    return p


def stop(s, procs, clients):
    for p in procs:
        p.signal_group(9)
    for p in procs:
        p.wait(10)
    s.wait_clients(clients)


def test(h):
    with Session(h, config=CONFIG) as s:
        clients = s.wayland_clients()
        base_surfaces = uid_used(s, "surfaces")
        base_canvases = uid_used(s, "canvases")
        base_memory = uid_used(s, "memory")
        check(base_canvases == 0, f"canvases counted before any ring client: {base_canvases}")

        # One connection's bare surfaces (no ring, no canvas): refused at
        # client-surfaces, with wl_display's error naming the limit.
        run_case(s, h, "surface-flood",
                 "wl_compositor.create_surface: limit client-surfaces=300 reached: "
                 "300 in use, 1 more asked", "1000")
        s.wait_clients(clients)
        # (the refused client's surfaces are given back when its connection
        # is torn down, which the client count may see first: waited for)
        s.wait_until(lambda: uid_used(s, "surfaces") == base_surfaces,
                     what=f"the surfaces given back after a refusal ({base_surfaces} before)")

        # Processes of one uid share uid-surfaces; a process past the
        # first-window reserve is refused 50 below the limit.
        holders = [hold(s, h, "surface-flood", 250) for _ in range(2)]
        used = uid_used(s, "surfaces")
        check(used == base_surfaces + 500, f"two holders of 250 surfaces: {used} counted")
        accounts = s.control("accounts")["accounts"]
        for p in holders:
            mine = [a for a in accounts if a.get("pid") == p.pid and a["level"] == "process"]
            check(mine and mine[0]["surfaces"] == 250 and mine[0]["memory"] >= 250 * 824,
                  f"the holder's process account: {mine}")
        run_case(s, h, "surface-flood",
                 f"wl_compositor.create_surface: limit uid-surfaces=600 reached "
                 f"(new-client reserve): 550 in use, 1 more asked", "1000")
        log("a third process was refused at the reserve")
        # A newcomer's first window still gets surfaces, from the reserve
        # (the refused process's 50 given back first: its end is read by
        # the compositor in its own time, not before its exit returns).
        s.wait_clients(clients + len(holders))
        s.wait_until(lambda: uid_used(s, "surfaces") == base_surfaces + 500,
                     what="the refused process's surfaces given back (the holders' 500 left)")
        first = hold(s, h, "surface-flood", 40)
        check(uid_used(s, "surfaces") == base_surfaces + 540, "the newcomer's 40 surfaces")
        stop(s, holders + [first], clients)
        s.wait_until(lambda: uid_used(s, "surfaces") == base_surfaces,
                     what=f"the surfaces given back after the holders left "
                          f"({base_surfaces} before)")

        # Every object counts (client-objects): a flood of wl_regions, which
        # nothing else bounds, is refused naming the limit.
        # Twice: consecutive clients (a first version counted every other
        # one only: libwayland reverses a private signal's listeners at
        # each emission).
        base_objects = uid_used(s, "objects")
        for _ in range(2):
            run_case(s, h, "region-flood", "new wl_region: limit client-objects=2000 reached: "
                                           "2000 in use, 1 more asked", "100000")
            s.wait_clients(clients)
        # (the refused client's objects are given back when its connection
        # is torn down, which the client count may see first: waited for)
        s.wait_until(lambda: uid_used(s, "objects") == base_objects,
                     what=f"the objects given back after the refusal ({base_objects} before)")
        # ... and is charged what it costs: a holder's objects grow the
        # compositor's heap (mallinfo2: bytes allocated, exact, unlike RSS)
        # by about what its account's memory says (before session 37:
        # 238 bytes a region in the heap, nothing in the account; windows
        # 8,300 bytes each, 2,900 charged; a 16384-pixel wide window's
        # title bar 1.6 MiB, nothing charged; a connection 17,600 bytes,
        # nothing charged; session 38: a wl_buffer kept after its pool
        # object 573 bytes, 370 charged with its share of the holder's
        # connection (0.64); an smt_pool_v1 838, 640 (0.76); before
        # too, within the bounds: 1x1 pixmaps 0.88, buffers of one pool
        # 0.87; every global bound 50 times, bounded by client-objects).
        memory0 = uid_used(s, "memory")
        allocator = s.server_stats()["heap_allocator"]
        for case in (["region-flood", "1500"], ["hold-objects", "mapped", "100"],
                     ["hold-objects", "wide", "10"], ["hold-connections", "15"],
                     ["hold-region", "1000"], ["hold-objects", "text-input", "1000"],
                     ["hold-objects", "layer", "250"], ["hold-pixmaps", "1x8000"],
                     ["hold-objects", "kept-buffer", "200"], ["hold-objects", "pool", "60"],
                     ["hold-objects", "buffer", "1500"], ["hold-objects", "globals", "50"]):
            heap0 = s.server_stats()["heap_in_use"]
            p = hold(s, h, *case)
            grown = s.server_stats()["heap_in_use"] - heap0
            charged = uid_used(s, "memory") - memory0
            log(f"{' '.join(case)}: the heap grew {grown} bytes, the account {charged}")
            if allocator == "tsan":
                # TSan's allocator adds its own per allocation (a
                # connection: 23,300 bytes against glibc's 17,600), so
                # its count is not the production heap's: the ratio is
                # judged in the normal and ASan runs, the give-back here.
                check(grown > 0 and charged > 0, f"{' '.join(case)}: {grown}, {charged}")
            else:
                check(grown > 40000 and grown * 0.85 <= charged <= grown * 2,
                      f"{' '.join(case)} grew the heap {grown} bytes, the account {charged}")
            stop(s, [p], clients)
            # (given back when the holder's connection is torn down, which
            # the client count can see before the objects' count in an
            # ASan build: 1 run in 4 saw the memory back and not yet the
            # objects; waited for, never assumed)
            s.wait_until(lambda: uid_used(s, "memory") == memory0 and
                         uid_used(s, "objects") == base_objects,
                         what=f"{' '.join(case)}: memory and objects given back after its "
                              f"holder left (memory {memory0}, objects {base_objects} before)")
        # An input method's commits hold nothing past its last one
        # (session 38, red team): wlroots 0.15 moved the pending strings
        # over the current ones without freeing them, 8 KB lost for good
        # at each commit of two 4,000-byte strings (3,000 commits: the
        # heap 24 MB larger, nothing charged, nothing back at the end).
        heap0 = s.server_stats()["heap_in_use"]
        p = hold(s, h, "hold-objects", "im-commits", "3000")
        grown = s.server_stats()["heap_in_use"] - heap0
        log(f"hold-objects im-commits 3000: the heap grew {grown} bytes")
        check(grown < 1 << 20, f"3,000 commits of an input method grew the heap {grown} bytes")
        stop(s, [p], clients)
        # Title bars past the uid's memory end their client, naming it.
        run_case(s, h, "hold-objects", "title bar: limit uid-memory-mib=100 reached",
                 "wide", "80")
        s.wait_clients(clients)
        s.wait_until(lambda: uid_used(s, "memory") == memory0,
                     what=f"the title bars' memory given back after the refusal "
                          f"({memory0} before)")

        # Canvases: per process, then per uid (the same reserve).
        run_case(s, h, "canvas-flood",
                 "get_canvas: limit process-canvases=80 reached: 80 in use, 1 more asked",
                 "1000")
        s.wait_clients(clients)
        holders = [hold(s, h, "canvas-flood", 60) for _ in range(2)]
        check(uid_used(s, "canvases") == 120, f"two holders of 60 canvases: "
              f"{uid_used(s, 'canvases')} counted")
        # a third process takes the 50 of the reserve as a newcomer would,
        # then is refused 50 below the limit
        run_case(s, h, "canvas-flood", "get_canvas: limit uid-canvases=200 reached "
                 "(new-client reserve): 170 in use, 1 more asked", "1000")
        stop(s, holders, clients)

        # The uid's memory: one process holds 64 MiB, another's first 64
        # MiB pixmap crosses uid-memory-mib (the total, 2048, is far).
        holder = hold(s, h, "hold-memory", 1)
        run_case(s, h, "memory-rings", "limit uid-memory-mib=100 reached: ")
        check(holder.alive(), "the holder was refused too")
        stop(s, [holder], clients)
        s.wait_until(lambda: uid_used(s, "canvases") == 0 and
                     uid_used(s, "surfaces") == base_surfaces and
                     uid_used(s, "memory") == base_memory and
                     s.server_stats()["reclaim_items"] == 0,
                     what="canvases and surfaces back to the start")
        log("every refusal named its limit; counts back to the start")


harness.main(test)
