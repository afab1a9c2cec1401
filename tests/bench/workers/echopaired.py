#!/usr/bin/env python3
"""Issue 28's interactivity targets, workers 0 against the default, in
short paired segments (the design of tests/bench/workers/paired.py).

    tests/bench/workers/echopaired.py [--rounds R] [--segments K] [--seconds S]
                                      [--settle T] [--tail T] [--probes echo,shm]
                                      [--build DIR] [--out DIR] [--smoke]

Probes (each on its own pair of compositors, one after the other in a
round), among 12 smt-plaid flooders, fair, 5 ms slices, as
tests/bench/interactive/run.py and tests/bench/workers/echo.py run them:
  echo  seed 001's rubber band (100 Hz) and animation (every 15 ms): echo
        p50 / p99 / max at least 2x better at the default than at workers 0,
        the animation's frame interval sd no worse (echo.py's targets)
  shm   smt-shm-echo, a wl_shm client on foot's path: input-to-present p50
        and p99 at the default no worse than at workers 0 (the issue names
        the comparison, not a factor: "no worse" is this bench's reading)
--out DIR writes DIR/bench/bench-workers-echo-paired.csv (the table) and
DIR/workers-echo-paired-verdicts.csv (the verdicts, for
tests/bench/reproduce). --smoke: 2 rounds of 1 segment of 0.3 s (the
suite's plumbing check; its figures mean nothing).

Why: echo.py runs each setting on its own compositor one after the other,
so a pair of figures is 10-20 s apart, and this shared VM's speed drifts
over seconds: its p99 verdict was met twice in session 38 and undecided in
session 39. Here each round starts both compositors at once (workers 0 and
the default), each with its flooders and probe, and alternates K segments
between them (the order alternating by segment): a side is measured for S
seconds while the other side is frozen, so the two settings' samples of a
round interleave within the same seconds.

Freezing a side: SIGSTOP to its compositor first, then to every client on
it (flooders and probes); SIGCONT in the opposite order. The frozen side
uses no CPU at all, so only the measured compositor is flooded. Stopping
only the flooders would not do: their rings would drain and sit empty, the
scheduler would praise them back to base priority (a level per 10 ms idle),
and on resuming the 12 flooders would tie with the rubber band until each
had run 20 slices again (about 1.2 s of one executor): a transient, not the
steady flood the targets describe. Frozen whole, the compositor sees no
idle ring and its flooders resume at the priority they had. After a resume
the side runs `settle` seconds unmeasured (the input the frozen probe's
timer sent late arrives as one burst, the backlog of the rings runs), then
S seconds measured, then `tail` seconds so that a move sent in the window is
shown before its compositor freezes (a move still unshown then is counted
as cut and left out, never given the frozen time as its latency).

A round's figure per setting pools the samples of its K windows: the echo
p50 / p99 / max of all moves sent in them, the frame interval sd of the
frames executed in them (intervals within one window only). So a round's
max is the max over K x S seconds of flooding, as echo.py's over its S
seconds: run K x S = echo.py's --seconds for the same quantity (default
6 x 0.5 = 3 s). A round's ratio is 0/default (default/0 for the sd); the
verdict is on the 95% interval of the R rounds' ratios (tests/bench/
verdict.py). Fresh compositors per round still sample what differs between
two starts.
"""
import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "bench", "interactive"))
sys.path.insert(0, os.path.join(REPO, "tests", "bench"))
import run as I  # noqa: E402  (tests/bench/interactive/run.py)
import verdict as V  # noqa: E402
import numpy as np  # noqa: E402

SETTINGS = ("0", "default")
WARMUP = 0.5      # the probes' own warm-up (their CSV leaves it out)
SETUP = 1.0       # both sides running before the first segment


def default_workers():
    return max(1, (os.cpu_count() or 1) - 1)


