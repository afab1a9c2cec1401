#!/usr/bin/env python3
"""Socket-ring throughput, side by side: a base commit against this tree.

Issue 27 moved socket submits into a server-owned ring area
(compositor/ring/submit_area.c); its rule is that throughput does not
change. This builds the base (default 7146457, the commit before that
change) from `git archive` and the working tree as it is, each in its own
build directory under --dir (default /tmp/smt-socket-ab; kept, so a second
run only recompiles), and then runs smt-perf's socket transport over every
case (or --cases), ROUNDS times, alternating which side goes first round by
round. Each side runs its own smt-perf against its own compositor, a fresh
headless one per side per round (so the rounds also sample what changes
between compositors: docs/benchmarks.md, "Rounds"). Printed: per case each
side's median objects/s and the ratio current/base as the median of the
rounds' own ratios with its 95% interval and min-max (tests/bench/verdict.py),
then the geometric mean over the cases per round, with its interval. A
ratio below 1 means the current tree is slower.

    tests/bench/throughput/socket_ab.py [--base REV] [--current REV] [--rounds N]
        [--seconds S] [--cases a,b] [--objects x11|1] [--dir DIR] [--csv FILE]

--current REV measures that commit (also from `git archive`) instead of
the working tree.

Run on a quiet machine for a verdict; under load both sides share the
noise (alternation) but the interval is wide.
"""
import argparse
import hashlib
import csv
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(HERE, ".."))
import benchenv  # noqa: E402
import verdict as V  # noqa: E402

TARGETS = ["smtwc", "smt-perf"]


def run(cmd, **kw):
    subprocess.run(cmd, check=True, **kw)


def build(src, bdir, log):
    """meson setup (once) and compile of the two programs the A/B runs."""
    if not os.path.isdir(os.path.join(bdir, "meson-private")):
        run(["meson", "setup", bdir, src], stdout=log, stderr=log)
    run(["meson", "compile", "-C", bdir] + TARGETS, stdout=log, stderr=log)


def commit_source(rev, top):
    """A commit's tree under top (extracted once per commit)."""
    full = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", rev + "^{commit}"],
                          check=True, capture_output=True, text=True).stdout.strip()
    src = os.path.join(top, "src-" + full[:12])
    if not os.path.isdir(src):
        tmp = src + ".part"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        archive = subprocess.Popen(["git", "-C", ROOT, "archive", full], stdout=subprocess.PIPE)
        run(["tar", "-x", "-C", tmp], stdin=archive.stdout)
        if archive.wait() != 0:
            sys.exit(f"git archive {rev} failed")
        os.rename(tmp, src)
    return src, full[:12]


