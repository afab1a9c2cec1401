#!/usr/bin/env python3
"""swaylock locks: while it runs, input goes only to it.

swaylock 1.7 at wlroots 0.15 locks with wlr-input-inhibitor and an overlay
layer surface. While it holds input:
- the whole output shows its colour;
- keys typed go to it, not to the window that had the keyboard (that window
  gets keyboard leave and no key until the lock ends), and the compositor's
  own bindings do nothing (Mod+m does not maximize);
- clicks do not reach the window under the lock, which is not raised;
- a window that opens meanwhile gets neither the keyboard nor the pointer.
When the locker goes away the keyboard returns to the window that had it,
and what is typed then arrives there.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, seat, window  # noqa: E402
from harness import OUTPUT_H, OUTPUT_W, Session, check, log  # noqa: E402

LOCK = (0xcc, 0x20, 0x20)


def test(h):
    probe = desktop_clients.probe(h)
    with Session(h) as s:
        work = s.spawn([probe, "--title", "work", "--size", "400x300"])
        w = s.wait_window(lambda w: w["title"] == "work" and w["focused"],
                          what="the window to open focused")
        s.wait_until(lambda: "keyboard enter" in lines(work), what="the window to get the keyboard")

        lock = s.spawn(["swaylock", "--color", "cc2020"])
        s.wait_until(lambda: seat(s)["input_inhibited"], timeout=15,
                     what="swaylock to hold input (wlr-input-inhibitor)")
        s.wait_screenshot(lambda img: img.count(LOCK, tol=2) >= OUTPUT_W * OUTPUT_H * 0.95 or None,
                          timeout=15, what="the lock screen over the whole output")
        s.wait_until(lambda: "keyboard leave" in lines(work),
                     what="the locked-away window to lose the keyboard")
        check(seat(s)["keyboard_focus_pid"] == lock.pid,
              f"the keyboard is with pid {seat(s)['keyboard_focus_pid']}, not swaylock's "
              f"{lock.pid}")

        # Keys, bindings and clicks while locked.
        s.type_text("secret")
        s.key("logo+m")
        s.click(w["x"] + 50, w["y"] + 50)
        check(not window(s, "work")["maximized"], "Mod+m maximized a window behind the lock")

        # A window opening under the lock gets no input.
        intruder = s.spawn([probe, "--title", "intruder", "--size", "600x400"])
        i = s.wait_window(lambda w: w["title"] == "intruder", what="a window opened while locked")
        s.vpointer("move", i["x"] + 20, i["y"] + 20, "click", "left")
        check(seat(s)["keyboard_focus_pid"] == lock.pid,
              "a window opened while locked took the keyboard")
        check(not window(s, "intruder")["focused"], "a window opened while locked got focus")

        # Unlocked (swaylock gone), the keyboard comes back to where it was.
        lock.terminate()
        s.wait_until(lambda: not seat(s)["input_inhibited"], what="the inhibitor to go")
        s.wait_until(lambda: seat(s)["keyboard_focus_pid"] == work.pid,
                     what="the keyboard back with the window that had it")
        mark = len(lines(work))
        s.type_text("ok")
        s.wait_until(lambda: any(l.startswith("key ") for l in lines(work)[mark:]),
                     what="keys typed after the lock to reach the window")
        # (Where the window that got the keyboard back, raised, does not cover it.)
        s.vpointer("move", i["x"] + 500, i["y"] + 350)
        s.wait_until(lambda: any(l.startswith("pointer enter") for l in lines(intruder)),
                     what="the pointer to reach the new window after the lock")

        # Everything the compositor sent before those lines is in the logs
        # before them: nothing from the locked period may be there.
        work_log = lines(work)
        leave = work_log.index("keyboard leave")
        back = len(work_log) - 1 - work_log[::-1].index("keyboard enter")
        during = [l for l in work_log[leave:back] if l.startswith(("key ", "button "))]
        check(not during, f"the locked-away window got input while locked: {during}")
        intr_log = lines(intruder)
        first_pointer = next(n for n, l in enumerate(intr_log) if l.startswith("pointer enter"))
        leaked = [l for l in intr_log[:first_pointer]
                  if l.startswith(("keyboard enter", "key ", "button ", "motion"))]
        check(not leaked, f"the window opened while locked got input: {leaked}")
        log(f"locked-away window's log: {work_log}")


harness.main(test)
