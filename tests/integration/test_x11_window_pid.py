#!/usr/bin/env python3
"""The control socket's `windows` names each window's own process, X
windows too (xwayland-glue/wm/x_window_pid.c; red team, session 29).

Every X window is a surface of Xwayland's Wayland connection, which
wlroots makes with socketpair inside the compositor, so its credentials
are the compositor's pid: `smtctl windows` said every X window was the
compositor's, and a script that killed a hung X program by that pid ended
the session. Now an X window's pid is its X client's (wlroots asks the X
server, XRes, when the window maps).

Checked, what each window says, never a duration: an xterm on the X ring
and one on the socket (SMT_X11RING=off) each carry their own process's
pid, and a Wayland client (foot) its own, and no window the compositor's.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402


def test(h):
    with Session(h, x11=True) as s:
        ring = s.spawn(["xterm", "-title", "xterm-ring"], name="xterm-ring")
        sock = s.spawn(["xterm", "-title", "xterm-socket"], name="xterm-socket",
                       env={"SMT_X11RING": "off"})
        foot = s.spawn(["foot", "--app-id", "foot-pid", "--title", "foot-pid"], name="foot")
        want = {"xterm-ring": ring.pid, "xterm-socket": sock.pid, "foot-pid": foot.pid}
        # wlroots asks the X server for the pid as the window maps: wait for
        # every window to be there with a pid of its own, else say what the
        # compositor reported.
        def seen():
            ws = {w["title"]: w["pid"] for w in s.windows() if w["title"] in want}
            return ws if len(ws) == len(want) and all(ws.values()) else None
        try:
            got = s.wait_until(seen, timeout=30, what="the three windows mapped with a pid")
        except harness.TestFailure:
            got = {w["title"]: w["pid"] for w in s.windows()}
            harness.fail(f"windows and pids: {got}; expected {want} "
                         f"(the compositor is pid {s.compositor.pid})")
        log(f"windows' pids: {got}; compositor {s.compositor.pid}")
        for title, pid in want.items():
            check(got[title] == pid,
                  f"{title}: the control socket says pid {got[title]}, the program is {pid} "
                  f"(the compositor is {s.compositor.pid})")
        for p in (ring, sock, foot):
            s.stop_client(p)


harness.main(test)
