#!/usr/bin/env python3
"""An X client toggling its own fullscreen state as fast as the X server
takes it (`smt-x11-wm-hostile state-loop`, red team of session 28) must
neither stall the compositor nor take Xwayland down
(xwayland-glue/wm/xwayland.c, xview_request_state). Each toggle resized
the window: a configure the compositor wrote to Xwayland, a new buffer
back. Before, the compositor blocked writing configures while Xwayland's
buffers for it piled up on the other side, until Xwayland exited ("can't
send file descriptor") with every X client, or another client waited
minutes for an answer. Now a window's fullscreen and maximize requests
are applied at most once per interval, the last one asked winning.

Checked while the attacker still toggles (what happened, never a
duration): another Wayland client's round trips and the control socket
are answered, and another X client's round trips to Xwayland; another X
client's window is shown (its MapRequest queued behind the toggles: the
window manager's FIFO folds a window's run of _NET_WM_STATE toggles into
one, wm_event_queue.c; before that it waited over a minute in the ASan
build beside two busy loops); after the attacker is stopped, Xwayland
never gave up (no fatal error) and the compositor is alive."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402


def wm_hostile(h):
    return os.environ.get("SMT_X11_WM_HOSTILE") or os.path.join(
        os.path.dirname(h.vpointer), "smt-x11-wm-hostile")


def said(p, prefix):
    with open(p.log_path) as f:
        return [ln for ln in f.read().splitlines() if ln.startswith(prefix)]


def test(h):
    with Session(h, x11=True) as s:
        attacker = s.spawn([wm_hostile(h), "state-loop", "0"], name="state-loop")
        s.wait_until(lambda: said(attacker, "mapped"), timeout=30,
                     what="the attacker's window to be mapped")
        # Toggling: the window manager is reading its messages.
        s.wait_until(lambda: "X window manager under load" in s.stderr_text(), timeout=60,
                     what="the window manager under the attacker's load")
        check(attacker.alive(), "the attacker ended before the checks")
        probe = s.run([hostile_tool(h), "sync-probe", "0.3"], timeout=120, check_rc=False)
        check(probe.returncode == 0 and "SYNC n=" in probe.stdout,
              f"another Wayland client's round trips during the flood: {probe.stdout}"
              f"{probe.stderr[-300:]}")
        stats = s.control("stats", timeout=60)
        check("server" in stats, f"the control socket during the flood: {stats}")
        # Another X program's round trips: Xwayland serves others.
        xr = s.run(["xwininfo", "-root"], timeout=120, check_rc=False)
        check(xr.returncode == 0 and "Window id" in xr.stdout,
              f"another X client during the flood: {xr.returncode} {xr.stderr[-300:]}")
        other = s.spawn([wm_hostile(h), "steal-focus", "bystander"], name="bystander")
        s.wait_window(lambda w: w["title"] == "bystander", timeout=120,
                      what="another X client's window during the flood")
        check(attacker.alive(), "the attacker ended before the checks were done")
        # Its toggles are being folded (said at most once a second).
        merged = s.wait_until(lambda: [int(n) for n in re.findall(
            r"(\d+) window-state messages merged", s.stderr_text()) if int(n) > 0],
            timeout=60, what="the window manager to merge the attacker's toggles")
        check(attacker.alive(), "the attacker ended before the checks were done")
        log(f"during the flood: {probe.stdout.strip()}; {merged[-1]} toggles merged")
        s.stop_client(attacker)
        s.stop_client(other)
        err = s.stderr_text()
        check("Fatal server error" not in err and "can't send file descriptor" not in err,
              "Xwayland gave up during the flood:\n" + "\n".join(
                  ln for ln in err.splitlines() if "Fatal" in ln or "file descriptor" in ln))
        check(s.compositor.alive(), "the compositor died")


harness.main(test)
