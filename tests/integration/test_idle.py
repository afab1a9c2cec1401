#!/usr/bin/env python3
"""Idle: swayidle's timeouts, resumed by input, held off by an inhibitor.

- swayidle (org_kde_kwin_idle at wlroots 0.15) runs its timeout command once
  the seat is idle, and its resume command on the next pointer motion.
- A window with an idle inhibitor (smt-probe --idle-inhibit: what mpv or a
  browser playing video does) holds idle off while it is visible: swayidle,
  started meanwhile, has its timeout registered but not counting down (the
  compositor's seat state), until the window is minimized (Mod+n); then the
  timeout runs. Shown again (activated from a taskbar) it inhibits again;
  when its client exits the inhibitor goes with it.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, seat  # noqa: E402
from harness import Session, check, log  # noqa: E402


def test(h):
    probe = desktop_clients.probe(h)
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h) as s:
        # Idle, then resumed by input, in that order.
        idle = s.spawn(["swayidle", "-w", "timeout", "1", "echo IDLE", "resume", "echo RESUME"])
        s.wait_until(lambda: "IDLE" in lines(idle), timeout=15, what="swayidle's timeout")
        check("RESUME" not in lines(idle), f"swayidle resumed before any input: {lines(idle)}")
        s.vpointer("move", 100, 100, "move", 200, 200)
        s.wait_until(lambda: "RESUME" in lines(idle), what="swayidle's resume on pointer motion")
        idle.terminate()

        # A visible inhibitor holds idle off.
        p = s.spawn([probe, "--title", "video", "--idle-inhibit"])
        s.wait_window(lambda w: w["title"] == "video", what="the inhibiting window")
        s.wait_until(lambda: seat(s)["idle_inhibited"], what="the seat to report idle inhibited")
        idle = s.spawn(["swayidle", "-w", "timeout", "1", "echo IDLE", "resume", "echo RESUME"])
        # swayidle has bound its timeout once the compositor has answered a
        # later client's round trip; the inhibitor must still hold then.
        s.wait_until(lambda: seat(s)["idle_timeouts"] == 1, what="swayidle's timeout")
        st = seat(s)
        check(st["idle_inhibited"] and st["idle_timeouts_counting"] == 0,
              f"swayidle's timeout counts down under a visible inhibitor: {st}")
        check("IDLE" not in lines(idle), f"swayidle went idle under an inhibitor: {lines(idle)}")

        # Minimized, the window cannot be watched: idle comes.
        s.key("logo+n")
        s.wait_until(lambda: not seat(s)["idle_inhibited"],
                     what="a minimized window's inhibitor to stop counting")
        s.wait_until(lambda: "IDLE" in lines(idle), timeout=15,
                     what="swayidle's timeout once the inhibiting window is minimized")
        check(lines(idle).count("IDLE") == 1, f"swayidle log: {lines(idle)}")
        log(f"swayidle while inhibited, then minimized: {lines(idle)}")

        # Shown again (a taskbar activates it), it inhibits again.
        s.run([desktop_tool, "toplevels", "activate", "video"], timeout=10)
        s.wait_until(lambda: seat(s)["idle_inhibited"] and seat(s)["idle_timeouts_counting"] == 0,
                     what="the restored window's inhibitor to hold idle off again")
        # Its client gone, so is the inhibitor.
        p.terminate()
        s.wait_until(lambda: not seat(s)["idle_inhibited"],
                     what="the inhibitor to go with its client")


harness.main(test)
