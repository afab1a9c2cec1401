#!/usr/bin/python3
"""Combine smt-perf (local/ring/socket) and x11perf results: tables with
every figure's spread, verdicts on the targets, CSV, plot.
usage: report.py [--load-before "LOADAVG"] [--rounds R] [--limit 'LIMIT-*.csv']
                 'RAW-X11-*.csv' 'RAW-1-*.csv' 'X11PERF-*.txt' OUT.csv OUT.png OUT.md
                 [BENCHMARKS.md]
       report.py --sizes SIZES.csv

Each RAW glob names one smt-perf CSV per round (-r 1): RAW-X11 with
--objects x11 (x11perf's objects per request), RAW-1 with --objects 1;
LIMIT one smt-perf --raw CSV per round. Besides OUT.csv, every verdict goes
to bench-throughput-verdicts.csv beside it (verdict.py compare). X11PERF-*:
one file per round, a line per test: its name, a tab, x11perf's "reps @"
line (or one file, each line holding every round's, tab-separated). Rates are the median of the rounds; ratios the median of the
per-round ratios with a 95% interval: ring/local and ring/socket measured
side by side in each round, ring/X within the same round (x11perf runs
after smt-perf in each round); targets are judged on the intervals
(tests/bench/verdict.py). BENCHMARKS.md, if it exists, gets the tables
between its "<!-- throughput-table:begin -->" and "...:end -->" lines."""
import csv
import datetime
import glob
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import benchenv  # noqa: E402
import verdict as V  # noqa: E402


def round_files(pattern):
    """The files of a glob in round order (x-2 before x-10)."""
    return sorted(glob.glob(pattern), key=lambda p: [int(x) if x.isdigit() else x
                                                      for x in re.split(r"(\d+)", p)])


def load(pattern):
    """{case: {transport: [row of each round]}}, the case order, and the
    per-round files in order: one file per round, so a case's rounds line
    up across transports (a round where one transport is missing is left
    out of that case's paired ratios, see paired())."""
    rows, order = {}, []
    for rnd, path in enumerate(round_files(pattern)):
        for r in csv.DictReader(open(path)):
            c = r["case"]
            if c not in order:
                order.append(c)
            r["round"] = rnd
            rows.setdefault(c, {}).setdefault(r["transport"], []).append(r)
    return rows, order


def f(v, w=12, p=1):
    return f"{v:{w}.{p}f}" if v is not None else " " * (w - 1) + "-"


def sizes(path):
    """Ring area sizes: median objects/s and wakeups per case."""
    data = {}
    for line in open(path):
        area, mode, _rnd, *rest = line.rstrip("\n").split(",")
        case, ops, cmds, c2s, s2c = rest[1], float(rest[4]), int(rest[7]), int(rest[8]), int(rest[9])
        d = data.setdefault((case, mode), {}).setdefault(int(area), [])
        d.append((ops, c2s * 1e4 / cmds if cmds else 0.0, s2c * 1e4 / cmds if cmds else 0.0))
    areas = sorted({a for v in data.values() for a in v})
    hdr = f"{'case':<8} {'objs':>4} " + " ".join(f"{a // 1024:>9}K" for a in areas) + \
        "   c2s+s2c per 10k commands at each size"
    print(hdr)
    print("-" * len(hdr))
    for (case, mode), v in data.items():
        med = [statistics.median(x[0] for x in v[a]) if a in v else None for a in areas]
        wk = [statistics.median(x[1] + x[2] for x in v[a]) if a in v else None for a in areas]
        print(f"{case:<8} {'x11' if mode == 'x11' else '1':>4} " +
              " ".join(f(m, 10, 0) for m in med) + "   " + " ".join(f(w, 7, 2) for w in wk))


if len(sys.argv) >= 3 and sys.argv[1] == "--sizes":
    sizes(sys.argv[2])
    sys.exit(0)