class Side:
    """One compositor with its 12 flooders and its probe, frozen or not."""

    def __init__(self, procs, build, workers):
        I.WORKERS = workers
        I.EXTRA_CONFIG = ""
        self.comp = I.Compositor(procs, build, "fair", 5)
        self.clients = [self.comp.client("smt-plaid") for _ in range(I.FLOODERS)]

    def probe(self, log, name, *args):
        """A probe client, its output in `log` (why it wrote no CSV)."""
        with open(log, "w") as out:
            p = self.comp.client(name, *args, stdout=out)
        self.clients.append(p)
        return p

    def signal(self, sig):
        for p in ([self.comp.p] + self.clients if sig == signal.SIGSTOP
                  else self.clients + [self.comp.p]):
            if p.poll() is None:
                try:
                    os.kill(p.pid, sig)
                except ProcessLookupError:
                    pass

    def freeze(self):
        self.signal(signal.SIGSTOP)

    def thaw(self):
        self.signal(signal.SIGCONT)

    def close(self, procs):
        self.thaw()  # a stopped process would keep SIGTERM pending
        for p in self.clients:
            procs.stop(p)
        self.comp.close()


def in_windows(t, windows):
    for w in windows:
        if w[0] <= t <= w[1]:
            return w
    return None


def echo_samples(rows, windows, sent_col, shown_col):
    """ms from sent to shown of the moves sent inside a window; and how many
    were cut (shown only after their side froze). A move never shown on its
    own (a newer one replaced it: shown 0) is no sample, as in
    tests/bench/interactive/run.py."""
    out, cut = [], 0
    for r in rows:
        w = in_windows(r[sent_col], windows)
        if w is None or r[shown_col] <= r[sent_col]:
            continue
        if r[shown_col] > w[2]:
            cut += 1
            continue
        out.append((r[shown_col] - r[sent_col]) / 1e6)
    return np.array(out), cut


def frame_intervals(rows, windows):
    """ms between consecutive executed animation frames of one window."""
    out = []
    for w in windows:
        ex = sorted(r["exec_ns"] for r in rows if r["exec_ns"] and w[0] <= r["exec_ns"] <= w[1])
        out += list(np.diff(ex) / 1e6)
    return np.array(out)


