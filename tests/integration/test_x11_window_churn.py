#!/usr/bin/env python3
"""An X client creating, mapping and destroying windows in a loop
(`smt-x11-wm-hostile window-churn`, red team of session 28) must not stall
the compositor (xwayland-glue/wm/wm_doomed_windows.c, wm_event_queue.c).
wlroots 0.15's window manager made a surface for every CreateNotify with a
synchronous GetGeometry, answered every MapRequest, paired every
WL_SURFACE_ID with twelve round trips, for windows already gone: the
compositor stood in xcb_wait_for_reply while the X server queued more,
another client went unanswered until seconds after the attacker stopped,
and SIGTERM was not obeyed within 30 s. Now the window manager's FIFO
drops what comes before a window's queued DestroyNotify, and a window
created and destroyed within it is never shown to wlroots.

Checked while the attacker still churns (what happened, never a
duration): the compositor says it dropped such windows, another Wayland
client's round trips, the control socket and another X client's round
trips are answered; after the attacker stops, another X client's window
is shown; then, with the attacker churning again, the compositor exits
cleanly on SIGTERM (the harness's bound). Managed windows on the ring
(the X programs' default); override-redirect ones on the socket.
Override-redirect churn also has Xwayland send a wl_shm pool (an fd) per
window: until session 31 Xwayland could give up ("can't send file
descriptor") when the compositor fell behind, and this test then waited
for a window of an X client that had gone with it (a CI timeout). The
server half now holds what the socket refuses (integration/
x11_wayland_backlog): Xwayland giving up fails the test at once."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, everyone_answered  # noqa: E402

NEVER_SHOWN = re.compile(r"(\d+) windows never shown")


def never_shown(s):
    said = NEVER_SHOWN.findall(s.stderr_text())
    return int(said[-1]) if said else 0


def gave_up(s):
    """Fails the test at once if Xwayland gave up (every X client with it)."""
    text = s.stderr_text()
    check("Fatal server error" not in text, f"Xwayland gave up:\n{text[-2000:]}")
    return False


def churn(h, s, flags, env):
    """Starts the attacker and waits until the compositor has dropped
    windows it created and destroyed (more than it had before)."""
    before = never_shown(s)
    attacker = s.spawn([wm_hostile_tool(h), "window-churn", "0"] + flags, name="churn", env=env)
    s.wait_until(lambda: gave_up(s) or never_shown(s) > before + 100, timeout=60,
                 what="the window manager to drop windows already destroyed")
    return attacker


def test(h):
    for flags, transport in (([], "ring"), (["--or"], "socket")):
        env = {"SMT_X11RING": "off"} if transport == "socket" else None
        with Session(h, f"churn{''.join(flags)}", x11=True) as s:
            attacker = churn(h, s, flags, env)
            answered = everyone_answered(s, h, "the churn")
            gave_up(s)
            check(attacker.alive(), "the attacker ended before the checks were done")
            log(f"{' '.join(flags) or 'managed'} during the churn: {answered}; "
                f"{never_shown(s)} windows never shown")
            s.stop_client(attacker)
            other = s.spawn([wm_hostile_tool(h), "steal-focus", "bystander"], name="bystander")
            s.wait_window(lambda w: gave_up(s) or w["title"] == "bystander", timeout=120,
                          what="another X client's window after the churn")
            s.stop_client(other)
            # SIGTERM while it churns again: a clean exit within the bound.
            churn(h, s, flags, env)
            s.stop()


harness.main(test)
