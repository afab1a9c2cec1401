#!/usr/bin/env python3
"""What opening an X display costs with the ring's handshake, and with its
fallback when the X server serves no rings (docs/x11.md, "When the X server
serves no rings").

    tests/bench/x11/connect.py [--rounds R] [--starts N] [--smoke] [--out DIR]
                               [--no-write] [--smtwc PATH]

Two headless smtwc sessions: one as usual (its Xwayland has the ring's
server half) and one whose smt-xwayland finds no server half (so the shim's
hello is closed by Xwayland and it reconnects). In each, a short X program
(`xdpyinfo -queryExtensions`: connect, setup, a round trip per extension,
close) is started N times in a row with the shim as the session preloads it
and N times with SMT_X11RING=off, the order alternating per round. The table
gives the median over rounds of the mean time per start, the spread of the
rounds, and the ratio against the same session's socket runs.

Writes DIR/x11connect.csv (DIR: build/bench); unless --no-write, also the
table between the bench markers in docs/x11.md and the CSV into
docs/bench/. --smoke (the test suite's run): one round of 5 starts.
"""
import argparse
import csv
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BEGIN, END = "<!-- bench:x11connect begin -->", "<!-- bench:x11connect end -->"
PROGRAM = ["xdpyinfo", "-queryExtensions"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--starts", type=int, default=40, help="program starts per variant and round")
    ap.add_argument("--smoke", action="store_true", help="one round of 5 starts, nothing to docs")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-write", action="store_true", help="leave docs/x11.md alone")
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.starts, args.no_write = 1, 5, True
    benchenv.use_build(args.smtwc)
    return args


def starts(s, n, ring):
    """Mean seconds per start of PROGRAM over n starts in a row."""
    env = s.client_env(None if ring else {"SMT_X11RING": "off"})
    t0 = time.monotonic()
    for _ in range(n):
        subprocess.run(PROGRAM, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       check=True, cwd=s.tmp, timeout=harness.scaled(60))
    return (time.monotonic() - t0) / n


def measure(h, args, label, env):
    with Session(h, label, x11=True, start=False) as s:
        s.env.update(env)
        s.start()
        s.run(PROGRAM, timeout=60)  # Xwayland up before anything is timed
        rounds = {True: [], False: []}
        for r in range(args.rounds):
            for ring in ((True, False) if r % 2 == 0 else (False, True)):
                rounds[ring].append(starts(s, args.starts, ring))
        s.check_alive()
    return rounds


def row(session, variant, secs, ref):
    med = statistics.median(secs)
    return {"session": session, "variant": variant, "ms_per_start": round(med * 1000, 2),
            "rounds_min_ms": round(min(secs) * 1000, 2),
            "rounds_max_ms": round(max(secs) * 1000, 2),
            "vs_socket": round(med / statistics.median(ref), 3)}


def table(rows, args):
    load = os.getloadavg()[0]
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                   "?")
    head = (f"`{' '.join(PROGRAM)}` started {args.starts} times in a row per variant and "
            f"round, {args.rounds} rounds alternating the order; median of the rounds' mean "
            f"time per start. {cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}, "
            f"load average {load:.1f} at the end. {datetime.date.today()}.")
    lines = [head, "",
             "| Xwayland | shim | ms per start | rounds (ms) | / socket |",
             "|---|---|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['session']} | {r['variant']} | {r['ms_per_start']:.2f} | "
                     f"{r['rounds_min_ms']:.2f} .. {r['rounds_max_ms']:.2f} | "
                     f"{r['vs_socket']:.2f} |")
    return "\n".join(lines)



def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    with_half = measure(h, args, "with-half", {})
    missing = os.path.join(out, "no-such-dir", "libsmt-x11ring-server.so")
    without = measure(h, args, "without-half", {"SMT_X11RING_SERVER_LIB": missing})
    rows = [row("with the server half", "ring (handshake, attached)", with_half[True],
                with_half[False]),
            row("with the server half", "SMT_X11RING=off", with_half[False], with_half[False]),
            row("without the server half", "fallback (hello closed, reconnected)",
                without[True], without[False]),
            row("without the server half", "SMT_X11RING=off", without[False], without[False])]
    text = table(rows, args)
    print("\n" + text + "\n")
    with open(os.path.join(out, "x11connect.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    log(f"results in {out}/x11connect.csv")
    if not args.no_write:
        benchenv.write_doc_block("x11.md", text, BEGIN, END)
        shutil.copy(os.path.join(out, "x11connect.csv"),
                    os.path.join(ROOT, "docs", "bench", "x11connect.csv"))


def main():
    benchenv.require()
    args = parse_args()
    sys.argv = [sys.argv[0]]
    harness.main(lambda h: run(h, args))


if __name__ == "__main__":
    main()
