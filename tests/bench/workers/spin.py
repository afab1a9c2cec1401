#!/usr/bin/env python3
"""Ring worker threads (issue 28): one client's streaming case (smt-perf,
put100 by default) per [scheduler] setting, side by side, with the counts
that say how the compositor waited for it.

    tests/bench/workers/spin.py [--rounds R] [--seconds S] [--case put100] [--clients N]
                                [--build DIR] [--base NAME=DIR ...]
                                [--settings 0,1,2,2@NAME,...] [--out DIR]

A setting is WORKERS[:NICE][@NAME] as in echo.py. Each round runs every
setting on a fresh compositor, in an order alternating by round. Printed per
setting: objects/s (the processes' objects over their common span, as
report.py; median and range over rounds; ratio to the first setting, paired
by round), smt-perf's wake-ups per 10k commands (c2s: the
client woke the compositor; s2c: the compositor woke the client), and per
10k commands the compositor's context switches (no warm-up: smt-perf's
commands are all the compositor ran) (voluntary / involuntary) of
its main thread and of its worker threads, its worker runs and their spins
on a dry ring (found work; skipped: another ring waited); the CPU
time of the main thread, of the workers (/proc/PID/task/TID/schedstat) and
of the clients (their rusage), and the workers' time waiting for a CPU.
"""
import argparse
import csv
import datetime
import os
import resource
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "bench", "interactive"))
sys.path.insert(0, os.path.join(REPO, "tests", "bench"))
sys.path.insert(0, HERE)
import run as I  # noqa: E402  (tests/bench/interactive/run.py)
import verdict as V  # noqa: E402
import echo as E  # noqa: E402
import numpy as np  # noqa: E402


def one(procs, build, tmp, workers, nice, case, seconds, tag, clients=1):
    I.WORKERS = workers
    # (a build without the key would refuse it: none unless asked)
    I.EXTRA_CONFIG = "worker-nice = %d\n" % nice if nice is not None else ""
    comp = I.Compositor(procs, build, "fair", 5)
    out_csv = os.path.join(tmp, "%s.csv" % tag)
    try:
        pid = comp.p.pid
        t0 = E.threads(pid)
        s0 = comp.stats().get("server", {})
        # (the clients are our only children reaped in between)
        u0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        # (started through procs: ended by pid whatever happens)
        runs = [procs.start([os.path.join(build, "clients", "smt-perf"), "-t", "ring", "-s",
                             str(seconds), "-w", "0", "-r", "1", "-c", case, "--csv",
                             out_csv + ".%d" % i], comp.env) for i in range(clients)]
        for p in runs:
            p.wait(seconds * 4 + 30)
            procs.stop(p)
        u1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t1 = E.threads(pid)
        s1 = comp.stats().get("server", {})
    finally:
        comp.close()
    rows = []
    for i in range(clients):
        with open(out_csv + ".%d" % i) as f:
            rows.append(next(csv.DictReader(line for line in f if not line.startswith("#"))))
    commands = sum(int(r["commands"]) for r in rows)
    main = E.delta(t0, t1, lambda t, c: t == str(pid))
    # (every other thread: a build before the threads were named has no
    # ring-worker; headless smtwc starts no other thread)
    workers_d = E.delta(t0, t1, lambda t, c: t != str(pid))
    # the processes' objects over their common span (report.py's total)
    span = (max(int(r["end_ns"]) for r in rows) - min(int(r["start_ns"]) for r in rows)) / 1e9
    return {
        "rate": sum(float(r["ops"]) for r in rows) / span,
        "clients_cpu": (u1.ru_utime + u1.ru_stime - u0.ru_utime - u0.ru_stime) * 1e3,
        "commands": commands,
        "c2s": sum(int(r["wakeups_c2s"]) for r in rows) * 1e4 / max(1, commands),
        "s2c": sum(int(r["wakeups_s2c"]) for r in rows) * 1e4 / max(1, commands),
        "main": main, "workers": workers_d,
        "runs": s1.get("worker_runs", 0) - s0.get("worker_runs", 0),
        # (a build before session 31 has no worker_spins_skipped: 0)
        "spins": [s1.get(k, 0) - s0.get(k, 0) for k in
                  ("worker_spins", "worker_spins_found", "worker_spins_skipped")],
        # (session 33: input watched for, the short pieces; 0 before)
        "watch": [s1.get(k, 0) - s0.get(k, 0) for k in
                  ("worker_watches", "worker_watch_pieces")],
    }


