#!/usr/bin/env python3
"""The X ring under what ordinary programs do with the X connection's fd
and with signals (session 33, docs/x11.md "The X fd in the program's own
hands"), each case a run of smt-x11-fdio (an Xlib/xcb program, the shim
preloaded by the session) that must end with every reply and event right;
its connections must then be closed healthy by Xwayland.

test_x11_ring_fdio.py programs
test_x11_ring_fdio.py dups   (session 34: copies of the X fd, "xdup")
test_x11_ring_fdio.py escapes   (session 36: copies the shim cannot see)
test_x11_ring_fdio.py handlers   (session 37: a signal handler inside its
                                   own thread's write)
test_x11_ring_fdio.py unseen   (session 40: fds closed by a raw syscall)
"""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, build_program, check, log  # noqa: E402

FDIO = ("SMT_X11_FDIO", "tests/tools/smt-x11-fdio")


LAST_OUT = [""]  # the last smt-x11-fdio run's output


def closed_of(s, pid):
    return [r for r in s.x11ring_closed() if r["pid"] == pid]


def fdio(s, args, connections=1, expect="ring", env=None, until=None):
    """smt-x11-fdio ARGS to its end (exit 0, `ok` printed); then its
    closed connections (at least `connections`): no ring error, and the
    first on `expect` (None: either); `until(rows)`, if given, must come
    true too."""
    p = s.spawn([build_program(*FDIO)] + args, name="smt-x11-fdio", env=env)
    rc = p.wait(harness.scaled(120))
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    LAST_OUT[0] = out
    check(rc == 0 and f"ok {args[0]}" in out,
          f"smt-x11-fdio {' '.join(args)} exited with {rc}:\n{out[-2000:]}")
    def closed():
        rows = closed_of(s, p.pid)
        return rows if len(rows) >= connections and (not until or until(rows)) else None

    rows = s.wait_until(closed, timeout=10,
                        what=f"Xwayland to log the close of smt-x11-fdio {args[0]}")
    bad = [r for r in rows if r["error"]]
    check(not bad, f"smt-x11-fdio {args[0]}: connections ended with a ring error: {bad}")
    if expect:
        check(rows[0]["transport"] == expect,
              f"smt-x11-fdio {args[0]}: expected the {expect}, got {rows}")
    log(f"smt-x11-fdio {' '.join(args)}: {out.strip().splitlines()[-1]}; {rows[0]}")
    return rows


def live_of(s, pid):
    return [r for r in s.x11ring_stats() if r.get("pid") == pid]


def stopped_then_killed(s):
    """An X program stopped (SIGSTOP) with its ring full and a 192 KiB
    request half written, while other programs use the display; continued,
    it goes on; killed -9 while writing, its connection ends without a
    ring error, Xwayland gives back its fds, and the next program works."""
    xw = s.xwayland_pid()
    fds_before = len(os.listdir(f"/proc/{xw}/fd"))
    p = s.spawn([build_program(*FDIO), "sigalrm", "1000000"], name="smt-x11-fdio-stopped",
                env={"SMT_X11RING_AREA": "65536"})
    waits = lambda: (live_of(s, p.pid) or [{}])[0].get("client_full_waits", 0)  # noqa: E731
    s.wait_until(lambda: waits() > 0, timeout=30, what="the flooder's ring to fill")
    os.kill(p.pid, signal.SIGSTOP)
    try:
        res = s.run(["xdpyinfo"], timeout=30)
        check("MIT-SHM" in res.stdout, "xdpyinfo beside a stopped ring client")
        fdio(s, ["select", "20"])
    finally:
        os.kill(p.pid, signal.SIGCONT)
    w0 = waits()
    s.wait_until(lambda: waits() > w0, timeout=30,
                 what="the continued flooder to fill its ring again")
    check(p.alive(), f"the continued flooder ended:\n{p.log_tail()}")
    os.kill(p.pid, signal.SIGKILL)
    p.wait(30)
    s.clients.remove(p)
    rows = s.wait_until(lambda: closed_of(s, p.pid), timeout=10,
                        what="Xwayland to log the close of the killed flooder")
    check(rows[0]["transport"] == "ring" and rows[0]["error"] == 0,
          f"the killed flooder's connection: {rows}")
    fdio(s, ["select", "20"])
    s.wait_until(lambda: len(os.listdir(f"/proc/{xw}/fd")) <= fds_before, timeout=10,
                 what=f"Xwayland's fds back to {fds_before}")
    check(s.xwayland_pid() == xw, "Xwayland changed under the stopped and killed client")
    log(f"stopped, continued and killed mid-write: {rows[0]}; Xwayland's fds back to "
        f"{fds_before}")