args = sys.argv[1:]
limit_glob = None
load_before = None
rounds_asked = None
while args and args[0].startswith("--"):
    if args[0] == "--limit":
        limit_glob = args[1]
    elif args[0] == "--load-before":
        load_before = args[1].split()
        load_before = tuple(float(x) for x in load_before[:3]) + (load_before[3],)
    elif args[0] == "--rounds":
        rounds_asked = int(args[1])
    else:
        sys.exit(f"report.py: unknown option {args[0]}")
    args = args[2:]
raw_x, raw_1, xtxt, out_csv, out_png, out_md = args[:6]
bench_md = args[6] if len(args) > 6 else None
batched, order_b = load(raw_x)
single, order_s = load(raw_1)
x = {}   # x11perf test: {round: objects/s}
for rnd, path in enumerate(round_files(xtxt)):
    for line in open(path):
        if "\t" not in line:
            continue
        name, rest = line.split("\t", 1)
        # One "reps @" line per file and round; a single file may also hold
        # every round's lines on one line, tab-separated (-repeat R).
        rates = [float(v) for v in re.findall(r"\(\s*([0-9.]+)/sec\)", rest)]
        for k, v in enumerate(rates):
            if v > 0:
                x.setdefault(name.strip(), {})[rnd + k] = v

# The targets (docs/benchmarks.md). ring/X on every case x11perf
# has; noop twice X's NoOperation; 3x socket for noop and rect1 one object
# per command (per-command cost, where the transport shows); ring/local
# 0.9 everywhere; inline put100 0.8x local; < 1 client-to-server wakeup per
# 10k commands on the small one-object cases.
SMALL = {"noop", "dot", "rect1", "rect10", "seg10", "put10", "poolput10", "copy10"}
tally = V.Tally()


def rates(rows, c, t):
    return [float(r["ops_per_s"]) for r in rows.get(c, {}).get(t, [])]


def med(v):
    return statistics.median(v) if v else None


def paired(rows, c, a, b):
    """The rounds in which both transports ran case c: (a's, b's) rates."""
    ra = {r["round"]: float(r["ops_per_s"]) for r in rows.get(c, {}).get(a, [])}
    rb = {r["round"]: float(r["ops_per_s"]) for r in rows.get(c, {}).get(b, [])}
    both = sorted(set(ra) & set(rb))
    return [ra[k] for k in both], [rb[k] for k in both]


def ratio_iv(rows, c, a, b, floor=None):
    na, nb = paired(rows, c, a, b)
    return V.ratio_interval(na, nb, sd_floor=floor) if na and all(v > 0 for v in na + nb) \
        else None


def ring_x_rounds(rows, c, xr):
    """ring and X of the rounds that have both: smt-perf's ring and x11perf
    of the same round."""
    ring = {r["round"]: float(r["ops_per_s"]) for r in rows.get(c, {}).get("ring", [])}
    both = sorted(k for k in ring if k in xr and ring[k] > 0)
    return [ring[k] for k in both], [xr[k] for k in both]


def ring_x_iv(rows, c, xr, floor=None):
    """ring/X paired by round."""
    ring, xs = ring_x_rounds(rows, c, xr)
    return V.ratio_interval(ring, xs, sd_floor=floor) if ring else None


def floors(rows, order, mode):
    """Per ratio (ring/local, ring/socket, ring/X), the typical
    round-to-round spread of its logs over this table's cases
    (verdict.typical_log_sd): each case's interval assumes at least that
    spread, so that a case whose few rounds happen to agree is not decided
    on them while the machine moved every other case of the run."""
    def ratios(na, nb):
        return [a / b for a, b in zip(na, nb) if a > 0 and b > 0]
    out = {}
    for a, b in (("ring", "local"), ("ring", "socket")):
        out[b] = V.typical_log_sd([ratios(*paired(rows, c, a, b)) for c in order])
    out["X"] = V.typical_log_sd([ratios(*ring_x_rounds(rows, c, xtests(rows, c, mode)))
                                 for c in order if xtests(rows, c, mode)])
    return out


