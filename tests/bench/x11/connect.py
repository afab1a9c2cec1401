#!/usr/bin/env python3
"""What opening an X display costs with the ring's handshake, and with its
fallback when the X server serves no rings (docs/x11.md, "When the X server
serves no rings").

    tests/bench/x11/connect.py [--rounds R] [--starts N] [--smoke] [--out DIR]
                               [--no-write] [--smtwc PATH]

Two kinds of headless smtwc session: as usual (its Xwayland has the ring's
server half) and one whose smt-xwayland finds no server half (so the shim's
hello is closed by Xwayland and it reconnects). Every round starts a fresh
session of each kind (a fresh compositor and Xwayland, so that the rounds
also sample what changes between sessions, not only within one). In each,
a short X program (`xdpyinfo -queryExtensions`: connect, setup, a round
trip per extension, close) is started N times in a row with the shim as the
session preloads it and N times with SMT_X11RING=off, the order
alternating per round. The table gives the median over rounds of the mean
time per start with its 95% interval, and the ratio against the same
round's socket runs (paired by round) with its 95% interval; the targets
(a start through the ring, and through the fallback, at most 1.1x the
socket's) are judged on those intervals (tests/bench/verdict.py).

Writes DIR/x11connect.csv and DIR/x11connect-verdicts.csv (DIR:
build/bench; verdict.py compare A B compares two runs); unless --no-write,
also the table between the bench markers in docs/x11.md and the CSV into
docs/bench/. --smoke (the test suite's run): two rounds of 5 starts (the
fewest that give an interval).
"""
import argparse
import csv
import datetime
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import verdict as V  # noqa: E402
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BEGIN, END = "<!-- bench:x11connect begin -->", "<!-- bench:x11connect end -->"
PROGRAM = ["xdpyinfo", "-queryExtensions"]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--starts", type=int, default=40, help="program starts per variant and round")
    ap.add_argument("--smoke", action="store_true", help="two rounds of 5 starts, nothing to docs")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-write", action="store_true", help="leave docs/x11.md alone")
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.starts, args.no_write = 2, 5, True
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


# A start through the ring (the hello and its ack), and through the
# fallback (the hello closed, one more connection), against the socket: a
# program opening its display should not notice the ring. Within 10% of
# the socket's start, the noise of a start on a quiet machine (no issue set
# a figure; this is the benchmark's own).
TARGET = 1.1


def round_of(h, args, label, env, rnd):
    """One round in a fresh session: {ring: mean seconds per start}."""
    with Session(h, f"{label}-{rnd}", x11=True, start=False) as s:
        s.env.update(env)
        s.start()
        s.run(PROGRAM, timeout=60)  # Xwayland up before anything is timed
        secs = {}
        for ring in ((True, False) if rnd % 2 == 0 else (False, True)):
            secs[ring] = starts(s, args.starts, ring)
        s.check_alive()
    return secs


def row(session, variant, secs, ref, tally):
    """A variant's figures; against the socket (ref: the same rounds'
    socket starts) a ratio paired by round, judged if it is not the
    socket itself."""
    iv = V.value_interval([v * 1000 for v in secs])
    r = {"session": session, "variant": variant, "ms_per_start": round(iv.median, 2),
         "ms_lo": round(iv.lo, 2) if iv.decided else "",
         "ms_hi": round(iv.hi, 2) if iv.decided else "",
         "rounds_min_ms": round(min(secs) * 1000, 2),
         "rounds_max_ms": round(max(secs) * 1000, 2), "rounds": len(secs)}
    ratio = V.ratio_interval(secs, ref)
    r.update({"vs_socket": round(ratio.median, 3),
              "vs_socket_lo": round(ratio.lo, 3) if ratio.decided else "",
              "vs_socket_hi": round(ratio.hi, 3) if ratio.decided else ""})
    if secs is not ref:
        v = tally.judge(f"{variant} / socket <= {TARGET:g}", ratio, TARGET, higher=False)
        r["target"] = f"<= {TARGET:g}: {V.short(v)}" + (" (wide)" if ratio.wide else "")
    else:
        r["target"] = ""
    r["_iv"], r["_ratio"] = iv, ratio
    return r


def table(rows, args, tally, load_before):
    head = (f"`{' '.join(PROGRAM)}` started {args.starts} times in a row per variant and "
            f"round, {args.rounds} rounds, each in a fresh session (compositor and Xwayland) "
            f"of each kind, alternating the order; median of the rounds' mean time per start "
            f"[95% interval], and its ratio to the same rounds' socket starts (paired by "
            f"round). {benchenv.machine()}, {V.load_text(load_before, V.loadavg())}. "
            f"{datetime.date.today()}.")
    lines = [head, "",
             "| Xwayland | shim | ms per start [95%] | rounds (ms) | / socket [95%] | target |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['session']} | {r['variant']} | {r['_iv'].text(2)} | "
                     f"{r['rounds_min_ms']:.2f} .. {r['rounds_max_ms']:.2f} | "
                     f"{r['_ratio'].text(2)} | {r['target']} |")
    lines += ["", f"{tally.summary()}. Reading: {V.METHOD}."]
    return "\n".join(lines)


def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    load_before = V.loadavg()
    missing = os.path.join(out, "no-such-dir", "libsmt-x11ring-server.so")
    with_half = {True: [], False: []}
    without = {True: [], False: []}
    for rnd in range(args.rounds):
        # The two kinds alternate too, so that drift hits both alike.
        kinds = [("with-half", {}, with_half),
                 ("without-half", {"SMT_X11RING_SERVER_LIB": missing}, without)]
        for label, env, acc in (kinds if rnd % 2 == 0 else kinds[::-1]):
            for ring, secs in round_of(h, args, label, env, rnd).items():
                acc[ring].append(secs)
        log(f"round {rnd + 1}/{args.rounds}: with the half ring {with_half[True][-1] * 1e3:.2f} "
            f"socket {with_half[False][-1] * 1e3:.2f} ms; without: fallback "
            f"{without[True][-1] * 1e3:.2f} socket {without[False][-1] * 1e3:.2f} ms")
    tally = V.Tally()
    rows = [row("with the server half", "ring (handshake, attached)", with_half[True],
                with_half[False], tally),
            row("with the server half", "SMT_X11RING=off", with_half[False], with_half[False],
                tally),
            row("without the server half", "fallback (hello closed, reconnected)",
                without[True], without[False], tally),
            row("without the server half", "SMT_X11RING=off", without[False], without[False],
                tally)]
    text = table(rows, args, tally, load_before)
    print("\n" + text + "\n")
    rows = [{k: v for k, v in r.items() if not k.startswith("_")} for r in rows]
    with open(os.path.join(out, "x11connect.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    tally.write(os.path.join(out, "x11connect-verdicts.csv"))
    log(f"results in {out}/x11connect.csv, verdicts in {out}/x11connect-verdicts.csv")
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