def programs(h):
    with Session(h, x11=True) as s:
        for case in (["select", "50"], ["peek", "50"], ["fcntl", "20"],
                     ["epoll-thread", "200"]):
            fdio(s, case)
        rows = fdio(s, ["sigalrm", "256"], env={"SMT_X11RING_AREA": "65536"})
        check(rows[0]["client_full_waits"] > 0, f"sigalrm: the ring never filled: {rows[0]}")
        # A signal handler's close() (async-signal-safe) while the same
        # thread was inside the shim's table lock (XOpenDisplay,
        # XCloseDisplay, a close): it waited for that lock for ever before
        # the session-33 mend (hung in 2 of 2 runs).
        rows = fdio(s, ["sigclose", "2000"], connections=2001)
        off_ring = [r for r in rows if r["transport"] != "ring"]
        check(not off_ring, f"sigclose: connections not on the ring: {off_ring[:3]}")
        fdio(s, ["take-socket", "50"], connections=2)
        rows = fdio(s, ["reopen", "40"], connections=40)
        check(all(r["transport"] == "ring" for r in rows),
              f"reopen: connections not on the ring: {rows}")
        # Nothing of them left in the statistics of live connections.
        pid = rows[0]["pid"]
        check(not live_of(s, pid), f"reopen: live connections left: {live_of(s, pid)}")
        stopped_then_killed(s)
        for k in range(1, 8):
            # With 3-4 free the ack's fds do not fit: the connection of
            # the hello is given up and a new one, on the socket, used.
            rows = fdio(s, ["fd-limit", str(k)], expect=None,
                        until=lambda rows: any(r["requests"] > 0 or r["socket_bytes"] > 0
                                               for r in rows))
        # The limit lowered to 4 after the connect (session 41, coverage:
        # passed before): the ring goes on; a display opened at 4 has no
        # room for a ring and is on the socket; with the limit back, the
        # ring again.
        rows = fdio(s, ["limit-after", "20"], connections=3)
        check([r["transport"] for r in rows] == ["ring", "socket", "ring"] and
              not any(r["reverted"] for r in rows),
              f"limit-after: expected ring, socket, ring: {rows}")
        fdio(s, ["raw-write", "10"], env={"SMT_X11RING": "off"}, expect="socket")
        fdio(s, ["raw-write", "10"])
        # Helpers started while connected (system, popen, fork + exec with
        # the X fd inherited and never written), each with its own
        # connection on the ring: the parent's stays on the ring, answered
        # throughout (session 37: worked before too; real programs that
        # do this are in docs/reliability.md's session-37 list).
        healthy_ring(fdio(s, ["helpers", "3"]), "helpers")
        s.check_alive()


def healthy_ring(rows, case):
    """The connection stayed on the ring to its end, no REVERT."""
    check(rows[0]["transport"] == "ring" and not rows[0]["reverted"] and rows[0]["requests"] > 0,
          f"{case}: expected the ring to the end, got {rows[0]}")


