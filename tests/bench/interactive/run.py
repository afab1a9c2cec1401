#!/usr/bin/env python3
"""Interactive scheduler benchmark: the seed's two tests (rubber band, animation)
idle and among 12 smt-plaid flooders, `fair` and `fifo` in one run; 4-flooder
fairness; echo latency and throughput against slice length.

    tests/bench/interactive/run.py [--quick | --smoke] [--rounds R] [--build DIR] [--out DIR]
                                   [--docs]

Every compositor runs headless in its own XDG_RUNTIME_DIR; every process
started is ended by its pid. Results go to --out (default
build/bench/interactive-<time>); --docs also writes docs/bench/scheduler-*.csv
and docs/plots/scheduler-*.png. See docs/scheduler.md, "Measurements".
--smoke is the test suite's run: every scenario for 1-2 s, one slice length
(its figures mean nothing).

The scenarios the targets are judged on (12 flooders `fair` against `fifo`,
4-flooder fairness) run in R independent rounds (full 4, --quick 3,
--smoke 2), fair and fifo alternating which goes first; the table pools the
rounds' samples, the targets are judged on 95% intervals of the per-round
figures (tests/bench/verdict.py): met, missed or undecided.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import verdict as V  # noqa: E402

benchenv.require("numpy", "matplotlib")
import numpy as np  # noqa: E402
import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

FLOODERS = 12
WORKERS = None  # --workers: [scheduler] workers of every compositor
EXTRA_CONFIG = ""  # more [scheduler] lines (tests/bench/workers/echo.py)


class Procs:
    """Every process we start, ended by pid."""

    def __init__(self):
        self.procs = []

    def start(self, argv, env, stdout=subprocess.DEVNULL):
        p = subprocess.Popen(argv, env=env, stdout=stdout, stderr=subprocess.STDOUT)
        self.procs.append(p)
        return p

    def stop(self, p, timeout=3.0):
        benchenv.stop(p, timeout)
        if p in self.procs:
            self.procs.remove(p)

    def stop_all(self):
        for p in list(reversed(self.procs)):
            self.stop(p)


class Compositor:
    def __init__(self, procs, build, mode, slice_ms):
        self.procs = procs
        self.build = build
        self.dir = tempfile.mkdtemp(prefix="smtwc-bench-")
        os.chmod(self.dir, 0o700)
        cfg = os.path.join(self.dir, "smtwc.ini")
        with open(cfg, "w") as f:
            f.write("[scheduler]\nmode = %s\nslice-ms = %d\n" % (mode, slice_ms))
            if WORKERS is not None:
                f.write("workers = %d\n" % WORKERS)
            f.write(EXTRA_CONFIG)
        env = dict(os.environ)
        for k in ("WAYLAND_DISPLAY", "DISPLAY", "WAYLAND_SOCKET"):
            env.pop(k, None)
        env["XDG_RUNTIME_DIR"] = self.dir
        self.log_path = os.path.join(self.dir, "smtwc.log")
        self.log = open(self.log_path, "w")
        self.p = procs.start([os.path.join(build, "compositor", "smtwc"), "--backend",
                              "headless", "-c", cfg], env, stdout=self.log)
        display = None
        deadline = time.time() + 10
        while time.time() < deadline and display is None:
            time.sleep(0.05)
            with open(self.log_path) as f:
                for line in f:
                    if line.startswith("WAYLAND_DISPLAY="):
                        display = line.strip().split("=", 1)[1]
            if self.p.poll() is not None:
                break
        if display is None:
            raise RuntimeError("smtwc did not start; log: " + self.log_path)
        env["WAYLAND_DISPLAY"] = display
        self.env = env

    def client(self, name, *args, stdout=subprocess.DEVNULL):
        return self.procs.start([os.path.join(self.build, "clients", name)] + list(args),
                                self.env, stdout=stdout)

    def stats(self):
        try:
            out = subprocess.run([os.path.join(self.build, "clients", "smtctl"), "stats",
                                  "--json"], env=self.env, capture_output=True, text=True,
                                 timeout=10)
            return json.loads(out.stdout)
        except (subprocess.TimeoutExpired, ValueError):
            print("   (no answer from the control socket)", flush=True)
            return {"clients": []}

    def close(self):
        self.procs.stop(self.p)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def read_csv(path):
    with open(path) as f:
        return [{k: int(v) for k, v in row.items()} for row in csv.DictReader(f)]


def run_delay_ms(pid):
    """Per thread of the process: time spent runnable but waiting for a CPU
    (/proc/PID/task/TID/schedstat, second field), in ms: the machine's share
    of any latency, which no compositor scheduler can remove."""
    out = {}
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                out[t] = int(f.read().split()[1]) / 1e6
    except (OSError, ValueError, IndexError):
        pass
    return out


def delay_delta(d0, d1):
    return sum(v - d0.get(t, 0.0) for t, v in d1.items())


def flooder_counters(stats):
    return {c["pid"]: (c["commands"], c["sched_time_ms"], c["time_ms"])
            for c in stats["clients"] if c.get("app_id") == "smt-plaid"}


def wait_mapped(comp, n, timeout=15):
    """Until n smt-plaid rings exist and have executed something."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            c = flooder_counters(comp.stats())
            if len(c) >= n and all(v[0] > 0 for v in c.values()):
                return True
        except Exception:
            pass
        time.sleep(0.2)
    return False


