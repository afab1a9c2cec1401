#!/usr/bin/env python3
"""The X ring's trust boundary and its fallback (docs/x11.md, "Trust model"
and "When the X server serves no rings").

test_x11_ring_trust.py users|endpoints|fallback

  users      a peer of another uid (nobody, through setpriv) reaches the
             session's X socket: 300 ring hellos get no ack and no log line
             and leave no fd in Xwayland; 40 connections that never send
             take no ring slot (the session's next program is on the ring);
             the discovery and statistics sockets refuse it (0700 runtime
             directory), and still give it nothing when the directory and
             sockets are opened up; its smt-x11run --stats prints nothing.
             400 idle connections of that uid (more than the X server's
             client slots) leave the session's xdpyinfo its slot: at
             most 64 of them reach the X server, the rest are closed at
             once (said once in the log). Two other uids holding 64
             each do not lock out a third (daemon, let in with xhost):
             its connections and its xdpyinfo get in, the holders give
             way, and a holder past its share connecting again is closed.
             A socket our uid connected, handed to nobody: its hello is
             refused (another sender), its X program runs on the socket.
             A program of our uid named like a terminal escape shows as
             '?'s in the log and the statistics. A same-uid hello flood is
             logged at the rate limit, with a count of the lines left out.
  endpoints  a process that took the statistics socket's name before
             Xwayland started is reported in the log; X programs keep the
             ring; smt-x11run --stats prints only lines of the statistics'
             form (no terminal escapes); a stale socket file is replaced by
             the next Xwayland; 200 connections flooding the statistics
             socket do not stop Xwayland serving its X clients.
  fallback   X programs keep their display whatever serves it: a wrapper
             script that execs Xwayland with an extra option (ring), one
             that drops LD_PRELOAD and a missing server half (the shim's
             hello is closed by the X server, it reconnects in place and
             stays on the socket: x11-imgcheck prints the same as with
             SMT_X11RING=off), SMT_X11RING=off, and Xvfb; the statistics
             and the shim's debug line say which transport. A server that
             answers the hello with junk: reconnected in place too.
"""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "x11"))
import harness  # noqa: E402
from harness import BACKGROUND, Session, build_program, check, log  # noqa: E402

NOBODY = 65534
# As in xserver/log.c: XCONN_LOG_BURST, XCONN_LOG_PER_SEC.
LOG_BURST, LOG_PER_SEC = 20, 2
FALLBACK_DEBUG = "closed the connection at the ring's hello"

# The peer, run as another uid: /usr/bin/python3 -c PEER ACTION ARGS. It
# prints one JSON line of what it saw.
PEER = r'''
import fcntl, json, os, socket, struct, sys

def x_socket():
    num = os.environ["DISPLAY"].split(":")[1].split(".")[0]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0/tmp/.X11-unix/X" + num)
    return s

def hello(s, sealed):
    area = 1 << 18
    fd = os.memfd_create("smt-peer-ring", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, 4096 + area)
    if sealed:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW |
                    fcntl.F_SEAL_SEAL)
    efd = os.eventfd(0)
    socket.send_fds(s, [struct.pack("<B3xIII", 0, 0x31485853, 1, area)], [fd, efd])
    os.close(fd)
    os.close(efd)

def hellos(n, sealed):
    seen = {"acks": 0, "refusals": 0, "closed": 0, "other": 0}
    for _ in range(n):
        s = x_socket()
        hello(s, sealed)
        s.settimeout(20)
        try:
            data = s.recv(64)
        except ConnectionResetError:
            data = b""
        if data == b"":
            seen["closed"] += 1
        elif len(data) >= 16 and struct.unpack_from("<I", data)[0] == 0x31415853:
            result = struct.unpack_from("<I", data, 8)[0]
            seen["acks" if result == 0 else "refusals"] += 1
        else:
            seen["other"] += 1
        s.close()
    return seen

def try_connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(20)
    try:
        s.connect("\0" + path[1:] if path.startswith("@") else path)
    except OSError as e:
        return {"error": e.__class__.__name__}
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except OSError as e:
        return {"error": e.__class__.__name__, "bytes": len(data)}
    return {"bytes": len(data)}

action = sys.argv[1]
if action == "hellos":
    out = hellos(int(sys.argv[2]), sys.argv[3] == "sealed")
elif action == "hold":
    held = [x_socket() for _ in range(int(sys.argv[2]))]
    print(json.dumps({"holding": len(held)}), flush=True)
    sys.stdin.read()
    out = {"held": len(held)}
elif action == "named":
    # A comm that is a terminal escape, then a hello the server refuses
    # (logged), and the connection kept on the socket.
    import ctypes
    ctypes.CDLL(None).prctl(15, b"\x1b]0;pwn\x07", 0, 0, 0)
    s = x_socket()
    hello(s, False)
    ack = s.recv(64)
    print(json.dumps({"ack": len(ack)}), flush=True)
    sys.stdin.read()
    out = {}
elif action == "connect":
    out = {p: try_connect(p) for p in sys.argv[2:]}
elif action == "handed":
    # An X socket another process connected, inherited as fd argv[2]: a
    # sealed hello on it, and the answer.
    s = socket.socket(fileno=int(sys.argv[2]))
    hello(s, True)
    s.settimeout(20)
    data = s.recv(64)
    result = (struct.unpack_from("<I", data, 8)[0]
              if len(data) >= 16 and struct.unpack_from("<I", data)[0] == 0x31415853 else None)
    out = {"bytes": len(data), "result": result}
print(json.dumps(out), flush=True)
'''


