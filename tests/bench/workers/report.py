#!/usr/bin/env python3
"""The table of tests/bench/workers/run: per case and client count, the
total objects/s with each workers setting (median and the rounds' min-max),
its ratio to workers = 0 (median and 95% interval, paired by round), and
the issue's targets judged on the intervals (verdict.py): two clients at
least 1.6x workers 0's total on the render-bound cases, one client within
5% of workers 0's on every case."""
import argparse
import csv
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import verdict as V  # noqa: E402

RENDER_BOUND = ("rect100", "seg100", "text")
NAME = re.compile(r"r(\d+)-w(\w+)-n(\d+)-c(\d+)\.csv$")


def load(raw):
    """{(setting, n, case): {round: total objects/s}}, and the same as the
    sum of each process's rate over its own interval (what this table gave
    before session 30), for comparison.

    The total is the N processes' objects over their common span: from the
    first process's start of the measured interval to the last one's end
    (smt-perf's start_ns, end_ns; CLOCK_MONOTONIC). Summing each process's
    rate over its own interval counted clients served one after another as
    if they ran at once: 12 text clients on one thread added up to 48.7M
    objects/s where one client made 22.7M. Objects a process executed
    outside its own interval (its warm-up) are not counted, so when the
    intervals do not coincide this is a lower bound."""
    runs = {}
    for path in glob.glob(os.path.join(raw, "*.csv")):
        m = NAME.search(os.path.basename(path))
        if m is None:
            continue
        rnd, setting, n = int(m.group(1)), m.group(2), int(m.group(3))
        with open(path) as f:
            for row in csv.DictReader(f):
                key = (setting, n, row["case"])
                runs.setdefault(key, {}).setdefault(rnd, []).append(
                    (float(row["ops"]), int(row["start_ns"]), int(row["end_ns"]),
                     float(row["ops_per_s"])))
    totals, sums = {}, {}
    for key, per_round in runs.items():
        for rnd, procs in per_round.items():
            span = max(e for _, _, e, _ in procs) - min(s for _, s, _, _ in procs)
            totals.setdefault(key, {})[rnd] = sum(o for o, _, _, _ in procs) / (span / 1e9)
            sums.setdefault(key, {})[rnd] = sum(r for _, _, _, r in procs)
    return totals, sums


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--default", type=int, required=True)
    ap.add_argument("--counts", required=True)
    ap.add_argument("--cases", required=True)
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--load-before", default="")
    ap.add_argument("--load-after", default="")
    ap.add_argument("--csv")
    a = ap.parse_args()
    totals, sums = load(a.raw)
    settings = ["0", "1", "2", "default"]
    counts = [int(c) for c in a.counts.split(",")]
    cases = a.cases.split(",")
    print(f"# ring worker threads: total objects/s of N flooding ring clients, {a.rounds} "
          f"rounds; default = {a.default} worker(s) (online CPUs - 1, at least 1)")
    print(f"# load before {a.load_before}; after {a.load_after}")
    print("# per setting: median total (min-max over rounds); ratio to workers 0: "
          "median [95% interval] (paired by round)")
    print("# total: the N processes' objects over their common span (first start to last "
          "end of their measured intervals)")
    rows, verdicts = [], []
    header = f"{'case':8} {'N':>3} " + " ".join(f"{'w=' + s:>24}" for s in settings)
    print(header)
    for case in cases:
        for n in counts:
            base = totals.get(("0", n, case), {})
            cells = []
            for s in settings:
                per = totals.get((s, n, case), {})
                if not per:
                    cells.append(f"{'-':>24}")
                    continue
                iv = V.value_interval(list(per.values()))
                text = f"{iv.median / 1e6:.2f}M ({iv.min / 1e6:.2f}-{iv.max / 1e6:.2f})"
                ratio = None
                if s != "0" and base and set(per) == set(base):
                    rounds = sorted(per)
                    ratio = V.ratio_interval([per[r] for r in rounds], [base[r] for r in rounds])
                    text += f" x{ratio.median:.2f}"
                cells.append(f"{text:>24}")
                own = V.value_interval(list(sums[(s, n, case)].values()))
                rows.append({"case": case, "clients": n, "workers": s,
                             "median_ops_per_s": f"{iv.median:.1f}",
                             "median_sum_of_own_rates": f"{own.median:.1f}",
                             "min": f"{iv.min:.1f}", "max": f"{iv.max:.1f}",
                             "ratio_to_0": f"{ratio.median:.3f}" if ratio else "",
                             "ratio_lo": f"{ratio.lo:.3f}" if ratio else "",
                             "ratio_hi": f"{ratio.hi:.3f}" if ratio else ""})
                if ratio is not None and s == "default":
                    if n == 2 and case in RENDER_BOUND:
                        verdicts.append((f"{case}, 2 clients, default/0 >= 1.6", ratio,
                                         V.verdict(ratio, 1.6)))
                    if n == 1:
                        verdicts.append((f"{case}, 1 client, default/0 >= 0.95", ratio,
                                         V.verdict(ratio, 0.95)))
            print(f"{case:8} {n:>3} " + " ".join(cells))
    print("# targets (issue 28), judged on the 95% interval of the paired ratio:")
    for what, iv, v in verdicts:
        print(f"#   {what}: {iv.median:.2f} [{iv.lo:.2f}-{iv.hi:.2f}] {v}")
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["case"])
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