def run_interactive(procs, build, tmp, mode, slice_ms, flooders, seconds, warmup,
                    plaid_args=(), rnd=0):
    """One compositor: flooders, then the animation, then the rubber band on
    top. Returns raw rows and flooder throughput over the measured window."""
    comp = Compositor(procs, build, mode, slice_ms)
    tag = "%s-s%d-f%d%s-r%d" % (mode, slice_ms, flooders, "-".join(plaid_args), rnd)
    rb_csv = os.path.join(tmp, "rb-%s.csv" % tag)
    an_csv = os.path.join(tmp, "anim-%s.csv" % tag)
    try:
        fl = [comp.client("smt-plaid", *plaid_args) for _ in range(flooders)]
        if flooders:
            wait_mapped(comp, flooders)
            time.sleep(0.5)
        an_log = open(os.path.join(tmp, "anim-%s.log" % tag), "w")
        rb_log = open(os.path.join(tmp, "rb-%s.log" % tag), "w")
        an = comp.client("smt-anim", "--seconds", str(seconds + 1), "--warmup", str(warmup),
                         "--csv", an_csv, stdout=an_log)
        time.sleep(0.5)
        rb = comp.client("smt-rubberband", "--seconds", str(seconds), "--warmup", str(warmup),
                         "--csv", rb_csv, stdout=rb_log)
        time.sleep(warmup + 0.3)
        watched = {"smtwc": comp.p.pid, "rubberband": rb.pid, "anim": an.pid}
        d0 = {k: run_delay_ms(v) for k, v in watched.items()}
        s0, t0 = flooder_counters(comp.stats()), time.monotonic()
        time.sleep(seconds)
        s1, t1 = flooder_counters(comp.stats()), time.monotonic()
        delay = {k: delay_delta(d0[k], run_delay_ms(v)) / (t1 - t0)
                 for k, v in watched.items()}
        with open(os.path.join(tmp, "rundelay-%s.json" % tag), "w") as f:
            json.dump(delay, f)
        for p in (rb, an):
            try:
                p.wait(seconds + warmup + 30)
            except subprocess.TimeoutExpired:
                pass
            procs.stop(p)
        for p in fl:
            procs.stop(p)
        an_log.close()
        rb_log.close()
    finally:
        comp.close()
    cmds = sum(s1[k][0] - s0[k][0] for k in s1 if k in s0)
    rb_rows = read_csv(rb_csv) if os.path.exists(rb_csv) else []
    an_rows = read_csv(an_csv) if os.path.exists(an_csv) else []
    return rb_rows, an_rows, cmds / (t1 - t0) if flooders else 0.0, delay


def run_shm_echo(procs, build, tmp, mode, flooders, seconds, warmup, rnd=0):
    """One compositor: flooders, then smt-shm-echo on top (a wl_shm client's
    input-to-frame, foot's path). Returns its per-move latencies in ms: to
    the presented frame (wp_presentation feedback) and to the receipt of
    that commit's frame callback."""
    comp = Compositor(procs, build, mode, 5)
    tag = "shm-%s-f%d-r%d" % (mode, flooders, rnd)
    out_csv = os.path.join(tmp, "%s.csv" % tag)
    try:
        fl = [comp.client("smt-plaid") for _ in range(flooders)]
        if flooders:
            wait_mapped(comp, flooders)
            time.sleep(0.5)
        log = open(os.path.join(tmp, "%s.log" % tag), "w")
        echo = comp.client("smt-shm-echo", "--seconds", str(seconds), "--warmup", str(warmup),
                           "--csv", out_csv, stdout=log)
        try:
            echo.wait(seconds + warmup + 30)
        except subprocess.TimeoutExpired:
            pass
        procs.stop(echo)
        for p in fl:
            procs.stop(p)
        log.close()
    finally:
        comp.close()
    rows = read_csv(out_csv) if os.path.exists(out_csv) else []
    skip = int(warmup * 100)

    def latencies(column):
        return [(int(r[column]) - int(r["send_ns"])) / 1e6 for r in rows[skip:]
                if int(r["recv_ns"]) and int(r[column]) > int(r["send_ns"])]
    return latencies("present_ns"), latencies("frame_ns")