def as_uid(uid=NOBODY):
    """The prefix that runs a command as uid (none for None: our own)."""
    return [] if uid is None else ["setpriv", f"--reuid={uid}", f"--regid={uid}",
                                   "--clear-groups"]


def peer_argv(action, *args, uid=NOBODY):
    return as_uid(uid) + ["/usr/bin/python3", "-c", PEER, action] + [str(a) for a in args]


def peer(s, action, *args, uid=NOBODY, timeout=120):
    res = s.run(peer_argv(action, *args, uid=uid), timeout=timeout,
                env={"LD_PRELOAD": "", "ASAN_OPTIONS": ""})
    return json.loads(res.stdout.strip().splitlines()[-1])


def conns(s, comm, live=True):
    rows = s.x11ring_stats() if live else s.x11ring_closed()
    return [r for r in rows if r.get("comm") == comm]


def closed_of(s, comm, n):
    return s.wait_until(lambda: conns(s, comm, live=False)
                        if len(conns(s, comm, live=False)) >= n else None,
                        timeout=15, what=f"Xwayland to log the close of {n} {comm} connection(s)")


def check_ring(row, what):
    check(row["transport"] == "ring" and row["requests"] >= 1 and row["error"] == 0,
          f"{what}: expected a healthy ring connection, Xwayland says {row}")


def xdpyinfo_on(s, transport, env=None):
    """xdpyinfo opens its display; Xwayland's close line says it used
    `transport`."""
    before = len(conns(s, "xdpyinfo", live=False))
    res = s.run(["xdpyinfo"], timeout=30, env=env)
    check("BIG-REQUESTS" in res.stdout, f"xdpyinfo: {res.stdout[:300]} {res.stderr[:300]}")
    r = closed_of(s, "xdpyinfo", before + 1)[-1]
    if transport == "ring":
        check_ring(r, "xdpyinfo")
    else:
        check(r["transport"] == "socket" and r["ring_bytes"] == 0,
              f"xdpyinfo: expected the socket, Xwayland says {r}")
    return res


def drawn(s, name, geometry):
    s.spawn(["xeyes", "-name", name, "-geometry", geometry], name=name)
    g = s.x_geometry(s.wait_x_window("--classname", name, timeout=30))
    s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g) >= 0.9 * g.w * g.h,
                      timeout=15, what=f"{name} drawn at {g}")


def ring_lines(s, since=0):
    return [ln for ln in s.stderr_text().splitlines()[since:] if "smt-x11ring:" in ln]


def xwayland_fd_targets(xw):
    out = []
    for fd in os.listdir(f"/proc/{xw}/fd"):
        try:
            out.append(os.readlink(f"/proc/{xw}/fd/{fd}"))
        except OSError:
            pass
    return out


# -- users -----------------------------------------------------------------


def other_uid_hellos(s, xw):
    since = len(s.stderr_text().splitlines())
    seen = peer(s, "hellos", 300, "sealed")
    check(seen == {"acks": 0, "refusals": 0, "closed": 300, "other": 0},
          f"300 ring hellos from uid {NOBODY}: expected every connection closed by the X "
          f"server (bad byte order), got {seen}")
    # Our own xdotool (drawn's geometry read) may be logged closing after
    # `since`: only a line that can be the peer's counts.
    lines = [ln for ln in ring_lines(s, since)
             if not ("smt-x11ring: closed:" in ln and " comm=python3 " not in ln)]
    check(not lines, f"hellos from another uid made the server half log: {lines[:5]}")
    # The X server shuts a connection down (the peer sees its end) before
    # it closes the descriptors that came with its bytes: on a busy machine
    # it can be preempted in between, so what must hold is that they go.
    def peer_memfds():
        return [t for t in xwayland_fd_targets(xw) if "smt-peer-ring" in t]
    left = peer_memfds()
    if left:
        log(f"first look: Xwayland still held {len(left)} of the peer's memfds; waiting")
        deadline = time.monotonic() + harness.scaled(15)
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = peer_memfds()
    check(not left, f"Xwayland still holds the other uid's ring memfds: {left}")
    log(f"uid {NOBODY}: 300 hellos, {seen}; no log line, no fd left in Xwayland")


