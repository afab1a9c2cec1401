#!/usr/bin/env python3
"""An X client creating and freeing pixmaps in a loop must not end Xwayland (red team, session 31;
xwayland-glue/xserver/wayland_conn.c).

Without glamor every X pixmap is a wl_shm pool in Xwayland: an fd sent to
the compositor at once, and two wl_display.delete_id events back. Xwayland
read the compositor's events 4 KiB per turn of its dispatch loop, so the
compositor's libwayland found the socket full and ended Xwayland's
connection ("error in client communication"); and when the compositor fell
behind reading, Xwayland could not queue its next fd. Either way Xwayland
died ("request could not be marshaled: can't send file descriptor") with
every X client, after 4,000-100,000 pixmaps (override-redirect windows
resized in turn did the same: docs/x11.md, by hand; too slow for a test in
the ASan build, 83-100 s for 4,000 resizes).
Now the server half reads what the socket holds and holds X clients while
the compositor has a quarter of the send buffer unread.

Then the compositor is stopped (SIGSTOP) during a churn until Xwayland
says it holds X clients, or gives up (the build before, at once: its sends
found the socket full), and let go: a compositor that falls behind for any
length of time, made certain (the plain churn kills the build before only
when a stall happens to come: it lived through 400,000 pixmaps in 1 of 3
runs at load 7).

Checked (what happened, never a duration): the attacker makes all its
steps with its connection alive; Xwayland is the same process throughout
and never logged a fatal error; an X client started before (xeyes) is
still alive; another Wayland client, the control socket and another X
client are answered after it. On the ring and on the socket."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, everyone_answered  # noqa: E402

# The build before died within this count in most runs (4,096-345,728; it
# lived through 150,000 twice and 400,000 once at load 7). With the
# compositor stopped a few thousand fill the socket.
PIXMAPS = "250000"
STALLED_PIXMAPS = "50000"


def attack(s, h, args, env, what):
    xw = s.xwayland_pid()
    res = s.run([wm_hostile_tool(h), *args], timeout=300, check_rc=False, env=env)
    out = (res.stdout + res.stderr).strip()
    fatal = "Fatal server error" in s.stderr_text()
    check(res.returncode == 0 and not fatal and s.xwayland_pid() == xw,
          f"{what}: exit {res.returncode} ({out[-300:]!r}); Xwayland pid {xw} -> "
          f"{s.xwayland_pid()}; Xwayland's fatal error logged: {fatal}")
    log(f"{what}: {out}")


HELD = "X clients wait until it reads them"


def attack_stalled(s, h, env, transport):
    """The churn with the compositor stopped until Xwayland holds its X
    clients or gives up."""
    xw = s.xwayland_pid()
    held_before = s.stderr_text().count(HELD)
    churn = s.spawn([wm_hostile_tool(h), "pixmap-churn", STALLED_PIXMAPS], name="churn",
                    env=env)
    os.kill(s.compositor.pid, signal.SIGSTOP)

    def churn_waited():
        # The held line can fall to the server half's log limit (a CI
        # run: the first churn's holds had used it up, and the stopped
        # compositor's one hold printed nothing): its statistics count it.
        rows = [r for r in s.x11ring_stats() if r.get("pid") == churn.pid]
        return bool(rows) and rows[0].get("wayland_waits", 0) > 0

    try:
        s.wait_until(lambda: s.stderr_text().count(HELD) > held_before or
                     "Fatal server error" in s.stderr_text() or churn_waited(),
                     timeout=120, interval=0.5,
                     what="Xwayland to hold its X clients (or give up) while the "
                          "compositor is stopped")
    finally:
        os.kill(s.compositor.pid, signal.SIGCONT)
    rc = churn.wait(300)
    fatal = "Fatal server error" in s.stderr_text()
    check(rc == 0 and not fatal and s.xwayland_pid() == xw,
          f"the churn with the compositor stopped ({transport}): exit {rc} "
          f"({churn.log_tail()}); Xwayland pid {xw} -> {s.xwayland_pid()}; "
          f"Xwayland's fatal error logged: {fatal}")
    s.clients.remove(churn)
    log(f"the churn with the compositor stopped ({transport}): held, then all made")


def test(h):
    for transport in ("ring", "socket"):
        env = {"SMT_X11RING": "off"} if transport == "socket" else None
        with Session(h, f"pixmaps-{transport}", x11=True) as s:
            eyes = s.spawn(["xeyes", "-geometry", "120x90+900+500"], name="xeyes", env=env)
            s.wait_x_window("--classname", "xeyes", timeout=60)
            check(s.xwayland_pid() is not None, "no Xwayland although xeyes runs")
            attack(s, h, ["pixmap-churn", PIXMAPS], env, f"{PIXMAPS} pixmaps ({transport})")
            everyone_answered(s, h, "after the pixmap churn")
            attack_stalled(s, h, env, transport)
            everyone_answered(s, h, "after the stalled churn")
            check(eyes.alive(), f"xeyes ended during the churn:\n{eyes.log_tail()}")
            held = s.stderr_text().count(HELD)
            log(f"{transport}: X clients held {held} times (lines within the log limit)")


harness.main(test)
