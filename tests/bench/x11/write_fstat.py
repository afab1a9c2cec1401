#!/usr/bin/env python3
"""What an fstat on every X write would cost (session 41): x11perf through
the socket, through the ring, and through the ring with fstat-each-write.so
preloaded before the shim (one fstat ahead of every writev and sendmsg,
libxcb's writes: the mend session 40 named for a number closed by a raw
syscall and reused before the X server saw the close).

    tests/bench/x11/write_fstat.py [--rounds R] [--cases noop,prop,...] [--smtwc PATH]

Every round in a fresh session (compositor and Xwayland), the three
variants of a case one after another, their order turned each round. The
table: each variant's median rate over the rounds, its lowest and highest,
and the ratio ring+fstat / ring paired by round (median, lowest and
highest of the rounds' ratios). Nothing is written to docs.
"""
import argparse
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import harness  # noqa: E402
import ring  # noqa: E402  (tests/bench/x11/ring.py: its -reps calibration)
from harness import Session, build_program, check, log  # noqa: E402

RESULT = re.compile(r"^\s*\d+\s+reps\s+@.*\(\s*([0-9.]+)/sec\)")
VARIANTS = ("socket", "ring", "ring+fstat")


def one(s, case, reps, variant, preload):
    env = {"SMT_X11RING": "off"} if variant == "socket" else {}
    if variant == "ring+fstat":
        env["LD_PRELOAD"] = preload + " " + s.env["LD_PRELOAD"]
    p = s.spawn(["x11perf", "-repeat", str(reps[1] or 2), "-reps", str(reps[0]), "-" + case],
                name=f"x11perf-{case}", env=env)
    rc = p.wait(600)
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    rates = [float(m.group(1)) for m in map(RESULT.search, out.splitlines()) if m]
    check(rc == 0 and rates, f"x11perf -{case} ({variant}) exited with {rc}:\n{out[-1500:]}")
    conn = s.wait_until(lambda: [r for r in s.x11ring_closed() if r["pid"] == p.pid],
                        timeout=10, what=f"Xwayland to log x11perf -{case}'s close")[-1]
    want = "socket" if variant == "socket" else "ring"
    check(conn["transport"] == want, f"x11perf -{case} ({variant}): on {conn['transport']}")
    return rates[-1]


def run(h, args):
    preload = build_program("FSTAT_EACH_WRITE", "tests/bench/x11/fstat-each-write.so")
    check(os.path.exists(preload), f"{preload} not built")
    cases = args.cases.split(",")
    rates = {c: {v: [] for v in VARIANTS} for c in cases}
    load0 = os.getloadavg()
    with Session(h, "write-fstat-calibrate", x11=True) as s:
        s.run(["xdpyinfo"], timeout=60)
        # -reps (and -repeat) for about a second of timed work, found on
        # the socket as ring.py does.
        reps = {c: ring.calibrate(s, c, 1.0) for c in cases}
    log(f"-reps, -repeat: {reps}")
    for rnd in range(args.rounds):
        with Session(h, f"write-fstat-{rnd + 1}", x11=True) as s:
            s.run(["xdpyinfo"], timeout=60)
            for i, case in enumerate(cases):
                order = VARIANTS if (rnd + i) % 2 == 0 else tuple(reversed(VARIANTS))
                for v in order:
                    rates[case][v].append(one(s, case, reps[case], v, preload))
            log(f"round {rnd + 1}: " + "; ".join(
                f"{c} " + " ".join(f"{rates[c][v][-1]:.0f}" for v in VARIANTS) for c in cases))
    load1 = os.getloadavg()
    print(f"\nx11perf rates (/s), {args.rounds} rounds, each in a fresh session; load "
          f"{load0[0]:.1f} before, {load1[0]:.1f} after. median [lowest-highest].\n")
    print("| case | socket | ring | ring + fstat per write | ring+fstat / ring, paired by round |")
    print("|---|---:|---:|---:|---:|")
    for c in cases:
        cells = []
        for v in VARIANTS:
            r = rates[c][v]
            cells.append(f"{statistics.median(r):.0f} [{min(r):.0f}-{max(r):.0f}]")
        ratios = [f / r for f, r in zip(rates[c]["ring+fstat"], rates[c]["ring"])]
        cells.append(f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]")
        print(f"| -{c} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--cases", default="noop,rect1,prop,getimage10,putimage10")
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    benchenv.use_build(args.smtwc)
    sys.argv = [sys.argv[0]]
    harness.main(lambda h: run(h, args))


if __name__ == "__main__":
    main()