def release_holders(s, holders):
    """Let each holder go (it exits 0 once its stdin closes) and wait for
    Xwayland to drop what they held."""
    for hd in holders:
        hd.popen.stdin.close()
        check(hd.wait(harness.scaled(30)) == 0, f"the holder: {hd.log_tail()}")
        s.clients.remove(hd)
    s.wait_until(lambda: not [r for r in s.x11ring_stats() if r["comm"] == "python3"],
                 timeout=15, what="Xwayland to drop the held connections")


def other_uid_holds_connections(s):
    since = len(s.stderr_text().splitlines())
    holder = s.spawn(peer_argv("hold", 40), name="peer-hold", stdin=subprocess.PIPE,
                     env={"LD_PRELOAD": "", "ASAN_OPTIONS": ""})
    s.wait_until(lambda: "holding" in open(holder.log_path).read(), timeout=30,
                 what=f"uid {NOBODY} to hold 40 X connections")
    # The holder's connect() returns once a connection is in the X
    # socket's backlog; Xwayland lists it once it has accepted it, which
    # on a busy machine can be after the holder said "holding".
    def held_now():
        return [r for r in s.x11ring_stats() if r["comm"] == "python3"]
    held = held_now()
    if len(held) < 40:
        log(f"first look: Xwayland had accepted {len(held)} of the 40 held connections; "
            f"waiting")
        try:
            s.wait_until(lambda: len(held_now()) >= 40, timeout=15,
                         what="Xwayland to accept the 40 held connections")
        except harness.TestFailure:
            pass  # the check below names what Xwayland lists
        held = held_now()
    check(len(held) == 40 and all(r["transport"] == "socket" and r["why"] == "other-uid"
                                  for r in held),
          f"uid {NOBODY}'s 40 idle connections: expected 40 socket connections, got {held}")
    # The session's next program still gets a ring (no slot was taken).
    xdpyinfo_on(s, "ring")
    release_holders(s, [holder])
    # Only ours may be logged: xdpyinfo, and smt-x11run --stats (it
    # connects to the X socket to learn whose it is, and may be gone
    # before the line is written: comm=?). The other uid's are the
    # holder's pid (setpriv execs python3 in place).
    lines = [ln for ln in ring_lines(s, since)
             if f" pid={holder.pid} " in ln or "comm=python3 " in ln or "other-uid" in ln]
    check(not lines, f"another uid's connections were logged: {lines[:5]}")
    log(f"uid {NOBODY}: 40 idle connections on the socket, xdpyinfo on the ring beside them")


# More than the X server's client slots (LimitClients, 256).
SLOT_HOLDERS = 400
# xserver/xconn.h: OTHER_UID_CONNECTIONS.
OTHER_UID_CONNECTIONS = 64
SLOTS_SAID = "connections of other uids past"


def other_uid_takes_no_slots(s):
    """Another uid holding more idle connections than the X server has
    client slots (it never sends its setup, so the X server never asks for
    its authorization) must leave the session's programs theirs: before
    session 32, xdpyinfo got "Maximum number of clients reached" for as
    long as the holder liked."""
    holder = s.spawn(peer_argv("hold", SLOT_HOLDERS), name="peer-slots",
                     stdin=subprocess.PIPE, env={"LD_PRELOAD": "", "ASAN_OPTIONS": ""})
    s.wait_until(lambda: "holding" in open(holder.log_path).read(), timeout=60,
                 what=f"uid {NOBODY} to hold {SLOT_HOLDERS} X connections")
    # The X server accepts in order: xdpyinfo's connection comes after
    # every one of the holder's.
    xdpyinfo_on(s, "ring")
    held = [r for r in s.x11ring_stats() if r["comm"] == "python3"]
    check(len(held) <= OTHER_UID_CONNECTIONS,
          f"uid {NOBODY} holds {len(held)} connections in Xwayland, more than "
          f"{OTHER_UID_CONNECTIONS}")
    said = s.stderr_text().count(SLOTS_SAID)
    check(said == 1, f"the refusal of another uid's connections said {said} times, not once")
    release_holders(s, [holder])
    log(f"uid {NOBODY}: {SLOT_HOLDERS} idle connections, {len(held)} of them in Xwayland; "
        f"xdpyinfo answered beside them")


# A third other uid, one the display lets in (xhost), beside two that
# hold idle connections: daemon (uid 1, in every Debian's passwd, which
# xhost's localuser needs); the holders need no passwd entry.
SHARE_HOLDERS = (NOBODY, 65533)
LET_IN = "daemon"
LET_IN_UID = 1


