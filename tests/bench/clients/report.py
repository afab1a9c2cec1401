#!/usr/bin/python3
"""Many clients: the rounds of `smt-perf --clients` (one CSV per round, each
on a fresh compositor) as one table with every figure's spread, the targets
judged on their 95% intervals (tests/bench/verdict.py), CSV and plot.
usage: report.py [--load-before "LOADAVG"] 'ROUND-*.csv' OUT.csv OUT.png

Targets (docs/benchmarks.md, "Many clients"), at every client count: the
compositor's CPU while every client is idle below 1% of a core, and one
client's FENCE round trip (ping) p99 below 1 ms while the others are idle.
Besides OUT.csv, the verdicts go to bench-clients-verdicts.csv beside it
(verdict.py compare)."""
import csv
import glob
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import verdict as V  # noqa: E402

CPU_PCT, P99_US = 1.0, 1000.0
# column, label, plain mean (a figure that may be 0), target: (threshold,
# higher is better, its tag in the table) or None
FIGURES = [("rss_per_client_kb", "RSS/client KiB", False, None),
           ("idle_cpu_pct", "idle CPU %", True, (CPU_PCT, False, "cpu<1%")),
           ("ping_p50_us", "ping p50 us", False, None),
           ("ping_p99_us", "ping p99 us", False, (P99_US, False, "p99<1ms")),
           ("busy_ping_p50_us", "busy p50 us", False, None),
           ("busy_ping_p99_us", "busy p99 us", False, None)]


def main(argv):
    load_before = None
    if len(argv) > 1 and argv[1] == "--load-before":
        p = argv[2].split()
        load_before = tuple(float(v) for v in p[:3]) + (p[3],)
        argv = argv[:1] + argv[3:]
    pattern, out_csv, out_png = argv[1:4]
    paths = sorted(glob.glob(pattern), key=lambda p: [int(x) if x.isdigit() else x
                                                       for x in re.split(r"(\d+)", p)])
    rounds = {}   # clients: {column: [per round]}
    for path in paths:
        for r in csv.DictReader(open(path)):
            d = rounds.setdefault(int(r["clients"]), {})
            for col, *_ in FIGURES:
                d.setdefault(col, []).append(float(r[col]))
    tally = V.Tally()
    rows, lines = [], []
    hdr = f"{'clients':>7} " + " ".join(f"{label:>24}" for _, label, *_ in FIGURES) + "  targets"
    lines += [f"Median [95% interval] of {len(paths)} rounds, each on a fresh compositor:", hdr,
              "-" * len(hdr)]
    for n in sorted(rounds):
        row, cells, marks = {"clients": n, "rounds": len(paths)}, [], []
        for col, label, plain, target in FIGURES:
            vals = rounds[n][col]
            # Counts that may be 0 (idle CPU in clock ticks): the plain
            # mean, "wide" against the target's size.
            iv = V.value_interval(vals, log=False, scale=target[0]) if plain else \
                V.value_interval(vals) if all(v > 0 for v in vals) else \
                V.value_interval(vals, log=False)
            cells.append(f"{iv.text(1):>24}")
            row[col], row[col + "_lo"], row[col + "_hi"] = iv.median, iv.lo, iv.hi
            if target:
                name = f"{n} idle clients: {label} < {target[0]:g}"
                v = tally.judge(name, iv, target[0], higher=target[1])
                marks.append(f"{target[2]}:{V.short(v)}" + ("~" if iv.wide else ""))
        rows.append(row)
        lines.append(f"{n:>7} " + " ".join(cells) + "  " + " ".join(marks))
    lines.append(tally.summary())
    lines.append(V.load_text(load_before, V.loadavg()))
    lines.append(f"Reading: {V.METHOD}; '~' marks it on a target.")
    print("\n".join(lines))

    with open(out_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
    print("wrote", out_csv)
    verdicts = os.path.join(os.path.dirname(out_csv), "bench-clients-verdicts.csv")
    tally.write(verdicts)
    print("wrote", verdicts)
    plot(rows, out_png)


def plot(rows, path):
    """Medians, the whiskers the 95% intervals."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def err(col):
        """Whiskers to the interval's ends; none where there is no interval
        (one round)."""
        def d(v):
            return max(0.0, v) if math.isfinite(v) else 0.0
        return [[d(r[col] - r[col + "_lo"]) for r in rows], [d(r[col + "_hi"] - r[col])
                                                            for r in rows]]
    n = [r["clients"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    for col, fmt, label in (("ping_p50_us", "o-", "ping p50 (others idle)"),
                            ("ping_p99_us", "o--", "ping p99 (others idle)"),
                            ("busy_ping_p50_us", "s-", "ping p50 (one busy)"),
                            ("busy_ping_p99_us", "s--", "ping p99 (one busy)")):
        a.errorbar(n, [r[col] for r in rows], yerr=err(col), fmt=fmt, label=label, capsize=2)
    a.axhline(P99_US, color="red", lw=0.8, label="p99 target 1 ms")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("idle clients")
    a.set_ylabel("FENCE round trip (us)")
    a.legend(fontsize=8)
    a.set_title("Ping latency")
    x = [str(v) for v in n]
    b.bar(x, [r["rss_per_client_kb"] for r in rows], yerr=err("rss_per_client_kb"),
          label="RSS per client (KiB)")
    b2 = b.twinx()
    b2.errorbar(x, [r["idle_cpu_pct"] for r in rows], yerr=err("idle_cpu_pct"), fmt="rx-",
                label="idle CPU %", capsize=2)
    b2.axhline(CPU_PCT, color="red", lw=0.8)
    b2.set_ylim(0, max(1.5, max(r["idle_cpu_pct"] for r in rows) * 1.5))
    b.set_xlabel("idle clients")
    b.set_ylabel("compositor RSS per client (KiB)")
    b2.set_ylabel("compositor CPU % (all idle)")
    b.legend(loc="upper left", fontsize=8)
    b2.legend(loc="upper right", fontsize=8)
    b.set_title("Memory and idle CPU")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    print("wrote", path)


if __name__ == "__main__":
    main(sys.argv)
