#!/usr/bin/env python3
"""Ring worker threads (issue 28): where the rubber band's echo waits among
12 smt-plaid flooders, per [scheduler] setting, side by side.

    tests/bench/workers/echo.py [--rounds R] [--seconds S] [--build DIR]
                                [--base NAME=DIR ...] [--settings 0,2,2:10,2@NAME,...]
                                [--out DIR] [--trace]

A setting is WORKERS[:NICE][@NAME] (`workers`, `worker-nice`: without
:NICE none is written, the build's default holds; @NAME: the compositor of
the build --base NAME=DIR names, e.g. of the parent commit). Each round runs
every setting on a fresh compositor (fair, 5 ms slices; seed 001's rubber
band at 100 Hz and animation every 15 ms on top of the flooders, as
tests/bench/interactive/run.py), in an order alternating by round. Printed
per setting: echo p50 / p99 / max (pooled rounds; p99's range over rounds;
the median and range of the rounds' maxima),
the animation's frame interval sd, the flooders' commands/s, and counts
that say where the echo's time goes, per second of the measured window:
time runnable but waiting for a CPU (/proc/PID/task/TID/schedstat) of the
compositor's main thread, of its worker threads together, of the rubber
band and of the animation; their context switches (voluntary and not,
/proc/.../status); and the scheduler's own wait of the rubber band's ring
(ready until picked, smtctl stats: mean and max); handoffs per second, the
main thread's spins (those that found ring work) and its CPU time.
--trace: the compositor's event trace per round (SMTWC_TRACE) beside the
clients' CSVs, for tests/bench/workers/trace.py.
"""
import argparse
import datetime
import os
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

WORKER_COMM = "ring-worker"  # RING_WORKERS_THREAD_NAME


