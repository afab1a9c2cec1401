#!/usr/bin/env python3
"""The backlog's writer thread inside Xwayland sends what the socket
refused, in order (xwayland-glue/xserver/wayland_backlog.c).

x11_wayland_backlog stops the compositor while an X client maps windows
one request at a time, with round trips: after a quarter of the socket is
unread the server half holds X clients (wayland_conn.c), so Xwayland never
sends enough to fill the socket and the writer thread never starts. What
does fill it is one X request that makes Xwayland realise many top-level
windows at once: each sends a surface and a wl_shm pool with its fd, all
within that request, before any X client is held. Here one
MapSubwindows of the root maps WINDOWS override-redirect windows while the
compositor is stopped (`smt-x11-wm-hostile windows-burst`).

Checked (what users see, what happened): the backlog started (its log
line) and Xwayland did not give up; after SIGCONT the writer says it
caught up, having sent every held write (as many as were held, with
bytes and fds); the X client's round trip is answered; every window is
shown on its own cell of the screen in its own colour (a window whose
pool came with another's fd, or whose requests were lost or reordered,
shows another colour or none); Xwayland is the same process, an X window
shown before is still there, and Xwayland's fds come back to what they
were before the burst's client once it ends (nothing held leaks). With the writer's start
taken out (start_writer returning false), Xwayland gives up ("can't send
file descriptor") at the burst."""
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
from harness.processes import ResourceBaseline  # noqa: E402

# 10x10 windows on a grid of 128 columns: 1280 x 160 pixels of a 1280x720
# output; the window manager's limit per X client (1024 by default) raised
# above them.
WINDOWS = 2048
CONFIG = f"""[limits]
x11-client-windows = {WINDOWS + 64}
"""
COLUMNS = 128
HELD = "requests held in order until it catches up"
CAUGHT_UP = re.compile(r"the backlog's writer sent (\d+) of (\d+) held writes in order "
                       r"\((\d+) bytes, (\d+) fds\)")
FATAL = "Fatal server error"


def said(p, text):
    with open(p.log_path) as f:
        return text in f.read()


def colour(i):
    """The window's background as the tool sets it, as (r, g, b)."""
    return (0x80 | (i // COLUMNS), (i % COLUMNS) << 1, 0x55)


def wrong_cells(img):
    """Windows whose cell centre is not their colour: [(i, seen), ...]."""
    out = []
    for i in range(WINDOWS):
        x, y = (i % COLUMNS) * 10 + 5, (i // COLUMNS) * 10 + 5
        seen = img.pixel(x, y)
        if seen != colour(i):
            out.append((i, seen))
    return out


def test(h):
    with Session(h, x11=True, config=CONFIG) as s:
        # Xwayland runs (it starts with the first X client) and its fds
        # are counted before the burst's client connects.
        before = s.spawn([wm_hostile_tool(h), "steal-focus", "before"], name="before")
        s.wait_window(lambda w: w["title"] == "before", timeout=60, what="an X window before")
        xw = s.xwayland_pid()
        check(xw is not None, "no Xwayland although an X client runs")
        fds = ResourceBaseline(xw)

        burst = s.spawn([wm_hostile_tool(h), "windows-burst", str(WINDOWS)], name="burst")
        s.wait_until(lambda: said(burst, f"created {WINDOWS}") or not burst.alive(),
                     timeout=60, what=f"the X client to create {WINDOWS} windows")
        check(burst.alive(), f"the X client ended:\n{burst.log_tail(5)}")

        # Only what the log says from here on counts (each of the two lines
        # comes at most once per 10 s: an earlier episode would hide these).
        start = len(s.stderr_text())

        def since():
            return s.stderr_text()[start:]
        os.kill(s.compositor.pid, signal.SIGSTOP)
        try:
            os.kill(burst.pid, signal.SIGUSR1)
            s.wait_until(lambda: HELD in since() or FATAL in since() or
                         not burst.alive(), timeout=60,
                         what="the backlog to start while the compositor is stopped")
            text = since()
            check(FATAL not in text,
                  f"Xwayland gave up while the compositor was stopped:\n{text[-2000:]}")
            check(HELD in text, f"no backlog:\n{text[-1500:]}")
            check(CAUGHT_UP.search(text) is None,
                  "the writer caught up while the compositor was stopped")
        finally:
            os.kill(s.compositor.pid, signal.SIGCONT)

        m = s.wait_until(lambda: CAUGHT_UP.search(since()) or FATAL in since(), timeout=120,
                         what="the backlog's writer to catch up")
        check(FATAL not in s.stderr_text(), f"Xwayland gave up:\n{s.stderr_text()[-2000:]}")
        log(m.group(0))
        sent, held, nbytes, nfds = (int(g) for g in m.groups())
        check(held > 0 and sent == held, f"the writer sent {sent} of {held} held writes")
        check(nbytes > 0 and nfds > 0, f"the writer sent {nbytes} bytes and {nfds} fds")

        s.wait_until(lambda: said(burst, f"mapped {WINDOWS}") or not burst.alive(),
                     timeout=120, what="the X client's round trip after the burst")
        check(burst.alive(), f"the X client ended:\n{burst.log_tail(5)}")

        def all_shown():
            return not wrong_cells(s.screenshot())
        try:
            s.wait_until(all_shown, timeout=120, interval=1.0,
                         what=f"all {WINDOWS} windows shown in their colours")
        finally:
            bad = wrong_cells(s.last_image)
            if bad:
                s.save(s.last_image, "burst")
                log(f"{len(bad)} windows wrong, e.g. {bad[:5]}")
        check(s.xwayland_pid() == xw, f"Xwayland {xw} is gone ({s.xwayland_pid()} runs)")

        s.stop_client(burst)
        fds.wait_back(s, "Xwayland's fds once the burst's windows are gone", timeout=60,
                      mappings=False)
        check(FATAL not in s.stderr_text(), "Xwayland gave up at the end")
        check(any(w["title"] == "before" for w in s.control("windows", timeout=60)["windows"]),
              "the X window shown before the burst is gone")
        s.stop_client(before)
        s.stop()


harness.main(test)
