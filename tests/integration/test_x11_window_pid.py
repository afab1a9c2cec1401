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
        want = {}
        clients = []
        # One at a time, each waited for: in the ASan build one of two
        # xterms started together twice never showed at all (docs/
        # reliability.md, session 29), a race of its own, not this test's.
        for title, argv, env in (
                ("xterm-ring", ["xterm", "-title", "xterm-ring"], None),
                ("xterm-socket", ["xterm", "-title", "xterm-socket"], {"SMT_X11RING": "off"}),
                ("foot-pid", ["foot", "--app-id", "foot-pid", "--title", "foot-pid"], None)):
            p = s.spawn(argv, name=title, env=env)
            clients.append(p)
            want[title] = p.pid
            # wlroots asks the X server for the pid as the window maps:
            # wait for the window with a pid of its own, else say what
            # the compositor reported.
            try:
                s.wait_until(lambda: any(w["title"] == title and w["pid"]
                                         for w in s.windows()),
                             timeout=30, what=f"{title}'s window with a pid")
            except harness.TestFailure:
                got = {w["title"]: w["pid"] for w in s.windows()}
                harness.fail(f"{title}: windows and pids: {got}; expected {want} "
                             f"(the compositor is pid {s.compositor.pid})")
        got = {w["title"]: w["pid"] for w in s.windows() if w["title"] in want}
        log(f"windows' pids: {got}; compositor {s.compositor.pid}")
        for title, pid in want.items():
            check(got.get(title) == pid,
                  f"{title}: the control socket says pid {got.get(title)}, the program is "
                  f"{pid} (the compositor is {s.compositor.pid})")
        for p in clients:
            s.stop_client(p)


harness.main(test)