def threads(pid):
    """{tid: (comm, run_delay_ms, voluntary, involuntary switches, cpu_ms)}."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for t in tids:
        try:
            base = "/proc/%d/task/%s/" % (pid, t)
            comm = open(base + "comm").read().strip()
            sched = open(base + "schedstat").read().split()
            cpu, delay = int(sched[0]) / 1e6, int(sched[1]) / 1e6
            vol = invol = 0
            for line in open(base + "status"):
                if line.startswith("voluntary_ctxt_switches"):
                    vol = int(line.split()[1])
                elif line.startswith("nonvoluntary_ctxt_switches"):
                    invol = int(line.split()[1])
            out[t] = (comm, delay, vol, invol, cpu)
        except (OSError, ValueError, IndexError):
            pass
    return out


def delta(a, b, pick):
    """Summed (delay, voluntary, involuntary, cpu_ms) of the threads `pick` keeps."""
    s = [0.0, 0, 0, 0.0]
    for t, v in b.items():
        if not pick(t, v[0]):
            continue
        o = a.get(t, (v[0], 0.0, 0, 0, 0.0))
        s[0] += v[1] - o[1]
        s[1] += v[2] - o[2]
        s[2] += v[3] - o[3]
        s[3] += v[4] - o[4]
    return s


def rb_sched(stats, pid):
    for c in stats["clients"]:
        if c.get("pid") == pid:
            return c
    return None


def label(s):
    """w=N nice M (nice default: the build's own), and the build's name."""
    return "w=%d nice %s%s" % (s[0], "default" if s[1] is None else s[1],
                              " " + s[2] if s[2] else "")


def one(procs, build, tmp, workers, nice, seconds, warmup, rnd, base, trace):
    I.WORKERS = workers
    # (a build without the key would refuse it: none unless asked)
    I.EXTRA_CONFIG = "worker-nice = %d\n" % nice if nice is not None else ""
    tag = "w%d-n%s-r%d%s" % (workers, nice, rnd, "-" + base if base else "")
    if trace:
        # the compositor's event trace (compositor/trace/trace.h), written
        # at its exit; trace.py reads it beside the clients' CSVs
        os.environ["SMTWC_TRACE"] = os.path.join(tmp, "trace-%s.txt" % tag)
    try:
        comp = I.Compositor(procs, build, "fair", 5)
    finally:
        os.environ.pop("SMTWC_TRACE", None)
    rb_csv = os.path.join(tmp, "rb-%s.csv" % tag)
    an_csv = os.path.join(tmp, "anim-%s.csv" % tag)
    res = {}
    try:
        fl = [comp.client("smt-plaid") for _ in range(I.FLOODERS)]
        I.wait_mapped(comp, I.FLOODERS)
        time.sleep(0.5)
        an = comp.client("smt-anim", "--seconds", str(seconds + 1), "--warmup", str(warmup),
                         "--csv", an_csv)
        time.sleep(0.5)
        rb = comp.client("smt-rubberband", "--seconds", str(seconds), "--warmup", str(warmup),
                         "--csv", rb_csv)
        time.sleep(warmup + 0.3)
        pid = comp.p.pid
        with open(os.path.join(tmp, "pids-%s.txt" % tag), "w") as f:
            f.write("rubberband %d\nanim %d\ncompositor %d\n" % (rb.pid, an.pid, pid))
        t0 = {"smtwc": threads(pid), "rb": threads(rb.pid), "an": threads(an.pid)}
        st0 = comp.stats()
        c0, s0 = I.flooder_counters(st0), time.monotonic()
        time.sleep(seconds)
        st1 = comp.stats()
        c1, s1 = I.flooder_counters(st1), time.monotonic()
        r1 = rb_sched(st1, rb.pid)
        t1 = {"smtwc": threads(pid), "rb": threads(rb.pid), "an": threads(an.pid)}
        span = s1 - s0
        main = str(pid)
        res["main"] = delta(t0["smtwc"], t1["smtwc"], lambda t, c: t == main)
        res["workers"] = delta(t0["smtwc"], t1["smtwc"], lambda t, c: c == WORKER_COMM)
        res["rubberband"] = delta(t0["rb"], t1["rb"], lambda t, c: True)
        res["anim"] = delta(t0["an"], t1["an"], lambda t, c: True)
        for k in ("main", "workers", "rubberband", "anim"):
            res[k] = [v / span for v in res[k]]
        res["nice_seen"] = sorted(set(
            int(open("/proc/%d/task/%s/stat" % (pid, t)).read().rsplit(")", 1)[1].split()[16])
            for t, v in t1["smtwc"].items() if v[0] == WORKER_COMM)) if workers else []
        for k in ("worker_preempts", "worker_reported", "worker_handoffs", "spins",
                  "spins_found_work", "worker_main_wakeups", "worker_posted_wakeups",
                  "presents_posted", "worker_posted_for_frame", "worker_watches",
                  "worker_watch_pieces", "worker_lane_runs"):
            res[k] = (st1.get("server", {}).get(k, 0) - st0.get("server", {}).get(k, 0)) / span
        res["cmds"] = sum(c1[k][0] - c0[k][0] for k in c1 if k in c0) / span
        for k in ("frames", "front_waits", "front_wait_ns", "front_copier_waits"):
            res[k] = (st1.get("render", {}).get(k, 0) - st0.get("render", {}).get(k, 0)) / span
        if r1:
            # (the ring's whole life: warm-up and the measured window)
            res["sched_wait"] = (r1.get("wait_mean_ms", 0.0), r1.get("wait_max_ms", 0.0))
        for p in (rb, an):
            try:
                p.wait(seconds + warmup + 30)
            except Exception:
                pass
            procs.stop(p)
        for p in fl:
            procs.stop(p)
    finally:
        comp.close()
    rb_rows = I.read_csv(rb_csv) if os.path.exists(rb_csv) else []
    an_rows = I.read_csv(an_csv) if os.path.exists(an_csv) else []
    m, lost = I.metrics(rb_rows, an_rows)
    res["echo"] = m["echo"]
    res["frame"] = m["frame-interval"]
    # (the echo and the frame intervals are stamped where the PRESENT ran:
    # since session 32 on the worker; these are the frames shown)
    res["echo_display"] = m["echo-display"]
    res["display"] = m["display-interval"]
    res["lost"] = lost
    return res


def judge_targets(settings, results):
    """Issue 28's interactivity targets, the default setting (online CPUs
    minus one worker, at least one; the build's worker-nice) against
    workers 0 ("today's"), each on the 95% interval of the ratio paired
    round by round (tests/bench/verdict.py): echo p50, p99 and a round's
    max at least 2x better, the animation's frame interval sd no worse.
    Nothing to judge unless both ran in this build."""
    default = (max(1, (os.cpu_count() or 2) - 1), None, "")
    today = (0, None, "")
    if default not in results or today not in results or len(results[today]) < 2:
        return []
    tally = V.Tally()
    out = ["# targets (issue 28), workers %d (the default) against 0, judged on the 95%% "
           "interval of the ratio paired by round:" % default[0]]
    pairs = [(a, b) for a, b in zip(results[today], results[default])
             if len(a["echo"]) and len(b["echo"]) and len(a["frame"]) and len(b["frame"])]

    def better(name, f):
        iv = V.ratio_interval([f(a) for a, _ in pairs], [f(b) for _, b in pairs])
        v = tally.judge(name, iv, 2.0)
        out.append("#   %s, 0/default >= 2: %s %s" % (name, iv.text(2), v))
    better("echo p50", lambda r: np.percentile(r["echo"], 50))
    better("echo p99", lambda r: np.percentile(r["echo"], 99))
    better("echo max of a round", lambda r: r["echo"].max())
    iv = V.ratio_interval([np.std(b["frame"]) for _, b in pairs],
                          [np.std(a["frame"]) for a, _ in pairs])
    v = tally.judge("frame interval sd", iv, 1.0, higher=False)
    out.append("#   frame interval sd, default/0 <= 1: %s %s" % (iv.text(2), v))
    out.append("# " + tally.summary())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4)
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--base", action="append", default=[],
                    help="NAME=DIR: another build for @NAME settings")
    ap.add_argument("--settings", default="0,1,2,1:10,2:10")
    ap.add_argument("--out", default=None)
    ap.add_argument("--trace", action="store_true",
                    help="record the compositor's event trace (SMTWC_TRACE) per round, "
                         "for tests/bench/workers/trace.py")
    args = ap.parse_args()
    settings = []
    for s in args.settings.split(","):
        s, at, b = s.partition("@")
        w, _, n = s.partition(":")
        # (no :NICE: the build's default, nothing written)
        settings.append((int(w), int(n) if n else None, b))
    bases = dict(b.split("=", 1) for b in args.base)
    out = args.out or os.path.join(args.build, "bench", "workers-echo-" +
                                   datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="raw-", dir=out)
    procs = I.Procs()
    results = {s: [] for s in settings}
    load_before = V.loadavg()
    try:
        for rnd in range(args.rounds):
            order = settings if rnd % 2 == 0 else list(reversed(settings))
            for (w, n, b) in order:
                print("== round %d/%d: workers %d, worker-nice %s%s" % (
                    rnd + 1, args.rounds, w, n, " (%s)" % b if b else ""), flush=True)
                results[(w, n, b)].append(one(procs, bases[b] if b else args.build, tmp, w, n,
                                              args.seconds, 1, rnd, b, args.trace))
    finally:
        procs.stop_all()
    lines = ["# 12 smt-plaid flooders, fair; %d rounds of %.0f s; load before %s, after %s" % (
        args.rounds, args.seconds, load_before, V.loadavg()),
        "# echo pooled over rounds [p99 range over rounds]; per second: ms waiting for a CPU, "
        "context switches voluntary/involuntary"]
    cols = [label(x) for x in settings]
    lines.append("| | " + " | ".join(cols) + " |")
    lines.append("|---|" + "---|" * len(cols))

    def row(name, f):
        lines.append("| %s | %s |" % (name, " | ".join(f(results[s]) for s in settings)))

    def pooled(rs, k):
        return np.concatenate([r[k] for r in rs]) if rs else np.array([])

    def pct(v, q):
        return np.percentile(v, q) if len(v) else float("nan")
    row("echo p50 (ms)", lambda rs: "%.2f" % pct(pooled(rs, "echo"), 50))
    row("echo p99 (ms)", lambda rs: "%.2f [%.2f-%.2f]" % (
        pct(pooled(rs, "echo"), 99), min(pct(r["echo"], 99) for r in rs),
        max(pct(r["echo"], 99) for r in rs)))
    row("echo max (ms)", lambda rs: "%.1f" % (pooled(rs, "echo").max()
                                              if len(pooled(rs, "echo")) else float("nan")))
    # (one sample: the rounds' own maxima say how far it moves by chance)
    row("echo max of a round (ms): median [range]", lambda rs: "%.1f [%.1f-%.1f]" % (
        np.median([r["echo"].max() for r in rs if len(r["echo"])]),
        min(r["echo"].max() for r in rs if len(r["echo"])),
        max(r["echo"].max() for r in rs if len(r["echo"]))))
    row("frame interval sd (ms)", lambda rs: "%.2f [%.2f-%.2f]" % (
        np.std(pooled(rs, "frame")), min(np.std(r["frame"]) for r in rs),
        max(np.std(r["frame"]) for r in rs)))
    row("echo to display p50 / p99 (ms)", lambda rs: "%.2f / %.2f" % (
        pct(pooled(rs, "echo_display"), 50), pct(pooled(rs, "echo_display"), 99)))
    row("display interval sd (ms)", lambda rs: "%.2f [%.2f-%.2f]" % (
        np.std(pooled(rs, "display")), min(np.std(r["display"]) for r in rs),
        max(np.std(r["display"]) for r in rs)))
    row("flooders' commands/s", lambda rs: "%.0f [%.0f-%.0f]" % (
        np.median([r["cmds"] for r in rs]), min(r["cmds"] for r in rs),
        max(r["cmds"] for r in rs)))
    for k in ("main", "workers", "rubberband", "anim"):
        row("%s: waiting for a CPU, ms/s" % k, lambda rs, k=k: "%.1f [%.1f-%.1f]" % (
            np.median([r[k][0] for r in rs]), min(r[k][0] for r in rs),
            max(r[k][0] for r in rs)))
        row("%s: switches/s vol / invol" % k, lambda rs, k=k: "%.0f / %.0f" % (
            np.median([r[k][1] for r in rs]), np.median([r[k][2] for r in rs])))
    row("rubber band's ring: scheduler wait mean / max (ms)", lambda rs: "%.3f / %.2f" % (
        np.median([r["sched_wait"][0] for r in rs if "sched_wait" in r] or [float("nan")]),
        max((r["sched_wait"][1] for r in rs if "sched_wait" in r), default=float("nan"))))
    row("runs asked to end early (worker_preempts)/s", lambda rs: "%.0f" % np.median(
        [r["worker_preempts"] for r in rs]))
    row("idle rings reported by workers/s", lambda rs: "%.0f" % np.median(
        [r["worker_reported"] for r in rs]))
    row("handoffs/s; main thread spins/s (found work)", lambda rs:
        "%.0f; %.0f (%.0f)" % (np.median([r["worker_handoffs"] for r in rs]),
                               np.median([r["spins"] for r in rs]),
                               np.median([r["spins_found_work"] for r in rs])))
    row("main: CPU ms/s", lambda rs: "%.1f" % np.median([r["main"][3] for r in rs]))
    row("main woken by workers/s (for a posted PRESENT); PRESENTs posted/s (left to a "
        "coming frame)", lambda rs:
        "%.0f (%.0f); %.0f (%.0f)" % (np.median([r["worker_main_wakeups"] for r in rs]),
                                      np.median([r["worker_posted_wakeups"] for r in rs]),
                                      np.median([r["presents_posted"] for r in rs]),
                                      np.median([r["worker_posted_for_frame"] for r in rs])))
    row("frames/s; frames that waited for a worker's band/s (ms/s); bands that waited "
        "for a frame/s", lambda rs: "%.0f; %.1f (%.3f); %.1f" % (
            np.median([r["frames"] for r in rs]), np.median([r["front_waits"] for r in rs]),
            np.median([r["front_wait_ns"] for r in rs]) / 1e6,
            np.median([r["front_copier_waits"] for r in rs])))
    row("input watched for/s (short pieces/s)", lambda rs: "%.0f (%.0f)" % (
        np.median([r["worker_watches"] for r in rs]),
        np.median([r["worker_watch_pieces"] for r in rs])))
    row("runs on the boost lane/s", lambda rs: "%.0f" % (
        np.median([r["worker_lane_runs"] for r in rs])))
    row("workers' nice seen", lambda rs: ",".join(str(x) for x in sorted(
        set(n for r in rs for n in r["nice_seen"]))) or "-")
    row("events not received", lambda rs: "%d/%d" % (
        sum(r["lost"]["not_received"] for r in rs), sum(r["lost"]["events"] for r in rs)))
    lines += judge_targets(settings, results)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "workers-echo.md"), "w") as f:
        f.write(text + "\n")
    print("results in %s" % out)


if __name__ == "__main__":
    main()
