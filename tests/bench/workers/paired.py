#!/usr/bin/env python3
"""One flooding ring client at workers 0 against the default, in short
paired segments (issue 28's "one client within 5% of today's on every case
of the throughput run").

    tests/bench/workers/paired.py [--rounds R] [--segments K] [--seconds S]
                                  [--cases a,b] [--build DIR] [--out DIR] [--smoke]

--out DIR writes DIR/bench/bench-workers-paired.csv (the table) and
DIR/workers-paired-verdicts.csv (the verdicts, for tests/bench/reproduce).
--smoke: 2 rounds of 1 segment of 0.05 s, rect100 and put100 (the suite's
plumbing check; its figures mean nothing).

Why not tests/bench/workers/run: there each round starts one compositor
per setting and runs every case on it, so the two figures of a pair are
10-20 s apart, and this shared VM's speed drifts over seconds (one client's
text 7.9-15.4M objects/s within one run of 20 rounds, session 39): two
20-round runs of that design judged the same code 0.88-1.07, met on some
cases in one run and undecided on all in the other. Here each round starts
both compositors at once (workers 0 and the default, each idle while the
other is measured), and runs K segments: in each, every case for S seconds
on one and then on the other (the order alternating by segment), so a
pair is under a second apart. A round's figure per case is the median of
its K segment ratios (default/0), and the verdict is on the 95% interval
of those R figures (tests/bench/verdict.py): fresh compositors per round
still sample what differs between two starts (where memory lands, which
CPU the threads get), as the throughput runs do.
"""
import argparse
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "bench"))
import verdict as V  # noqa: E402

CASES = "rect100,seg100,put100,text"
TARGET = 0.95


def default_workers():
    return max(1, (os.cpu_count() or 1) - 1)


class Compositor:
    """A private headless smtwc with `workers` set, stopped by its pid."""

    def __init__(self, build, workers):
        self.dir = tempfile.mkdtemp(prefix="smt-paired.")
        os.chmod(self.dir, 0o700)
        conf = os.path.join(self.dir, "smtwc.conf")
        with open(conf, "w") as f:
            f.write(f"[scheduler]\nworkers = {workers}\n")
        self.log = os.path.join(self.dir, "smtwc.log")
        env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, WLR_BACKENDS="headless",
                   WLR_RENDERER="pixman", WLR_HEADLESS_OUTPUTS="1")
        env.pop("WAYLAND_DISPLAY", None)
        env.pop("DISPLAY", None)
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [os.path.join(build, "compositor", "smtwc"), "--backend", "headless",
                 "-c", conf], env=env, stdout=out, stderr=subprocess.STDOUT)
        self.display = None
        for _ in range(200):
            with open(self.log) as f:
                for line in f:
                    if line.startswith("WAYLAND_DISPLAY="):
                        self.display = line.strip().split("=", 1)[1]
            if self.display or self.proc.poll() is not None:
                break
            time.sleep(0.05)
        if not self.display:
            self.stop()
            sys.exit(f"smtwc (workers {workers}) did not start: see {self.log}")

    def perf(self, build, case, secs, warm, out):
        env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, WAYLAND_DISPLAY=self.display)
        subprocess.run([os.path.join(build, "clients", "smt-perf"), "-t", "ring", "-s",
                        str(secs), "-w", str(warm), "-r", "1", "-c", case, "--csv", out],
                       env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(out) as f:
            rows = [r for r in csv.DictReader(f) if r["case"] == case]
        if len(rows) != 1:
            sys.exit(f"smt-perf wrote {len(rows)} rows for {case} in {out}")
        return float(rows[0]["ops_per_s"])

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--segments", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=0.3)
    ap.add_argument("--warmup", type=float, default=0.05)
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    if a.smoke:
        a.rounds, a.segments, a.seconds, a.cases = 2, 1, 0.05, "rect100,put100"
    cases = a.cases.split(",")
    dflt = default_workers()
    load_before = V.loadavg()
    raw = tempfile.mkdtemp(prefix="smt-paired-raw.")
    # per case: per round: [(w0, default)] for each segment
    pairs = {c: [[] for _ in range(a.rounds)] for c in cases}
    try:
        for r in range(a.rounds):
            comps = {"0": Compositor(a.build, 0), "default": Compositor(a.build, dflt)}
            try:
                for k in range(a.segments):
                    order = ["0", "default"] if (r * a.segments + k) % 2 == 0 else ["default", "0"]
                    for c in cases:
                        got = {}
                        for s in order:
                            got[s] = comps[s].perf(a.build, c, a.seconds, a.warmup,
                                                   os.path.join(raw, f"r{r}-k{k}-{s}-{c}.csv"))
                        pairs[c][r].append((got["0"], got["default"]))
            finally:
                for comp in comps.values():
                    comp.stop()
            print(f"round {r + 1} of {a.rounds} done", file=sys.stderr)
    finally:
        shutil.rmtree(raw, ignore_errors=True)
    load_after = V.loadavg()

    print(f"# one ring client, workers 0 against the default ({dflt} worker(s)): "
          f"{a.rounds} rounds of {a.segments} paired segments, {a.seconds} s a case")
    print(f"# {V.load_text(load_before, load_after)}")
    print("# objects/s: median over every segment (min-max); a round's ratio: the median of "
          "its segments' default/0; ratio: median of the rounds' [95% interval]")
    print(f"{'case':8} {'w=0':>22} {'w=default':>22} {'rounds (min-max)':>18} "
          f"{'ratio':>22} verdict")
    rows = []
    tally = V.Tally()
    for c in cases:
        w0 = [p[0] for rnd in pairs[c] for p in rnd]
        wd = [p[1] for rnd in pairs[c] for p in rnd]
        per_round = [statistics.median(d / z for z, d in rnd) for rnd in pairs[c]]
        iv = V.value_interval(per_round)
        v = tally.judge(f"one client {c}, default/0", iv, TARGET)

        def fig(xs):
            return f"{statistics.median(xs) / 1e6:.2f}M ({min(xs) / 1e6:.2f}-{max(xs) / 1e6:.2f})"
        print(f"{c:8} {fig(w0):>22} {fig(wd):>22} "
              f"{min(per_round):>8.3f}-{max(per_round):<8.3f} "
              f"{iv.median:>7.3f} [{iv.lo:.3f}-{iv.hi:.3f}] {v}")
        rows.append({"case": c, "median_w0": f"{statistics.median(w0):.1f}",
                     "median_default": f"{statistics.median(wd):.1f}",
                     "ratio": f"{iv.median:.4f}", "ratio_lo": f"{iv.lo:.4f}",
                     "ratio_hi": f"{iv.hi:.4f}", "verdict": v})
    print(f"# target (issue 28): one client, default/0 >= {TARGET} on every case: "
          f"{V.all_of(r[4] for r in tally.rows)}")
    print(tally.summary())
    if a.out:
        os.makedirs(os.path.join(a.out, "bench"), exist_ok=True)
        with open(os.path.join(a.out, "bench", "bench-workers-paired.csv"), "w",
                  newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        tally.write(os.path.join(a.out, "workers-paired-verdicts.csv"))


if __name__ == "__main__":
    main()
