#!/usr/bin/env python3
"""Main thread CPU per PRESENT of a ring window (the hidden-damage walk,
output_hide_under_opaque, runs for each), with no window above it and
under N override-redirect X windows (smt-x11-wm-hostile windows-hold N
--map --or), for the compositor named by SMTWC (session 36 red team).

A benchmark, not a test: run it as an integration test is run (the
environment meson's integration tests get: SMTWC, SMT_* tools, fonts),
alternating compositors round by round, e.g.
  env SMTWC=A LABEL=new N_OR=3000 FLOOD=4000 python3 hidden_walk_cost.py
Prints a RESULT line per phase: the main thread's CPU (schedstat) per
PRESENT, frames, damaged pixels, front_lock waits, the 1-minute load."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "integration"))
import harness  # noqa: E402
from harness import Session, build_program  # noqa: E402
from harness.clients import read_file  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

N_OR = int(os.environ.get("N_OR", "3000"))
FLOOD = int(os.environ.get("FLOOD", "4000"))
LABEL = os.environ.get("LABEL", "?")


def lines(p):
    return (read_file(p.log_path) or "").splitlines()


def main_ns(pid):
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0])


def flood(s, p, pid, what, r):
    st0 = s.control("stats")["render"]
    c0 = main_ns(pid)
    p.popen.stdin.write(f"flood {FLOOD}\n".encode())
    p.popen.stdin.flush()
    s.wait_until(lambda: sum(ln.startswith("FLOODED") for ln in lines(p)) > r, timeout=300,
                 what="flood end")
    # one more waited PRESENT: all before it executed and were reported
    p.popen.stdin.write(b"1\n")
    p.popen.stdin.flush()
    s.wait_until(lambda: sum(ln.startswith("PRESENTED") for ln in lines(p)) > r, timeout=60,
                 what="the waited PRESENT")
    c1 = main_ns(pid)
    st1 = s.control("stats")["render"]
    load = open("/proc/loadavg").read().split()[0]
    print(f"RESULT {LABEL} {what}: main {(c1 - c0) / 1e3 / (FLOOD + 1):.2f} us/PRESENT, "
          f"frames {st1['frames'] - st0['frames']}, damaged px "
          f"{st1['pixels_damaged'] - st0['pixels_damaged']}, front_waits "
          f"{st1.get('front_waits', 0) - st0.get('front_waits', 0)}, load {load}", flush=True)


def test(h):
    tool = build_program("SMT_PRESENT_COLOURS", "tests/tools/smt-present-colours")
    with Session(h, x11=True) as s:
        pid = s.compositor.pid
        p = s.spawn([tool, 64], name="colours", stdin=subprocess.PIPE)
        s.wait_until(lambda: "READY" in lines(p), timeout=30, what="window")
        s.park_pointer()
        flood(s, p, pid, "nothing above", 0)
        holder = s.spawn([wm_hostile_tool(h), "windows-hold", str(N_OR), "--map", "--or"],
                         name="holder")
        s.wait_until(lambda: "holding" in open(holder.log_path).read(), timeout=600,
                     what="OR windows mapped")
        w = [x for x in s.windows() if x["app_id"] == "present-colours"][0]
        print(f"RESULT {LABEL} window at {w['x']},{w['y']}", flush=True)
        flood(s, p, pid, f"{N_OR} OR windows above", 1)
        flood(s, p, pid, f"{N_OR} OR windows above, again", 2)


harness.main(test)