def other_uids_share(s):
    """Two other uids each holding as many idle connections as they may
    must not lock out a third that the display authorises (root's programs
    run with sudo, a user let in with xhost): before session 33, 64 + 64
    filled the 128 of all other uids and the third's every connection was
    shut down as it was accepted."""
    env = {"LD_PRELOAD": "", "ASAN_OPTIONS": ""}

    def hold(uid, n):
        hd = s.spawn(peer_argv("hold", n, uid=uid), name=f"peer-share-{uid}",
                     stdin=subprocess.PIPE, env=env)
        s.wait_until(lambda: "holding" in open(hd.log_path).read(), timeout=60,
                     what=f"uid {uid} to hold {n} X connections")
        return hd

    def held(hd):
        return [r for r in s.x11ring_stats() if r["pid"] == hd.pid]
    holders = [hold(uid, 100) for uid in SHARE_HOLDERS]
    # Each reaches its 64 once Xwayland has accepted what is in its backlog.
    s.wait_until(lambda: all(len(held(hd)) == OTHER_UID_CONNECTIONS for hd in holders),
                 timeout=30, what="each holder to have 64 connections in Xwayland")
    # The third uid holds 10 (below its share, 128 / 3), then asks for
    # the display.
    third = hold(LET_IN_UID, 10)
    s.wait_until(lambda: len(held(third)) == 10, timeout=30,
                 what=f"uid {LET_IN_UID}'s 10 connections in Xwayland beside the holders'")
    # With the 128 full again, a holder past its share that connects again
    # is closed without a byte (one let in would wait for its setup:
    # try_connect's 20 s then end in an error). The filesystem socket goes
    # through the same accept when another uid may connect to it (here its
    # mode refuses it first).
    num = s.env["DISPLAY"].split(":")[1].split(".")[0]
    sockets = [f"@/tmp/.X11-unix/X{num}", f"/tmp/.X11-unix/X{num}"]
    again = peer(s, "connect", *sockets, uid=SHARE_HOLDERS[0])
    check(again[sockets[0]] == {"bytes": 0} and
          again[sockets[1]] in ({"bytes": 0}, {"error": "PermissionError"}),
          f"uid {SHARE_HOLDERS[0]} connecting again past its share: {again}, expected "
          f"each refused without a byte")
    s.run(["xhost", f"+si:localuser:{LET_IN}"], timeout=20)
    try:
        res = s.run(["setpriv", f"--reuid={LET_IN_UID}", f"--regid={LET_IN_UID}",
                     "--clear-groups", "xdpyinfo"], timeout=30, check_rc=False, env=env)
    finally:
        s.run(["xhost", f"-si:localuser:{LET_IN}"], timeout=20)
    check(res.returncode == 0 and "BIG-REQUESTS" in res.stdout,
          f"uid {LET_IN_UID} ({LET_IN}, let in with xhost) beside two uids holding "
          f"{OTHER_UID_CONNECTIONS} connections each: xdpyinfo rc {res.returncode}, "
          f"{res.stderr[:300]!r}")
    counts = [len(held(hd)) for hd in holders]
    check(sum(counts) <= 2 * OTHER_UID_CONNECTIONS - 10 and len(held(third)) == 10,
          f"the holders kept {counts}, the third uid {len(held(third))}: expected the "
          f"holders to give way to its 10")
    release_holders(s, holders + [third])
    log(f"uids {SHARE_HOLDERS}: 100 idle connections each, 64 each in Xwayland; uid "
        f"{LET_IN_UID} held 10 and its xdpyinfo was answered, the holders then had "
        f"{counts}; connecting again: {again}")