def shm_echo_only(args, out, build):
    """--shm-echo: idle and among 12 flooders (fair), R rounds each; one
    table row per scenario: p50 / p99 / max of the pooled moves, and the
    rounds' p99 range."""
    procs = Procs()
    tmp = os.path.join(out, "raw")
    os.makedirs(tmp, exist_ok=True)
    rounds = args.rounds or 3
    seconds = 1 if args.smoke else 4
    res = {}
    load_before = V.loadavg()
    try:
        for rnd in range(rounds):
            for name, n in (("idle", 0), ("flood", FLOODERS)):
                print("== shm-echo %s round %d/%d (%d flooders, %d s)" % (
                    name, rnd + 1, rounds, n, seconds), flush=True)
                res.setdefault(name, []).append(
                    run_shm_echo(procs, build, tmp, "fair", n, seconds, 1, rnd))
    finally:
        procs.stop_all()
    path = os.path.join(out, "scheduler-shm-echo.csv")
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "round", "input_to_present_ms"])
        for name, per in res.items():
            for rnd, (v, _) in enumerate(per):
                w.writerows([name, rnd, "%.3f" % x] for x in v)
    print("load average %s before, %s after" % (load_before, V.loadavg()))
    # presented: the wp_presentation feedback's time of the frame that
    # showed the move; callback: when the client received that commit's
    # frame callback (what it measured before the feedback worked)
    print("| wl_shm input-to-frame (ms), workers %s | moves | p50 | p99 | max | p99 per round "
          "| callback p50 / p99 |" % ("default" if WORKERS is None else WORKERS))
    print("|---|---:|---:|---:|---:|---|---|")
    for name, per in res.items():
        pooled = sorted(x for v, _ in per for x in v)
        callback = sorted(x for _, v in per for x in v)
        if not pooled:
            print("| %s | 0 | - | - | - | - | - |" % name)
            continue
        p99s = [np.percentile(v, 99) for v, _ in per if v]
        print("| %s | %d | %.2f | %.2f | %.2f | %.2f-%.2f | %s |" % (
            name, len(pooled), np.percentile(pooled, 50), np.percentile(pooled, 99),
            pooled[-1], min(p99s), max(p99s),
            "%.2f / %.2f" % (np.percentile(callback, 50), np.percentile(callback, 99))
            if callback else "-"))
    print("results in %s" % out)


def run_fairness(procs, build, mode, seconds, n=4, rnd=0):
    comp = Compositor(procs, build, mode, 5)
    try:
        fl = [comp.client("smt-plaid") for _ in range(n)]
        wait_mapped(comp, n)
        time.sleep(2)
        s0 = flooder_counters(comp.stats())
        time.sleep(seconds)
        s1 = flooder_counters(comp.stats())
        for p in fl:
            procs.stop(p)
    finally:
        comp.close()
    rows = []
    tot_s = sum(s1[k][1] - s0[k][1] for k in s1 if k in s0)
    tot_c = sum(s1[k][0] - s0[k][0] for k in s1 if k in s0)
    for i, k in enumerate(sorted(k for k in s1 if k in s0)):
        ds = s1[k][1] - s0[k][1]
        dc = s1[k][0] - s0[k][0]
        rows.append({"mode": mode, "client": i, "sched_time_ms": round(ds, 3),
                     "share_time": ds / tot_s if tot_s else 0,
                     "commands": dc, "share_commands": dc / tot_c if tot_c else 0,
                     "seconds": seconds, "round": rnd})
    return rows


# ---- statistics ----------------------------------------------------------------------

def ms(a):
    return np.asarray(a, dtype=float) / 1e6


def describe(v):
    v = np.asarray(v, dtype=float)
    if v.size == 0:
        return dict(n=0, mean=float("nan"), p50=float("nan"), p90=float("nan"),
                    p99=float("nan"), max=float("nan"), sd=float("nan"))
    return dict(n=int(v.size), mean=float(v.mean()), p50=float(np.percentile(v, 50)),
                p90=float(np.percentile(v, 90)), p99=float(np.percentile(v, 99)),
                max=float(v.max()), sd=float(v.std()))


