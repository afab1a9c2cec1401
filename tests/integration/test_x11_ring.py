#!/usr/bin/env python3
"""X requests through the shared ring (docs/x11.md), with unmodified X
programs in the compositor's session, as a user runs them.

test_x11_ring.py clients|hostile

  clients  a startup command's xeyes and an xdpyinfo run from foot are on the
           ring; xterm takes text typed through the compositor and through XTEST
           (xdotool), xeyes and gtk3-demo (GDK_BACKEND=x11) and a
           Qt 5 program (xcb) draw, all through the ring, beside an xclock
           that stays on the socket (SMT_X11RING=off): the statistics say
           which is which. The X checker draws and reads back the same
           pixels byte for byte through the ring and through the socket, its
           MIT-SHM fds travelling in order with the ring's bytes (fd
           messages counted), from four threads and over two displays too;
           requests larger than the whole ring (BigRequests) pass; xclip's
           forked child leaves the ring for the socket and still serves the
           selection; smt-x11run gives the ring to a program started
           elsewhere; an Xvfb display keeps the shim on the socket, silently;
           xwd of the root window answers as it does on the socket.
  hostile  clients that break the ring's rules (smt-x11ring-hostile), one
           flooding its ring while another is served, then killed in the
           middle of its requests, and Xwayland killed under
           ring clients: each loses only its own connection (with a logged
           reason); Xwayland, the compositor and the other X clients carry
           on, and the next Xwayland serves rings again.
"""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "x11"))
import harness  # noqa: E402
from harness import BACKGROUND, Session, build_program, check, log  # noqa: E402

QT_CALCULATOR = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/widgets/calculator/calculator"
HOSTILE_CASES = {
    # case: whether the server must end the connection with a logged reason
    "plain": False, "ring": False, "unsealed": False,
    "bad-head": True, "past-head": True, "bad-fdmsg": True, "garbage": False,
    "limit": False,
}


def conns(s, comm, live=True):
    """Statistics of the X connections of programs named comm (live ones
    from smt-x11run --stats, or the closed ones from Xwayland's log)."""
    rows = s.x11ring_stats() if live else s.x11ring_closed()
    return [r for r in rows if r.get("comm") == comm]


def wait_closed(s, comm, n=1):
    return s.wait_until(lambda: len(conns(s, comm, live=False)) >= n and
                        conns(s, comm, live=False), timeout=10,
                        what=f"Xwayland to log the close of {n} {comm} connection(s)")


def drawn(s, g, what):
    s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g) >= 0.9 * g.w * g.h,
                      timeout=15, what=f"{what} drawn at {g}")


def check_ring(row, what, requests=1):
    check(row["transport"] == "ring" and row["requests"] >= requests and row["error"] == 0,
          f"{what}: expected a healthy ring connection with at least {requests} requests, "
          f"Xwayland says {row}")


def typed_into_xterm(s):
    """A line typed through XTEST (xdotool, itself an X client on the ring),
    then one through the compositor's keyboard (wtype)."""
    out = os.path.join(s.tmp, "typed.txt")
    first = os.path.join(s.tmp, "typed-first.txt")
    s.spawn(["xterm", "-name", "ringterm", "-geometry", "40x6+40+40", "-e", "sh", "-c",
             f'read a; printf %s "$a" > {first}; read b; printf %s "$a|$b" > {out}; '
             f'exec sleep 600'], name="xterm")
    s.wait_x_window("--classname", "ringterm")
    row = s.wait_until(lambda: conns(s, "xterm"), timeout=10, what="xterm in the statistics")
    check_ring(row[0], "xterm")
    # XTEST first: wtype uploads its own keymap, which xdotool would not
    # know to follow.
    s.run(["xdotool", "type", "--delay", "5", "by-xtest"], timeout=30)
    s.run(["xdotool", "key", "Return"], timeout=30)
    # xterm must have read the XTEST line before wtype's keymap replaces
    # the X keymap: Xlib updates its keymap when it reads the map change,
    # so keys still queued in a busy xterm would be looked up in wtype's.
    s.wait_until(lambda: os.path.exists(first), timeout=15,
                 what="the line typed through XTEST to reach xterm's shell")
    s.type_text("through-the-ring", enter=True)
    try:
        s.wait_until(lambda: os.path.exists(out), timeout=15,
                     what="the lines typed into xterm to reach its shell")
    finally:
        s.save(s.screenshot(), "xterm-typed")
    got = open(out).read()
    check(got == "by-xtest|through-the-ring", f"xterm's shell read {got!r}")
    check_ring(conns(s, "xterm")[0], "xterm after typing", requests=10)
    xdo = conns(s, "xdotool", live=False)
    check(xdo and all(r["transport"] == "ring" and r["error"] == 0 for r in xdo),
          f"xdotool's connections: {xdo}")
    log(f"xterm took typed text; its connection: {conns(s, 'xterm')[0]}")


