#!/usr/bin/env python3
"""Issue 24, memory and costs (docs/reliability.md): what the compositor
holds because of a ring client is what `smtctl stats` charges it (pixmaps,
drawable tables, canvases with their bookkeeping); each attack is refused
or bounded with an error naming the limit; a gone client's teardown runs in
pieces while another client is served in between; afterwards nothing is
counted and the compositor's fds and mappings are back at the start."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.accounts import at_rest, rest_of, usage_at_rest  # noqa: E402

# Room for the attacks that must succeed (8 rings x 31,000 pixmaps with
# their tables: about 79 MiB a connection), small enough that the sparse
# tables and the canvas flood reach the client's limit in seconds.
CONFIG = """
[limits]
client-memory-mib = 96
total-memory-mib = 1024
"""
TEARDOWN_CLIENTS = 4
TEARDOWN_SHAPE = "8x31000"


def run_case(s, h, case, expected, *args):
    # a hang guard of 300 s per case (as this test had), not a duration
    return run_hostile_case(s, h, case, expected, *args, timeout=300)


def hold(s, h, case, *args):
    """A hostile case that holds what it made until killed: started, and
    waited for until it says HOLDING."""
    p = s.spawn([hostile_tool(h), case, *args], name=case)
    s.wait_until(lambda: "HOLDING" in open(p.log_path).read() or not p.alive(),
                 timeout=300, what=f"{case} to hold", interval=0.05)
    check(p.alive(), f"{case}: {p.log_tail()}")
    return p


def rings_of(s, pid):
    return [c for c in s.control("stats")["clients"] if c["pid"] == pid]


def check_charged(s, pid, what):
    """The connection's memory as charged equals what its rings hold:
    pixmaps, drawable tables and canvases (with their bookkeeping), the
    rings' own pages (session 41), their clips and PRESENT damage (session
    42), and what its wl_surfaces, Wayland objects and connection are
    charged."""
    rings = rings_of(s, pid)
    check(rings, f"{what}: no ring of pid {pid} in the stats")
    held = sum(r["pixmap_bytes"] + r["table_bytes"] + r["canvas_bytes"] +
               r["ring_memory_bytes"] + r.get("region_bytes", 0) for r in rings)
    held += (rings[0]["client_surface_bytes"] + rings[0]["client_object_bytes"] +
             rings[0]["client_connection_bytes"])
    charged = rings[0]["client_memory"]
    check(charged == held, f"{what}: charged {charged} bytes, its rings hold {held}: {rings}")
    return rings


def kill_and_wait(s, procs, clients):
    for p in procs:
        p.signal_group(9)
    for p in procs:
        p.wait(10)
    s.wait_clients(clients)


def test_teardown(s, h, clients, rest):
    """Issue 24 item 1: connections of rings each just under the old
    threshold for freeing in pieces, closed together. The victim's round
    trip (a wl_display sync and a FENCE through its ring) is made after
    the compositor processed the disconnects and completes while the
    teardown is still in progress: the control socket shows the teardown's
    queue before and after it, with pieces run in between."""
    victim = s.spawn([hostile_tool(h), "trip-on-line"], name="victim", stdin=subprocess.PIPE)
    s.wait_until(lambda: "READY" in open(victim.log_path).read() or not victim.alive(),
                 what="the victim's ring")
    check(victim.alive(), f"victim: {victim.log_tail()}")
    attackers = [hold(s, h, "hold-pixmaps", TEARDOWN_SHAPE) for _ in range(TEARDOWN_CLIENTS)]
    for p in attackers:
        rings = check_charged(s, p.pid, "hold-pixmaps")
        check(len(rings) == 8 and all(r["pixmaps"] == 31000 for r in rings),
              f"hold-pixmaps: {rings}")
        # 31,000 ids in use: their chunks of the table, a slot's few tens
        # of bytes each, charged (before: the same, uncharged).
        check(all(31000 * 32 < r["table_bytes"] < 31000 * 64 for r in rings),
              f"tables: {[r['table_bytes'] for r in rings]}")
    log(f"{TEARDOWN_CLIENTS} clients hold {TEARDOWN_SHAPE} pixmaps, charged as held")

    for p in attackers:
        p.signal_group(9)
    for p in attackers:
        p.wait(10)
    # The disconnects are processed once only the victim is left.
    s.wait_until(lambda: s.server_stats()["wayland_clients"] == clients + 1,
                 what="the attackers' disconnects", interval=0.005)
    before = s.server_stats()
    check(before["reclaim_items"] > 0 and before["reclaim_bytes"] > 0,
          f"the gone clients' pixmaps were not queued for freeing in pieces: {before}")
    victim.popen.stdin.write(b"go\n")
    victim.popen.stdin.flush()
    s.wait_until(lambda: "DONE 1" in open(victim.log_path).read() or not victim.alive(),
                 what="the victim's round trip", interval=0.002)
    after = s.server_stats()
    check("DONE 1" in open(victim.log_path).read(), f"victim: {victim.log_tail()}")
    log(f"teardown before the victim's trip: {before['reclaim_items']} items, "
        f"{before['reclaim_bytes']} bytes, {before['reclaim_pieces']} pieces; after: "
        f"{after['reclaim_items']} items, {after['reclaim_bytes']} bytes, "
        f"{after['reclaim_pieces']} pieces")
    check(after["reclaim_items"] > 0 and after["reclaim_bytes"] < before["reclaim_bytes"]
          and after["reclaim_pieces"] > before["reclaim_pieces"],
          "the victim was not served while the teardown was in progress (in pieces): "
          f"before {before}, after {after}")
    s.wait_until(lambda: s.server_stats()["reclaim_items"] == 0, timeout=120,
                 what="the teardown to finish")
    # Only the victim's ring is left: its pages are charged (session 41).
    victim_pages = sum(r["ring_memory_bytes"] for r in rings_of(s, victim.pid))
    st = s.server_stats()
    check(rest_of(st)["memory"] == rest["memory"] + victim_pages and st["reclaim_bytes"] == 0,
          f"memory still counted after the teardown (the victim's ring: {victim_pages} "
          f"bytes): {st}")
    victim.popen.stdin.close()
    victim.wait(10)
    s.wait_clients(clients)


# clip-max: a clip and a PRESENT damage of 16,376 boxes on each ring, the
# most region_bound.h lets through (16 bytes a box).
CLIP_MAX_RINGS = 8
CLIP_MAX_BOXES = 16376


def test_regions(s, h, clients):
    """Session 42: what a ring keeps of a client's rectangles, its clip
    (up to 256 KiB; a PRESENT's damage too, until its copy is reported),
    is charged as the client's memory, shown as `region_bytes`, and is
    what refuses the client at its memory limit, naming it (before: held
    uncharged, region_bytes unknown, and with the same ballast no
    refusal)."""
    p = hold(s, h, "clip-max", str(CLIP_MAX_RINGS))
    rings = check_charged(s, p.pid, "clip-max")
    regions = [r.get("region_bytes", 0) for r in rings]
    check(len(rings) == CLIP_MAX_RINGS and
          all(b >= CLIP_MAX_BOXES * 16 for b in regions),
          f"clip-max: regions charged {regions}")
    memory = rings[0]["client_memory"]
    log(f"clip-max: {CLIP_MAX_RINGS} rings' clips charged {sum(regions)} bytes "
        f"of the connection's {memory}")
    kill_and_wait(s, [p], clients)
    # The same images and more pixmaps, leaving half the regions' room
    # under the limit: the regions reach it.
    ballast_kib = ((96 << 20) - memory + sum(regions) // 2) // 1024
    out = run_case(s, h, "clip-max", ["CLIP_MAX refused at ring ",
                                      "limit client-memory-mib=96 reached"],
                   f"{CLIP_MAX_RINGS}:{ballast_kib}")
    check("'s regions" in out, f"clip-max: refused before its regions: {out[-1500:]}")
    s.wait_clients(clients)


def test(h):
    with Session(h, config=CONFIG) as s:
        pid = s.compositor.pid
        clients = s.wayland_clients()
        rest = usage_at_rest(s)
        base = harness.ResourceBaseline(pid)

        # Item 2: one pixmap with the largest id costs a chunk and a
        # directory, charged; tables that grow past the limit are refused.
        p = hold(s, h, "hold-top-id")
        rings = check_charged(s, p.pid, "hold-top-id")
        check(rings[0]["table_bytes"] < 64 << 10, f"table of id 2^18-1: {rings}")
        log(f"id 2^18-1: table {rings[0]['table_bytes']} bytes, charged")
        kill_and_wait(s, [p], clients)
        run_case(s, h, "sparse-ids", "limit client-memory-mib=96 reached")

        # Own attack: churn over the whole id range frees every pixmap;
        # what stays charged is the tables, exactly.
        p = hold(s, h, "pixmap-churn")
        rings = check_charged(s, p.pid, "pixmap-churn")
        check(all(r["pixmaps"] == 0 and r["pixmap_bytes"] == 0 for r in rings),
              f"pixmaps left after churn: {rings}")
        kill_and_wait(s, [p], clients)

        # Item 3: a canvas is charged with its bookkeeping and its
        # surface, and counted; past the count (or the memory) the client
        # is refused, naming the limit; the requests that wait for earlier
        # commands are counted.
        p = hold(s, h, "canvas-flood", "1000")
        rings = check_charged(s, p.pid, "canvas-flood")
        per_canvas = (rings[0]["canvas_bytes"] + rings[0]["client_surface_bytes"]) / 1000
        check(per_canvas >= 1024 and rings[0]["client_canvases"] == 1000 and
              rings[0]["client_surfaces"] == 1000,
              f"1000 1x1 canvases: {per_canvas} bytes each, {rings[0]['client_canvases']}, "
              f"{rings[0]['client_surfaces']} surfaces")
        log(f"a 1x1 canvas with its surface: {per_canvas:.0f} bytes charged")
        kill_and_wait(s, [p], clients)
        run_case(s, h, "canvas-flood", "get_canvas: limit client-canvases=1024 reached: "
                                       "1024 in use, 1 more asked", "52000")
        run_case(s, h, "get_canvas-ordered", "get_canvas: limit ordered-requests=64 reached")
        run_case(s, h, "create_pool-ordered",
                 "create_pool: limit ordered-requests=64 reached")
        run_case(s, h, "canvas-surface-gone", "50 rounds, no error")
        s.wait_clients(clients)

        test_regions(s, h, clients)

        # Item 1.
        test_teardown(s, h, clients, rest)

        # (what stays counted: each remaining connection's socket, 2 fds,
        # and the keyboard anchor's keymap)
        s.wait_until(lambda: (lambda st: at_rest(st, rest) and
                              st["reclaim_items"] == 0)(s.server_stats()),
                     what="usage back to 0 after the clients left")
        now = base.wait_back(s, "fds and mappings back at the start")
        log(f"usage back to 0; fds/mappings {now} as at the start")


harness.main(test)