def handed_socket(s, xw):
    """An X socket connected by a process of the session's uid (this test,
    root) and handed to uid nobody, which sends the ring's hello on it
    (session 41): the peer's credentials are the connector's, so before,
    the server half took the hello and nobody got a ring (Xwayland mapped
    its memfd and handed it the status and global pages). The hello's own
    sender is asked now: refused (reason 6, SMT_STREAM_REFUSED_SENDER),
    the connection stays on the socket, no fd of it kept."""
    fds_before = len(os.listdir(f"/proc/{xw}/fd"))
    num = s.x_display.split(":")[1].split(".")[0]
    x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    x.connect("\0/tmp/.X11-unix/X" + num)
    env = dict(s.env)
    env.update({"LD_PRELOAD": "", "ASAN_OPTIONS": ""})
    try:
        res = subprocess.run(peer_argv("handed", x.fileno()), pass_fds=[x.fileno()], env=env,
                             capture_output=True, text=True, timeout=harness.scaled(60))
    finally:
        x.close()
    seen = json.loads(res.stdout.strip().splitlines()[-1])
    check(seen == {"bytes": 16, "result": 6},
          f"uid {NOBODY}'s hello on a socket our uid connected: {seen} (result 0 is a "
          f"ring), expected the refusal for another sender (6); stderr {res.stderr[-300:]}")
    # The same through the shim: an X program of nobody's (smt-x11-fdio
    # handed) whose shim finds a discovery socket (nobody's own listener,
    # named for this compositor in nobody's runtime directory) sends the
    # hello, is refused and runs on the socket.
    # (Not under the session's directory, which only root may enter.)
    rt = tempfile.mkdtemp(prefix="smtwc-nobody-runtime-")
    os.chown(rt, NOBODY, NOBODY)
    os.chmod(rt, 0o700)
    listen = ("import socket\nc = socket.socket(socket.AF_UNIX)\n"
              f"c.bind({os.path.join(rt, f'smtwc-x11ring-{s.compositor.pid}')!r})\n"
              "c.listen(8)\nprint('listening', flush=True)\n"
              "while True:\n    c.accept()[0].close()\n")
    lst = subprocess.Popen(as_uid() + ["/usr/bin/python3", "-c", listen],
                           stdout=subprocess.PIPE, text=True, env={"LD_PRELOAD": ""})
    x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        check(lst.stdout.readline().strip() == "listening", "nobody's discovery listener")
        x.connect("\0/tmp/.X11-unix/X" + num)
        env = dict(s.env)
        env.update({"XDG_RUNTIME_DIR": rt, "HOME": rt, "SMT_X11SHIM_DEBUG": "1"})
        res = subprocess.run(as_uid() +
                             [build_program("SMT_X11_FDIO", "tests/tools/smt-x11-fdio"),
                              "handed", str(x.fileno()), "20"],
                             pass_fds=[x.fileno()], env=env, capture_output=True, text=True,
                             timeout=harness.scaled(60))
    finally:
        x.close()
        lst.kill()
        lst.wait()
        shutil.rmtree(rt, ignore_errors=True)
    check(res.returncode == 0 and f"ok handed 20 round trips as uid {NOBODY}" in res.stdout and
          "refused a ring (reason 6)" in res.stderr,
          f"smt-x11-fdio handed as uid {NOBODY}: rc {res.returncode}, {res.stdout[-300:]!r}, "
          f"{res.stderr[-300:]!r}")
    s.wait_until(lambda: len(os.listdir(f"/proc/{xw}/fd")) <= fds_before, timeout=10,
                 what=f"Xwayland's fds back to {fds_before} after the handed sockets")
    log(f"uid {NOBODY}'s hello on a handed socket: {seen}, refused; its X program on the "
        f"socket: {res.stdout.strip().splitlines()[-1]}")


def other_uid_endpoints(s):
    key = s.compositor.pid
    disc = os.path.join(s.runtime_dir, f"smtwc-x11ring-{key}")
    stats = disc + ".stats"
    for p in (disc, stats):
        check(stat.S_ISSOCK(os.stat(p).st_mode), f"{p} is not a socket")
    seen = peer(s, "connect", disc, stats, f"@smtwc-x11ring-{key}",
                f"@smtwc-x11ring-stats-{key}")
    for p, r in seen.items():
        check("error" in r and r.get("bytes", 0) == 0,
              f"uid {NOBODY} connecting to {p!r}: {r}, expected a refusal")
    # Even with the directory and the sockets opened to everybody, the
    # statistics socket checks who connects: not a byte.
    modes = {p: stat.S_IMODE(os.stat(p).st_mode) for p in (s.tmp, s.runtime_dir, stats)}
    for p in (s.tmp, s.runtime_dir):
        os.chmod(p, 0o711)
    os.chmod(stats, 0o777)
    try:
        seen = peer(s, "connect", stats)
    finally:
        for p, m in modes.items():
            os.chmod(p, m)
    check(seen[stats] == {"bytes": 0},
          f"uid {NOBODY} on an opened-up statistics socket: {seen}, expected a connection "
          f"closed without a byte")
    run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
    res = s.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                 run, "--stats"], timeout=20, check_rc=False, env={"LD_PRELOAD": ""})
    # Its XDG_RUNTIME_DIR (the session's) is not its own: it does not even
    # look for the sockets.
    check(res.returncode == 1 and res.stdout == "" and "XDG_RUNTIME_DIR" in res.stderr,
          f"smt-x11run --stats as uid {NOBODY}: rc {res.returncode}, stdout "
          f"{res.stdout[:200]!r}, stderr {res.stderr[:300]!r}")
    log(f"uid {NOBODY}: discovery and statistics refused ({seen}); --stats: "
        f"{res.stderr.strip()}")


def escapes_in_comm(s):
    """A program of our uid named like a terminal escape: its refusal line
    and its statistics line carry '?' instead."""
    named = s.spawn(peer_argv("named", uid=None), name="peer-named", stdin=subprocess.PIPE,
                    env={"LD_PRELOAD": "", "ASAN_OPTIONS": ""})
    s.wait_until(lambda: '"ack": 16' in open(named.log_path).read(), timeout=30,
                 what="the refusal of the oddly named program's hello")
    rows = [r for r in s.x11ring_stats() if r["pid"] == named.pid]
    check(len(rows) == 1 and rows[0]["comm"] == "??0?pwn?" and rows[0]["transport"] == "socket",
          f"the statistics of a program named with an escape: {rows}")
    named.popen.stdin.close()
    check(named.wait(harness.scaled(30)) == 0, named.log_tail())
    s.clients.remove(named)
    log_text = s.stderr_text()
    check("\x1b" not in log_text, "a terminal escape reached the compositor's log")
    check([ln for ln in ring_lines(s) if f"(pid {named.pid}, ??0?pwn?)" in ln
           and "ring refused" in ln], "no refusal line for the oddly named program")
    log(f"a comm of ESC ]0;pwn BEL: printed as ??0?pwn? in the log and the statistics")