def ring_and_socket_side_by_side(s):
    eyes = s.spawn(["xeyes", "-geometry", "150x120+500+40"], name="xeyes")
    s.spawn(["xclock", "-geometry", "150x120+700+40"], name="xclock",
            env={"SMT_X11RING": "off"})
    ge = s.x_geometry(s.wait_x_window("--classname", "xeyes"))
    gc = s.x_geometry(s.wait_x_window("--classname", "xclock"))
    drawn(s, ge, "xeyes (ring)")
    drawn(s, gc, "xclock (socket)")
    check_ring([r for r in conns(s, "xeyes") if r["pid"] == eyes.pid][0], "xeyes")
    clock = conns(s, "xclock")
    check(len(clock) == 1 and clock[0]["transport"] == "socket" and clock[0]["ring_bytes"] == 0
          and clock[0]["socket_bytes"] > 0,
          f"xclock with SMT_X11RING=off: expected one socket connection, got {clock}")


def toolkits(s):
    if "libasan" in s.env.get("LD_PRELOAD", ""):
        # In the sanitizer build the session preloads ASan's runtime into
        # what it starts (the shim is instrumented); gtk3-demo deadlocks in
        # glib's gettext under that runtime alone, shim or not. The normal
        # build runs this part.
        log("gtk3-demo left out: it deadlocks under a preloaded ASan runtime")
    else:
        s.spawn(["gtk3-demo"], name="gtk3-demo",
                env={"GDK_BACKEND": "x11", "GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1"})
        g = s.x_geometry(s.wait_x_window("--class", "gtk3-demo", timeout=30))
        drawn(s, g, "gtk3-demo on X")
        check_ring(s.wait_until(lambda: conns(s, "gtk3-demo"), timeout=10,
                                what="gtk3-demo in the statistics")[0], "gtk3-demo",
                   requests=100)
    s.spawn([QT_CALCULATOR], name="qt-calculator", env={"QT_QPA_PLATFORM": "xcb"})
    g = s.x_geometry(s.wait_x_window("--class", "calculator", timeout=30))
    drawn(s, g, "the Qt 5 calculator on X")
    check_ring(s.wait_until(lambda: conns(s, "calculator"), timeout=10,
                            what="the Qt calculator in the statistics")[0], "Qt calculator",
               requests=100)


def run_checker(s, args, env, connections):
    """x11-imgcheck ARGS to its end; its output and the closed connections
    of its process (it opens `connections`: one per display, one for the
    pure-xcb section)."""
    p = s.spawn([build_program("X11_IMGCHECK", "tests/x11/x11-imgcheck")] + args,
                name="x11-imgcheck", env=env)
    rc = p.wait(harness.scaled(120))
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    check(rc == 0, f"x11-imgcheck {' '.join(args)} exited with {rc}:\n{out[-2000:]}")
    rows = s.wait_until(
        lambda: [r for r in s.x11ring_closed() if r["pid"] == p.pid]
        if len([r for r in s.x11ring_closed() if r["pid"] == p.pid]) == connections else None,
        timeout=10, what=f"Xwayland to log the close of x11-imgcheck's {connections} "
                         f"connection(s)")
    return out, rows


def same_pixels_ring_and_socket(s):
    """The checker's output (pixels read back, errors seen) is the same
    through the ring as on the socket; its MIT-SHM attaches pass fds."""
    for args, connections in (([], 2), (["--threads"], 1), (["--displays"], 2)):
        a = ["--loops", "30"] + args
        ref, rows = run_checker(s, a, {"SMT_X11RING": "off"}, connections)
        check(all(r["transport"] == "socket" for r in rows), f"SMT_X11RING=off: {rows}")
        got, rows = run_checker(s, a, None, connections)
        check(got == ref, f"x11-imgcheck {' '.join(a)}: output through the ring differs from "
                          f"the socket's:\n--- socket ---\n{ref[-1500:]}\n--- ring ---\n"
                          f"{got[-1500:]}")
        for r in rows:
            check_ring(r, f"x11-imgcheck {' '.join(a)}", requests=40)
        check(sum(r["fd_messages"] for r in rows) > 0,
              f"x11-imgcheck {' '.join(a)}: no fd message through the ring ({rows}): the "
              f"MIT-SHM shim's fds did not travel beside the ring's bytes")
        log(f"x11-imgcheck {' '.join(a)}: same output through the ring; connections {rows}")


