#!/usr/bin/env python3
"""What wlroots reads when it pairs an X window with its surface is read
ahead, all at once (xwayland-glue/wm/wm_property_fetch.h; docs/x11.md
"The window manager's events").

wlroots 0.15 reads eleven properties and the X-Resource pid of each window
it pairs, one synchronous round trip each, the compositor's main loop
standing still in every one. The pacer sends them together first: from the
X side (the WL_SURFACE_ID message held until every answer is there:
nothing waited for), or from the Wayland side (the surface created after
the message: wlroots then waits for the first answer only, the others
having come with it).

WINDOWS xmessage windows, half one after another and half at once, each
listed by the compositor; then the compositor ends and its pacer's last
line must say every window's pairing was read ahead and that it waited for
at most three replies per window (usually one; without the read-ahead:
eleven per window, checked with the build before).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

WINDOWS = 12
LAST = re.compile(r"X window manager at the end: .* (\d+) waited for in [\d.]+ ms;(.*)")
AHEAD = re.compile(r"(\d+) windows' pairings read ahead")


def show(s, titles):
    xs = [s.spawn(["xmessage", "-name", t, "-title", t, t], name=t) for t in titles]
    for t in titles:
        s.wait_until(lambda: any(w["title"] == t for w in s.windows()), timeout=60,
                     what=f"{t} listed by the compositor", interval=0.1)
    return xs


def test(h):
    with Session(h, "pairing-reads", x11=True) as s:
        xs = []
        for i in range(WINDOWS // 2):
            xs += show(s, [f"pairing-{i}"])
        xs += show(s, [f"pairing-{i}" for i in range(WINDOWS // 2, WINDOWS)])
        for x in xs:
            s.stop_client(x)
        s.stop()
        said = LAST.findall(s.stderr_text())
        check(said, "the compositor's window manager said nothing at its end (no "
                    "'X window manager at the end: ... waited for' line)")
        waits = int(said[-1][0])
        ahead = AHEAD.search(said[-1][1])
        log(f"{WINDOWS} windows: {waits} replies waited for, pairings read ahead: "
            f"{ahead.group(1) if ahead else 'not said'}")
        # Usually at most one each (the first of a pairing made from the
        # Wayland side: the other eleven come with it); on a loaded machine
        # Xwayland's answers can reach the compositor in more than one read
        # (13 for 12 windows beside two busy loops), so the bound is a few
        # per window: the build before waits for all eleven, one by one.
        check(waits <= 3 * WINDOWS,
              f"{waits} replies waited for on the main loop for {WINDOWS} windows "
              f"(at most 3 each; the build before waits for 11 each)")
        check(ahead and int(ahead.group(1)) >= WINDOWS,
              f"not every window's pairing read ahead: {said[-1][1]}")


if __name__ == "__main__":
    harness.main(test)