def same_uid_flood_rate_limited(s):
    since = len(s.stderr_text().splitlines())
    start = time.monotonic()
    seen = peer(s, "hellos", 500, "unsealed", uid=None)
    elapsed = time.monotonic() - start
    check(seen["refusals"] == 500, f"500 unsealed hellos of our uid: {seen}")
    refused = [ln for ln in ring_lines(s, since) if "ring refused" in ln]
    bound = LOG_BURST + LOG_PER_SEC * (elapsed + 1)
    check(0 < len(refused) <= bound,
          f"500 refused hellos in {elapsed:.1f} s logged {len(refused)} lines; the rate limit "
          f"allows {bound:.0f}")
    # The next line the limit lets through says how many were left out.
    s.wait_until(lambda: peer(s, "hellos", 1, "unsealed", uid=None) and
                 [ln for ln in ring_lines(s, since) if "earlier lines left out" in ln],
                 timeout=20, what="a log line counting the lines left out", interval=0.3)
    log(f"500 refused hellos of our uid in {elapsed:.1f} s: {len(refused)} lines logged")


def users(h):
    # Acting as another uid takes root (CI runs as root; setpriv is in
    # util-linux, so always there).
    check(os.geteuid() == 0, "the users mode needs root: it connects as uid nobody "
                             "through setpriv")
    with Session(h, x11=True) as s:
        drawn(s, "trusteyes", "120x100+40+40")
        xw = s.xwayland_pid()
        check_ring(s.wait_until(lambda: conns(s, "xeyes"), timeout=15,
                                what="xeyes in the statistics")[0], "xeyes")
        other_uid_hellos(s, xw)
        other_uid_holds_connections(s)
        other_uid_takes_no_slots(s)
        other_uids_share(s)
        other_uid_endpoints(s)
        handed_socket(s, xw)
        escapes_in_comm(s)
        same_uid_flood_rate_limited(s)
        xdpyinfo_on(s, "ring")
        check(s.xwayland_pid() == xw, "Xwayland was replaced during the attacks")
        s.check_alive()


# -- endpoints -------------------------------------------------------------


class Squatter:
    """Listens on the statistics socket's name before Xwayland does and
    answers every connection with escapes, junk and one well-formed line."""

    ANSWER = (b"fd=1 pid=1 comm=\x1b]0;owned\x07 transport=ring\n" + b"\x1b[2J\x1b[31m\n" +
              b"fd=2 pid=2 comm=squat transport=ring requests=1\n" + b"x" * 5000 + b"\n")

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(path)
        self.sock.listen(8)
        self.stop = False
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            with c:
                try:
                    c.sendall(self.ANSWER)
                except OSError:
                    pass

    def close(self):
        self.stop = True
        self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
        self.thread.join(5)


def stats_flood(s):
    path = os.path.join(s.runtime_dir, f"smtwc-x11ring-{s.compositor.pid}.stats")
    flood = []
    for _ in range(200):
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.setblocking(False)
        try:
            c.connect(path)
        except BlockingIOError:
            pass  # the backlog is full: that is the point
        flood.append(c)
    try:
        xdpyinfo_on(s, "ring")
    finally:
        for c in flood:
            c.close()
    rows = s.x11ring_stats()
    check(rows and all("transport" in r for r in rows), f"statistics after the flood: {rows}")
    log(f"200 connections on the statistics socket: xdpyinfo served beside them; "
        f"{len(rows)} statistics lines after")


