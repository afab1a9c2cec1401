#!/usr/bin/env python3
"""Events only the X server makes, sent by an X client (SendEvent) to the
root, do not reach wlroots' window manager
(xwayland-glue/wm/wm_event_pacer.c, refuse_synthetic; docs/x11.md
"Events an X client sends to the root").

Any X client may send the root any event with the mask the window manager
selected there; the X server only marks it as sent. wlroots 0.15 reads the
type without the mark: with the build before, an attacker's forged
DestroyNotify for another client's window removed that window from the
compositor (its xterm went on running, unseen). Here an xmessage is the
victim; the attacker sends a ConfigureRequest (to 1x1 at 0,0), an
UnmapNotify and a DestroyNotify naming its window; the compositor says it
dropped them, a window mapped after the attack shows (the window manager
handled what came after), and the victim is still listed, at its size.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
import interactive as bench  # noqa: E402  (wait_line())

DROPPED = re.compile(r"SendEvent of event type \d+ dropped \(only the X server makes it; (\d+) so far")


def dropped(s):
    said = DROPPED.findall(s.stderr_text())
    return int(said[-1]) if said else 0


def test(h):
    with Session(h, "forged-events", x11=True) as s:
        victim = s.spawn(["xmessage", "-name", "victim", "-title", "victim",
                          "-geometry", "300x120+40+40", "the victim"], name="victim")
        before = s.wait_window(lambda w: w["title"] == "victim", timeout=60,
                               what="the victim's window")
        wid = s.wait_x_window("--name", "^victim$", timeout=60)
        log(f"victim: X window {wid:#x}, {before['width']}x{before['height']}")

        forger = s.spawn([wm_hostile_tool(h), "forge-end", str(wid)], name="forge")
        bench.wait_line(s, forger, "sent", 30, "the forged events sent")
        # (the window manager reads its events in order: a window mapped
        # after the attack shows once the forged events were handled)
        after = s.spawn(["xmessage", "-name", "after", "-title", "after", "after"],
                        name="after")
        s.wait_window(lambda w: w["title"] == "after", timeout=60,
                      what="a window mapped after the forged events")
        check(s.compositor.alive(), "the compositor died of forged events")
        now = [w for w in s.windows() if w["title"] == "victim"]
        check(len(now) == 1, f"the victim's window is gone after forged events: {s.windows()}")
        check((now[0]["width"], now[0]["height"]) == (before["width"], before["height"]),
              f"the victim's window was resized by a forged ConfigureRequest: {now[0]}")
        check(victim.alive(), "the victim ended")
        check(wid in s.x_client_list(), "the victim left _NET_CLIENT_LIST")
        check(dropped(s) >= 3, f"the compositor said it dropped {dropped(s)} forged events, not 3")
        log(f"dropped: {dropped(s)}; victim still {now[0]['width']}x{now[0]['height']}")
        s.stop_client(after)
        s.stop_client(forger)
        s.stop_client(victim)


if __name__ == "__main__":
    harness.main(test)