def metrics(rb_rows, an_rows):
    """Per-metric samples in ms. Missing events (never received / presented)
    are counted, not silently dropped."""
    m = {}
    sent = len(rb_rows)
    m["receipt"] = ms([r["recv_ns"] - r["send_ns"] for r in rb_rows if r["recv_ns"]])
    m["echo"] = ms([r["exec_ns"] - r["send_ns"] for r in rb_rows if r["exec_ns"]])
    m["echo-display"] = ms([r["display_ns"] - r["send_ns"] for r in rb_rows if r["display_ns"]])
    m["drawing"] = ms([r["exec_ns"] - r["issue_ns"] for r in an_rows if r["exec_ns"]])
    m["drawing-display"] = ms([r["display_ns"] - r["issue_ns"] for r in an_rows
                               if r["display_ns"]])
    ex = [r["exec_ns"] for r in an_rows if r["exec_ns"]]
    m["frame-interval"] = ms(np.diff(ex)) if len(ex) > 1 else ms([])
    disp = sorted(set(r["display_ns"] for r in an_rows if r["display_ns"]))
    m["display-interval"] = ms(np.diff(disp)) if len(disp) > 1 else ms([])
    # The machine, not the compositor: how late the kernel woke our own
    # timers (the pointer thread, the animation's frame timer).
    m["wake-late"] = ms([r["send_ns"] - r["due_ns"] for r in rb_rows] +
                        [r["issue_ns"] - r["due_ns"] for r in an_rows])
    lost = dict(events=sent, not_received=sum(1 for r in rb_rows if not r["recv_ns"]),
                frames=len(an_rows), frames_not_executed=sum(1 for r in an_rows
                                                             if not r["exec_ns"]))
    return m, lost


