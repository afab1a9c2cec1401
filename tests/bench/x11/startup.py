#!/usr/bin/env python3
"""A new X program's start-up among X flooders, against a new Wayland
client's among as many ring flooders (docs/x11.md "Newcomers"; issue:
session 40's "Noticed, left", docs/reliability.md).

    tests/bench/x11/startup.py [--rounds R] [--flooders N] [--starts K]
        [--smoke] [--smtwc PATH]

Every round is a fresh session (compositor and Xwayland). In it, one after
the other (the X transports' order alternating per round):
- for the ring and for the socket (SMT_X11RING=off: the flooders and the
  new program alike): K starts of each new X program with nobody else,
  then N x11-plaid flooders on that transport, K starts of each again,
  the flooders stopped;
- K starts of wayland-info alone, then N smt-plaid (ring clients flooding
  the compositor's scheduler), K starts again.
The new X programs: `xprop -root _NET_ACTIVE_WINDOW` (connect, setup,
InternAtom, GetProperty: round trips only) and `x11-echo --mapped`
(connect, a window created, named, mapped, and its first Expose: a
window shown: it exits at its first Expose). Each start is timed from its
fork to its exit, one at a time.

The table: per scene (idle or flood), program and transport, the median
and the 90th percentile over all starts, and the spread of the rounds'
medians [min-max], the median time a start waited for a CPU (the
kernel's run delay: the flooders are processes too); for the X programs
also what the X server's half
counted for them (docs/x11.md "Observing it", per start, median over
starts): `light_heavy` (polls that found it with requests waiting and
gave it no grant: it waited in the flooders' round robin), `light_grants`
and `light_new` (grants made while it was a newcomer). The machine's load
at the start and the end is printed; it moves every figure here, so the
paired idle/flood rows of one run are the ones to compare, and the rows
side by side, never runs of different days. --smoke (the suite's run):
2 rounds, 2 flooders, 3 starts.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchenv  # noqa: E402
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.processes import _preexec_client  # noqa: E402
from harness.programs import build_program, find_program  # noqa: E402
import interactive as bench  # noqa: E402  (x11-plaid's and x11-echo's drivers)

COUNTERS = ("light_heavy", "light_grants", "light_new")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--flooders", type=int, default=4)
    ap.add_argument("--starts", type=int, default=10, help="starts per program, scene, round")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.flooders, args.starts = 2, 2, 3
    benchenv.use_build(args.smtwc)
    return args


def x_programs():
    return {"xprop": ["xprop", "-root", "_NET_ACTIVE_WINDOW"],
            "x11-echo": [bench.program("x11-echo"), "--mapped"]}


def timed(s, argv, env):
    """ms from the fork to the exit of one start, the ms it waited for a
    CPU (its /proc schedstat's run delay, read while it is a zombie: the
    flooders are processes too, and on a machine with few CPUs a new
    program waits for them in the kernel's scheduler whatever the X server
    does), and its pid."""
    argv = [find_program(argv[0])] + [str(a) for a in argv[1:]]
    t0 = time.monotonic()
    p = subprocess.Popen(argv, env=s.client_env(env), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, cwd=s.tmp, start_new_session=True,
                         preexec_fn=_preexec_client, **s.as_user())
    os.waitid(os.P_PID, p.pid, os.WEXITED | os.WNOWAIT)
    ms = (time.monotonic() - t0) * 1000
    try:
        with open(f"/proc/{p.pid}/schedstat") as f:
            cpu_wait = int(f.read().split()[1]) / 1e6
    except (OSError, IndexError, ValueError):
        cpu_wait = float("nan")
    rc = p.wait()
    check(rc == 0, f"{argv[0]} exited with {rc}")
    return ms, cpu_wait, p.pid


def x_starts(s, args, transport, scene, rnd, out):
    progs = x_programs()
    env = bench.transport_env(transport)
    pids = {}
    for i in range(args.starts):
        for name, argv in progs.items():
            ms, cpu_wait, pid = timed(s, argv, env)
            pids[pid] = (name, ms, cpu_wait)
    closed = s.wait_until(
        lambda: (lambda rows: rows if set(pids) <= set(rows) else None)(
            {r["pid"]: r for r in s.x11ring_closed() if r.get("pid") in pids}),
        timeout=30, what="Xwayland to log the new programs' closes")
    for pid, (name, ms, cpu_wait) in pids.items():
        r = closed[pid]
        check(r["transport"] == transport, f"{name} {pid}: expected the {transport}: {r}")
        out.append({"round": rnd, "scene": scene, "program": name, "transport": transport,
                    "ms": ms, "cpu_wait": cpu_wait, **{k: r.get(k, 0) for k in COUNTERS}})
        log(f"{scene} {name} {transport} {ms:.1f} ms: " + " ".join(
            f"{k}={v}" for k, v in r.items() if isinstance(v, int) and v and k not in
            ("fd", "pid")))


def wayland_starts(s, args, scene, rnd, out):
    for _ in range(args.starts):
        ms, cpu_wait, _ = timed(s, ["wayland-info"], None)
        out.append({"round": rnd, "scene": scene, "program": "wayland-info",
                    "transport": "wayland", "ms": ms, "cpu_wait": cpu_wait})


def x_transport(s, args, transport, rnd, out):
    x_starts(s, args, transport, "idle", rnd, out)
    flooders = [s.spawn([bench.program("x11-plaid")], name=f"x11-plaid-{transport}-{i}",
                        env=bench.transport_env(transport)) for i in range(args.flooders)]
    for p in flooders:
        bench.wait_line(s, p, "ready", 30, f"x11-plaid {p.pid} to start")
    x_starts(s, args, transport, "flood", rnd, out)
    n = bench.flooder_counts(s, flooders)
    check(all(v[0] > 0 for v in n.values()), f"a flooder executed nothing: {n}")
    for p in flooders:
        s.stop_client(p)


def wayland(s, args, rnd, out):
    wayland_starts(s, args, "idle", rnd, out)
    plaid = build_program("SMT_PLAID", "clients/smt-plaid")
    before = len(s.windows())
    flooders = [s.spawn([plaid, "--seconds", "600"], name=f"smt-plaid-{i}")
                for i in range(args.flooders)]
    s.wait_until(lambda: len(s.windows()) >= before + args.flooders, timeout=60,
                 what=f"the {args.flooders} smt-plaid windows")
    wayland_starts(s, args, "flood", rnd, out)
    for p in flooders:
        s.stop_client(p)


def run(h, args):
    out = []
    load0 = bench.loadavg()
    for rnd in range(args.rounds):
        with Session(h, f"startup-r{rnd}", x11=True) as s:
            s.run(["xprop", "-root", "_NET_ACTIVE_WINDOW"], timeout=60)  # Xwayland up
            for t in (("ring", "socket") if rnd % 2 == 0 else ("socket", "ring")):
                x_transport(s, args, t, rnd, out)
            wayland(s, args, rnd, out)
            s.check_alive()
    load1 = bench.loadavg()
    lines = [f"A new program's start-up (fork to exit, one at a time), idle and among "
             f"{args.flooders} flooders (x11-plaid on the new X program's transport; "
             f"smt-plaid for wayland-info), {benchenv.machine()}; {args.rounds} rounds of "
             f"{args.starts} starts each; load {load0:.1f} at the start, {load1:.1f} at the "
             f"end. Rounds' medians [min-max]; counters per start, median.", "",
             "| scene | program | transport | starts | p50 ms | p90 ms | rounds' p50 ms | "
             "CPU wait p50 ms | light_heavy | light_grants | light_new |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    keys = []
    for r in out:
        k = (r["scene"], r["program"], r["transport"])
        if k not in keys:
            keys.append(k)
    order = {"idle": 0, "flood": 1}
    keys.sort(key=lambda k: (k[1] == "wayland-info", k[1], order[k[0]], k[2]))
    for scene, prog, transport in keys:
        rs = [r for r in out if (r["scene"], r["program"], r["transport"]) ==
              (scene, prog, transport)]
        ms = sorted(r["ms"] for r in rs)
        per_round = [statistics.median(r["ms"] for r in rs if r["round"] == n)
                     for n in sorted({r["round"] for r in rs})]
        counters = [f"{statistics.median(r[c] for r in rs):g}" if c in rs[0] else "-"
                    for c in COUNTERS]
        lines.append(f"| {scene} | {prog} | {transport} | {len(ms)} "
                     f"| {statistics.median(ms):.1f} | {bench.pct(ms, 90):.1f} "
                     f"| {bench.spread(per_round, '{:.1f}')} "
                     f"| {statistics.median(r['cpu_wait'] for r in rs):.1f} | "
                     + " | ".join(counters) + " |")
    print("\n" + "\n".join(lines) + "\n")
    log("startup: done")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