def xtests(rows, c, mode):
    """x11perf's rounds for case c in this table ({round: objects/s}), or
    None: X batches per request, so only the batched table compares with it
    (and noop, the same in both)."""
    xt = next(iter(rows[c].values()))[0]["x11perf"]
    return x.get(xt) if xt and (mode == "x11" or c == "noop") else None


def c2s10k(rows, c):
    """Client-to-server eventfd writes per 10,000 ring commands, per round."""
    v = [int(r["wakeups_c2s"]) * 1e4 / int(r["commands"])
         for r in rows.get(c, {}).get("ring", []) if int(r["commands"])]
    return V.value_interval(v, log=False, scale=1.0) if v else None


def spread(rows, c):
    """The widest relative range of a transport's rate over the rounds, %."""
    w = [(max(v) - min(v)) / statistics.median(v) * 100
         for v in (rates(rows, c, t) for t in ("local", "ring", "socket")) if len(v) > 1]
    return max(w) if w else None


def provenance():
    """What a table was measured from: the date, the commit (and whether the
    tree had changes), the machine; written first, so that the tables in
    docs/ say which run they are."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")

    def git(*a):
        r = subprocess.run(["git", "-C", root, *a], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        return r.stdout.strip() if r.returncode == 0 else ""
    rev = git("rev-parse", "--short", "HEAD") or "?"
    dirty = " with local changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    return (f"Run of {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
            f"commit {rev}{dirty}; {benchenv.machine()}; "
            f"{rounds_asked or '?'} rounds, each on a fresh compositor.")


out = []
lines = [provenance(), ""]


def verdicts(table, c, rl, rs, rx, wk):
    checks = [("local", rl, 0.9, True)]
    if table == "x11":
        if rx is not None:
            checks.append(("X", rx, 2.0 if c == "noop" else 1.0, True))
        if c == "put100":
            checks.append(("local", rl, 0.8, True))
            checks = checks[1:]
    else:
        if c in ("noop", "rect1"):
            checks.append(("socket", rs, 3.0, True))
        if c in SMALL:
            checks.append(("c2s", wk, 1.0, False))
    v = []
    for name, iv, th, higher in checks:
        title = f"{c} {'batched' if table == 'x11' else 'one per command'} " + \
            (f"ring/{name} >= {th:g}" if higher else f"c2s/10k < {th:g}")
        # "< 1" on a count: the interval's top below 1 (verdict's <= is
        # the same for a continuous estimate).
        res = tally.judge(title, iv, th, higher)
        tag = f"{name}>={th:g}" if higher else f"c2s<{th:g}"
        v.append(f"{tag}:{V.short(res)}" + ("~" if iv is not None and iv.wide else ""))
    return " ".join(v)


def ivtext(iv, w=19):
    return f"{iv.text(2) if iv is not None else '-':>{w}}"


def table(title, rows, order, mode):
    lines.append(f"{title}")
    hdr = (f"{'case':<10} {'local/s':>12} {'ring/s':>12} {'socket/s':>12} {'X/s':>12} "
           f"{'objs':>4} {'spread':>6} {'r/X [95%]':>19} {'r/local [95%]':>19} "
           f"{'r/sock [95%]':>19} {'c2s/10k':>8}  targets")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    fl = floors(rows, order, mode)
    for c in order:
        r = rows[c]
        lo, ri, so = (rates(rows, c, t) for t in ("local", "ring", "socket"))
        first = next(iter(r.values()))[0]
        xt = first["x11perf"]
        objs = int(first["objects_per_command"])
        xr = xtests(rows, c, mode)
        xv = list(xr.values()) if xr else None
        rl = ratio_iv(rows, c, "ring", "local", fl["local"])
        rs = ratio_iv(rows, c, "ring", "socket", fl["socket"])
        rx = ring_x_iv(rows, c, xr, fl["X"]) if xr else None
        wk = c2s10k(rows, c)
        sp = spread(rows, c)
        v = verdicts(mode, c, rl, rs, rx, wk)
        lines.append(f"{c:<10} {f(med(lo))} {f(med(ri))} {f(med(so))} {f(med(xv))} {objs:>4} "
                     f"{f(sp, 5, 0) + '%' if sp is not None else f(None, 6)} {ivtext(rx)} "
                     f"{ivtext(rl)} {ivtext(rs)} {f(wk.median if wk else None, 8, 3)}  {v}")
        rr = r.get("ring", [])

        def lohi(iv):
            return (iv.median, iv.lo, iv.hi) if iv is not None else (None, None, None)
        row = {"table": mode, "case": c, "x11perf": xt, "objects_per_command": objs,
               "rounds": len(ri)}
        for t, v_ in (("local", lo), ("ring", ri), ("socket", so), ("x11perf", xv or [])):
            row[f"{t}_ops"] = med(v_)
            row[f"{t}_ops_min"] = min(v_) if v_ else None
            row[f"{t}_ops_max"] = max(v_) if v_ else None
        for k, iv in (("ring_x", rx), ("ring_local", rl), ("ring_socket", rs),
                      ("ring_c2s_per_10k", wk)):
            row[k], row[k + "_lo"], row[k + "_hi"] = lohi(iv)
        row["ring_commands"] = sum(int(q["commands"]) for q in rr) if rr else None
        row["ring_wakeups_c2s"] = sum(int(q["wakeups_c2s"]) for q in rr) if rr else None
        row["ring_wakeups_s2c"] = sum(int(q["wakeups_s2c"]) for q in rr) if rr else None
        row["targets"] = v
        out.append(row)
    lines.append("floor on each ratio's spread (the median over the cases of its rounds' sd, "
                 "as a factor): " + ", ".join(
                     f"r/{k} x{math.exp(v):.3f}" if v is not None else f"r/{k} -"
                     for k, v in fl.items()))
    lines.append("")


table("Objects per command as x11perf sends per request (objects/s, median of the rounds):",
      batched, order_b, "x11")
table("One object per command (objects/s = commands/s, median of the rounds):",
      single, order_s, "1")
nrounds = max((len(v) for r in list(batched.values()) + list(single.values())
               for v in r.values()), default=0)
lines.append(tally.summary())
lines.append(f"{nrounds} rounds{'' if rounds_asked in (None, nrounds) else f' of {rounds_asked}'}; "
             f"{V.load_text(load_before, V.loadavg())}")
lines.append(f"Reading: {V.METHOD}; '~' marks it on a target. spread: the widest "
             f"(max-min)/median of a transport's rate over the rounds. r/X: paired by round "
             f"(x11perf after smt-perf in each round); each ratio's interval assumes at least "
             f"its table's floor of spread (verdict.typical_log_sd). c2s/10k: "
             f"client-to-server eventfd writes per 10,000 ring commands (median round).")
und = [r for r in tally.rows if r[4] != V.MET]
if und:
    lines.append("Not met:")
    for name, iv, th, higher, res in und:
        lines.append(f"  {res:<9} {name}: {iv.text(3) if iv is not None else '-'}"
                     f"{' (spread too wide to judge)' if iv is not None and iv.wide else ''}")


def limit_table(pattern):
    """The ring's own limit (smt-perf --raw) against the compositor's NOOPs:
    what the compositor's loop adds per command beyond moving and framing."""
    per = {}
    for path in sorted(glob.glob(pattern)):
        for r in csv.DictReader(open(path)):
            per.setdefault((r["consumer"], r["bytes"]), []).append(float(r["commands_per_s"]))
    if not per:
        return
    ring = rates(single, "noop", "ring")
    lines.append("")
    lines.append("The ring's own limit (smt-perf --raw: the same writer, a forked consumer "
                 "spinning, no compositor), NOOPs, median [min-max] of the rounds:")
    hdr = (f"{'consumer':<8} {'bytes':>5} {'commands/s':>14} {'min-max':>27} {'ns/cmd':>7}  "
           f"what the consumer does")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    what = {"lines": "loads one word per 64-byte line, no framing",
            "touch": "steps header to header by size, no checks",
            "frame": "the compositor's reader: begin, skip_noops, publish"}
    for (consumer, nbytes), v in per.items():
        m = statistics.median(v)
        lines.append(f"{consumer:<8} {nbytes:>5} {m:>14.1f} {min(v):>13.1f}-{max(v):<13.1f} "
                     f"{1e9 / m:>7.2f}  {what.get(consumer, '')}")
    frame8 = per.get(("frame", "8"))
    if ring and frame8:
        iv = V.ratio_interval(ring, frame8, paired=False)
        rm = statistics.median(ring)
        lines.append(f"compositor ring noop (8 bytes, one per command): {rm:.1f}/s, "
                     f"{1e9 / rm:.2f} ns/cmd = {iv.text(2)} of the frame limit")


