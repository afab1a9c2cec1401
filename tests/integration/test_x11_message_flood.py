#!/usr/bin/env python3
"""X clients sending the window manager ClientMessages it does nothing
with must not leave it a backlog that keeps other X windows from being
shown (red team of session 35; xwayland-glue/wm/wm_event_queue.c,
ignore_message).

wlroots 0.15 asks the X server the name of a ClientMessage's type it
does not handle, of a WM_PROTOCOLS message's protocol other than a ping
and of each _NET_WM_STATE property it does not know, only to log it: a
GetAtomName round trip on the main loop for each. Any X client may send
the root such messages as fast as the X server takes them; the pacer's
budget kept other clients answered, but the window manager got through
a few tens of thousands a second while an attacker sent a million, so
every later event (another client's MapRequest) waited behind the
backlog: 5 s of `message-loop` (4.6 million messages) left 16,384
events waiting for over 90 s after the attacker had ended, the
compositor at 40% of a CPU meanwhile. And it keeps a window's
_NET_STARTUP_INFO text until its NUL, in a list it walks at each message:
messages without NUL grew the compositor by 45 MiB in 5 s, and naming
a new window each (`startup-loop`) left the same backlog. Now such messages are
dropped as they come (a state's unknown properties made None; the
compositor does not use startup notification).

Checked per attacker while it still floods (what happened, never a
duration): another X client's window is shown (before the mend it
waited for good: the test timed out); the compositor counts the
attacker's messages as ignored; another Wayland client's round trips,
the control socket and another X client's round trips are answered;
Xwayland never gave up; SIGTERM during the flood ends the compositor
cleanly."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, everyone_answered  # noqa: E402


def said(p, prefix):
    with open(p.log_path) as f:
        return [ln for ln in f.read().splitlines() if ln.startswith(prefix)]


def ignored(s):
    return s.control("stats", timeout=60)["x11_window_manager"].get("messages_ignored", 0)


def flood(h, case):
    with Session(h, case, x11=True) as s:
        attacker = s.spawn([wm_hostile_tool(h), case, "0"], name=case)
        s.wait_until(lambda: said(attacker, "mapped"), timeout=30,
                     what="the attacker's window to be mapped")
        # Two million sent before the bystander comes: before the mend a
        # backlog of over a minute ahead of its MapRequest.
        s.wait_until(lambda: said(attacker, "sent 2097152"), timeout=60,
                     what="the attacker's first two million messages")
        other = s.spawn([wm_hostile_tool(h), "steal-focus", "bystander"], name="bystander")
        s.wait_window(lambda w: w["title"] == "bystander", timeout=60,
                      what=f"another X client's window during the {case} flood")
        check(attacker.alive(), f"{case}: the attacker ended before the checks")
        count = s.wait_until(lambda: ignored(s), timeout=30,
                             what=f"the window manager to ignore the {case} messages")
        answered = everyone_answered(s, h, f"the {case} flood")
        check(attacker.alive(), f"{case}: the attacker ended before the checks were done")
        log(f"{case}: during the flood: {answered}; {count} messages ignored")
        s.stop_client(other)
        err = s.stderr_text()
        check("Fatal server error" not in err and "can't send file descriptor" not in err,
              f"{case}: Xwayland gave up during the flood:\n" + "\n".join(
                  ln for ln in err.splitlines() if "Fatal" in ln or "file descriptor" in ln))
        s.stop()
        s.stop_client(attacker)


def test(h):
    for case in ("message-loop", "protocols-loop", "state-unknown-loop", "startup-loop"):
        flood(h, case)


harness.main(test)
