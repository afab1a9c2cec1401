#!/usr/bin/env python3
"""The X ring with every fd and process pattern of ordinary X programs
(issue 23, docs/x11.md "Fds in order" and "fork, threads, several
displays"), in the compositor's session, each on the ring as a user runs it.

test_x11_ring_fds.py programs|hostile

  programs  smt-x11-procs (an xcb program, shim preloaded by the session):
            17 and 64 MIT-SHM segments attached by fd back to back, then a
            round trip; vfork children that close every fd (a close loop,
            closefrom/close_range) before exec, also from a second thread
            while the first makes round trips; posix_spawn with close
            actions; a fork child whose first request is ShmAttachFd; the
            program closing the ring's own fds (closefrom above the X
            socket): every connection survives with no X error, on the ring
            (or reverted to the socket where the ring's fds were taken
            away). Children made without libc's fork (the raw fork syscall,
            glibc's clone()), which no pthread_atfork handler sees: their
            requests are served, on the socket (reverted); one that closes
            the X socket with a raw syscall and writes on a socketpair put
            on its number writes there, not into the parent's ring, whose
            connection carries on. 32 threads each opening and closing
            their own connections at once all end healthy. A program that
            puts /dev/null on the X socket's number with dup2 and the socket
            back keeps its connection (on the socket). A Java program in VFORK launch mode runs
            children while it keeps a window. A setgid program's X child is
            on the socket (ld.so drops LD_PRELOAD) and keeps its display;
            started through smt-x11run it is on the ring.
  hostile   smt-x11ring-hostile's fd attacks: an fd message whose bytes
            never come leaves Xwayland idle (its CPU ticks over a window)
            and is served when they come; a fork child's REVERT with its
            ShmAttachFd and fd already queued behind it (queued while a
            second connection grabs the server): the fd reaches the X
            server; a flood of fd messages makes
            Xwayland hold at most one message's fds; a REVERT before the
            tail or past the head ends that ring with a logged reason and
            an error in its statistics; Xwayland and the other clients
            carry on.
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, build_program, check, log  # noqa: E402

PROCS = ("SMT_X11_PROCS", "tests/tools/smt-x11-procs")

JAVA_SOURCE = """
import java.awt.*;