def dups(h):
    """Copies of the X fd (dup, F_DUPFD_CLOEXEC, dup2 onto a free number)
    written through, the X fd closed while a copy lives, fork after dup
    (session 34, docs/x11.md "Copies of the X fd"). Before, every write
    through a copy reached the socket raw and the connection was lost."""
    with Session(h, x11=True) as s:
        for case in (["dup-write", "30"], ["dup-fork"], ["dup-many", "4"],
                     ["dup-threads", "2000"]):
            healthy_ring(fdio(s, case), case[0])
        # A signal handler's dup and close of the X fd (both
        # async-signal-safe) while its thread may be inside the shim's
        # table lock (XOpenDisplay, XCloseDisplay): no hang, the kept
        # display works on the ring.
        rows = fdio(s, ["sigdup", "1000"], connections=1001)
        off_ring = [r for r in rows if r["transport"] != "ring" or r["reverted"]]
        check(not off_ring, f"sigdup: connections not on the ring: {off_ring[:3]}")
        # The X fd closed while its copy lives: the copy carries the ring;
        # /dev/null, opened on the closed number, gets its own bytes: the
        # server saw each round's GetInputFocus and round trip, plus the
        # first round trip, and nothing more.
        rows = fdio(s, ["dup-close", "20"])
        healthy_ring(rows, "dup-close")
        check(rows[0]["requests"] == 2 * 20 + 1,
              f"dup-close: {rows[0]['requests']} requests on the ring, want 41")
        # A fork child that writes the connection takes it to the socket
        # (its first write REVERTs it, through the copy as through the X
        # fd), as a child that writes through the X fd does.
        rows = fdio(s, ["dup-fork-child"], expect="socket")
        check(rows[0]["reverted"], f"dup-fork-child: not reverted: {rows[0]}")
        # More copies than the shim keeps names for: the connection goes
        # back to the socket at the copy that does not fit, and works.
        rows = fdio(s, ["dup-many", "12"], expect="socket")
        check(rows[0]["reverted"] and rows[0]["ring_bytes"] > 0,
              f"dup-many 12: not reverted from the ring: {rows[0]}")
        fdio(s, ["dup-write", "9"], env={"SMT_X11RING": "off"}, expect="socket")
        s.check_alive()


def escapes(h):
    """Copies of the X fd made where the shim cannot record them, written
    through by another program (session 36, docs/x11.md "Copies of the X
    fd"): a posix_spawn file action that dup2()s the X fd onto 50 (inside
    glibc), dup2 in a vfork child, each child exec'ing a program that
    writes X requests raw on fd 50. The connection goes back to the socket
    where the copy is made, the parent's and the child's requests all
    reach the X server in the order written, and the closed connection
    gives back the ring's fds and pages. Before, the child's bytes reached the socket raw,
    where the server half reads only fd messages: the connection was
    closed, the parent's too (error=bad_message). Session 40: the same
    inheritance through system(), popen() (a dup copy) and execl() in a
    vfork child, which glibc spawns and execs through internal calls that
    the posix_spawn and execve wrappers never saw: lost before."""
    with Session(h, x11=True) as s:
        for case in (["spawn-dup2", "5"], ["vfork-dup2", "5"], ["send-fd", "5"],
                     ["send-fd-mmsg", "5"], ["inherit", "5"], ["vfork-inherit", "5"],
                     ["system-inherit", "3"], ["popen-dup", "3"], ["vfork-execl", "4"]):
            rows = fdio(s, case, expect="socket")
            check(rows[0]["reverted"] and rows[0]["ring_bytes"] > 0,
                  f"{case[0]}: not reverted from the ring: {rows[0]}")
        # The hand-off on one thread while another writes through libxcb:
        # the REVERT goes between two whole writes (the first version of
        # the mend freed the ring under the writer: SIGSEGV in the third
        # connection).
        rows = fdio(s, ["spawn-race", "40"], connections=40, expect=None)
        bad = [r for r in rows if not r["reverted"] or r["transport"] != "socket"]
        check(not bad, f"spawn-race: connections not handed off: {bad[:3]}")
        # The older ways back to the socket (dup2 onto the X fd's number,
        # an eighth copy, the ring's eventfd closed) on one thread while
        # another writes: each REVERT between whole writes, the ring kept
        # to the close (before, each freed the ring at once: SIGSEGV).
        rows = fdio(s, ["revert-race", "60"], connections=60, expect=None)
        bad = [r for r in rows if not r["reverted"] or r["transport"] != "socket"]
        check(not bad, f"revert-race: connections not reverted: {bad[:3]}")
        s.check_alive()


