"""What the compositor really holds (/proc/PID/fd, its memfd mappings in
/proc/PID/maps) against what it counts (`smtctl stats`' totals), as
differences from a start: the accounting tests' (ring_accounts,
keymap_limits) check that a resource is charged exactly."""
import os

from harness import processes
from harness.checks import check, log


def usage_at_rest(s):
    """What the accounts hold besides surfaces, Wayland objects, windows'
    title bars, wl_shm pools' and buffers' records and connections (their memory, and 2 fds each: the
    socket) while only the harness's own clients are connected: the
    keyboard anchor's keymap (wtype's virtual keyboard: memory and its
    memfd, charged since session 28). "Usage back to the start" is
    `at_rest(stats, usage_at_rest(...))`."""
    return rest_of(s.server_stats())


def rest_of(st):
    return {"memory": st["total_memory"] - st["total_surface_bytes"] - st["total_object_bytes"]
            - st["total_connection_bytes"] - st["total_frame_bytes"]
            - st["total_shm_record_bytes"],
            "fds": st["total_fds"] - 2 * st["total_connections"]}


def at_rest(st, rest):
    """True when the stats `st` hold what `rest` held, beyond surfaces and
    sockets."""
    return rest_of(st) == rest


def memory_at_rest(st, rest):
    """at_rest for memory alone."""
    return rest_of(st)["memory"] == rest["memory"]


def process_account(s, pid):
    """`smtctl accounts`' row of process `pid` (None: it holds nothing)."""
    for a in s.control("accounts")["accounts"]:
        if a["level"] == "process" and a.get("pid") == pid:
            return a
    return None


def uid_used(s, resource):
    """How much of `resource` our uid's account holds."""
    for a in s.control("accounts")["accounts"]:
        if a["level"] == "uid" and a["uid"] == os.getuid():
            return a[resource]
    return 0


def memfd_mappings(pid):
    """The compositor's mappings of memfds (client rings and pools, ring
    status pages) and their bytes: what SMT_RES_MAPPINGS and
    SMT_RES_ADDRESS count, plus the baseline's own pages."""
    n = size = 0
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split(None, 5)
            if len(parts) == 6 and parts[5].startswith("/memfd:smt"):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                n += 1
                size += hi - lo
    return n, size


class Accounts:
    """The compositor's real fds and memfd mappings against what it
    counts, as differences from the start (the harness's own clients and
    the compositor's own files are there from the start)."""

    def __init__(self, s):
        self.s = s
        self.pid = s.compositor.pid
        self.base = self.sample()

    def real(self):
        fds, _ = processes.process_resources(self.pid)
        return (fds, *memfd_mappings(self.pid))

    def bracketed(self):
        """/proc, the stats, /proc again; None unless both /proc reads agree.
        A gone client's rings and pools are unmapped in pieces by the
        teardown queue (heap_reclaim.h), between turns of the compositor's
        loop that run while we read: a stats read followed by a /proc read
        compares two different moments (on an idle machine the queue
        unmaps hundreds of MiB in between). The compositor answers the
        stats at one point of its loop, so when /proc read the same before
        and after, that is what it held when it counted."""
        before = self.real()
        st = self.s.server_stats()
        if self.real() != before:
            return None
        fds, maps, size = before
        return {"fds": fds, "maps": maps, "address": size, "counted_fds": st["total_fds"],
                "counted_maps": st["total_mappings"],
                "counted_address": st["total_address_space"],
                "in_flight": st["total_fds_in_flight"],
                "connections": st["total_connections"]}

    def sample(self):
        return self.s.wait_until(self.bracketed, timeout=120, interval=0.002,
                                 what="/proc to read the same around a stats read")

    def check(self, phase, address=True):
        a = self.sample()
        d = {k: a[k] - self.base[k] for k in a}
        check(d["fds"] == d["counted_fds"],
              f"{phase}: the compositor holds {d['fds']} more fds, counts {d['counted_fds']}"
              f" ({a})")
        check(d["maps"] == d["counted_maps"],
              f"{phase}: {d['maps']} more memfd mappings, counted {d['counted_maps']} ({a})")
        if address:
            check(d["address"] == d["counted_address"],
                  f"{phase}: {d['address']} more bytes mapped, counted "
                  f"{d['counted_address']} ({a})")
        log(f"{phase}: fds +{d['fds']} (of which {a['in_flight']} in flight), mappings "
            f"+{d['maps']}, address +{d['address']}, as counted")
        return a
