#!/usr/bin/env python3
"""Input reaches ring clients through the compositor's layers: a click on a
ring client's canvas (a scene node standing in for its wl_surface) focuses
that client's window, and the pointer and keyboard input it is sent is
counted by the scheduler for its ring (the input boost), not for another
ring client's. (The window system tells the ring layer through
server->events.client_input and server->stand_in_surface; see
docs/architecture.md.)"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402


def tool(h, env, name):
    build = os.path.dirname(os.path.dirname(os.path.dirname(h.vpointer)))
    return os.environ.get(env) or os.path.join(build, name)


def ring_inputs(s, pid):
    """The scheduler's input count of pid's ring, or None without one."""
    for c in s.control("stats")["clients"]:
        if c["pid"] == pid and c["transport"] == "ring":
            return c["inputs"]
    return None


def test(h):
    with Session(h) as s:
        s.park_pointer()
        demos = []
        for n in range(2):
            p = s.spawn([tool(h, "SMT_DEMO", "clients/smt-demo"), "--static",
                         "--transport", "ring"], name=f"demo{n}")
            s.wait_until(lambda: re.search(r"DEMO_READY", open(p.log_path).read()),
                         timeout=15, what=f"smt-demo {n} to draw its frame")
            win = s.wait_window(lambda w: w["pid"] == p.pid, what=f"demo {n}'s window")
            demos.append((p, win))
        (first, _), (second, _) = demos
        before = {p.pid: ring_inputs(s, p.pid) for p, _ in demos}
        check(None not in before.values(), f"a demo has no ring: {before}")

        # The first demo's window, where the second does not cover it.
        win = next(w for w in s.windows() if w["pid"] == first.pid)
        other = next(w for w in s.windows() if w["pid"] == second.pid)
        x, y = win["x"] + 8, win["y"] + win["height"] - 8
        check(not (other["x"] <= x < other["x"] + other["width"] and
                   other["y"] <= y < other["y"] + other["height"]),
              f"no uncovered point of the first demo's window: {win} under {other}")
        s.click(x, y)
        s.wait_until(lambda: next(w for w in s.windows() if w["pid"] == first.pid)["focused"],
                     what="a click on the first demo's canvas to focus its window")
        after_click = s.wait_until(
            lambda: (ring_inputs(s, first.pid) or 0) > before[first.pid] and
            ring_inputs(s, first.pid), what="the click to count as input for the first ring")
        s.key("a")
        s.wait_until(lambda: ring_inputs(s, first.pid) > after_click,
                     what="a key press to count as input for the first ring")
        check(ring_inputs(s, second.pid) == before[second.pid],
              f"the second demo's ring counted input sent to the first "
              f"({before[second.pid]} -> {ring_inputs(s, second.pid)})")
        log(f"first ring: inputs {before[first.pid]} -> {after_click} (click) -> "
            f"{ring_inputs(s, first.pid)} (key); second ring unchanged")


harness.main(test)