class Compositor:
    """A private headless smtwc in its own runtime directory, stopped by pid."""

    def __init__(self, bdir):
        self.tmp = tempfile.mkdtemp(prefix="smt-ab.")
        os.chmod(self.tmp, 0o700)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.tmp, WLR_BACKENDS="headless",
                        WLR_RENDERER="pixman", WLR_HEADLESS_OUTPUTS="1")
        self.env.pop("WAYLAND_DISPLAY", None)
        self.env.pop("DISPLAY", None)
        self.log = open(os.path.join(self.tmp, "smtwc.log"), "w+")
        self.proc = subprocess.Popen(
            [os.path.join(bdir, "compositor", "smtwc"), "--backend", "headless",
             "-c", "/dev/null"], env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        # Ready when it prints its display (its log, not a sleep, says so).
        display = None
        for _ in range(300):
            self.log.seek(0)
            for line in self.log:
                if line.startswith("WAYLAND_DISPLAY="):
                    display = line.strip().split("=", 1)[1]
            if display or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not display:
            self.stop()
            sys.exit(f"smtwc from {bdir} did not start")
        self.env["WAYLAND_DISPLAY"] = display

    def stop(self):
        benchenv.stop(self.proc, 20)
        self.log.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def one_round(bdir, args, out_csv):
    """One smt-perf pass of the chosen transport over the cases on a fresh
    compositor: {case: objects/s}."""
    comp = Compositor(bdir)
    try:
        cmd = [os.path.join(bdir, "clients", "smt-perf"), "-t", args.transport, "-r", "1",
               "-s", str(args.seconds), "-w", str(args.warmup), "--objects", args.objects,
               "--csv", out_csv]
        if args.cases:
            cmd += ["-c", args.cases]
        run(cmd, env=comp.env, stdout=subprocess.DEVNULL)
    finally:
        comp.stop()
    with open(out_csv) as f:
        return {r["case"]: float(r["ops_per_s"]) for r in csv.DictReader(f)
                if r["transport"] == args.transport}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", default="7146457")
    ap.add_argument("--current", help="a commit instead of the working tree")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--cases", default="")
    ap.add_argument("--objects", default="x11", choices=["x11", "1"])
    ap.add_argument("--dir", default="/tmp/smt-socket-ab")
    ap.add_argument("--transport", default="socket", choices=["socket", "ring"],
                    help="the same A/B over shared-memory rings (the server half's other user)")
    ap.add_argument("--csv", help="every round's figures, one row per side and case")
    args = ap.parse_args()
    if args.rounds < 2:
        sys.exit("--rounds: at least 2 (one round gives no interval)")

    os.makedirs(args.dir, exist_ok=True)
    t0 = time.monotonic()
    with open(os.path.join(args.dir, "build.log"), "a") as log:
        src, base_id = commit_source(args.base, args.dir)
        if args.current:
            cur_src, cur_id = commit_source(args.current, args.dir)
            cur_dir = os.path.join(args.dir, "build-" + cur_id)
        else:
            cur_src, cur_id = ROOT, ROOT
            # keyed by the tree: another clone's build directory is not this one's
            cur_dir = os.path.join(args.dir, "build-current-" +
                                   hashlib.sha1(ROOT.encode()).hexdigest()[:12])
        sides = {"base": os.path.join(args.dir, "build-" + base_id), "current": cur_dir}
        print(f"building {args.base} ({base_id}) and {cur_id} under {args.dir} ...", flush=True)
        build(src, sides["base"], log)
        build(cur_src, sides["current"], log)
    built = time.monotonic()

    load_before = V.loadavg()
    rates = {"base": [], "current": []}
    with tempfile.TemporaryDirectory(prefix="smt-ab-csv.") as raw:
        for r in range(args.rounds):
            order = ["base", "current"] if r % 2 == 0 else ["current", "base"]
            for side in order:
                rates[side].append(one_round(sides[side], args,
                                             os.path.join(raw, f"{side}-{r}.csv")))
            print(f"round {r + 1}/{args.rounds} done ({' then '.join(order)})", flush=True)
    load_after = V.loadavg()

    cases = [c for c in rates["base"][0] if all(c in x for s in rates.values() for x in s)]
    print(f"\n{args.transport} transport, {args.current or 'the working tree'} / {args.base}: "
          f"{args.rounds} rounds, "
          f"{args.seconds} s per case, objects {args.objects}; "
          f"{V.load_text(load_before, load_after)}")
    print(f"{'case':<11} {'base obj/s':>13} {'current obj/s':>14}  "
          f"{'ratio median [95%]':<24} {'min-max':>11}")
    rows = []
    for c in cases:
        base = [x[c] for x in rates["base"]]
        cur = [x[c] for x in rates["current"]]
        iv = V.ratio_interval(cur, base)
        print(f"{c:<11} {statistics.median(base):>13.1f} {statistics.median(cur):>14.1f}  "
              f"{iv.text(2):<24} {iv.min:>5.2f}-{iv.max:<5.2f}")
        rows.append((c, base, cur))
    per_round = [math.exp(statistics.fmean(math.log(x[c] / y[c]) for c in cases))
                 for x, y in zip(rates["current"], rates["base"])]
    g = V.value_interval(per_round)
    print(f"{'geomean':<11} {'':>13} {'':>14}  {g.text(2):<24} {g.min:>5.2f}-{g.max:<5.2f}")
    print(f"(build {built - t0:.0f} s, measuring {time.monotonic() - built:.0f} s)")
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["case", "round", "base_ops_per_s", "current_ops_per_s"])
            for c, base, cur in rows:
                for k, (b, x) in enumerate(zip(base, cur)):
                    w.writerow([c, k, b, x])


if __name__ == "__main__":
    main()
