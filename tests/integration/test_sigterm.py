#!/usr/bin/env python3
"""SIGTERM with clients connected: exit code 0, socket and lock file removed,
every client sees the disconnection. Among them smt-perf in the middle of a
ring case: before session 38 it printed "Wayland connection lost" and then
went on calling the failing drawing functions at full speed until the
case's time was up (its loop ignored their errors)."""
import os
import signal
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import (BACKGROUND, FOCUSED, Session, build_program, check, log,  # noqa: E402
                     raw_connect, wait_closed)


def test(h):
    with Session(h) as s:
        shm = s.spawn(["weston-simple-shm"])
        foot = s.spawn(["foot", "sh", "-c", "read l"])
        s.wait_for_border(FOCUSED, timeout=15, what="foot's window")
        s.wait_screenshot(lambda img: img.count_not(BACKGROUND) > 250 * 250, timeout=15,
                          what="both windows on screen")
        # A ring client in a case far longer than any wait here, without
        # warm-up (whose end syncs, which notices the loss): thousands of
        # its commands counted by the compositor say it is in the case's loop.
        perf = s.spawn([build_program("SMT_PERF", "clients/smt-perf"), "-t", "ring", "-c", "dot",
                        "-s", "3600", "-w", "0", "-r", "1"])
        s.wait_until(lambda: any(c["pid"] == perf.pid and c["commands"] > 10000
                                 for c in s.control("clients")["clients"]),
                     timeout=15, what="smt-perf drawing through its ring")

        # A raw connection that has done a round trip (wl_display.sync).
        sock = raw_connect(s)
        sock.sendall(struct.pack("=III", 1, (12 << 16) | 0, 2))
        reply = b""
        while len(reply) < 12:
            chunk = sock.recv(4096)
            check(chunk, "the compositor closed a fresh connection after wl_display.sync")
            reply += chunk
        obj, word = struct.unpack_from("=II", reply)
        check(obj == 2 and (word & 0xFFFF) == 0,
              f"expected wl_callback@2.done in reply to sync, got object {obj} word {word:#x}")
        log("raw client connected and synced")

        check(os.path.exists(s.socket_path + ".lock"),
              f"no lock file {s.socket_path}.lock next to the socket while running")
        log(f"sending SIGTERM to the compositor (pid {s.compositor.pid})")
        os.kill(s.compositor.pid, signal.SIGTERM)
        s.wait_exit(what="exit on SIGTERM")
        log("compositor exited 0; socket and lock file removed")

        closed, _ = wait_closed(sock, 15)
        sock.close()
        check(closed, "the raw client's connection was not closed after the compositor exited")
        for p in (shm, foot):
            rc = p.wait(15)  # (a hang bound: a loaded machine may take seconds)
            check(rc is not None, f"{p.name} (pid {p.pid}) still running 15 s after the "
                                  f"compositor exited:\n{p.log_tail()}")
            log(f"{p.name} exited with {rc} after the disconnection")
        rc = perf.wait(15)
        check(rc is not None, f"smt-perf (pid {perf.pid}) still running 15 s after the "
                              f"compositor exited:\n{perf.log_tail()}")
        check(rc == 1 and "connection lost" in perf.log_tail(),
              f"smt-perf exited with {rc}, expected 1 and the lost connection named:\n"
              f"{perf.log_tail()}")
        log("smt-perf ended with the lost connection")


harness.main(test)