if limit_glob:
    limit_table(limit_glob)
text = "\n".join(lines)
print(text)

os.makedirs(os.path.dirname(out_csv) or ".", exist_ok=True)
with open(out_csv, "w", newline="") as fh:
    w = csv.DictWriter(fh, fieldnames=list(out[0].keys()))
    w.writeheader()
    for r in out:
        w.writerow({k: (f"{v:.4g}" if isinstance(v, float) else v) for k, v in r.items()})
print(f"wrote {out_csv}")
verdicts_csv = os.path.join(os.path.dirname(out_csv), "bench-throughput-verdicts.csv")
tally.write(verdicts_csv)
print(f"wrote {verdicts_csv} (compare two runs: tests/bench/verdict.py compare A B)")
with open(out_md, "w") as fh:
    fh.write("```\n" + text + "\n```\n")
print(f"wrote {out_md}")
if bench_md and os.path.exists(bench_md):
    doc = open(bench_md).read()
    begin, end = "<!-- throughput-table:begin -->\n", "<!-- throughput-table:end -->"
    if begin in doc and end in doc:
        a, b = doc.index(begin) + len(begin), doc.index(end)
        doc = doc[:a] + "```\n" + text + "\n```\n" + doc[b:]
        open(bench_md, "w").write(doc)
        print(f"wrote the tables into {bench_md}")

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
fig, axes = plt.subplots(2, 1, figsize=(14, 9))
series = [("local", "local_ops", "#888"), ("ring", "ring_ops", "#1f77b4"),
          ("socket", "socket_ops", "#ff7f0e"), ("x11perf (Xwayland)", "x11perf_ops", "#2ca02c")]
