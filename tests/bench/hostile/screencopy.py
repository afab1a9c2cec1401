#!/usr/bin/env python3
"""What screen captures cost other clients: another client's wl_display
round trips and an animation's frame interval while 0, 1 and N connections
each keep 16 wlr-screencopy copies of the whole output waiting
(`smt-hostile screencopy-loop 16`: each copy answered is asked again at
once), for two builds side by side: --before (e.g. main's tree, every
waiting copy made at the next output commit) and --build (the budget per
output frame, output/screencopy_budget.h; one row per --budgets value of
frame-screencopy-copies). A fresh compositor for each build, case and
round; the order of the builds alternates by round.

    tests/bench/hostile/screencopy.py --before DIR [--build build] [--rounds 3]
                                      [--seconds 5] [--many 4] [--budgets 1,2]

The victims, together: `smt-hostile sync-probe` (a round trip every 10 ms:
p50 / p99 / max) and `smt-anim --period-ms 8` (a ring client drawing
faster than the 60 Hz output: the interval between the output presents
that showed its frames is the output's frame interval as a client sees
it: p50 / p99). Also: the copies made per second (all attackers). The
attackers' tool is --build's smt-hostile for both builds. Prints a
Markdown table, median of the rounds [95% interval] (tests/bench/verdict.py);
docs/reliability.md keeps the last run.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import run as hostile_run  # noqa: E402
import verdict as V  # noqa: E402


def frame_intervals(path):
    """Intervals (ms) between the distinct output presents that showed the
    animation's frames, from smt-anim's CSV."""
    shown = []
    with open(path) as f:
        for row in csv.DictReader(f):
            t = int(row["display_ns"])
            if t > 0 and (not shown or t > shown[-1]):
                shown.append(t)
    return [(b - a) / 1e6 for a, b in zip(shown, shown[1:])]


def quantile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def screencopy_stats(bench):
    """`smtctl stats`' screencopy counts (None: a build without them)."""
    out = subprocess.run([os.path.join(bench.build, "clients/smtctl"), "stats", "--json"],
                         env=bench.env, capture_output=True, text=True, check=True).stdout
    return json.loads(out).get("screencopy")


def one_run(build, limits, hostile, capturers, seconds):
    bench = hostile_run.Bench(build, limits)
    try:
        attackers = [bench.start([hostile, "screencopy-loop", "16", str(seconds * 4 + 60)])
                     for _ in range(capturers)]
        for p in attackers:
            bench.wait_for(lambda: "SCREENCOPY_READY 1\n" in bench.output(p),
                           "an attacker's first copy")
        before, start = screencopy_stats(bench), time.monotonic()
        csv_path = os.path.join(bench.dir, "anim.csv")
        anim = bench.start([os.path.join(build, "clients/smt-anim"),
                            "--seconds", str(seconds), "--warmup", "1", "--period-ms", "8",
                            "--csv", csv_path])
        sync = bench.start([hostile, "sync-probe", str(seconds)])
        for p in (sync, anim):
            p.wait(seconds * 20 + 120)
        line = next(l for l in bench.output(sync).splitlines() if l.startswith("SYNC"))
        res = hostile_run.parse(line)
        intervals = frame_intervals(csv_path)
        res["frame_p50"] = statistics.median(intervals) if intervals else float("nan")
        res["frame_p99"] = quantile(intervals, 0.99) if intervals else float("nan")
        # Copies while measuring (only the budget build counts them).
        after = screencopy_stats(bench)
        res["copies_per_s"] = ((after["copies"] - before["copies"]) /
                               (time.monotonic() - start) if before is not None else None)
        return res
    finally:
        bench.finish()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--before", required=True, help="the build to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--many", type=int, default=4)
    ap.add_argument("--budgets", default="2",
                    help="frame-screencopy-copies values for --build, comma-separated")
    args = ap.parse_args()
    hostile = os.path.join(args.build, "tests/tools/smt-hostile")
    builds = [("before", args.before, "")]
    builds += [(f"budget {b}", args.build, f"frame-screencopy-copies = {b}\n")
               for b in args.budgets.split(",")]
    cases = [0, 1, args.many]
    results = {(b[0], c): [] for b in builds for c in cases}
    load_before = V.loadavg()
    for rnd in range(args.rounds):
        for c in cases:
            order = builds if rnd % 2 == 0 else builds[::-1]
            for name, build, limits in order:
                res = one_run(build, limits, hostile, c, args.seconds)
                results[(name, c)].append(res)
                print(f"round {rnd + 1}: {name}, {c} capturing: round trip p50 "
                      f"{res['p50']:.3f} p99 {res['p99']:.3f} max {res['max']:.3f} ms, "
                      f"frame interval p50 {res['frame_p50']:.1f} p99 {res['frame_p99']:.1f} ms",
                      file=sys.stderr)
    load_after = V.loadavg()
    print(f"Another client's wl_display round trips and an animation's frame interval (ms) "
          f"while 0, 1 and {args.many} connections keep 16 whole-output screencopies waiting, "
          f"{args.seconds} s per run, {args.rounds} rounds (median [95% interval]):\n")
    print("| capturing connections | build | round trip p50 | p99 | max | "
          "frame interval p50 | p99 | copies/s (budget build's count) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for c in cases:
        for name, _, _ in builds:
            rs = results[(name, c)]
            cells = [V.value_interval([max(r[k], 1e-3) for r in rs]).text(3)
                     for k in ("p50", "p99", "max")]
            cells += [V.value_interval([r[k] for r in rs]).text(1)
                      for k in ("frame_p50", "frame_p99")]
            cps = [r["copies_per_s"] for r in rs if r["copies_per_s"] is not None]
            cells.append(V.value_interval(cps, log=False).text(0) if cps else "-")
            print(f"| {c} | {name} | {' | '.join(cells)} |")
    print(f"\n{V.load_text(load_before, load_after)}")


if __name__ == "__main__":
    main()
