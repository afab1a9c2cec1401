#!/usr/bin/env python3
"""The fds the compositor sent clients that they have not read stay within
a quarter of the soft RLIMIT_NOFILE programs run with (ring/client_usage.c,
total-fds-unread), so that the uid's other processes can still send fds.

The kernel counts every fd in a Unix socket's queue against the sender's
uid and refuses an fd-carrying sendmsg (ETOOMANYREFS) while that count is
above the sender's RLIMIT_NOFILE; root is exempt. In an ordinary user's
session the compositor and every program share that count: 20 clients
each leaving 55 keymaps unread (below client-fds-unread=64) put 1,100 of
the compositor's fds in flight, and weston-simple-shm, started with the
usual soft limit of 1024, could not send its first wl_shm pool. (The
compositor runs at the hard limit, the programs at the soft one.)

The session runs as nobody with a soft limit of 1024. Checked: with the
20 clients not reading, a process of the uid at the soft limit still
sends an fd; clients past the total are disconnected naming
total-fds-unread; a wl_shm client gets its window."""
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402

# Acting as nobody: other tests do too, so meson runs this one alone
# (exclusive_integration_tests), as the uid's fds in flight are shared.
USER = 65534
SOFT = 1024
CLIENTS = 20
KEYBOARDS = 10  # wlroots sends 1 + 2 + ... + 10 = 55 keymaps

# One fd over a socketpair of its own, at the soft limit: what any program
# of the uid does (a wl_shm pool, a D-Bus fd).
PROBE = r"""
import array, os, socket
a, b = socket.socketpair()
fd = os.memfd_create("probe")
try:
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    print("SENT")
except OSError as e:
    print("REFUSED", e)
"""


def test(h):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    check(hard == resource.RLIM_INFINITY or hard >= 4 * SOFT,
          f"the hard RLIMIT_NOFILE ({hard}) is too low for this test")
    # Inherited by the compositor (which raises itself to the hard limit
    # and gives programs this back) and every client.
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, hard))
    with Session(h, user=USER) as s:
        s.spawn(["wtype", "-M", "shift", "-s", "600000"], name="held-shift")
        s.wait_until(lambda: s.server_stats()["keyboard_modifiers"] != 0,
                     what="the held shift to reach the seat")
        probe = s.run(["/usr/bin/python3", "-c", PROBE], timeout=30)
        check("SENT" in probe.stdout, f"the probe failed before the clients: {probe.stdout}")

        quiet = [s.spawn([hostile_tool(h), "keymap-no-read", str(KEYBOARDS)],
                         name=f"no-read-{i}") for i in range(CLIENTS)]

        def settled(p):
            text = open(p.log_path).read()
            return "KEYMAPS asked" in text or "DISCONNECTED" in text or not p.alive()
        s.wait_until(lambda: all(settled(p) for p in quiet), timeout=60,
                     what="every client to have asked its keyboards")
        dropped = sum("DISCONNECTED" in open(p.log_path).read() for p in quiet)
        log(f"{dropped} of {CLIENTS} clients not reading were disconnected")

        probe = s.run(["/usr/bin/python3", "-c", PROBE], timeout=30)
        check("SENT" in probe.stdout,
              f"a process of the uid could not send an fd while clients left keymaps "
              f"unread: {probe.stdout.strip()}")
        check(dropped > 0 and "limit total-fds-unread=" in s.stderr_text(),
              f"no client disconnected at total-fds-unread ({dropped} disconnected)")

        shm = s.spawn(["weston-simple-shm"], name="simple-shm")
        s.wait_window(lambda w: w["pid"] == shm.pid, timeout=30, what="weston-simple-shm's window")
        check(shm.alive(), f"weston-simple-shm ended: {shm.log_tail(5)}")


harness.main(test)