def label(s):
    """w=N nice M (nice default: the build's own), and the build's name."""
    return "w=%d nice %s%s" % (s[0], "default" if s[1] is None else s[1],
                              " " + s[2] if s[2] else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=1.0)
    ap.add_argument("--case", default="put100")
    ap.add_argument("--clients", type=int, default=1, help="smt-perf processes at once")
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--base", action="append", default=[],
                    help="NAME=DIR: another build for @NAME settings")
    ap.add_argument("--settings", default="0,1,2")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    settings = []
    for s in args.settings.split(","):
        s, _, b = s.partition("@")
        w, _, n = s.partition(":")
        # (no :NICE: the build's default, nothing written)
        settings.append((int(w), int(n) if n else None, b))
    bases = dict(b.split("=", 1) for b in args.base)
    out = args.out or os.path.join(args.build, "bench", "workers-spin-" +
                                   datetime.datetime.now().strftime("%Y%m%d-%H%M%S"))
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="raw-", dir=out)
    procs = I.Procs()
    res = {s: [] for s in settings}
    load_before = V.loadavg()
    try:
        for rnd in range(args.rounds):
            order = settings if rnd % 2 == 0 else list(reversed(settings))
            for (w, n, b) in order:
                tag = "w%d-n%s-%s-r%d" % (w, n, b or "tree", rnd)
                res[(w, n, b)].append(one(procs, bases[b] if b else args.build, tmp, w, n,
                                          args.case, args.seconds, tag, args.clients))
            print("round %d of %d done" % (rnd + 1, args.rounds), file=sys.stderr, flush=True)
    finally:
        procs.stop_all()
    first = settings[0]
    lines = ["# %s, %d ring client(s) (objects/s: their sum), %d rounds of %.1f s; load before "
             "%s, after %s" % (args.case, args.clients, args.rounds, args.seconds, load_before, V.loadavg()),
        "# objects/s median (range); ratio to %s paired by round: median (range); per 10k "
        "commands: wake-ups, context switches vol/invol, worker runs, the workers' spins on a dry ring (those that found work, those skipped because a ring waited); CPU ms per 10k commands "
        "(/proc schedstat: the main thread, the workers; the clients' user+system); the "
        "workers' wait for a CPU, ms per 10k commands; input watched for (its short "
        "pieces), in all" % label(first)]
    lines.append("| setting | objects/s | ratio | c2s | s2c | main switches | worker switches "
                 "| worker runs | spins / found / skipped | CPU main / workers / clients "
                 "| workers waiting | watched (short pieces) |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in settings:
        rs = res[s]
        rates = [r["rate"] for r in rs]
        ratios = [r["rate"] / f["rate"] for r, f in zip(rs, res[first])]

        def per10k(f):
            return np.median([f(r) * 1e4 / max(1, r["commands"]) for r in rs])
        lines.append("| %s | %.0f (%.0f-%.0f) | %.3f (%.3f-%.3f) | %.0f | %.0f | "
                     "%.0f / %.0f | %.0f / %.0f | %.0f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.0f | "
                     "%d (%d) |" % (
                         label(s), np.median(rates), min(rates),
                         max(rates), np.median(ratios), min(ratios), max(ratios),
                         np.median([r["c2s"] for r in rs]), np.median([r["s2c"] for r in rs]),
                         per10k(lambda r: r["main"][1]), per10k(lambda r: r["main"][2]),
                         per10k(lambda r: r["workers"][1]), per10k(lambda r: r["workers"][2]),
                         per10k(lambda r: r["runs"]),
                         per10k(lambda r: r["spins"][0]), per10k(lambda r: r["spins"][1]),
                         per10k(lambda r: r["spins"][2]),
                         per10k(lambda r: r["main"][3]), per10k(lambda r: r["workers"][3]),
                         per10k(lambda r: r["clients_cpu"]), per10k(lambda r: r["workers"][0]),
                         sum(r["watch"][0] for r in rs), sum(r["watch"][1] for r in rs)))
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "workers-spin.md"), "w") as f:
        f.write(text + "\n")
    print("results in %s" % out)


if __name__ == "__main__":
    main()