def endpoints(h):
    with Session(h, x11=True) as s:
        check(s.xwayland_pid() is None, "Xwayland runs before any X client")
        path = os.path.join(s.runtime_dir, f"smtwc-x11ring-{s.compositor.pid}.stats")
        squat = Squatter(path)
        try:
            drawn(s, "squateyes", "120x100+40+40")
            xw = s.xwayland_pid()
            s.wait_until(lambda: [ln for ln in ring_lines(s) if "no statistics socket" in ln
                                  and "already served by pid" in ln], timeout=15,
                         what="Xwayland to report the statistics socket's squatter")
            xdpyinfo_on(s, "ring")
            run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
            res = subprocess.run([run, "--stats"], env=s.client_env({"LD_PRELOAD": ""}),
                                 capture_output=True, timeout=harness.scaled(20))
            out, err = res.stdout, res.stderr.decode(errors="replace")
            check(res.returncode == 0 and out == b"fd=2 pid=2 comm=squat transport=ring "
                                                 b"requests=1\n",
                  f"--stats from the squatter: rc {res.returncode}, stdout {out!r}")
            check(b"\x1b" not in out and "3 lines" in err and "left out" in err,
                  f"--stats: the squatter's junk was not left out: {out!r} / {err!r}")
            log(f"squatted statistics socket: reported; --stats printed {out!r}, said "
                f"{err.strip()!r}")
        finally:
            squat.close()
        # The squatter's file is left behind; the next Xwayland replaces it.
        check(os.path.exists(path), f"{path} vanished")
        os.kill(xw, signal.SIGKILL)
        # Gone, or already replaced: a connection still in the X socket's
        # backlog (smt-x11run --stats' probe, when the killed Xwayland had
        # not yet accepted it) makes wlroots start the next one at once.
        s.wait_until(lambda: s.xwayland_pid() != xw, timeout=15, what="Xwayland to end")
        s.clients = [p for p in s.clients if p.alive()]
        drawn(s, "stale-eyes", "120x100+300+40")
        check(s.xwayland_pid() not in (None, xw), "no new Xwayland")
        check_ring(s.wait_until(lambda: conns(s, "xeyes"), timeout=15,
                                what="the new Xwayland's statistics")[0],
                   "xeyes under the Xwayland that replaced the stale socket")
        stats_flood(s)
        s.check_alive()


# -- fallback --------------------------------------------------------------


def wrapper(s, body):
    path = os.path.join(s.tmp, "xwayland-wrapper")
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(path, 0o755)
    return path


def checker(s, env):
    """x11-imgcheck --displays (two connections of one process): its output,
    and its stderr's fallback debug lines."""
    env = dict(env or {}, SMT_X11SHIM_DEBUG="1")
    res = s.run([build_program("X11_IMGCHECK", "tests/x11/x11-imgcheck"), "--loops", "10",
                 "--displays"], timeout=120, env=env)
    return res.stdout, res.stderr.count(FALLBACK_DEBUG)


def wrapper_keeps_ring(h):
    with Session(h, x11=True, start=False) as s:
        s.env["SMT_XWAYLAND_BINARY"] = wrapper(s, 'exec /usr/bin/Xwayland -dpi 96 "$@"')
        s.start()
        drawn(s, "wrapeyes", "120x100+40+40")
        xw = s.xwayland_pid()
        cmdline = open(f"/proc/{xw}/cmdline", "rb").read().split(b"\0")
        check(b"-dpi" in cmdline, f"Xwayland's arguments lack the wrapper's option: {cmdline}")
        check_ring(s.wait_until(lambda: conns(s, "xeyes"), timeout=15,
                                what="xeyes in the statistics")[0], "xeyes under a wrapper")
        xdpyinfo_on(s, "ring")
        xdpyinfo_on(s, "socket", env={"SMT_X11RING": "off"})
        s.check_alive()
        log("a wrapper script that execs Xwayland: the ring is served")


def without_server_half(h, how):
    with Session(h, x11=True, start=False) as s:
        if how == "wrapper-drops-preload":
            s.env["SMT_XWAYLAND_BINARY"] = wrapper(
                s, 'exec env -u LD_PRELOAD /usr/bin/Xwayland "$@"')
        else:
            s.env["SMT_X11RING_SERVER_LIB"] = os.path.join(s.tmp, "missing",
                                                           "libsmt-x11ring-server.so")
        s.start()
        res = s.run(["xdpyinfo"], timeout=60, env={"SMT_X11SHIM_DEBUG": "1"})
        check("BIG-REQUESTS" in res.stdout and res.stderr.count(FALLBACK_DEBUG) == 1,
              f"{how}: xdpyinfo must open its display on the socket after one closed hello:"
              f"\nstdout {res.stdout[:300]}\nstderr {res.stderr[-600:]}")
        drawn(s, "fallbackeyes", "120x100+40+40")
        ref, n_ref = checker(s, {"SMT_X11RING": "off"})
        got, n_got = checker(s, None)
        check(got == ref and n_ref == 0 and n_got == 1,
              f"{how}: x11-imgcheck --displays: {n_got} fallbacks (want 1: remembered for "
              f"the second connection), output equal to SMT_X11RING=off: {got == ref}\n"
              f"{got[-800:]}\n---\n{ref[-800:]}")
        run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
        st = s.run([run, "--stats"], timeout=20, check_rc=False, env={"LD_PRELOAD": ""})
        check(st.returncode == 1 and "no X ring statistics" in st.stderr and st.stdout == "",
              f"{how}: --stats: rc {st.returncode} {st.stdout!r} {st.stderr!r}")
        check(not ring_lines(s),
              f"{how}: the server half logged although it is not loaded: {ring_lines(s)[:3]}")
        if how == "missing-lib":
            check("Xwayland runs without the ring" in s.stderr_text(),
                  "smt-xwayland did not say that the server half is missing")
        s.check_alive()
        log(f"{how}: X programs keep their display on the socket; --stats: "
            f"{st.stderr.strip()}")


