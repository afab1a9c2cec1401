#!/usr/bin/env python3
"""The GetGeometry wlroots' window manager sends for each new X window is
sent ahead (xwayland-glue/wm/wm_geometry_fetch.h; docs/x11.md "A window's
geometry read ahead").

wlroots 0.15 reads each new top-level window's depth with a GetGeometry
and waits for the reply, the compositor's main loop standing still for a
round trip per window, one after another (600 override-redirect windows at
once: about 3 s of the loop's 4 s spent waiting, strace; the control socket
and screenshots unanswered meanwhile). The pacer now sends one per
CreateNotify as it takes the events from libxcb, all together, and the
window manager's request is answered from it.

An X client makes WINDOWS windows; once another X client's window made
after them is listed (the window manager takes events in order: every one
of those windows has been handled), the compositor ends and its pacer's
last line must say a GetGeometry was sent ahead for every window, the
window manager took each, and asked none it had not foreseen (the build
before says nothing of the kind: it sends none ahead)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

WINDOWS = 200
LAST = re.compile(r"X window manager at the end: .*; (\d+) GetGeometry of new windows sent "
                  r"ahead \((\d+) taken by it, (\d+) asked unforeseen\)")


def said(p, text):
    with open(p.log_path) as f:
        return text in f.read()


def test(h):
    with Session(h, "geometry-reads", x11=True) as s:
        holder = s.spawn([wm_hostile_tool(h), "windows-hold", str(WINDOWS), "--map"],
                         name="holder")
        s.wait_until(lambda: said(holder, f"holding {WINDOWS}"), timeout=60,
                     what=f"the X client to make {WINDOWS} windows")
        after = s.spawn([wm_hostile_tool(h), "steal-focus", "after"], name="after")
        s.wait_window(lambda w: w["title"] == "after", timeout=60,
                      what="another X client's window made after them")
        s.stop_client(after)
        s.stop_client(holder)
        s.stop()
        found = LAST.findall(s.stderr_text())
        check(found, "the compositor's window manager did not say how many GetGeometry "
                     "it sent ahead (no 'X window manager at the end: ... GetGeometry' line)")
        sent, taken, unforeseen = (int(v) for v in found[-1])
        log(f"{WINDOWS} windows and one more: {sent} GetGeometry sent ahead, {taken} taken, "
            f"{unforeseen} asked unforeseen")
        check(sent >= WINDOWS + 1 and taken >= WINDOWS + 1,
              f"{sent} sent ahead and {taken} taken for {WINDOWS + 1} windows")
        check(unforeseen == 0, f"{unforeseen} GetGeometry asked without one sent ahead (each "
                               f"a round trip the main loop waited for)")
        # Every window here is shown: none sent for nothing (the window
        # manager's own selection windows were, 4 per session).
        check(sent == taken, f"{sent - taken} GetGeometry sent ahead and never taken")


harness.main(test)
