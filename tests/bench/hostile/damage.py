#!/usr/bin/env python3
"""Another client's wl_display round trips while one client floods a
surface with disjoint 1x1 damage_buffer rectangles before each commit
(smt-hostile damage-flood N SECONDS), with the damage coalesced past
surface-damage-rects (the default, 64) and without (0: wlroots unions
every rectangle, as before session 25), side by side: a fresh compositor
for each setting in each round, the settings' order alternating by round.

    tests/bench/hostile/damage.py [--build build] [--rounds 3] [--seconds 5] [--rects 20000]

Prints p50 / p99 / max of the victim's round trips (median of the rounds
[95% interval]) for each setting, the ratio of the two p50s and p99s paired
per round, and how many flood rounds (N rectangles and a commit) the
attacker got through. docs/reliability.md keeps the last run.
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import run as hostile_run  # noqa: E402
import verdict as V  # noqa: E402

SETTINGS = [("coalesced (surface-damage-rects = 64)", 64),
            ("every rectangle unioned (surface-damage-rects = 0)", 0)]


def one_round(build, rects_setting, seconds, rects):
    bench = hostile_run.Bench(build, f"surface-damage-rects = {rects_setting}\n")
    try:
        attacker = bench.start([bench.hostile, "damage-flood", str(rects), str(seconds)])
        sync = bench.start([bench.hostile, "sync-probe", str(seconds)])
        sync.wait(seconds * 20 + 120)
        line = next(l for l in bench.output(sync).splitlines() if l.startswith("SYNC"))
        # the attacker ends its flood round after the victim's last sample
        attacker.wait(seconds * 60 + 300)
        out = bench.output(attacker)
        served = next((l for l in out.splitlines() if l.startswith("DAMAGE_FLOOD")), None)
        flood_rounds = int(served.split()[2]) if served else 0
        return hostile_run.parse(line), flood_rounds
    finally:
        bench.finish()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--rects", type=int, default=20000)
    args = ap.parse_args()
    results = {value: [] for _, value in SETTINGS}
    load_before = V.loadavg()
    for rnd in range(args.rounds):
        order = SETTINGS if rnd % 2 == 0 else SETTINGS[::-1]
        for name, value in order:
            res, flood_rounds = one_round(args.build, value, args.seconds, args.rects)
            results[value].append((res, flood_rounds))
            print(f"round {rnd + 1}: {name}: p50 {res['p50']:.3f} p99 {res['p99']:.3f} "
                  f"max {res['max']:.3f} ms, n={res['n']}, {flood_rounds} flood rounds",
                  file=sys.stderr)
    load_after = V.loadavg()
    print(f"Victim wl_display round trips in ms while one client sends {args.rects:,} disjoint "
          f"1x1 damage_buffer rectangles before each commit, {args.seconds:g} s per setting "
          f"and round, {args.rounds} rounds (median [95% interval]):\n")
    print("| damage | victim p50 | victim p99 | victim max | attacker's commits "
          "(rounds of the flood) |")
    print("| --- | --- | --- | --- | --- |")
    for name, value in SETTINGS:
        rs = results[value]
        cells = [V.value_interval([max(r[k], 1e-3) for r, _ in rs]).text(3)
                 for k in ("p50", "p99", "max")]
        commits = V.value_interval([f for _, f in rs], log=False).text(1)
        print(f"| {name} | {' | '.join(cells)} | {commits} |")
    for k in ("p50", "p99"):
        iv = V.ratio_interval([max(r[k], 1e-3) for r, _ in results[0]],
                              [max(r[k], 1e-3) for r, _ in results[64]])
        print(f"\nunioned / coalesced, {k} (paired per round): {iv.text(1)}")
    print(f"\n{V.load_text(load_before, load_after)}")


if __name__ == "__main__":
    main()