def handlers(h):
    """A signal handler that interrupts its own thread's write into a full
    ring (1 MiB requests through a 64 KiB ring) and takes the ring's way
    back to the socket there (session 37, docs/x11.md "Every REVERT one
    way"): it closes the ring's eventfd or its wake socket, or makes one
    copy of the X fd too many. Every request arrives, the connection goes on, on the socket.
    Before, the close left the write waiting for room with no way to wake
    the X server: the program hung (5 of 5 runs of sig-close-efd). The X
    server does not spin (SMT_X11RING_SPIN_US=0), so it is asleep whenever
    the ring is drained, as on a loaded machine, and the writer must wake
    it after every wait for room."""
    with Session(h, x11=True, env={"SMT_X11RING_SPIN_US": "0"}) as s:
        for case in ("sig-close-efd", "sig-close-wake", "sig-revert"):
            n = 12
            rows = fdio(s, [case, str(n)], connections=n, expect=None,
                        env={"SMT_X11RING_AREA": "65536"})
            bad = [r for r in rows if not r["reverted"] or r["transport"] != "socket"]
            check(not bad, f"{case}: connections not reverted from the ring: {bad[:3]}")
            # The handler came inside a write that had filled the ring
            # (more than the ring's bytes went through it) on some of the
            # connections, elsewhere between the writes.
            inside = sum(r["ring_bytes"] > 65536 for r in rows)
            check(inside > 0,
                  f"{case}: no REVERT from inside a write that filled the ring: {rows[:3]}")
            log(f"{case}: {inside} of {len(rows)} connections reverted inside a full write")
        s.check_alive()


def unseen(h):
    """Fds closed where the shim cannot see it (session 40): every fd
    above 2 closed by the raw close_range syscall, as a daemonising
    program written before glibc's wrapper does, the X fd and the ring's
    own among them: a display opened next, on the old number, is
    answered, on the ring. Before, its setup went into the old connection's
    dead ring and it waited for ever. A socket pair on the old number
    written at once with write(), writev() or sendmsg() (session 41) gets
    its own bytes."""
    with Session(h, x11=True) as s:
        rows = fdio(s, ["rawclose", "3"], connections=4, expect=None)
        check(all(r["transport"] == "ring" for r in rows),
              f"rawclose: connections not on the ring: {rows}")
        # Session 41: first a socket pair put on the old number and written
        # (write, writev, sendmsg round by round) before the X server saw
        # the old socket's end: its bytes reach the pair (before, into the
        # dead ring: hung).
        rows = fdio(s, ["rawclose-file", "3"], connections=4, expect=None)
        check(all(r["transport"] == "ring" for r in rows),
              f"rawclose-file: connections not on the ring: {rows}")
        # Session 42: the old number reused by a pipe, a file from open()
        # and fopen(), an fd received with SCM_RIGHTS, a file from mkstemp()
        # and tmpfile(), a memfd, an eventfd, written at once with writev
        # (sendmsg): the kernel's answer and the file's own bytes (before,
        # into the dead ring: the pipe's read end "took" them).
        rows = fdio(s, ["rawclose-other", "8"], connections=9, expect=None)
        check(all(r["transport"] == "ring" for r in rows),
              f"rawclose-other: connections not on the ring: {rows}")
        # The same in a fork child, the parent's connection beside it.
        rows = fdio(s, ["rawclose-fork", "3"])
        check(all(r["transport"] == "ring" for r in rows) and
              not any(r["reverted"] for r in rows),
              f"rawclose-fork: connections not on the ring to the end: {rows}")
        # The child's three displays, opened on numbers its raw close
        # freed: on the ring (before the mend they went off it).
        child = int(LAST_OUT[0].split("fork child ")[1].split(",")[0])
        kids = s.wait_until(lambda: (lambda r: r if len(r) >= 3 else None)(closed_of(s, child)),
                            timeout=10, what="Xwayland to log the close of the child's displays")
        check(all(r["transport"] == "ring" and not r["error"] for r in kids),
              f"rawclose-fork: the child's displays not on the ring: {kids}")
        # The same through glibc's closefrom, which the shim sees
        # (coverage: passed before the mend too).
        rows = fdio(s, ["closefrom-reopen", "3"], connections=4)
        check(all(r["transport"] == "ring" for r in rows),
              f"closefrom-reopen: connections not on the ring: {rows}")
        s.check_alive()


MODES = {"programs": programs, "dups": dups, "escapes": escapes, "handlers": handlers,
         "unseen": unseen}

if __name__ == "__main__":
    mode = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in MODES else "programs"
    harness.main(MODES[mode])