def xvfb_and_off(h):
    import xtest
    with Session(h, x11=True) as s, xtest.Xvfb() as xvfb:
        res = s.run(["xdpyinfo"], timeout=20,
                    env={"DISPLAY": xvfb.display, "SMT_X11SHIM_DEBUG": "1"})
        check("BIG-REQUESTS" in res.stdout and FALLBACK_DEBUG not in res.stderr,
              f"Xvfb: xdpyinfo {res.stdout[:200]} {res.stderr[-300:]}")
        run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
        st = s.run([run, "--stats"], timeout=20, check_rc=False,
                   env={"LD_PRELOAD": "", "DISPLAY": xvfb.display})
        check(st.returncode == 1 and "no X ring statistics" in st.stderr,
              f"--stats on Xvfb: {st.returncode} {st.stderr!r}")
        xdpyinfo_on(s, "socket", env={"SMT_X11RING": "off"})
        xdpyinfo_on(s, "ring")
        log("Xvfb: no hello sent, --stats says no ring; SMT_X11RING=off: the socket")


class OddServer:
    """An X server address whose listener (this test process) announces a
    stream half in a private runtime directory of its own, but answers a
    hello with 16 bytes that are no ack; everything else is passed on to a
    real X server (Xvfb) byte for byte."""

    def __init__(self, target_display, runtime_dir):
        self.target = "\0/tmp/.X11-unix/X" + target_display.lstrip(":")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for num in range(90, 190):
            try:
                self.sock.bind(f"\0/tmp/.X11-unix/X{num}")
                break
            except OSError:
                continue
        else:
            raise RuntimeError("no free display number between 90 and 190")
        self.display = f":{num}"
        self.sock.listen(16)
        self.discovery = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.discovery.bind(os.path.join(runtime_dir, f"smtwc-x11ring-{os.getpid()}"))
        self.discovery.listen(16)
        self.hellos = 0
        for sock, handle in ((self.sock, self.serve), (self.discovery, lambda c: c.close())):
            threading.Thread(target=self.accept_loop, args=(sock, handle), daemon=True).start()

    @staticmethod
    def accept_loop(sock, handle):
        while True:
            try:
                c, _ = sock.accept()
            except OSError:
                return
            handle(c)

    def serve(self, c):
        first = c.recv(16)
        if first[:1] == b"\0":
            self.hellos += 1
            c.sendall(b"\x01" * 16)  # not an ack
            c.close()
            return
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(self.target)
        up.sendall(first)
        for a, b in ((c, up), (up, c)):
            threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    @staticmethod
    def pump(a, b):
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        for x in (a, b):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        for x in (self.sock, self.discovery):
            x.shutdown(socket.SHUT_RDWR)
            x.close()


def odd_answer(h):
    """A server that answers the hello with something that is no ack: the
    program still opens its display (reconnected in place), and the next
    program asks again (only a closed hello is remembered)."""
    import tempfile
    import xtest
    run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
    with tempfile.TemporaryDirectory(prefix="smt-odd-") as rt, xtest.Xvfb() as xvfb:
        os.chmod(rt, 0o700)
        odd = OddServer(xvfb.display, rt)
        try:
            # smt-x11run preloads the shim (and, in a sanitizer build, ASan's
            # runtime before it; xdpyinfo's own leaks are not ours).
            asan = os.environ.get("ASAN_OPTIONS", "")
            env = dict(os.environ, DISPLAY=odd.display, XDG_RUNTIME_DIR=rt, LD_PRELOAD="",
                       SMT_X11SHIM_DEBUG="1",
                       ASAN_OPTIONS=(asan + ":" if asan else "") + "detect_leaks=0")
            for _ in range(2):
                res = subprocess.run([run, "xdpyinfo", "-queryExtensions"], env=env,
                                     capture_output=True, text=True,
                                     timeout=harness.scaled(60))
                check(res.returncode == 0 and
                      f"name of display:    {odd.display}" in res.stdout and
                      res.stderr.count("no usable answer to the ring's hello; reconnected") == 1,
                      f"xdpyinfo behind a server that answers the hello with junk: rc "
                      f"{res.returncode}\n{res.stdout[:300]}\n{res.stderr[-600:]}")
            check(odd.hellos == 2,
                  f"{odd.hellos} hellos reached the odd server, expected one per program")
        finally:
            odd.close()
    log("a server answering the hello with junk: each program reconnected in place")


def fallback(h):
    odd_answer(h)
    wrapper_keeps_ring(h)
    without_server_half(h, "wrapper-drops-preload")
    without_server_half(h, "missing-lib")
    xvfb_and_off(h)


MODES = {"users": users, "endpoints": endpoints, "fallback": fallback}

if __name__ == "__main__":
    mode = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in MODES else "users"
    harness.main(MODES[mode])
