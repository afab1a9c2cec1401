#!/usr/bin/env python3
"""What the input boost lets a busy X program take from the others while a
person types into it (docs/x11.md "The input boost"): x11-plaid --keys (a
flooder whose window takes key presses) focused and typed into (a key every
10 ms) among N plain x11-plaid flooders, `[xwayland] input-boost-us` off
and on, one session each, alternating which goes first.

    tests/bench/x11/busy_typed.py [--rounds R] [--flooders N] [--keys K]
        [--boost US] [--smoke]

Per round and setting: the typed flooder's share of all requests executed
while it was typed into (a fair share is 1 / (N + 1)), the others'
requests per second against the same round with the boost off, and the
time the typed one was favoured (the server half's `boosted_us`) per second
of typing. Figures: median over the rounds [min-max]. The machine's load
moves every wall-clock figure; the share and the paired ratio are the ones
to read. --smoke: one round, 2 flooders, 100 keys (the suite's run).
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchenv  # noqa: E402
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
import interactive as bench  # noqa: E402  (x11-plaid's driver)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--flooders", type=int, default=4)
    ap.add_argument("--keys", type=int, default=400)
    ap.add_argument("--boost", type=int, default=4000, help="input-boost-us when on")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.flooders, args.keys = 1, 2, 100
    benchenv.use_build(args.smtwc)
    return args


def one(h, args, boost, rnd):
    cfg = f"[xwayland]\ninput-boost-us = {boost}\n"
    with Session(h, f"busy-r{rnd}-b{boost}", x11=True, config=cfg) as s:
        plain = [s.spawn([bench.program("x11-plaid")], name=f"x11-plaid-{i}")
                 for i in range(args.flooders)]
        for p in plain:
            bench.wait_line(s, p, "ready", 30, f"x11-plaid {p.pid} to start")
        before = s.x_focus()
        typed = s.spawn([bench.program("x11-plaid"), "--keys"], name="x11-plaid-typed")
        bench.wait_line(s, typed, "ready", 30, "the typed x11-plaid to start")
        s.wait_until(lambda: s.x_focus() not in (None, before), timeout=15,
                     what="the typed x11-plaid's window to get the focus")
        every = plain + [typed]
        n0 = bench.flooder_counts(s, every)
        st0 = {r["pid"]: r for r in s.x11ring_stats()}
        t0 = time.monotonic()
        s.run(["wtype", "-d", "10", "--", "x" * args.keys], timeout=args.keys / 10 + 60)
        n1 = bench.flooder_counts(s, every)
        seconds = time.monotonic() - t0
        st1 = {r["pid"]: r for r in s.x11ring_stats()}
        rate = {p.pid: (n1[p.pid][0] - n0[p.pid][0]) / ((n1[p.pid][1] - n0[p.pid][1]) / 1e9)
                for p in every}
        got = st1[typed.pid]["input_events"] - st0[typed.pid]["input_events"]
        if boost:
            check(got >= args.keys, f"the typed x11-plaid saw {got} of {args.keys} keys")
        row = {"round": rnd + 1, "boost": boost, "typed": rate[typed.pid],
               "others": statistics.mean(rate[p.pid] for p in plain),
               "share": rate[typed.pid] / sum(rate.values()),
               "favoured": (st1[typed.pid]["boosted_us"] - st0[typed.pid]["boosted_us"])
               / 1e6 / seconds,
               "grants": st1[typed.pid]["boosts"] - st0[typed.pid]["boosts"],
               "yields": sum(st1[p.pid]["yields"] - st0[p.pid]["yields"] for p in plain)}
        log(f"round {rnd + 1}, boost {boost} us: typed {row['typed']:.0f} req/s, others "
            f"{row['others']:.0f} req/s each, share {row['share']:.3f}, favoured "
            f"{row['favoured'] * 100:.1f}% of the time, {row['grants']} grants")
        for p in every:
            p.terminate()
            s.clients.remove(p)
        return row


def run(h, args):
    rows = []
    for rnd in range(args.rounds):
        for boost in ((0, args.boost) if rnd % 2 == 0 else (args.boost, 0)):
            rows.append(one(h, args, boost, rnd))
    lines = [f"x11-plaid --keys typed into (a key every 10 ms, {args.keys} keys) among "
             f"{args.flooders} x11-plaid flooders, {benchenv.machine()}; {args.rounds} rounds, "
             f"boost off and {args.boost} us alternating; fair share "
             f"{1 / (args.flooders + 1):.3f}. Median [min-max].", "",
             "| input-boost-us | typed one's share | others' req/s vs boost off | "
             "typed one favoured, % of the time | grants |",
             "|---:|---:|---:|---:|---:|"]
    for boost in (0, args.boost):
        rs = [r for r in rows if r["boost"] == boost]
        ratio = [r["others"] / o["others"] for r in rs for o in rows
                 if o["boost"] == 0 and o["round"] == r["round"]]
        lines.append(f"| {boost} | {bench.spread([r['share'] for r in rs], '{:.3f}')} "
                     f"| {bench.spread(ratio, '{:.2f}')} "
                     f"| {bench.spread([r['favoured'] * 100 for r in rs], '{:.1f}')} "
                     f"| {bench.spread([r['grants'] for r in rs], '{:.0f}')} |")
    print("\n" + "\n".join(lines) + "\n")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
