#!/usr/bin/env python3
"""X clients asking the window manager for work on their own window as
fast as the X server takes it (red team of session 28,
`smt-x11-wm-hostile state-loop | iconify-loop | configure-loop`) must
neither stall the compositor nor take Xwayland down
(xwayland-glue/wm/xwayland.c, xview_request_state; wm_event_queue.c).
Fullscreen toggles each resized the window: the compositor blocked
writing configures to Xwayland while Xwayland's buffers for it piled up,
until Xwayland exited ("can't send file descriptor") with every X
client. Minimize and activate in turn stood the compositor in xcb_flush
(another client unanswered, its RSS 1.4 GiB, SIGTERM not obeyed);
move-and-resize in a loop likewise, until Xwayland gave up. Now a
window's fullscreen, maximize, minimize, activation and configure
requests are applied at most once per interval, the last one asked
winning, and the window manager's FIFO folds a window's run of them into
one.

Checked per attacker while it still floods (what happened, never a
duration): the compositor says it merged its requests; another Wayland
client's round trips and the control socket are answered, and another X
client's round trips to Xwayland; another X client's window is shown
(its MapRequest queued behind the flood: before the FIFO folded them, it
waited over a minute behind fullscreen toggles in the ASan build beside
two busy loops); Xwayland never gave up (no fatal error); the compositor
exits cleanly on SIGTERM during the flood.

And the window manager's handler ran no more turns than the compositor's
loop turned (wm_event_pacer.c, begin_turn): libwayland calls wlroots'
handler again in the same dispatch for as long as it handled an event,
and under these floods (the ASan build beside two busy loops) that held
the loop for seconds, the control socket unread; before the mend the
handler's turns outnumbered the loop's many times over."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, everyone_answered  # noqa: E402


def said(p, prefix):
    with open(p.log_path) as f:
        return [ln for ln in f.read().splitlines() if ln.startswith(prefix)]


MERGED = re.compile(r"(\d+) window state and configure requests merged")


def one_turn_per_loop_turn(s, case):
    stats = s.control("stats", timeout=60)
    wm, loop = stats["x11_window_manager"], stats["server"]["loop_turns"]
    check(wm["turns"] <= loop,
          f"{case}: the window manager's handler ran {wm['turns']} turns while the "
          f"compositor's loop turned {loop} times: it held the loop")
    check(wm["turns"] > 0 and wm["turns_deferred"] > 0,
          f"{case}: the window manager's turns were not counted, or none was "
          f"deferred to the next turn of the loop: {wm}")
    log(f"{case}: {wm['turns']} window manager turns ({wm['turns_deferred']} deferred) "
        f"in {loop} turns of the loop")


def test(h):
    for case in ("state-loop", "iconify-loop", "configure-loop"):
        flood(h, case)


def flood(h, case):
    with Session(h, case, x11=True) as s:
        attacker = s.spawn([wm_hostile_tool(h), case, "0"], name=case)
        s.wait_until(lambda: said(attacker, "mapped"), timeout=30,
                     what="the attacker's window to be mapped")
        # Flooding: the window manager is reading its requests.
        s.wait_until(lambda: "X window manager under load" in s.stderr_text(), timeout=60,
                     what="the window manager under the attacker's load")
        check(attacker.alive(), f"{case}: the attacker ended before the checks")
        answered = everyone_answered(s, h, f"the {case} flood")
        one_turn_per_loop_turn(s, case)
        other = s.spawn([wm_hostile_tool(h), "steal-focus", "bystander"], name="bystander")
        s.wait_window(lambda w: w["title"] == "bystander", timeout=120,
                      what=f"another X client's window during the {case} flood")
        # Its requests are being folded (said at most once a second).
        merged = s.wait_until(lambda: [int(n) for n in MERGED.findall(s.stderr_text())
                                       if int(n) > 0],
                              timeout=60, what="the window manager to merge the attacker's "
                              "requests")
        check(attacker.alive(), f"{case}: the attacker ended before the checks were done")
        log(f"{case}: during the flood: {answered}; {merged[-1]} requests merged")
        s.stop_client(other)
        err = s.stderr_text()
        check("Fatal server error" not in err and "can't send file descriptor" not in err,
              f"{case}: Xwayland gave up during the flood:\n" + "\n".join(
                  ln for ln in err.splitlines() if "Fatal" in ln or "file descriptor" in ln))
        # SIGTERM while it still floods: a clean exit within the bound.
        s.stop()
        s.stop_client(attacker)


harness.main(test)
