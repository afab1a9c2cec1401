#!/usr/bin/env python3
"""An X client creating and freeing pixmaps in a loop, or resizing
override-redirect windows, must not end Xwayland (red team, session 31;
xwayland-glue/xserver/wayland_conn.c).

Without glamor every X pixmap is a wl_shm pool in Xwayland: an fd sent to
the compositor at once, and two wl_display.delete_id events back. Xwayland
read the compositor's events 4 KiB per turn of its dispatch loop, so the
compositor's libwayland found the socket full and ended Xwayland's
connection ("error in client communication"); and when the compositor fell
behind reading, Xwayland could not queue its next fd. Either way Xwayland
died ("request could not be marshaled: can't send file descriptor") with
every X client, after 4,000-100,000 pixmaps or 30 rounds of 200 windows.
Now the server half reads what the socket holds and holds X clients while
the compositor has a quarter of the send buffer unread.

Checked (what happened, never a duration): each attacker makes all its
steps with its connection alive; Xwayland is the same process throughout
and never logged a fatal error; an X client started before (xeyes) is
still alive; another Wayland client, the control socket and another X
client are answered after each attack. On the ring and on the socket."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, everyone_answered  # noqa: E402

# The build before died within these counts in every run seen (pixmaps:
# 4,096-102,080 alone, fewer beside busy loops; windows: 16-48 rounds of 200).
PIXMAPS = "250000"
WINDOWS, ROUNDS = "200", "50"


def attack(s, h, args, env, what):
    xw = s.xwayland_pid()
    res = s.run([wm_hostile_tool(h), *args], timeout=300, check_rc=False, env=env)
    out = (res.stdout + res.stderr).strip()
    fatal = "Fatal server error" in s.stderr_text()
    check(res.returncode == 0 and not fatal and s.xwayland_pid() == xw,
          f"{what}: exit {res.returncode} ({out[-300:]!r}); Xwayland pid {xw} -> "
          f"{s.xwayland_pid()}; Xwayland's fatal error logged: {fatal}")
    log(f"{what}: {out}")


def test(h):
    for transport in ("ring", "socket"):
        env = {"SMT_X11RING": "off"} if transport == "socket" else None
        with Session(h, f"pixmaps-{transport}", x11=True) as s:
            eyes = s.spawn(["xeyes", "-geometry", "120x90+900+500"], name="xeyes", env=env)
            s.wait_x_window("--classname", "xeyes", timeout=60)
            check(s.xwayland_pid() is not None, "no Xwayland although xeyes runs")
            attack(s, h, ["pixmap-churn", PIXMAPS], env, f"{PIXMAPS} pixmaps ({transport})")
            everyone_answered(s, h, "after the pixmap churn")
            attack(s, h, ["resize-or", WINDOWS, ROUNDS], env,
                   f"{WINDOWS} override-redirect windows resized {ROUNDS} times ({transport})")
            everyone_answered(s, h, "after the override-redirect resizes")
            check(eyes.alive(), f"xeyes ended during the attacks:\n{eyes.log_tail()}")
            held = s.stderr_text().count("X clients wait until it reads them")
            log(f"{transport}: X clients held {held} times (lines within the log limit)")


harness.main(test)
