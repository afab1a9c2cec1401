#!/usr/bin/env python3
"""An X window whose surface drew before wlroots paired it with the window
is shown (xwayland-glue/wm/wm_surface_pairing.h; docs/x11.md "The window
manager's events").

wlroots 0.15 maps an X window at its surface's first commit with a buffer
after Xwayland's WL_SURFACE_ID message paired them; when that message is
handled after the commit (the window manager's events behind the
compositor's Wayland requests), the window waits for a second commit, and
a program that drew once and waits for input (xmessage) never shows.
Found in session 29: 1-2 of 20 xmessage windows never shown during an X
title flood.

The race is the machine's to decide, so the test makes it likely (an X
client floods its title, which keeps the window manager's events behind)
and opens xmessage windows one after another until the compositor says
it paired one after its surface drew (the premise), at most MAX_WINDOWS.
Checked for each: mapped in X, then listed by the compositor (waited for;
without the mend the window of the late pairing is never listed and the
test fails there), and the late pairing named by the pid of an xmessage
that was then shown. The late window must then be in the root's
_NET_CLIENT_LIST exactly once (what wmctrl, xdotool and taskbars read;
wlroots writes it at its own map only, and session 29's mend left the
window out until another window mapped or unmapped), and leave it when
its program ends.
"""
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
import interactive as bench  # noqa: E402  (program(), wait_line())

MAX_WINDOWS = 300
LATE = re.compile(r"X window (0x[0-9a-f]+) \(pid (-?\d+)\) paired after its surface drew")


def late_windows(s):
    """{pid: X window id} of the windows the compositor paired late."""
    return {int(m.group(2)): int(m.group(1), 16) for m in LATE.finditer(s.stderr_text())}


def check_client_list(s, title, wid):
    """The late window is in _NET_CLIENT_LIST exactly once while shown."""
    s.wait_until(lambda: wid in s.x_client_list(), timeout=20,
                 what=f"{title} (0x{wid:x}, paired late) in the root's _NET_CLIENT_LIST",
                 interval=0.1)
    listed = s.x_client_list()
    check(listed.count(wid) == 1,
          f"{title} (0x{wid:x}) is {listed.count(wid)} times in _NET_CLIENT_LIST: "
          f"{[hex(w) for w in listed]}")


def test(h):
    with Session(h, "late-pairing", x11=True) as s:
        flooder = s.spawn([bench.program("x11-titleflood"), "--start-on-usr1", "--until-usr2"],
                          name="x11-titleflood")
        bench.wait_line(s, flooder, "ready", 30, "x11-titleflood to map its window")
        flooder.signal_group(signal.SIGUSR1)
        shown = {}
        for i in range(MAX_WINDOWS):
            title = f"late-pairing-{i}"
            x = s.spawn(["xmessage", "-name", title, "-title", title, title], name=title)
            s.wait_until(lambda: s.x_search("--name", title), timeout=60,
                         what=f"{title} mapped in X", interval=0.05)
            s.wait_until(lambda: any(w["title"] == title for w in s.windows()), timeout=60,
                         what=f"{title}, mapped in X, shown by the compositor", interval=0.05)
            shown[x.pid] = title
            late_wid = late_windows(s).get(x.pid)
            if late_wid is not None:
                check_client_list(s, title, late_wid)
            x.terminate()
            s.clients.remove(x)
            if late_wid is not None:
                s.wait_until(lambda: late_wid not in s.x_client_list(), timeout=20,
                             what=f"{title} (0x{late_wid:x}) out of _NET_CLIENT_LIST once "
                                  "its program ended", interval=0.1)
                break
        late = [pid for pid in late_windows(s) if pid in shown]
        log(f"{len(shown)} xmessage windows shown; paired after their surface drew: "
            f"{[shown[p] for p in late]}")
        check(late, f"none of {len(shown)} xmessage windows was paired after its surface "
                    "drew: the race this test is about did not happen (premise)")
        check(s.compositor.alive(), "the compositor died")
        s.stop_client(flooder)


if __name__ == "__main__":
    harness.main(test)
