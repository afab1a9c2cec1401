#!/usr/bin/env python3
"""The [limits] section of the configuration is what the compositor
enforces (docs/protocol.md "Resource limits"): a client's descriptor limit
refuses its next ring with an error naming the limit and its value; the
compositor-wide memory cap refuses one client because another holds
memory, while a third client's requests still complete; once the holder is
gone the same request succeeds up to the client's own limit; and at the end
nothing is counted against anyone and the compositor's fds and mappings
are back where they started."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case as run_case  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.accounts import at_rest, rest_of, usage_at_rest  # noqa: E402

CONFIG = """
[limits]
client-fds = 14
client-memory-mib = 200
total-memory-mib = 160
# the whole total for whoever comes (test_ring_accounts tests the reserve)
first-window-reserve-mib = 0
"""


def test(h):
    with Session(h, config=CONFIG) as s:
        pid = s.compositor.pid
        clients = s.wayland_clients()
        rest = usage_at_rest(s)
        base = harness.ResourceBaseline(pid)

        # 2 fds for the connection (its socket and the event loop's dup), 4
        # per shared ring (status page, two eventfds, the loop's dup of the
        # server's): three rings fit in 14, the fourth is refused by the fd
        # limit before the ring limit.
        run_case(s, h, "ring-flood", "create_ring: limit client-fds=14 reached: 14 in use, "
                                     "4 more asked")

        # Another client holds 128 of the 160 MiB: the next client's first
        # 64 MiB pixmap crosses the compositor's total, not its own limit.
        holder = s.spawn([hostile_tool(h), "hold-memory", "2"], name="holder")
        s.wait_until(lambda: "HOLDING 128 MiB" in open(holder.log_path).read()
                     or not holder.alive(), what="the holder's pixmaps")
        check(holder.alive(), f"holder: {holder.log_tail()}")
        # In use: the holder's two pixmaps and its ring's drawable table,
        # and the refused client's own table (one chunk, like the holder's:
        # charged before its pixmap was refused), and the keyboard anchor's
        # keymap; and every client's Wayland objects and connection, the
        # refused client's among them (object_usage.h, client_usage.h).
        table = sum(c["table_bytes"] for c in s.control("stats")["clients"])
        check(0 < table < 64 << 10, f"the holder's drawable table: {table} bytes")
        # And the rings' own pages (session 41): the holder's, and the
        # refused client's ring like it (a 4 KiB area, charged before its
        # pixmap was refused).
        ring_pages = sum(c["ring_memory_bytes"] for c in s.control("stats")["clients"])
        check(ring_pages == 3 * 4096, f"the holder's ring: {ring_pages} bytes of pages")
        st = s.server_stats()
        in_use = (2 * ((64 << 20) + 320) + 2 * table + 2 * ring_pages + rest["memory"] +
                  st["total_object_bytes"] + st["total_connection_bytes"])
        out = run_case(s, h, "memory-rings", ["limit total-memory-mib=160 reached: ",
                                              " bytes in use, 67109184 more asked"])
        said = int(re.search(r"reached: (\d+) bytes in use", out).group(1))
        objects = (said - in_use - st["total_connection_bytes"] // st["total_connections"])
        check(0 < objects <= 32 * 256 and objects % 256 == 0,
              f"memory-rings: {said} bytes in use said, {in_use} known before it came "
              "(the rest should be the refused client's connection and its own objects, "
              "256 bytes each)")
        # Neither refusal touched a third client: its FENCEs run.
        run_case(s, h, "echo-probe", "ECHO n=", "1")
        # The refused client's table stays counted until the compositor has
        # read the end of its connection and freed it, in its own time (the
        # client's exit says nothing of that): waited for, then exact.
        s.wait_clients(clients + 1)
        # (and the keyboard anchor's keymap)
        held = 2 * ((64 << 20) + 320) + table + ring_pages + rest["memory"]
        try:
            s.wait_until(lambda: rest_of(s.server_stats())["memory"] == held,
                         what="only the holder's pixmaps, table and ring to be counted")
        except harness.TestFailure:
            pass  # named below
        stats = s.server_stats()
        check(rest_of(stats)["memory"] == held,
              f"the holder's pixmaps, table and ring ({held} bytes) are not what is counted: "
              f"{stats}")

        # Gone holder, released memory: two pixmaps fit again (the third
        # crosses the total of 160 MiB, the client's own 200 MiB not yet).
        holder.signal_group(9)
        holder.wait(10)
        s.clients.remove(holder)
        s.wait_clients(clients)
        # a gone ring's pixmaps are freed in pieces after it, counted until
        # they are
        s.wait_until(lambda: at_rest(s.server_stats(), rest),
                     what="the holder's memory to be released")
        run_case(s, h, "memory-rings", "rings with a 64 MiB pixmap: 2")

        s.wait_clients(clients)
        # (what stays counted: each remaining connection's socket, 2 fds,
        # and the keyboard anchor's keymap)
        s.wait_until(lambda: (lambda st: at_rest(st, rest) and st["total_rings"] == 0 and
                              st["reclaim_items"] == 0)(
            s.server_stats()), what="usage back to 0 after the clients left")
        now = base.wait_back(s, "fds and mappings back at the start")
        log(f"usage back to 0; fds/mappings {now} as at the start")


harness.main(test)