def read_rows(path):
    """The probe's CSV; its values as ints (smt-shm-echo's too)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]


def one_round(procs, build, tmp, probe, rnd, a):
    """Both sides of one round for one probe: {setting: figures}."""
    plan = a.segments * 2 * (a.settle + a.seconds + a.tail)
    active = SETUP + plan / 2 + 1.5   # what a side runs unfrozen, and a margin
    sides = {}
    try:
        sides["0"] = Side(procs, build, 0)
        sides["default"] = Side(procs, build, default_workers())
        for s in sides.values():
            I.wait_mapped(s.comp, I.FLOODERS)
        files = {}
        tags = {n: "%s-w%s-r%d" % (probe, n, rnd) for n in sides}
        for name, s in sides.items():
            tag = tags[name]
            if probe == "echo":
                files[name] = (os.path.join(tmp, "rb-%s.csv" % tag),
                               os.path.join(tmp, "anim-%s.csv" % tag))
                # smt-anim draws on a timer that skips what it missed while
                # frozen (its frame count is its active time); smt-rubberband
                # and smt-shm-echo end at a wall-clock deadline
                s.probe(os.path.join(tmp, "anim-%s.log" % tag), "smt-anim", "--seconds",
                        "%.2f" % active, "--warmup", str(WARMUP), "--csv", files[name][1])
            else:
                files[name] = (os.path.join(tmp, "shm-%s.csv" % tag), None)
                s.probe(os.path.join(tmp, "shm-%s.log" % tag), "smt-shm-echo", "--seconds",
                        "%.2f" % (SETUP + plan + 1.0), "--warmup", str(WARMUP), "--csv",
                        files[name][0])
        if probe == "echo":
            # the rubber band's window maps last, on top at the output's
            # centre where its pointer enters (as echo.py starts them)
            time.sleep(0.5)
            for name, s in sides.items():
                s.probe(os.path.join(tmp, "rb-%s.log" % tags[name]), "smt-rubberband",
                        "--seconds", "%.2f" % (SETUP + plan + 1.0), "--warmup", str(WARMUP),
                        "--csv", files[name][0])
        time.sleep(WARMUP + SETUP)
        windows = {n: [] for n in sides}
        sides["default"].freeze()
        on = "0"
        for k in range(a.segments):
            order = list(SETTINGS) if (rnd * a.segments + k) % 2 == 0 else list(
                reversed(SETTINGS))
            for name in order:
                if on != name:
                    sides[on].freeze()
                    sides[name].thaw()
                    on = name
                time.sleep(a.settle)
                t0 = time.monotonic_ns()
                time.sleep(a.seconds)
                t1 = time.monotonic_ns()
                time.sleep(a.tail)
                # (t0, t1, when it froze: a move shown later was cut)
                windows[name].append((t0, t1, time.monotonic_ns()))
        for s in sides.values():
            s.thaw()
        with open(os.path.join(tmp, "windows-%s-r%d.json" % (probe, rnd)), "w") as f:
            json.dump(windows, f)  # monotonic ns: (start, end, frozen at)
        probes = {n: s.clients[I.FLOODERS:] for n, s in sides.items()}
        for s in sides.values():
            for p in s.clients[:I.FLOODERS]:
                procs.stop(p)
            del s.clients[:I.FLOODERS]
        for n in sides:
            for p in probes[n]:
                try:
                    p.wait(plan + 30)
                except subprocess.TimeoutExpired:
                    print("   (a probe did not end: its CSV is missing)", flush=True)
    finally:
        for s in sides.values():
            s.close(procs)
    res = {}
    for name in sides:
        w = windows[name]
        if probe == "echo":
            rb, an = read_rows(files[name][0]), read_rows(files[name][1])
            lat, cut = echo_samples(rb, w, "send_ns", "exec_ns")
            res[name] = {"lat": lat, "cut": cut, "frame": frame_intervals(an, w)}
        else:
            lat, cut = echo_samples(read_rows(files[name][0]), w, "send_ns", "present_ns")
            res[name] = {"lat": lat, "cut": cut}
    return res


# A probe's figures per round: (name, f(round's figures of one setting),
# ratio's direction: "0/d" when lower is better at the default, and the
# target on that ratio, or None for a figure shown but not judged).
def pct(q):
    return lambda r: float(np.percentile(r["lat"], q))


FIGURES = {
    "echo": [("echo p50", pct(50), 2.0), ("echo p99", pct(99), 2.0),
             ("echo max of a round", lambda r: float(r["lat"].max()), 2.0),
             ("frame interval sd", lambda r: float(np.std(r["frame"])), 1.0)],
    "shm": [("wl_shm input-to-present p50", pct(50), 1.0),
            ("wl_shm input-to-present p99", pct(99), 1.0),
            ("wl_shm input-to-present max of a round", lambda r: float(r["lat"].max()), None)],
}


def usable(r, probe):
    return len(r["lat"]) > 1 and (probe != "echo" or len(r["frame"]) > 1)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--segments", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--settle", type=float, default=0.25)
    ap.add_argument("--tail", type=float, default=0.1)
    ap.add_argument("--probes", default="echo,shm")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    if a.smoke:
        a.rounds, a.segments, a.seconds = 2, 1, 0.3
    probes = a.probes.split(",")
    dflt = default_workers()
    load_before = V.loadavg()
    procs = I.Procs()
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    # the probes' CSVs and logs (kept: what each round measured)
    tmp = tempfile.mkdtemp(prefix="raw-echopaired.", dir=a.out)
    res = {p: [] for p in probes}
    began = time.monotonic()
    try:
        for rnd in range(a.rounds):
            for probe in probes:
                res[probe].append(one_round(procs, a.build, tmp, probe, rnd, a))
            print("round %d of %d done" % (rnd + 1, a.rounds), file=sys.stderr, flush=True)
    finally:
        procs.stop_all()
    print("# 12 smt-plaid flooders, fair, 5 ms slices; workers 0 against the default "
          "(%d worker(s)): %d rounds of %d paired segments, %.2f s measured a segment "
          "(%.2f s settle, %.2f s tail); %.0f s in all" % (
              dflt, a.rounds, a.segments, a.seconds, a.settle, a.tail,
              time.monotonic() - began))
    print("# %s" % V.load_text(load_before, V.loadavg()))
    print("# per setting: median of the rounds' figures (min-max); a round pools its "
          "segments; ratio paired by round: median [95% interval]")
    print("| figure (ms) | w=0 | w=default | ratio | target | verdict |")
    print("|---|---|---|---|---|---|")
    tally = V.Tally()
    rows = []
    for probe in probes:
        rounds = [r for r in res[probe] if all(usable(r[s], probe) for s in SETTINGS)]
        for name, f, target in FIGURES[probe]:
            z = [f(r["0"]) for r in rounds]
            d = [f(r["default"]) for r in rounds]
            sd = name == "frame interval sd"

            def fig(xs):
                return "%.2f (%.2f-%.2f)" % (np.median(xs), min(xs), max(xs)) if xs else "-"
            if not rounds:
                iv, v, what = None, V.UNDECIDED, "-"
            elif sd:  # lower is better, judged as default/0 <= 1
                iv = V.ratio_interval(d, z)
                what = "default/0 <= %g" % target
                v = tally.judge("%s, default/0" % name, iv, target, higher=False)
            else:
                iv = V.ratio_interval(z, d)
                what = "0/default >= %g" % target if target else "-"
                v = tally.judge("%s, 0/default" % name, iv, target) if target else "shown"
            print("| %s | %s | %s | %s | %s | %s |" % (
                name, fig(z), fig(d), iv.text(2) if iv else "-", what, v), flush=True)
            rows.append({"figure": name, "median_w0": "%.4f" % np.median(z) if z else "",
                         "median_default": "%.4f" % np.median(d) if d else "",
                         "ratio": "%.4f" % iv.median if iv else "",
                         "ratio_lo": "%.4f" % iv.lo if iv else "",
                         "ratio_hi": "%.4f" % iv.hi if iv else "",
                         "rounds": len(rounds), "target": what, "verdict": v})
        if probe == "echo" and len(rounds) >= 2:
            # "No worse" at a margin of 0 is never decided for two equal
            # figures (the interval of their ratio straddles 1 however many
            # rounds): the difference in ms says how close they are.
            sd = [float(np.std(r["default"]["frame"])) - float(np.std(r["0"]["frame"]))
                  for r in rounds]
            iv = V.value_interval(sd, log=False)
            print("# frame interval sd, default - 0: mean %+.3f ms [%+.3f..%+.3f] "
                  "(frames every %.1f ms)" % (float(np.mean(sd)), iv.lo, iv.hi, float(np.median(
                      [np.mean(r["0"]["frame"]) for r in rounds]))))
        for s in SETTINGS:
            print("# %s, w=%s: %d samples, %d cut (not shown before the side froze), "
                  "rounds usable %d of %d" % (
                      probe, s, sum(len(r[s]["lat"]) for r in res[probe]),
                      sum(r[s]["cut"] for r in res[probe]), len(rounds), len(res[probe])))
    print(tally.summary())
    if a.out:
        os.makedirs(os.path.join(a.out, "bench"), exist_ok=True)
        with open(os.path.join(a.out, "bench", "bench-workers-echo-paired.csv"), "w",
                  newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        tally.write(os.path.join(a.out, "workers-echo-paired-verdicts.csv"))


if __name__ == "__main__":
    main()