def bigger_than_the_ring(s):
    """x11perf's 500x500 PutImage (1 MB requests: BigRequests) through a
    64 KiB ring, no image converted to MIT-SHM so the bytes stay in the
    requests."""
    env = {"SMT_X11RING_AREA": "65536", "SMT_X11SHIM_PUT_MIN": "4000M"}
    s.run(["x11perf", "-sync", "-repeat", "1", "-reps", "10", "-putimage500"], timeout=120, env=env)
    r = wait_closed(s, "x11perf")[-1]
    check_ring(r, "x11perf -putimage500 through a 64 KiB ring")
    check(r["ring_bytes"] > 4 * 1000 * 1000,
          f"x11perf -putimage500 moved only {r['ring_bytes']} bytes through the ring")


def forked_child(s):
    """xclip forks after connecting; the child keeps the connection to
    serve the selection, so it must leave the parent's ring."""
    path = os.path.join(s.tmp, "selection.txt")
    with open(path, "w") as f:
        f.write("ring-fork")
    parent = s.spawn(["xclip", "-selection", "clipboard", "-i", path], name="xclip-fork")
    check(parent.wait(harness.scaled(20)) == 0, f"xclip -i failed:\n{parent.log_tail()}")
    # The child takes the selection after the parent exits: ask until it has.
    got = s.wait_until(
        lambda: s.run(["xclip", "-selection", "clipboard", "-o"], timeout=20,
                      check_rc=False).stdout, timeout=15,
        what="xclip's forked child to own the clipboard", interval=0.2)
    check(got == "ring-fork", f"xclip's forked child served {got!r}, not 'ring-fork'")
    serving = [r for r in conns(s, "xclip") if r["reverted"]]
    check(serving and serving[0]["transport"] == "socket" and serving[0]["error"] == 0,
          f"xclip's serving child: expected a connection reverted to the socket, got "
          f"{conns(s, 'xclip')}")


def started_elsewhere(s):
    run = build_program("SMT_X11RUN", "xwayland-glue/smt-x11run")
    before = len(conns(s, "xdpyinfo", live=False))
    out = s.run([run, "xdpyinfo"], timeout=20, env={"LD_PRELOAD": ""}).stdout
    check("BIG-REQUESTS" in out and "MIT-SHM" in out, "xdpyinfo lists no BIG-REQUESTS/MIT-SHM")
    check_ring(wait_closed(s, "xdpyinfo", before + 1)[-1], "smt-x11run xdpyinfo")
    before += 1
    s.run(["xdpyinfo"], timeout=20, env={"LD_PRELOAD": ""})
    r = wait_closed(s, "xdpyinfo", before + 1)[-1]
    check(r["transport"] == "socket", f"xdpyinfo without the shim used {r}")


def other_server(s):
    """A display with no ring behind it (Xvfb): the shim stays on the socket
    and the program does not notice."""
    import xtest
    with xtest.Xvfb() as xvfb:
        res = s.run(["xdpyinfo"], timeout=20, env={"DISPLAY": xvfb.display})
        check(re.search(rf"name of display:\s+{re.escape(xvfb.display)}\n", res.stdout),
              f"xdpyinfo with the shim on Xvfb {xvfb.display}: {res.stdout[:300]}")
        log(f"Xvfb {xvfb.display}: xdpyinfo through the shim works on the socket")


def root_window_image(s):
    """xwd of the root window answers as on the socket: the image shim
    reads a root window the plain way. (A fresh rootless Xwayland answers
    ShmGetImage of its root with black pixels where GetImage says BadMatch;
    after windows came and went both say BadMatch.)"""
    def xwd(name, env=None):
        path = os.path.join(s.tmp, name)
        res = s.run(["xwd", "-root", "-silent", "-out", path], timeout=30, check_rc=False,
                    env=env)
        with open(path, "rb") as f:
            return res, f.read()
    shim, shim_img = xwd("root-shim.xwd")
    plain, plain_img = xwd("root-plain.xwd", {"SMT_X11SHIM": "off", "SMT_X11RING": "off"})
    check(shim.returncode == plain.returncode and shim_img == plain_img,
          f"xwd -root: exit {shim.returncode} and {len(shim_img)} bytes through the "
          f"shims, exit {plain.returncode} and {len(plain_img)} bytes on the socket")
    log(f"xwd -root: exit {shim.returncode} on both")


