#!/usr/bin/python3
"""The images benchmark's table, verdicts and plot, from one smt-perf
--images CSV per round.
usage: report.py [--load-before "LOADAVG"] 'ROUND-*.csv' OUT.csv OUT.png

Per N: the median of the rounds and their min-max. The two targets, each
judged on a 95% interval over the rounds (tests/bench/verdict.py): the cost
per operation at the largest N against the smallest, paired round by round
(both measured in the same round, by the same client), at most 1.2x; and the
compositor's mapping count independent of N: its growth from the smallest to
the largest N, per 1,000 live images, at most 1 (the seed's mmap per image
grows by 1,000)."""
import csv
import glob
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import verdict as V  # noqa: E402

args = sys.argv[1:]
load_before = None
if args[:1] == ["--load-before"]:
    p = args[1].split()
    load_before, args = tuple(float(x) for x in p[:3]) + (p[3],), args[2:]
pattern, out_csv, out_png = args
files = sorted(glob.glob(pattern), key=lambda p: [int(x) if x.isdigit() else x
                                                   for x in re.split(r"(\d+)", p)])
rounds = []   # one {N: row} per round
for path in files:
    rounds.append({int(r["live_images"]): r for r in csv.DictReader(open(path))})
ns = sorted({n for r in rounds for n in r})
if not ns:
    sys.exit("images report: no rounds in " + pattern)


def col(n, key):
    return [float(r[n][key]) for r in rounds if n in r]


def mm(v, p):
    return f"{statistics.median(v):.{p}f} [{min(v):.{p}f}-{max(v):.{p}f}]"


hdr = (f"{'N':>8} {'us/op median [min-max]':>24} {'pool MiB':>9} {'server maps':>16} "
       f"{'server RSS MiB':>15} {'cli flt/op':>11} {'srv flt/op':>11} {'churn pages':>12}")
print(hdr)
print("-" * len(hdr))
out = []
for n in ns:
    us, maps = col(n, "us_per_op"), col(n, "server_maps")
    rss = [v / 1024 for v in col(n, "server_rss_kb")]
    pool = statistics.median(col(n, "pool_bytes")) / 1048576
    cf, sf, pages = col(n, "client_faults_per_op"), col(n, "server_faults_per_op"), \
        col(n, "churn_pages")
    print(f"{n:>8} {mm(us, 3):>24} {pool:>9.1f} {mm(maps, 0):>16} "
          f"{statistics.median(rss):>15.1f} {statistics.median(cf):>11.3f} "
          f"{statistics.median(sf):>11.3f} {statistics.median(pages):>12.0f}")
    out.append({"live_images": n, "rounds": len(us), "us_per_op": statistics.median(us),
                "us_per_op_min": min(us), "us_per_op_max": max(us),
                "pool_bytes": int(statistics.median(col(n, "pool_bytes"))),
                "server_maps": int(statistics.median(maps)), "server_maps_min": int(min(maps)),
                "server_maps_max": int(max(maps)),
                "server_rss_kb": int(statistics.median(col(n, "server_rss_kb"))),
                "client_faults_per_op": statistics.median(cf),
                "server_faults_per_op": statistics.median(sf),
                "churn_pages": int(statistics.median(pages))})

tally = V.Tally()
lo_n, hi_n = ns[0], ns[-1]
both = [r for r in rounds if lo_n in r and hi_n in r]
cost = V.ratio_interval([float(r[hi_n]["us_per_op"]) for r in both],
                        [float(r[lo_n]["us_per_op"]) for r in both]) if both else None
tally.judge(f"cost per op N={hi_n} / N={lo_n} <= 1.2", cost, 1.2, higher=False)
growth = V.value_interval([(float(r[hi_n]["server_maps"]) - float(r[lo_n]["server_maps"])) *
                           1000 / (hi_n - lo_n) for r in both], log=False, scale=1.0) \
    if both and hi_n > lo_n else None
tally.judge(f"compositor maps growth N={lo_n} -> {hi_n}, per 1000 images <= 1", growth, 1.0,
            higher=False)
print()
for name, iv, th, higher, res in tally.rows:
    print(f"  {V.short(res):<4} {name}: {iv.text(3) if iv is not None else '-'}"
          f"{'  (spread too wide to judge)' if iv is not None and iv.wide else ''}")
print(tally.summary())
print(f"{len(rounds)} rounds (sizes in alternating order); "
      f"{V.load_text(load_before, V.loadavg())}")
print(f"Reading: {V.METHOD}")

os.makedirs(os.path.dirname(out_csv) or ".", exist_ok=True)
with open(out_csv, "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(out[0].keys()))
    w.writeheader()
    for r in out:
        w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})
print("wrote", out_csv)
verdicts_csv = os.path.join(os.path.dirname(out_csv), "bench-images-verdicts.csv")
tally.write(verdicts_csv)
print("wrote", verdicts_csv)

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
n = [r["live_images"] for r in out]
us = [r["us_per_op"] for r in out]
err = [[r["us_per_op"] - r["us_per_op_min"] for r in out],
       [r["us_per_op_max"] - r["us_per_op"] for r in out]]
maps = [r["server_maps"] for r in out]
fig, ax = plt.subplots(figsize=(7, 4.2))
ax.errorbar(n, us, yerr=err, fmt="o-", capsize=3,
            label="smtwc pool images (us/op, median, min-max of rounds)")
seed_n = [100, 1000, 10000, 20000, 40000]
ax.plot(seed_n, [17.3, 19.9, 88.5, 205, 406], "s--", color="#c44",
        label="seed: mmap per image (us/op)")
ax.plot(seed_n + [80000], [18.3, 18.0, 18.2, 18.9, 20.8, 23.5], "^--", color="#999",
        label="seed: reserved space (us/op)")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("live images N")
ax.set_ylabel("us per create/free")
ax2 = ax.twinx()
ax2.plot(n, maps, "x:", color="green", label="compositor maps lines")
ax2.set_ylabel("compositor /proc/PID/maps lines")
ax2.set_ylim(0, max(maps) * 2)
ax.legend(loc="upper left", fontsize=8)
ax2.legend(loc="lower right", fontsize=8)
ax.set_title("Image create/free churn vs live images")
fig.tight_layout()
fig.savefig(out_png, dpi=90)
print("wrote", out_png)
