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
(Override-redirect churn also has Xwayland create a wl_shm pool per
window: Xwayland may still give up with "can't send file descriptor"
when the compositor falls behind for long (session 31 holds what its
socket refuses, up to a bound: docs/x11.md "Xwayland's own Wayland
connection"); that is not checked here, and a bystander that Xwayland
takes with it is started again.)"""
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


def gave_up_times(s):
    return s.stderr_text().count("Fatal server error")


def churn(h, s, flags, env, tries=5):
    """Starts the attacker and waits until the compositor has dropped
    windows it created and destroyed (more than it had before). Xwayland
    may give up under the override-redirect churn on a busy machine (an fd
    per mapped window; noted in the test's docstring) before that, taking
    the attacker with it: then the attacker is started again (Xwayland
    restarts for it), at most `tries` times."""
    for _ in range(tries):
        before, deaths = never_shown(s), gave_up_times(s)
        attacker = s.spawn([wm_hostile_tool(h), "window-churn", "0"] + flags, name="churn",
                           env=env)
        s.wait_until(lambda: never_shown(s) > before + 100 or
                     (flags and gave_up_times(s) > deaths), timeout=60,
                     what="the window manager to drop windows already destroyed")
        if never_shown(s) > before + 100:
            return attacker
        log("Xwayland gave up under the override-redirect churn before the drop: again")
        s.stop_client(attacker)
    check(False, f"Xwayland gave up {tries} times before the window manager dropped a window")


def bystander(h, s, tries=3):
    """Another X client's window, shown after the churn. Xwayland may give
    up (above) after the attacker stopped, with what it still had to send,
    taking this client with it (CI, session 30's submission: the test then
    waited 120 s for a window of a client gone): it is started again then
    (Xwayland restarts for it), at most `tries` times."""
    for _ in range(tries):
        deaths = gave_up_times(s)
        other = s.spawn([wm_hostile_tool(h), "steal-focus", "bystander"], name="bystander")
        s.wait_until(lambda: any(w["title"] == "bystander" for w in s.windows()) or
                     gave_up_times(s) > deaths and not other.alive(), timeout=120,
                     what="another X client's window after the churn")
        if other.alive():
            return other
        log("Xwayland gave up after the churn, with the bystander: again")
        s.stop_client(other)
    check(False, f"Xwayland gave up {tries} times before another X client's window was shown")


def test(h):
    for flags, transport in (([], "ring"), (["--or"], "socket")):
        env = {"SMT_X11RING": "off"} if transport == "socket" else None
        with Session(h, f"churn{''.join(flags)}", x11=True) as s:
            attacker = churn(h, s, flags, env)
            answered = everyone_answered(s, h, "the churn")
            # Managed windows cost Xwayland no buffer; override-redirect ones
            # a wl_shm pool each, and Xwayland may still give up on a busy
            # machine (its connection then ends the attacker's): noted.
            gave_up = "Fatal server error" in s.stderr_text()
            check(attacker.alive() or (flags and gave_up),
                  "the attacker ended before the checks were done")
            if gave_up:
                log("Xwayland gave up during the override-redirect churn")
            log(f"{' '.join(flags) or 'managed'} during the churn: {answered}; "
                f"{never_shown(s)} windows never shown")
            s.stop_client(attacker)
            other = bystander(h, s)
            s.stop_client(other)
            # SIGTERM while it churns again: a clean exit within the bound.
            churn(h, s, flags, env)
            s.stop()


harness.main(test)