public class VforkX {
    public static void main(String[] args) throws Exception {
        Frame f = new Frame("vforkx");
        f.setSize(200, 150);
        f.setVisible(true);
        Toolkit tk = Toolkit.getDefaultToolkit();
        for (int i = 0; i < 20; i++) {
            Process p = new ProcessBuilder("/bin/true").start();
            if (p.waitFor() != 0)
                System.exit(3);
            f.setTitle("vforkx " + i);
            tk.sync();
            MouseInfo.getPointerInfo().getLocation();  // a round trip
        }
        f.dispose();
        System.out.println("ok java vfork");
        System.exit(0);
    }
}
"""


def closed_of(s, pid):
    return [r for r in s.x11ring_closed() if r["pid"] == pid]


def procs_to_end(s, args, ok="ok ", env=None):
    """smt-x11-procs ARGS run to its end, which must be a success that
    printed `ok`; returns its pid and output."""
    p = s.spawn([build_program(*PROCS)] + args, name="smt-x11-procs", env=env)
    rc = p.wait(harness.scaled(120))
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    check(rc == 0 and ok in out, f"smt-x11-procs {' '.join(args)} exited with {rc} "
                                 f"(-11: SIGSEGV):\n{out[-2000:]}")
    return p.pid, out


def run_procs(s, args, expect="ring", connections=1, env=None):
    """smt-x11-procs ARGS to its end; its closed connections must be
    healthy and on `expect` (or reverted to the socket: "reverted")."""
    pid, out = procs_to_end(s, args, env=env)
    rows = s.wait_until(lambda: closed_of(s, pid) if len(closed_of(s, pid)) >= connections
                        else None, timeout=10,
                        what=f"Xwayland to log the close of smt-x11-procs {args[0]}")
    main = rows[0]
    if expect == "ring":
        check(main["transport"] == "ring" and main["error"] == 0 and not main["reverted"],
              f"smt-x11-procs {args[0]}: expected a healthy ring connection, got {rows}")
    else:
        check(main["transport"] == "socket" and main["reverted"] and main["error"] == 0 and
              main["why"] == "reverted",
              f"smt-x11-procs {args[0]}: expected a connection reverted to the socket, got "
              f"{rows}")
    log(f"smt-x11-procs {' '.join(args)}: {out.strip().splitlines()[-1]}; {main}")
    return main


def fd_bursts(s):
    for n in (17, 64):
        row = run_procs(s, ["shm-burst", str(n)])
        # libxcb sends up to 16 fds with one sendmsg: one fd message each.
        check(row["fd_messages"] >= (n + 15) // 16,
              f"shm-burst {n}: only {row['fd_messages']} fd messages through the ring")


def threads_displays(s):
    """32 threads each making and closing its own connections at once
    (red team, session 30): another thread's close of a new fd whose number
    a closing connection's ring had just given back was taken for that
    ring's (a REVERT on a connection being closed, through its unmapped
    pages): the program crashed (SIGSEGV) 6 of 6 times. Every connection
    now ends healthy: 16 on rings at most, the rest on the socket."""
    threads, rounds = 32, 5
    pid, _ = procs_to_end(s, ["threads-displays", str(threads)], ok="ok threads-displays")
    want = threads * rounds + 1
    rows = s.wait_until(lambda: closed_of(s, pid) if len(closed_of(s, pid)) >= want
                        else None, timeout=30,
                        what=f"Xwayland to log the close of all {want} connections")
    bad = [r for r in rows if r["error"] or r["reverted"]]
    check(not bad, f"threads-displays: connections ended with an error or reverted: {bad[:4]}")
    on_ring = sum(r["transport"] == "ring" for r in rows)
    check(on_ring > 0, f"threads-displays: no connection on a ring: {rows[:4]}")
    log(f"threads-displays: {len(rows)} connections closed healthy, {on_ring} on rings")


def children(s):
    run_procs(s, ["vfork-close", "20"])
    run_procs(s, ["vfork-closefrom", "20"])
    run_procs(s, ["spawn", "20"])
    run_procs(s, ["threads-vfork", "20"])
    # The child's connection is the parent's: it reverts to the socket.
    run_procs(s, ["fork-shm"], expect="reverted")
    run_procs(s, ["closefrom-own"], expect="reverted")
    # Another file put on the X socket's number, then the socket back
    # (red team, session 30): the saved copy is a name of the connection
    # meanwhile, which stays on the ring (session 34; reverted before).
    run_procs(s, ["dup2-restore"])
    # Children that bypass libc's fork (no pthread_atfork handler ran):
    # the shim finds out from its wipe-on-fork page, as a fork child.
    run_procs(s, ["rawfork-requests"], expect="reverted")
    run_procs(s, ["clone-requests"], expect="reverted")
    run_procs(s, ["rawfork-reuse"])
    threads_displays(s)


def java_vfork(s):
    javac, java = shutil.which("javac"), shutil.which("java")
    if not javac or not java:
        log("no JDK (openjdk-17-jdk-headless): the Java VFORK case is left out")
        return
    if "libasan" in s.env.get("LD_PRELOAD", ""):
        # The session preloads ASan's runtime into what it starts: with the
        # JVM under it, LeakSanitizer's exit check crashes (its tracer
        # takes a SIGSEGV in the JVM's threads), whatever the shim does.
        log("Java left out: LeakSanitizer crashes on the JVM at exit")
        return
    src = os.path.join(s.tmp, "VforkX.java")
    with open(src, "w") as f:
        f.write(JAVA_SOURCE)
    subprocess.run([javac, "-d", s.tmp, src], check=True, timeout=harness.scaled(120),
                   env={**os.environ, "LD_PRELOAD": ""})
    p = s.spawn([java, "-Djdk.lang.Process.launchMechanism=VFORK", "-cp", s.tmp, "VforkX"],
                name="java-vfork")
    rc = p.wait(harness.scaled(120))
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    check(rc == 0 and "ok java vfork" in out,
          f"Java in VFORK mode exited with {rc}:\n{out[-2000:]}")
    rows = s.wait_until(lambda: closed_of(s, p.pid), timeout=10,
                        what="Xwayland to log the close of the Java program's connection")
    check(any(r["transport"] == "ring" and r["error"] == 0 for r in rows),
          f"Java in VFORK mode: expected a healthy ring connection, got {rows}")
    log(f"Java with -Djdk.lang.Process.launchMechanism=VFORK: {rows}")


def setgid_child(s):
    """ld.so ignores and removes LD_PRELOAD in a setgid program: its X
    children stay on the socket, and keep their display."""
    if os.geteuid() != 0:
        log("not root: the setgid case is left out (it needs chgrp)")
        return
    env_copy = os.path.join(s.tmp, "setgid-env")
    shutil.copy("/usr/bin/env", env_copy)
    shutil.chown(env_copy, group="nogroup")
    os.chmod(env_copy, 0o2755)
    before = len([r for r in s.x11ring_closed() if r["comm"] == "xdpyinfo"])
    res = s.run([env_copy, "xdpyinfo"], timeout=30, check_rc=False)
    if res.returncode != 0 and "nosuid" in open("/proc/mounts").read():
        log(f"setgid copy did not run ({res.returncode}); {s.tmp} may be nosuid")
    check(res.returncode == 0 and "MIT-SHM" in res.stdout,
          f"xdpyinfo under a setgid program failed ({res.returncode}): {res.stderr[-500:]}")
    rows = s.wait_until(lambda: [r for r in s.x11ring_closed() if r["comm"] == "xdpyinfo"]
                        [before:], timeout=10, what="xdpyinfo's closed connection")
    # ld.so dropped LD_PRELOAD: no shim, so no hello; the statistics say so.
    check(rows[0]["transport"] == "socket" and rows[0]["error"] == 0 and
          rows[0]["why"] == "no-hello",
          f"xdpyinfo under a setgid program: expected the socket (why=no-hello), got {rows}")
    log(f"setgid program's X child: on the socket as documented: {rows[0]}")
    # What docs/x11.md gives such a program's children instead: smt-x11run,
    # a plain program, puts the shim back into what it starts (ld.so
    # removes LD_PRELOAD from the environment the children inherit;
    # SMT_X11SHIM_LIB and the rest stay). The setgid program gives up its
    # gid before it starts the child, as urxvt does (a child that kept it
    # would run in secure mode too: `env` above does not give it up).
    if "libasan" in s.env.get("LD_PRELOAD", ""):
        log("sanitizer build: smt-x11run under the setgid program is left out (the "
            "setgid program drops the ASan runtime the instrumented shim needs first)")
        return
    x11run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
    procs_copy = os.path.join(s.tmp, "setgid-procs")
    shutil.copy(build_program(*PROCS), procs_copy)
    shutil.chown(procs_copy, group="nogroup")
    os.chmod(procs_copy, 0o2755)
    before = len([r for r in s.x11ring_closed() if r["comm"] == "xdpyinfo"])
    res = s.run([procs_copy, "drop-gid-exec", x11run, "xdpyinfo"], timeout=30, check_rc=False)
    check(res.returncode == 0 and "MIT-SHM" in res.stdout,
          f"smt-x11run xdpyinfo under a setgid program failed ({res.returncode}): "
          f"{res.stderr[-500:]}")
    rows = s.wait_until(lambda: [r for r in s.x11ring_closed() if r["comm"] == "xdpyinfo"]
                        [before:], timeout=10, what="xdpyinfo's closed connection")
    check(rows[0]["transport"] == "ring" and rows[0]["error"] == 0 and rows[0]["why"] == "ring",
          f"smt-x11run xdpyinfo under a setgid program: expected the ring, got {rows}")
    log(f"setgid program's child through smt-x11run: on the ring: {rows[0]}")


def programs(h):
    with Session(h, x11=True) as s:
        fd_bursts(s)
        children(s)
        java_vfork(s)
        setgid_child(s)
        s.check_alive()


def hostile(h):
    tool = build_program("SMT_X11RING_HOSTILE", "tests/tools/smt-x11ring-hostile")
    with Session(h, x11=True) as s:
        eyes = s.spawn(["xeyes", "-geometry", "150x120+500+40"], name="xeyes")
        s.wait_x_window("--classname", "xeyes")
        xw = s.xwayland_pid()
        # (case, whether its ring is ended, its X connections: fd-flood and
        # fork-attach open a second one). Xwayland logs each close as it
        # reads its end, in any order and after the tool has exited: the
        # case's verdict waits for all of them, by the tool's pid (a close
        # of the case before could otherwise be taken for this one's).
        for case, ended, connections in (
                ("fd-hold", False, 1), ("fd-flood", False, 2), ("fork-attach", False, 2),
                ("revert-before-tail", True, 1), ("revert-past-head", True, 1)):
            p = s.spawn([tool, case, str(xw)], name=f"x11ring-hostile-{case}")
            p.wait(90)  # (a hang bound: stop_client ends it if it hangs)
            rc = s.stop_client(p)
            out = open(p.log_path).read()
            check(rc == 0, f"smt-x11ring-hostile {case}: exit {rc}: {out}")
            rows = s.wait_until(lambda: closed_of(s, p.pid)
                                if len(closed_of(s, p.pid)) >= connections else None,
                                timeout=10, what=f"Xwayland to log the close of the {case} "
                                                 f"tool's {connections} connection(s)")
            check(len(rows) == connections and
                  sum(r["error"] != 0 for r in rows) == (1 if ended else 0),
                  f"{case}: closed connections {rows}, expected "
                  f"{'one ended ring with its error' if ended else 'no ring error'}")
            log(f"hostile {case}: {out.strip()}; {rows}")
        text = s.stderr_text()
        for why in ("a REVERT before the tail", "a REVERT past the published head"):
            check(why in text, f"no logged reason '{why}' in the compositor's log")
        check(s.xwayland_pid() == xw, f"Xwayland changed from {xw} to {s.xwayland_pid()}")
        check(eyes.alive(), f"xeyes died beside the hostile clients:\n{eyes.log_tail()}")
        s.run(["xdpyinfo"], timeout=20)
        s.check_alive()


if __name__ == "__main__":
    mode = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in ("programs", "hostile") \
        else "programs"
    harness.main(programs if mode == "programs" else hostile)