def started_by_the_session(s):
    """A startup command's X program, and one started from a terminal the
    session launched (foot: no X library of its own), are on the ring."""
    s.wait_x_window("--classname", "startupeyes", timeout=20)
    check_ring(s.wait_until(lambda: [r for r in conns(s, "xeyes")], timeout=10,
                            what="the startup xeyes in the statistics")[0], "startup xeyes")
    out = os.path.join(s.tmp, "from-foot.txt")
    s.spawn(["foot", "sh", "-c", f"xdpyinfo > {out}.tmp; mv {out}.tmp {out}; exec sleep 600"],
            name="foot")
    s.wait_until(lambda: os.path.exists(out), timeout=20, what="xdpyinfo run from foot")
    check_ring(wait_closed(s, "xdpyinfo")[-1], "xdpyinfo started from foot")


def clients(h):
    with Session(h, x11=True, startup="xeyes -name startupeyes -geometry 100x80+1100+600") as s:
        root_window_image(s)  # first: while the X server is fresh
        started_by_the_session(s)
        typed_into_xterm(s)
        ring_and_socket_side_by_side(s)
        toolkits(s)
        same_pixels_ring_and_socket(s)
        bigger_than_the_ring(s)
        forked_child(s)
        started_elsewhere(s)
        other_server(s)
        s.check_alive()


def hostile(h):
    hostile_tool = build_program("SMT_X11RING_HOSTILE", "tests/tools/smt-x11ring-hostile")
    with Session(h, x11=True) as s:
        eyes = s.spawn(["xeyes", "-geometry", "150x120+500+40"], name="xeyes")
        g = s.x_geometry(s.wait_x_window("--classname", "xeyes"))
        drawn(s, g, "xeyes")
        xw = s.xwayland_pid()
        for case, ended in HOSTILE_CASES.items():
            before = len(s.x11ring_closed())
            res = s.run([hostile_tool, case], timeout=90, check_rc=False)
            check(res.returncode == 0, f"smt-x11ring-hostile {case}: the server did not do "
                                       f"what the rules say: {res.stdout}{res.stderr}")
            rows = s.wait_until(lambda: s.x11ring_closed()[before:], timeout=10,
                                what=f"Xwayland to log the close of the {case} connection")
            r = rows[0]
            check(r["comm"] == "smt-x11ring-hos" and (r["error"] != 0) == ended,
                  f"hostile case {case}: closed connection {r}, expected "
                  f"{'an ended ring' if ended else 'no ring error'}")
            log(f"hostile {case}: {res.stdout.strip()}; {r}")
        reasons = [ln for ln in s.stderr_text().splitlines()
                   if "smt-x11ring: client" in ln and "closing its connection" in ln]
        check(len(reasons) >= 3, f"expected a logged reason per ended ring, got {reasons}")

        # A client killed in the middle of its stream of requests.
        perf = s.spawn(["x11perf", "-time", "60", "-noop"], name="x11perf")
        s.wait_until(lambda: any(r["requests"] > 100000 for r in conns(s, "x11perf")),
                     timeout=30, what="x11perf to stream requests through its ring")
        # While it floods, the X server's scheduler still serves the others.
        s.run(["xdpyinfo"], timeout=30)
        perf.signal_group(signal.SIGKILL)
        perf.wait(10)
        s.clients.remove(perf)
        check_ring(wait_closed(s, "x11perf")[-1], "the killed x11perf", requests=100000)

        check(s.xwayland_pid() == xw, f"Xwayland changed from {xw} to {s.xwayland_pid()}")
        check(eyes.alive(), f"xeyes died beside the hostile clients:\n{eyes.log_tail()}")
        check_ring(conns(s, "xeyes")[0], "xeyes after the hostile clients")
        s.run(["xdpyinfo"], timeout=20)

        # Xwayland killed under ring clients: the next one serves rings.
        os.kill(xw, signal.SIGKILL)
        eyes.wait(10)
        s.clients.remove(eyes)
        s.spawn(["xeyes", "-geometry", "150x120+300+300"], name="xeyes-2")
        g = s.x_geometry(s.wait_x_window("--classname", "xeyes", timeout=20))
        drawn(s, g, "xeyes under the restarted Xwayland")
        check(s.xwayland_pid() not in (None, xw), "no new Xwayland")
        check_ring(conns(s, "xeyes")[0], "xeyes under the restarted Xwayland")
        s.check_alive()


if __name__ == "__main__":
    mode = sys.argv.pop(1) if len(sys.argv) > 1 and sys.argv[1] in ("clients", "hostile") \
        else "clients"
    harness.main(clients if mode == "clients" else hostile)
