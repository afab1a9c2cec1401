#!/usr/bin/env python3
"""Xwayland outlives a compositor that reads its Wayland connection late
(xwayland-glue/xserver/wayland_backlog.c).

Debian 12's libwayland ends a client whose socket is full as soon as a
request carries an fd, and Xwayland sends one (a wl_shm pool) for every
window it shows: X clients mapping windows faster than the compositor
turns its loop made Xwayland exit ("request could not be marshaled: can't
send file descriptor") with every X client (CI, x11_window_churn beside
two busy loops; `windows-hold 3000 --map --or` every time). Now the server
half preloaded into Xwayland holds what the socket refuses and writes it
in order as the compositor reads.

Made certain here: the compositor is stopped (SIGSTOP) while an X client
maps 400 override-redirect windows, far more fd-carrying writes than a
socket buffer holds (300 end Xwayland on the build before). The server
half also holds X clients while the compositor has a quarter of the
socket unread (wayland_conn.c, x11_pixmap_churn): the X client is either
answered or held while the compositor is stopped. Checked (what
happened): after SIGCONT the X client gets all its windows, Xwayland is
the same process and never gave up, an X window shown before is still
there and a new X client's window is shown; when
the attacker ends, Xwayland holds no more fds than before it (nothing held
leaks)."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
from harness.processes import ResourceBaseline  # noqa: E402

WINDOWS = 400
HELD = "requests held in order until it catches up"
WAITING = "X clients wait until it reads them"
FATAL = "Fatal server error"


def said(p, text):
    with open(p.log_path) as f:
        return text in f.read()


def shown(s, title):
    """Whether a window of that title is mapped. The compositor catching
    up with 400 windows can take a minute (ASan beside two busy loops) before it
    answers: the query's own timeout is long (what is checked is that it
    answers, not when)."""
    return any(w["title"] == title for w in s.control("windows", timeout=60)["windows"])


def stopped_while(s, h, what_said):
    """Stops the compositor, has an X client map WINDOWS override-redirect
    windows, waits for what_said in the log (or Xwayland giving up, or the
    client ending), continues the compositor; returns the client."""
    os.kill(s.compositor.pid, signal.SIGSTOP)
    try:
        holder = s.spawn([wm_hostile_tool(h), "windows-hold", str(WINDOWS), "--map", "--or"],
                         name="holder")
        s.wait_until(lambda: what_said(holder) or FATAL in s.stderr_text() or
                     not holder.alive(), timeout=60,
                     what="the X client or the server half with the compositor stopped")
        text = s.stderr_text()
        check(FATAL not in text,
              f"Xwayland gave up while the compositor was stopped:\n{text[-2000:]}")
        check(holder.alive(), f"the X client ended while the compositor was stopped:\n"
              f"{holder.log_tail(5)}\n{text[-1500:]}")
    finally:
        os.kill(s.compositor.pid, signal.SIGCONT)
    return holder


def test(h):
    with Session(h, x11=True) as s:
        before = s.spawn([wm_hostile_tool(h), "steal-focus", "before"], name="before")
        s.wait_window(lambda w: w["title"] == "before", timeout=60, what="an X window before")
        xw = s.xwayland_pid()
        check(xw is not None, "no Xwayland although an X client runs")
        fds = ResourceBaseline(xw)

        # Xwayland answers its X clients without the compositor: the
        # holder's last round trip comes back with the compositor stopped.
        holder = stopped_while(s, h, lambda p: said(p, f"holding {WINDOWS}") or
                               WAITING in s.stderr_text())
        s.wait_until(lambda: said(holder, f"holding {WINDOWS}") or FATAL in s.stderr_text(),
                     timeout=150, what=f"the X client to have its {WINDOWS} windows")
        text = s.stderr_text()
        check(FATAL not in text, f"Xwayland gave up:\n{text[-2000:]}")
        check(s.xwayland_pid() == xw, f"Xwayland {xw} is gone ({s.xwayland_pid()} runs)")
        for said_line in (HELD, WAITING):
            log(next((line for line in text.splitlines() if said_line in line),
                     f"(not said: {said_line})"))

        after = s.spawn([wm_hostile_tool(h), "steal-focus", "after"], name="after")
        s.wait_until(lambda: shown(s, "after"), timeout=120, interval=0.5,
                     what="a new X client's window after the compositor caught up")
        check(shown(s, "before"), "the X window shown before the stop is gone")
        check(holder.alive() and before.alive(), "an X client ended")

        s.stop_client(holder)
        s.stop_client(after)
        fds.wait_back(s, "Xwayland's fds once the holder's windows are gone", timeout=60,
                      mappings=False)
        check(FATAL not in s.stderr_text(), "Xwayland gave up at the end")
        s.stop_client(before)
        s.stop()


harness.main(test)