METRICS = ["receipt", "echo", "echo-display", "drawing", "drawing-display", "frame-interval",
           "display-interval", "wake-late"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="~1.5 minute run")
    ap.add_argument("--smoke", action="store_true",
                    help="every scenario for 1-2 s, one slice: the test suite's run")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--docs", action="store_true",
                    help="also write docs/bench/scheduler-*.csv and docs/plots/scheduler-*.png")
    ap.add_argument("--slices", default=None, help="slice lengths swept (1,2,5,10,20)")
    ap.add_argument("--rounds", type=int, default=None,
                    help="rounds of the judged scenarios (full 4, --quick 3, --smoke 2)")
    ap.add_argument("--workers", type=int, default=None,
                    help="[scheduler] workers of every compositor (issue 28: run once with "
                         "0 and once with the default to compare; default: the setting's)")
    ap.add_argument("--shm-echo", action="store_true",
                    help="only a wl_shm client's input-to-frame (smt-shm-echo, foot's path), "
                         "idle and among 12 flooders, --rounds R (default 3)")
    args = ap.parse_args()
    global WORKERS
    WORKERS = args.workers
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    out = args.out or os.path.join(args.build, "bench", "interactive-" + stamp)
    os.makedirs(out, exist_ok=True)
    # flood_s and fair_s are per round.
    if args.smoke:
        idle_s, flood_s, fair_s, sweep_s, warm, rounds = 1, 1, 1, 1, 1, 2
    elif args.quick:
        idle_s, flood_s, fair_s, sweep_s, warm, rounds = 3, 4, 3, 3, 1, 3
    else:
        idle_s, flood_s, fair_s, sweep_s, warm, rounds = 8, 10, 5, 10, 1, 4
    rounds = args.rounds or rounds
    if args.shm_echo:
        return shm_echo_only(args, out, args.build)
    load_before = V.loadavg()
    slices = [int(s) for s in (args.slices or ("5" if args.smoke else "1,2,5,10,20")).split(",")]
    for exe in ("compositor/smtwc", "clients/smt-plaid", "clients/smt-anim",
                "clients/smt-rubberband", "clients/smtctl"):
        if not os.access(os.path.join(args.build, exe), os.X_OK):
            sys.exit("missing %s: ninja -C %s" % (exe, args.build))

    def cpu_model():
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor()

    git = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    meta = {
        "date_utc": stamp, "machine": platform.node(), "kernel": platform.release(),
        "cpu": cpu_model(), "cores": os.cpu_count(), "git": git + " (+ working tree)",
        "quick": args.quick, "smoke": args.smoke, "flooders": FLOODERS, "rubberband_hz": 100, "anim_period_ms": 15,
        "seconds": dict(idle=idle_s, flood=flood_s, fairness=fair_s, sweep=sweep_s,
                        warmup=warm), "rounds": rounds,
        "slice_ms_default_runs": 5, "slices_swept": slices, "output": "headless 1280x720 60 Hz",
        "renderer": "pixman",
    }
    procs = Procs()
    tmp = os.path.join(out, "raw")
    os.makedirs(tmp, exist_ok=True)
    scen = []   # (name, mode, slice, flooders, rb_rows, an_rows, throughput, delays, round)
    fairness = []

    def scenario(name, mode, slice_ms, flooders, seconds, rnd=0, plaid_args=()):
        """One run_interactive, kept in scen under its scenario's name."""
        rb, an, thr, dl = run_interactive(procs, args.build, tmp, mode, slice_ms, flooders,
                                          seconds, warm, plaid_args=plaid_args, rnd=rnd)
        scen.append((name, mode, slice_ms, flooders, rb, an, thr, dl, rnd))
    began = time.time()
    try:
        for mode in ("fair", "fifo"):
            print("== idle %s (%d s)" % (mode, idle_s), flush=True)
            scenario("idle", mode, 5, 0, idle_s)
        # The judged scenarios: rounds, fair and fifo alternating which runs
        # first, so that the machine's drift does not favour one.
        for rnd in range(rounds):
            for mode in (("fair", "fifo") if rnd % 2 == 0 else ("fifo", "fair")):
                print("== flood %s round %d/%d (%d flooders, %d s)" % (
                    mode, rnd + 1, rounds, FLOODERS, flood_s), flush=True)
                scenario("flood", mode, 5, FLOODERS, flood_s, rnd=rnd)
        # Attribution: the same, but the flooders present once a second
        # instead of every 16 ms, so the output rarely has to composite 12
        # fully damaged windows (the render is one long, unpreemptible step).
        print("== flood fair, flooders presenting once a second (%d s)" % flood_s, flush=True)
        scenario("flood-rare-present", "fair", 5, FLOODERS, flood_s,
                 plaid_args=("--present-ms", "1000"))
        for rnd in range(rounds):
            for mode in (("fair", "fifo") if rnd % 2 == 0 else ("fifo", "fair")):
                print("== fairness %s round %d/%d (4 flooders, %d s)" % (
                    mode, rnd + 1, rounds, fair_s), flush=True)
                fairness += run_fairness(procs, args.build, mode, fair_s, rnd=rnd)
        for s in slices:
            print("== slice %d ms fair (12 flooders, %d s)" % (s, sweep_s), flush=True)
            scenario("sweep", "fair", s, FLOODERS, sweep_s)
        print("== fifo reference for the sweep (12 flooders, %d s)" % sweep_s, flush=True)
        scenario("sweep", "fifo", 5, FLOODERS, sweep_s)
    finally:
        procs.stop_all()
    meta["elapsed_s"] = round(time.time() - began, 1)

    # ---- raw CSVs -------------------------------------------------------------------
    def scen_name(s):
        return "%s-%s" % (s[0], s[1]) if s[0] != "sweep" else "sweep-%s-%dms" % (s[1], s[2])

    files = {}

    def write(name, header, rows):
        path = os.path.join(out, "scheduler-%s.csv" % name)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(rows)
        files[name] = path

    write("echo", ["scenario", "mode", "slice_ms", "flooders", "round", "seq", "due_ns",
                   "send_ns", "recv_ns", "exec_ns", "display_ns"],
          [[scen_name(s), s[1], s[2], s[3], s[8], r["seq"], r["due_ns"], r["send_ns"],
            r["recv_ns"], r["exec_ns"], r["display_ns"]] for s in scen for r in s[4]])
    write("anim", ["scenario", "mode", "slice_ms", "flooders", "round", "frame", "due_ns",
                   "issue_ns", "exec_ns", "display_ns"],
          [[scen_name(s), s[1], s[2], s[3], s[8], r["frame"], r["due_ns"], r["issue_ns"],
            r["exec_ns"], r["display_ns"]] for s in scen for r in s[5]])
    # Per round, then pooled: the table describes the samples of all rounds
    # of a scenario together (frame intervals within each round only), the
    # flooders' throughput and CPU waits as the median of the rounds.
    per_round = {}
    for s in scen:
        m, lost = metrics(s[4], s[5])
        per_round.setdefault(scen_name(s), []).append((m, lost, s))
    summary = []
    table = {}
    for name, rs in per_round.items():
        m = {k: np.concatenate([r[0][k] for r in rs]) for k in METRICS}
        lost = {k: sum(r[1][k] for r in rs) for k in rs[0][1]}
        s0 = rs[0][2]
        delay = {w: float(np.median([r[2][7].get(w, float("nan")) for r in rs]))
                 for w in s0[7]}
        s = s0[:6] + (float(np.median([r[2][6] for r in rs])), delay, len(rs))
        table[name] = (m, lost, s)
    for name, (m, lost, s) in table.items():
        for k in METRICS:
            d = describe(m[k])
            summary.append([name, s[1], s[2], s[3], s[8], k, d["n"], "%.3f" % d["mean"],
                            "%.3f" % d["p50"], "%.3f" % d["p90"], "%.3f" % d["p99"],
                            "%.3f" % d["max"], "%.3f" % d["sd"], "%.0f" % s[6],
                            lost["not_received"], lost["frames_not_executed"],
                            "%.1f" % s[7].get("smtwc", float("nan")),
                            "%.1f" % s[7].get("rubberband", float("nan")),
                            "%.1f" % s[7].get("anim", float("nan"))])
    write("summary", ["scenario", "mode", "slice_ms", "flooders", "rounds", "metric", "n",
                      "mean_ms",
                      "p50_ms", "p90_ms", "p99_ms", "max_ms", "sd_ms",
                      "flooder_commands_per_s", "events_not_received",
                      "frames_not_executed", "smtwc_cpu_wait_ms_per_s",
                      "rubberband_cpu_wait_ms_per_s", "anim_cpu_wait_ms_per_s"], summary)
    write("fairness", ["mode", "round", "client", "seconds", "sched_time_ms", "share_time",
                       "commands", "share_commands"],
          [[r["mode"], r["round"], r["client"], r["seconds"], r["sched_time_ms"],
            "%.4f" % r["share_time"], r["commands"], "%.4f" % r["share_commands"]]
           for r in fairness])
    write("machine", ["key", "value"],
          [[k, json.dumps(v) if not isinstance(v, str) else v] for k, v in meta.items()])

    # ---- the table ------------------------------------------------------------------
    lines = []
    p = lines.append
    p("machine: %s, %s, %d cores, kernel %s; %s" % (meta["machine"], meta["cpu"], meta["cores"],
                                                   meta["kernel"], meta["output"]))
    p("params: %d flooders (smt-plaid), rubber band %d Hz, animation every %d ms, slice 5 ms, "
      "%s s measured (idle/flood), flood fair and fifo in %d rounds (pooled below), "
      "warm-up %d s%s" % (FLOODERS, 100, 15, "%d/%dx%d" % (idle_s, flood_s, rounds), rounds,
                          warm, ", QUICK" if args.quick else ", SMOKE" if args.smoke else ""))
    cols = ["idle-fair", "idle-fifo", "flood-fair", "flood-fifo", "flood-rare-present-fair"]
    p("")
    p("| metric (ms) | stat | " + " | ".join(cols) + " |")
    p("|---|---|" + "---|" * len(cols))
    for k in METRICS:
        ds = [describe(table[c][0][k]) for c in cols]
        stats = ["mean", "p50", "p90", "p99", "max"] + (["sd"] if "interval" in k else [])
        for st in stats:
            p("| %s | %s | %s |" % (k if st == "mean" else "", st,
                                     " | ".join("%.2f" % d[st] for d in ds)))
    p("| flooder throughput | commands/s | " +
      " | ".join("%.0f" % table[c][2][6] for c in cols) + " |")
    def rd(c, who):
        return table[c][2][7].get(who, float("nan"))
    for who in ("smtwc", "rubberband", "anim"):
        p("| %s waiting for a CPU | ms per s | " % who +
          " | ".join("%.1f" % rd(c, who) for c in cols) + " |")
    p("| events not received | count | " + " | ".join(
        "%d/%d" % (table[c][1]["not_received"], table[c][1]["events"]) for c in cols) + " |")
    p("| frames not executed | count | " + " | ".join(
        "%d/%d" % (table[c][1]["frames_not_executed"], table[c][1]["frames"]) for c in cols)
      + " |")
    p("")
    p("fairness (4 flooders, %d s per round, share of scheduler run time):" % fair_s)
    for mode in ("fair", "fifo"):
        for rnd in range(rounds):
            sh = [r["share_time"] * 100 for r in fairness if r["mode"] == mode and
                  r["round"] == rnd]
            p("  %s round %d: %s" % (mode, rnd + 1, " ".join("%.1f%%" % x for x in sh)))
    p("")
    p("slice sweep (fair, %d flooders, %d s each):" % (FLOODERS, sweep_s))
    p("| slice ms | echo mean | echo p50 | echo p99 | echo sd | frame sd | drawing mean | "
      "flooder commands/s | smtwc waiting for a CPU, ms/s |")
    p("|---|---|---|---|---|---|---|---|---|")
    sweep = [s for s in scen if s[0] == "sweep"]
    for s in sweep:
        m, _, _ = table[scen_name(s)]
        e, fi, dr = describe(m["echo"]), describe(m["frame-interval"]), describe(m["drawing"])
        p("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f | %.1f |" % (
            "%d" % s[2] if s[1] == "fair" else "fifo", e["mean"], e["p50"], e["p99"], e["sd"],
            fi["sd"], dr["mean"], s[6],
            s[7].get("smtwc", float("nan"))))
    text = "\n".join(lines)
    print()
    print(text)
    with open(os.path.join(out, "scheduler-table.md"), "w") as f:
        f.write(text + "\n")

    # ---- targets --------------------------------------------------------------------
    # Each judged on the 95% interval of its per-round figure (verdict.py):
    # latencies and the frame interval's sd in proportion (log), fair's
    # throughput against fifo's of the same round (paired), fairness as
    # each round's largest distance of a share from 25%.
    def per(name, f):
        return [f(m, lost, s) for m, lost, s in per_round.get(name, [])]

    def pct(m, k, q):
        return float(np.percentile(m[k], q)) if m[k].size else float("nan")

    def positive(v):
        return [x for x in v if x == x and x > 0]

    tally = V.Tally()
    p50 = V.value_interval(positive(per("flood-fair", lambda m, l, s: pct(m, "echo", 50))))
    p99 = V.value_interval(positive(per("flood-fair", lambda m, l, s: pct(m, "echo", 99))))
    fsd = V.value_interval(positive(per("flood-fair", lambda m, l, s:
                                        float(m["frame-interval"].std())
                                        if m["frame-interval"].size else float("nan"))))
    thr = {(s[1], s[8]): s[6] for s in scen if s[0] == "flood"}
    both = [r for r in range(rounds) if thr.get(("fair", r), 0) > 0 and
            thr.get(("fifo", r), 0) > 0]
    ratio = V.ratio_interval([thr[("fair", r)] for r in both], [thr[("fifo", r)] for r in both]) \
        if both else None
    dev = []
    for rnd in range(rounds):
        sh = [r["share_time"] for r in fairness if r["mode"] == "fair" and r["round"] == rnd]
        if len(sh) == 4:
            dev.append(max(abs(x - 0.25) for x in sh))
    worst = V.value_interval(dev, log=False, scale=0.05) if dev else None
    checks = [
        ("fair echo p50 <= 2 ms", p50, 2.0, False, "ms"),
        ("fair echo p99 <= 8 ms", p99, 8.0, False, "ms"),
        ("fair frame interval sd <= 2 ms", fsd, 2.0, False, "ms"),
        ("fair flooder throughput >= 95% of fifo", ratio, 0.95, True, "x fifo"),
        ("4 flooders 25% +/- 5% each (fair): largest distance from 25% <= 0.05", worst, 0.05,
         False, ""),
    ]
    print("\ntargets (median [95%% interval] of %d rounds):" % rounds)
    for name, iv, th, higher, unit in checks:
        res = tally.judge(name, iv, th, higher)
        print("  %-4s %-66s %s %s%s" % (V.short(res), name,
                                        iv.text(3) if iv is not None else "-", unit,
                                        "  (spread too wide to judge)"
                                        if iv is not None and iv.wide else ""))
    print(tally.summary())
    print(V.load_text(load_before, V.loadavg()))
    print("Reading: " + V.METHOD)
    with open(os.path.join(out, "scheduler-table.md"), "a") as f:
        f.write("\ntargets (median [95%% interval] of %d rounds):\n" % rounds)
        for name, iv, th, higher, res in tally.rows:
            f.write("  %-4s %-66s %s\n" % (V.short(res), name,
                                           iv.text(3) if iv is not None else "-"))
        f.write(tally.summary() + "\n" + V.load_text(load_before, V.loadavg()) + "\n")
    files["verdicts"] = os.path.join(out, "scheduler-verdicts.csv")
    tally.write(files["verdicts"])

    # ---- plots ----------------------------------------------------------------------
    def cdf(ax, v, label):
        v = np.sort(np.asarray(v))
        if v.size:
            ax.plot(v, np.arange(1, v.size + 1) / v.size, label=label)

    plots = {}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, k in zip(axes, ["receipt", "echo", "echo-display"]):
        for c in cols:
            cdf(ax, table[c][0][k], c)
        ax.set_xscale("log")
        ax.set_xlabel("%s latency (ms, log)" % k)
        ax.set_ylabel("fraction of events")
        ax.grid(True, which="both", alpha=.3)
        ax.legend(fontsize=8)
    fig.suptitle("Rubber band (100 Hz virtual pointer), idle and with %d flooders" % FLOODERS)
    fig.tight_layout()
    plots["echo-cdf"] = os.path.join(out, "scheduler-echo-cdf.png")
    fig.savefig(plots["echo-cdf"], dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
    for c in cols:
        cdf(axes[0], table[c][0]["drawing"], c)
        cdf(axes[1], table[c][0]["drawing-display"], c)
    for ax, k in zip(axes, ["drawing (issue -> PRESENT executed)",
                            "drawing (issue -> displayed)"]):
        ax.set_xscale("log")
        ax.set_xlabel(k + ", ms, log")
        ax.set_ylabel("fraction of frames")
        ax.grid(True, which="both", alpha=.3)
        ax.legend(fontsize=8)
    fig.suptitle("Animation (a frame every 15 ms): drawing latency")
    fig.tight_layout()
    plots["drawing-cdf"] = os.path.join(out, "scheduler-drawing-cdf.png")
    fig.savefig(plots["drawing-cdf"], dpi=90)
    plt.close(fig)

    fig, axes = plt.subplots(1, len(cols), figsize=(4 * len(cols), 4), sharey=False)
    for ax, c in zip(axes, cols):
        v = table[c][0]["frame-interval"]
        if v.size:
            hi = max(40.0, float(np.percentile(v, 99.5)))
            ax.hist(np.clip(v, 0, hi), bins=80, range=(0, hi))
        d = describe(v)
        ax.set_title("%s: mean %.1f, sd %.2f ms" % (c, d["mean"], d["sd"]), fontsize=9)
        ax.set_xlabel("frame interval (ms; PRESENT executed)")
        ax.set_yscale("log")
    axes[0].set_ylabel("frames (log)")
    fig.suptitle("Animation frame intervals (nominal 15 ms)")
    fig.tight_layout()
    plots["frame-hist"] = os.path.join(out, "scheduler-frame-hist.png")
    fig.savefig(plots["frame-hist"], dpi=90)
    plt.close(fig)

    fair_sw = [s for s in sweep if s[1] == "fair"]
    fifo_sw = [s for s in sweep if s[1] == "fifo"]
    if fair_sw:
        xs = [s[2] for s in fair_sw]
        fig, axes = plt.subplots(1, 3, figsize=(16, 4.5))
        for key, lab in (("receipt", "receipt"), ("echo", "echo (-> executed)"),
                         ("echo-display", "echo (-> displayed)")):
            ds = [describe(table[scen_name(s)][0][key]) for s in fair_sw]
            axes[0].errorbar(xs, [d["mean"] for d in ds], yerr=[d["sd"] for d in ds],
                             marker="o", capsize=3, label=lab + " mean +/- sd")
        axes[0].plot(xs, [describe(table[scen_name(s)][0]["echo"])["p99"] for s in fair_sw],
                     "k--", marker="x", label="echo p99")
        axes[0].set_xscale("log")
        axes[0].set_xticks(xs)
        axes[0].set_xticklabels([str(x) for x in xs])
        axes[0].set_xlabel("slice (ms)")
        axes[0].set_ylabel("ms")
        axes[0].set_title("Rubber band latency vs slice (cf. seed fig. 3)", fontsize=9)
        axes[0].legend(fontsize=7)
        axes[0].grid(True, alpha=.3)
        for key, lab in (("drawing", "drawing latency"), ("frame-interval", "frame interval")):
            ds = [describe(table[scen_name(s)][0][key]) for s in fair_sw]
            axes[1].errorbar(xs, [d["mean"] for d in ds], yerr=[d["sd"] for d in ds],
                             marker="o", capsize=3, label=lab + " mean +/- sd")
        axes[1].set_xscale("log")
        axes[1].set_xticks(xs)
        axes[1].set_xticklabels([str(x) for x in xs])
        axes[1].set_xlabel("slice (ms)")
        axes[1].set_title("Animation vs slice (cf. seed fig. 4)", fontsize=9)
        axes[1].legend(fontsize=7)
        axes[1].grid(True, alpha=.3)
        axes[2].plot(xs, [s[6] for s in fair_sw], marker="o", label="fair")
        if fifo_sw:
            axes[2].axhline(fifo_sw[0][6], color="r", ls="--", label="fifo")
        axes[2].set_xscale("log")
        axes[2].set_xticks(xs)
        axes[2].set_xticklabels([str(x) for x in xs])
        axes[2].set_xlabel("slice (ms)")
        axes[2].set_ylabel("flooder commands/s (sum of 12)")
        axes[2].set_ylim(bottom=0)
        axes[2].set_title("Throughput vs slice (cf. seed fig. 5)", fontsize=9)
        axes[2].legend(fontsize=7)
        axes[2].grid(True, alpha=.3)
        fig.tight_layout()
        plots["slices"] = os.path.join(out, "scheduler-slices.png")
        fig.savefig(plots["slices"], dpi=90)
        plt.close(fig)

    if args.docs:
        for name, path in list(files.items()):
            dst = os.path.join(REPO, "docs", "bench", os.path.basename(path))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(path, dst)
        for name, path in plots.items():
            dst = os.path.join(REPO, "docs", "plots", os.path.basename(path))
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy(path, dst)
    print("\nresults in %s (%s s): CSV %s; plots %s" % (
        out, meta["elapsed_s"], ", ".join(os.path.basename(f) for f in files.values()),
        ", ".join(os.path.basename(f) for f in plots.values())))
    if args.docs:
        print("copied to docs/bench/ and docs/plots/")


if __name__ == "__main__":
    main()
