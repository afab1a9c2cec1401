#!/usr/bin/env python3
"""Issue 24: fds the compositor sends a client (keymaps here; clipboard and
drag-and-drop pipes go the same way) count against the client until it has
read them: a client that never reads is disconnected once it has
client-fds-unread of them unread, with the reason in the log (it reads
nothing, so no protocol error reaches it); before, only the socket's byte
buffer bounded them. A client that reads keeps nothing counted. Counts
back to the start once the clients are gone; other clients served.

Idle clients that read their keymaps keep them counted until the
compositor next hears from them (the count settles then): 128 of them
filled total-fds-unread (128 at a soft RLIMIT_NOFILE of 512), and a
newcomer was disconnected at its first keymap (session 37). Now a send
refused above the connection settles the others first: the newcomer gets
its keymap."""
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness import Session, check, log  # noqa: E402


def connection(s, pid):
    for a in s.control("accounts")["accounts"]:
        if a["level"] == "connection" and a.get("pid") == pid:
            return a
    return None


def uid_unread(s):
    for a in s.control("accounts")["accounts"]:
        if a["level"] == "uid" and a["uid"] == os.getuid():
            return a["fds_unread"]
    return 0


def spawn(s, h, case, n, ready):
    p = s.spawn([hostile_tool(h), case, str(n)], name=f"{case}-{n}")
    s.wait_until(lambda: ready in open(p.log_path).read() or not p.alive(),
                 what=f"{case} {n}: {ready}", interval=0.05)
    return p


def test(h):
    with Session(h) as s:
        # The seat sends keymaps once a keyboard with one is its keyboard:
        # a virtual keyboard that pressed shift (and holds it) is.
        s.spawn(["wtype", "-M", "shift", "-s", "600000"], name="held-shift")
        s.wait_until(lambda: s.server_stats()["keyboard_modifiers"] != 0,
                     what="the held shift to reach the seat")
        clients = s.wayland_clients()
        base = uid_unread(s)

        # A client that reads: nothing stays counted.
        p = spawn(s, h, "keymap-read", 20, "KEYMAPS read")
        out = open(p.log_path).read()
        check(p.alive() and "(0 keymaps" not in out, f"keymap-read: {out[-500:]}")
        log(out.strip().splitlines()[-1])
        a = connection(s, p.pid)
        check(a is not None and a["fds_unread"] == 0,
              f"a reading client's keymaps stayed counted: {a}")

        # Below the cap, never read: counted, to the connection and its uid.
        q = spawn(s, h, "keymap-no-read", 5, "KEYMAPS asked")
        # (wlroots sends the keymap again to every keyboard the client
        # has: 1 + 2 + 3 + 4 + 5)
        s.wait_until(lambda: (connection(s, q.pid) or {}).get("fds_unread", 0) == 15,
                     what="the 15 unread keymaps to be counted")
        log("5 keyboards asked, not read: 15 keymap fds counted")
        check(uid_unread(s) == base + 15,
              f"the uid's unread fds do not add up: {uid_unread(s)} (base {base})")
        check(q.alive() and "DISCONNECTED" not in open(q.log_path).read(),
              f"disconnected below the cap: {q.log_tail()}")
        for x in (p, q):
            x.signal_group(9)
            x.wait(10)
        s.wait_clients(clients)
        check(uid_unread(s) == base, f"uid unread fds {uid_unread(s)} after, {base} before")

        # Never read, past the cap: disconnected, the limit named in the log.
        r = spawn(s, h, "keymap-no-read", 1000, "DISCONNECTED")
        out = open(r.log_path).read()
        check("DISCONNECTED" in out, f"keymap-no-read 1000: {out[-800:]}")
        r.wait(10)
        s.wait_clients(clients)
        s.wait_until(lambda: "limit client-fds-unread=64 reached" in
                     s.compositor.log_tail(400), what="the reason in the compositor's log")
        log(f"keymap-no-read 1000: {out.strip().splitlines()[-1]}")
        check(uid_unread(s) == base, f"uid unread fds {uid_unread(s)} after, {base} before")
        # others are served
        res = s.run(["wayland-info"], timeout=10)
        check(res.returncode == 0, "wayland-info after the attack")

    idle_clients_leave_room(h)


def idle_clients_leave_room(h):
    """128 idle connections (8 processes of 16, process-connections) that
    read their keymap fill the total's 128 unread fds with counts the
    compositor has not settled; a newcomer's keymap still goes."""
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    # The compositor's total-fds-unread is a quarter of the soft limit it
    # starts with: 128.
    resource.setrlimit(resource.RLIMIT_NOFILE, (512, hard))
    try:
        s = Session(h, "idle")
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    with s:
        s.spawn(["wtype", "-M", "shift", "-s", "600000"], name="held-shift")
        s.wait_until(lambda: s.server_stats()["keyboard_modifiers"] != 0,
                     what="the held shift to reach the seat")
        check(s.server_stats()["total_fds_unread_max"] == 128,
              f"total-fds-unread at a soft limit of 512: {s.server_stats()}")
        base = uid_unread(s)
        idle = []
        for i in range(8):
            p = spawn(s, h, "keymaps-idle", 16, "HOLDING")
            check("HOLDING 16 keymaps read (16 received)" in open(p.log_path).read(),
                  f"idle connections {i}: {p.log_tail()}")
            idle.append(p)
        # Counted until the compositor hears from them again.
        check(uid_unread(s) == base + 128, f"128 idle clients' keymaps: {uid_unread(s)} counted")
        newcomer = spawn(s, h, "keymaps-idle", 1, "HOLDING")
        check(newcomer.alive() and "HOLDING 1 keymaps read (1 received)" in
              open(newcomer.log_path).read(), f"the newcomer: {newcomer.log_tail()}")
        # Its connection stays: the compositor did not hang up after.
        res = s.run(["wayland-info"], timeout=10)
        check(res.returncode == 0, "wayland-info beside the idle clients")
        check("DISCONNECTED" not in open(newcomer.log_path).read() and
              "limit total-fds-unread" not in s.stderr_text(),
              f"the newcomer was disconnected: {newcomer.log_tail()}")
        log(f"128 idle clients with their keymaps counted; a newcomer got its keymap, "
            f"{uid_unread(s) - base} counted after it")


harness.main(test)
