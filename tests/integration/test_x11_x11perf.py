#!/usr/bin/env python3
"""x11perf runs to completion under the compositor's Xwayland on a short
list of cases (fills, image upload, window-to-window copies) and prints a
result line for each: X drawing works end to end, and its window shows."""
import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402

# case option -> the words of its result line ("N reps @ T msec (R/sec): WHAT")
CASES = {
    "-rect10": "10x10 rectangle",
    "-putimage10": "PutImage 10x10 square",
    "-copywinwin10": "Copy 10x10 from window to window",
}


def test(h):
    with Session(h, x11=True) as s:
        argv = ["x11perf", "-repeat", "1", "-time", "1"] + list(CASES)
        # Meanwhile, look: x11perf's window is drawn by the compositor.
        seen = {}

        def watch():
            # x11perf draws into override-redirect windows (600x600 at 2,2).
            try:
                wins = s.wait_until(lambda: s.x_override_redirect_windows(min_size=100),
                                    timeout=15, interval=0.2,
                                    what="x11perf's override-redirect test window")
                g = s.x_geometry(max(wins, key=lambda w: wins[w]["width"] * wins[w]["height"]))
                seen["geometry"] = g

                # Viewable in X is before Xwayland has committed the
                # window's surface: the drawing is waited for (the check
                # below judges the last look).
                def drawn(img):
                    seen["drawn"] = img.count_not(BACKGROUND, rect=g)
                    return seen["drawn"] >= 0.5 * g.w * g.h
                try:
                    s.wait_screenshot(drawn, timeout=15, what="x11perf's window drawn")
                except harness.TestFailure:
                    pass  # reported below with the pixels drawn
            except BaseException as e:  # reported below
                seen["error"] = e

        t = threading.Thread(target=watch, daemon=True)
        t.start()
        # A guard against a hang, not a speed limit: x11perf calibrates
        # each case for ~9 s, three cases took 36 s under ASan beside two
        # busy loops.
        res = s.run(argv, timeout=150, check_rc=False)
        t.join(20)
        log(f"x11perf exit code {res.returncode}\n--- stdout ---\n{res.stdout}"
            f"--- stderr ---\n{res.stderr}")
        check(res.returncode == 0, f"x11perf exited with code {res.returncode}:\n"
                                   f"{res.stderr[-2000:]}")
        rates = {}
        for opt, what in CASES.items():
            m = re.search(r"^\s*(\d+) reps @\s+([\d.]+) msec \(\s*([\d.]+)/sec\): "
                          + re.escape(what) + r"\s*$", res.stdout, re.M)
            check(m, f"no result line for {opt} ('... reps @ ... msec (.../sec): {what}') "
                     f"in x11perf's output")
            rates[opt] = float(m.group(3))
            check(int(m.group(1)) > 0 and rates[opt] > 0,
                  f"{opt}: nonsensical result {m.group(0).strip()!r}")
        log(f"rates per second: {rates}")
        check(re.search(r"^x11perf - X11 performance program", res.stdout, re.M)
              or "Sync time adjustment" in res.stdout,
              "x11perf's output lacks its banner")
        check("error" not in seen, lambda: f"watching x11perf's window failed: "
                                           f"{seen.get('error')}")
        check("geometry" in seen, "x11perf's window was not seen while it ran")
        g = seen["geometry"]
        log(f"x11perf's window covered {g}; {seen['drawn']} of {g.w * g.h} pixels drawn")
        check(seen["drawn"] >= 0.5 * g.w * g.h,
              f"x11perf's window {g} was not drawn: {seen['drawn']} non-background pixels")


harness.main(test)