for ax, mode, title in ((axes[0], "x11", "x11perf's objects per request"),
                        (axes[1], "1", "one object per command")):
    rs = [r for r in out if r["table"] == mode]
    if not rs:
        ax.set_visible(False)
        continue
    idx = np.arange(len(rs))
    wdt = 0.2
    for k, (lab, key, col) in enumerate(series):
        # The bar is the median round, the whisker the min-max of the rounds.
        mid = [r[key] or 0 for r in rs]
        err = [[max(0, m - (r[key + "_min"] or m)) for m, r in zip(mid, rs)],
               [max(0, (r[key + "_max"] or m) - m) for m, r in zip(mid, rs)]]
        ax.bar(idx + (k - 1.5) * wdt, mid, wdt, label=lab, color=col, yerr=err,
               error_kw={"elinewidth": 0.8, "capsize": 1.5})
    ax.set_yscale("log")
    ax.set_xticks(idx)
    ax.set_xticklabels([r["case"] for r in rs], rotation=45, ha="right")
    ax.set_ylabel("objects / second (log)")
    ax.set_title(f"smt-perf vs x11perf on Xwayland: {title}")
    ax.legend(fontsize=8)
    ax.grid(axis="y", which="both", alpha=0.3)
fig.tight_layout()
fig.savefig(out_png, dpi=80)
print(f"wrote {out_png}")
