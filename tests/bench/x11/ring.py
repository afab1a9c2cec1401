#!/usr/bin/env python3
"""X requests through the shared ring against the socket: x11perf on the
Xwayland of a headless smtwc, in one run: every round in a fresh session
(compositor and Xwayland), x11perf's -reps found once before the rounds.

    tests/bench/x11/ring.py [--rounds R] [--time S] [--reps N] [--repeat N]
                            [--cases a,b | --broad | --all] [--smoke] [--out DIR]
                            [--no-write] [--smtwc PATH] [--contend N [--contend-pin]]

For each round and case, x11perf runs once on the socket (SMT_X11RING=off)
and once through the ring, alternating which goes first; the table shows
medians, the ratio ring/socket, x11perfcomp-style, with seed 000's targets:
no case below 0.95x, -noop at least 1.3x, the geometric mean of the
transport-bound cases (fewer than 101 pixels: seed 000's own cut) at least
1.2x, fewer than 1 client-to-server eventfd write per 10,000 requests, and
round trips (-prop) not slower than the socket.

Where a case misses its target the table says why, measured: Xwayland's CPU
use during the case (a server at ~100% of a core is the limit whatever the
transport) and how often the client found the ring full (it waited for the
server to catch up).

Writes DIR/x11ring.csv and DIR/x11ring.png (DIR: build/bench); unless
--no-write, also the table between the bench markers of docs/x11.md and the
CSV and plot into docs/bench/ and docs/plots/. --smoke is the
test suite's run: two cases, one round of 1000 reps, nothing written to docs.

--broad is issue 23's broad run: one or two sizes of every family x11perf
has (BROAD, 44 cases: drawing, text, copies, images, MIT-SHM, window
operations, round trips); --all is every case this x11perf offers (read
from `x11perf -help`, about 310). The -reps of each case are found by short
probes on the socket (calibrate), not by x11perf's own -time calibration,
which took minutes per window case.
Their table, CSV and plot go to the x11ring-broad block, docs/bench/
x11ring-broad.csv and docs/plots/x11ring-broad.png, beside the default set's.
With --smoke they run three of their cases once, for the test suite.

--contend N adds a contended pair to every case of every round: the same
socket and ring runs again with N busy loops beside them (tests/bench/
contend.py; --contend-pin binds loop i to CPU i), started just before the
pair and stopped just after, so the quiet and the contended ratio of a
case are measured minutes apart in the same sessions. The table gets a
column for it and the targets a row each for "no case below 0.95x" and
the round trip under contention.
"""
import argparse
import csv
import datetime
import math
import os
import platform
import re
import resource
import shutil
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import contend  # noqa: E402
import harness  # noqa: E402
import verdict as V  # noqa: E402
from harness import Session, check, log  # noqa: E402

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
BEGIN, END = "<!-- bench:x11ring begin -->", "<!-- bench:x11ring end -->"
BROAD_BEGIN, BROAD_END = ("<!-- bench:x11ring-broad begin -->",
                          "<!-- bench:x11ring-broad end -->")
# (x11perf test, what it is, transport-bound: fewer than 101 pixels)
CASES = [
    ("noop", "X protocol NoOperation", True),
    ("dot", "Dot", True),
    ("rect1", "1x1 rectangle", True),
    ("rect10", "10x10 rectangle", True),
    ("rect100", "100x100 rectangle", False),
    ("seg1", "1-pixel line segment", True),
    ("seg10", "10-pixel line segment", True),
    ("seg100", "100-pixel line segment", False),
    ("copywinwin10", "Copy 10x10 from window to window", True),
    ("copywinwin100", "Copy 100x100 from window to window", False),
    ("ftext", "Char in 80-char line (6x13)", True),
    ("prop", "GetProperty (round trip)", False),
]
# Issue 23's broad run: every family, small sizes (where the transport
# matters) and one large one where the family is about images or copies.
BROAD = ["noop", "dot", "rect1", "rect10", "rect100", "srect10", "tilerect10", "seg1",
         "seg10", "dseg10", "hseg10", "line10", "wline10", "orect10", "circle10",
         "fcircle10", "ellipse10", "triangle10", "trap10", "aatrap10", "complex10",
         "64poly10complex", "ftext", "tr10text", "aa10text", "polytext", "scroll10",
         "copywinwin10", "copypixwin10", "copyplane10", "putimage10", "putimage100",
         "shmput10", "shmget10", "getimage10", "compwinwin10", "pointer", "prop", "gc",
         "create", "map", "move", "resize", "circulate"]
# A case is transport-bound (seed 000's cut: fewer than 101 pixels) when
# its size is 1 or 10, or it draws nothing.
BOUND_PATTERN = re.compile(r"(?<![0-9])(1|10)(text|complex|convex)?$|^(noop|dot|pointer|prop|"
                           r"gc|map|unmap|move|umove|circulate|ucirculate|create|ucreate|"
                           r"destroy|popup|resize|uresize|movetree|ftext|polytext)$")
RESULT = re.compile(r"\(\s*([0-9.]+)/sec\):\s*(.*)$")


def x11perf_cases():
    """Every test this x11perf offers, in its own order, with its label."""
    import subprocess
    out = subprocess.run(["x11perf", "-help"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True).stdout
    cases, tests = [], False
    for line in out.splitlines():
        m = re.match(r"^\s+-(\S+)\s+(.*)$", line)
        if not m:
            continue
        if m.group(1) == "bs":  # the last option; the tests follow
            tests = True
            continue
        if tests:
            cases.append((m.group(1), m.group(2).strip()))
    return cases


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=float, default=2,
                    help="seconds of timed work per run (-reps found by probing)")
    ap.add_argument("--reps", type=int, default=0, help="fixed x11perf -reps, no calibration")
    ap.add_argument("--repeat", type=int, default=2, help="x11perf -repeat")
    ap.add_argument("--cases", default=None, help="comma-separated x11perf tests")
    ap.add_argument("--broad", action="store_true",
                    help="issue 23's broad list (every family, small sizes)")
    ap.add_argument("--all", action="store_true", help="every case x11perf offers")
    ap.add_argument("--smoke", action="store_true",
                    help="noop and prop, one round of 1000 reps: the test suite's run")
    ap.add_argument("--out", default=None)
    ap.add_argument("--no-write", action="store_true", help="leave docs/x11.md alone")
    ap.add_argument("--smtwc", default=None)
    ap.add_argument("--contend", type=int, default=0,
                    help="also measure every pair with N busy loops beside it")
    ap.add_argument("--contend-pin", action="store_true",
                    help="pin busy loop i to CPU i (with --contend)")
    args = ap.parse_args()
    known = {c[0]: c for c in CASES}
    offered = x11perf_cases()
    for name, label in offered:
        known.setdefault(name, (name, label, bool(BOUND_PATTERN.search(name))))
    args.wide = args.broad or args.all
    wide = [n for n, _ in offered] if args.all else BROAD
    if args.smoke:
        args.rounds, args.repeat, args.no_write = 1, 1, True
        if args.wide:
            # The first and last of the list and -create (whose -reps
            # x11perf caps: the -repeat path), each probed for 50 ms of
            # work: the probing, the parsing, the table and the plot of
            # the wide run are what is checked.
            args.time, args.cases = 0.05, ",".join([wide[0], "create", wide[-1]])
        else:
            args.reps, args.cases = 1000, "noop,prop"
    names = args.cases.split(",") if args.cases else \
        wide if args.wide else [c[0] for c in CASES]
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"unknown cases {unknown}; known: {', '.join(known)}")
    args.case_list = [known[n] for n in names]
    args.omitted = []  # cases x11perf cannot set up on this server
    args.repeated = {}  # case: (reps, repeat) for the cases x11perf caps
    benchenv.use_build(args.smtwc)
    return args


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


# One x11perf result line: the objects it did ("N reps", or "N trep" for
# the average of -repeat runs) and its rate.
DONE = re.compile(r"^\s*(\d+) t?reps? @.*\(\s*([0-9.]+)/sec\)")
PROBE_S = 0.2       # timed work a calibration probe must reach before scaling
MAX_REPEAT = 100    # -repeat for a case x11perf caps (see calibrate)


def probe(s, case, reps):
    """One x11perf run of `reps` on the socket: (objects it did, seconds of
    timed work), or None when x11perf omits the case on this server (e.g.
    a font that is not on the session's font path)."""
    p = s.spawn(["x11perf", "-repeat", "1", "-reps", str(reps), "-" + case],
                name=f"x11perf-calibrate-{case}", env={"SMT_X11RING": "off"})
    rc = p.wait(600)
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    done = [m for m in map(DONE.search, out.splitlines()) if m]
    if rc == 0 and not done and "benchmark omitted" in out:
        return None
    check(rc == 0 and done, f"x11perf -{case} -reps {reps} failed ({rc}):\n{out[-1500:]}")
    # Some cases run several sizes in turn (-create: 4 .. 200 subwindows);
    # the last is the one measured (x11perf() takes the last rate).
    objects, rate = int(done[-1].group(1)), float(done[-1].group(2))
    return objects, objects / rate if rate > 0 else 0.0


def calibrate(s, case, seconds):
    """(-reps, -repeat or None for the default) that make about `seconds`
    of timed work per x11perf run, the same fixed work on both transports.

    Found by probing on the socket: runs of growing -reps until one times
    PROBE_S, then scaled. x11perf's own calibration (-time) was used
    before: about 9 s per case, and 4 to 7 minutes per run for -move,
    -resize and -circulate under this Xwayland, whose untimed setup (200
    subwindows per rep, mapped and exposed) it repeats while doubling its
    reps toward 2 s; that made --broad take an hour. A case whose -reps
    x11perf caps (the window cases create as many parents of 200
    subwindows as fit the screen, so -create and -map time about a
    millisecond whatever -reps says) is recognised by doing fewer objects
    than asked, and gets -repeat instead, up to MAX_REPEAT timed runs that
    x11perf averages: one run of a millisecond is one wake-up's noise."""
    first = probe(s, case, 1)
    if first is None:
        return None
    per_rep, timed = first
    reps = 1
    for _ in range(12):
        if timed >= PROBE_S:
            break
        want = int(reps * min(1000.0, max(2.0, 1.5 * PROBE_S / max(timed, 1e-7))))
        objects, t = probe(s, case, want)
        if objects < want * per_rep:
            return (max(1, objects // per_rep),
                    max(2, min(MAX_REPEAT, math.ceil(seconds / max(t, 1e-6)))))
        reps, timed = want, t
    return max(1, round(reps * seconds / max(timed, 1e-6))), None


def x11perf(s, args, case, reps, ring):
    """One x11perf run of reps = (-reps, -repeat or None): (rate, Xwayland's
    and x11perf's CPU shares, its connection's statistics as Xwayland
    logged them at its close)."""
    reps, repeat = reps
    xw = s.xwayland_pid()
    before_ticks, t0 = cpu_ticks(xw), time.monotonic()
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = s.spawn(["x11perf", "-repeat", str(repeat or args.repeat), "-reps", str(reps),
                 "-" + case],
                name=f"x11perf-{case}", env=None if ring else {"SMT_X11RING": "off"})
    rc = p.wait(600)
    wall = time.monotonic() - t0
    cpu = (cpu_ticks(xw) - before_ticks) / os.sysconf("SC_CLK_TCK") / wall
    ru2 = resource.getrusage(resource.RUSAGE_CHILDREN)  # x11perf, reaped just now
    client_cpu = (ru2.ru_utime + ru2.ru_stime - ru.ru_utime - ru.ru_stime) / wall
    s.clients.remove(p)
    with open(p.log_path) as f:
        out = f.read()
    check(rc == 0, f"x11perf -{case} exited with {rc}:\n{out[-1500:]}")
    rates = [float(m.group(1)) for m in map(RESULT.search, out.splitlines()) if m]
    check(rates, f"no result from x11perf -{case}:\n{out[-1500:]}")
    conn = s.wait_until(lambda: [r for r in s.x11ring_closed() if r["pid"] == p.pid],
                        timeout=10, what=f"Xwayland to log x11perf -{case}'s close")[-1]
    want = "ring" if ring else "socket"
    check(conn["transport"] == want, f"x11perf -{case}: expected the {want}, got {conn}")
    return rates[-1], cpu, client_cpu, conn


def measure(h, args):
    """The -reps of every case found once in a session of their own, then
    every round in a fresh session (compositor and Xwayland), so that the
    rounds also sample what changes between sessions, not only within one
    (docs/benchmarks.md, "Rounds")."""
    modes = [("socket", False), ("ring", False)]
    if args.contend:
        modes += [("socket", True), ("ring", True)]
    runs = {c[0]: {key(m, c2): [] for m, c2 in modes} for c in args.case_list}
    reps = {}
    with Session(h, "x11ring-calibrate", x11=True) as s:
        s.run(["xdpyinfo"], timeout=60)
        for case, _, _ in args.case_list:
            reps[case] = (args.reps, None) if args.reps else calibrate(s, case, args.time)
            if reps[case] is None:
                args.omitted.append(case)
                log(f"{case}: omitted (x11perf: benchmark omitted on this server)")
            else:
                if reps[case][1]:
                    args.repeated[case] = reps[case]
                log(f"{case}: -reps {reps[case][0]} -repeat {reps[case][1] or args.repeat} "
                    f"per run")
    args.case_list = [c for c in args.case_list if c[0] not in args.omitted]
    for rnd in range(args.rounds):
        with Session(h, f"x11ring-{rnd + 1}", x11=True) as s:
            s.run(["xdpyinfo"], timeout=60)  # Xwayland up before anything is timed
            for i, (case, _, _) in enumerate(args.case_list):
                order = ("socket", "ring") if (rnd + i) % 2 == 0 else ("ring", "socket")
                for contended in (False, True) if args.contend else (False,):
                    with contend.BusyLoops(args.contend if contended else 0,
                                           args.contend_pin) as loops:
                        for mode in order:
                            rate, cpu, client_cpu, conn = x11perf(s, args, case, reps[case],
                                                                  mode == "ring")
                            check(loops.alive() == loops.n, "a busy loop ended early")
                            runs[case][key(mode, contended)].append(
                                {"rate": rate, "cpu": cpu, "client_cpu": client_cpu, **conn})
                            log(f"round {rnd + 1}/{args.rounds} {case:14} "
                                f"{key(mode, contended):10} {rate:12.1f}/s  cpu: Xwayland "
                                f"{cpu * 100:5.1f}% x11perf {client_cpu * 100:5.1f}%")
    return runs


def key(mode, contended):
    """runs[case]'s key: 'socket', 'ring', or with the busy loops '+c'."""
    return mode + ("+c" if contended else "")


def summarize(runs, args):
    """Per case: medians, and ring/socket as the median of the per-round
    ratios with a 95% interval (both transports run in every round, one
    after the other: paired). The per-round figures go into the CSV too."""
    rows = []
    for case, what, bound in args.case_list:
        r = runs[case]
        socks = [x["rate"] for x in r["socket"]]
        rings = [x["rate"] for x in r["ring"]]
        iv = V.ratio_interval(rings, socks)
        reqs = sum(x["requests"] for x in r["ring"])
        writes = sum(x["client_wakeups_sent"] for x in r["ring"])
        full = sum(x["client_full_waits"] for x in r["ring"])
        rows.append({
            "case": case, "what": what, "transport_bound": bound,
            "socket_per_s": statistics.median(socks), "ring_per_s": statistics.median(rings),
            "ratio": iv.median, "ratio_lo": iv.lo, "ratio_hi": iv.hi, "rounds": iv.n,
            "socket_rounds": socks, "ring_rounds": rings,
            "requests": reqs,
            "eventfd_writes_per_10k": 1e4 * writes / reqs if reqs else 0.0,
            "full_waits_per_10k": 1e4 * full / reqs if reqs else 0.0,
            "requests_rounds": [x["requests"] for x in r["ring"]],
            "writes_rounds": [x["client_wakeups_sent"] for x in r["ring"]],
            "xwayland_cpu_socket": statistics.median(x["cpu"] for x in r["socket"]),
            "xwayland_cpu_ring": statistics.median(x["cpu"] for x in r["ring"]),
            "x11perf_cpu_socket": statistics.median(x["client_cpu"] for x in r["socket"]),
            "x11perf_cpu_ring": statistics.median(x["client_cpu"] for x in r["ring"]),
            **spin_outcomes(r["ring"], ""),
        })
        if args.contend:
            cs = [x["rate"] for x in r["socket+c"]]
            cr = [x["rate"] for x in r["ring+c"]]
            civ = V.ratio_interval(cr, cs)
            rows[-1].update({
                "contended_socket_per_s": statistics.median(cs),
                "contended_ring_per_s": statistics.median(cr),
                "contended_ratio": civ.median, "contended_ratio_lo": civ.lo,
                "contended_ratio_hi": civ.hi,
                "contended_socket_rounds": cs, "contended_ring_rounds": cr,
                "contended_xwayland_cpu_ring": statistics.median(
                    x["cpu"] for x in r["ring+c"]),
                "contended_eventfd_writes_per_10k": 1e4 * sum(
                    x["client_wakeups_sent"] for x in r["ring+c"]) / max(1, sum(
                        x["requests"] for x in r["ring+c"])),
                **spin_outcomes(r["ring+c"], "contended_"),
            })
    return rows


SPIN_OUTCOMES = ("found", "missed", "preempted", "skipped")


def spin_outcomes(ring_runs, prefix):
    """How Xwayland's spins before sleeping ended for this case's ring
    runs, per 10,000 requests (docs/x11.md, "The server-asleep flag, the
    spin, and wake-ups"): found input, ran out of time, lost the CPU, or
    not taken (backoff). Older server halves do not count them."""
    reqs = sum(x["requests"] for x in ring_runs)
    return {f"{prefix}spin_{k}_per_10k": 1e4 * sum(x.get(f"spin_{k}", 0) for x in ring_runs) /
            max(1, reqs) for k in SPIN_OUTCOMES}


def check_spin_counted(runs):
    """The suite's run: a round-tripping ring client (-prop) armed spins
    and each one is counted with how it ended; socket clients arm none."""
    for case, r in runs.items():
        for mode, xs in r.items():
            for x in xs:
                check(all(f"spin_{k}" in x for k in SPIN_OUTCOMES),
                      f"-{case} {mode}: no spin counters in Xwayland's statistics: {x}")
                n = sum(x[f"spin_{k}"] for k in SPIN_OUTCOMES)
                if mode.startswith("socket"):
                    check(n == 0, f"-{case} on the socket counted spins: {x}")
                elif case == "prop":
                    check(n > 0, f"-prop through the ring counted no spins: {x}")


def spin_text(r, prefix):
    return " / ".join(f"{r[f'{prefix}spin_{k}_per_10k']:.0f}" for k in SPIN_OUTCOMES)


def ratio_iv(r):
    return V.ratio_interval(r["ring_rounds"], r["socket_rounds"])


def contended_iv(r):
    return V.ratio_interval(r["contended_ring_rounds"], r["contended_socket_rounds"])


def targets(rows, contended=0):
    """(target, verdict, measured) lines, seed 000's rules, each judged on
    a 95% interval over the rounds (tests/bench/verdict.py)."""
    out = []
    tally = V.Tally()
    ivs = {r["case"]: ratio_iv(r) for r in rows}
    v, shown, text = V.every_case(ivs, 0.95, unit="x")
    tally.record("no case below 0.95x", shown, 0.95, True, v)
    out.append(("no case below 0.95x the socket", v, text))
    noop = [r for r in rows if r["case"] == "noop"]
    if noop:
        iv = ivs["noop"]
        out.append(("-noop at least 1.3x", tally.judge("noop", iv, 1.3), f"{iv.text(2)}x"))
    bound = [r for r in rows if r["transport_bound"]]
    if bound:
        # The geometric mean of each round's ratios over the bound cases:
        # one figure per round.
        n = min(len(r["ring_rounds"]) for r in bound)
        g = [math.exp(sum(math.log(r["ring_rounds"][k] / r["socket_rounds"][k])
                          for r in bound) / len(bound)) for k in range(n)]
        iv = V.value_interval(g)
        out.append(("geometric mean of transport-bound cases at least 1.2x",
                    tally.judge("geomean", iv, 1.2), f"{iv.text(2)}x over {len(bound)} cases"))
    n = min(len(r["requests_rounds"]) for r in rows)
    per_round = []
    for k in range(n):
        reqs = sum(r["requests_rounds"][k] for r in rows)
        if reqs:
            per_round.append(1e4 * sum(r["writes_rounds"][k] for r in rows) / reqs)
    iv = V.value_interval(per_round, log=False, scale=1.0) if per_round else None
    out.append(("fewer than 1 client-to-server eventfd write per 10,000 requests",
                tally.judge("eventfd", iv, 1.0, higher=False),
                f"{iv.text(2) if iv is not None else '-'} per 10,000"))
    prop = [r for r in rows if r["case"] == "prop"]
    if prop:
        iv = ivs["prop"]
        out.append(("round trips (-prop) not slower than the socket", tally.judge("prop", iv, 0.95),
                    f"{iv.text(2)}x"))
    if contended:
        civs = {r["case"]: contended_iv(r) for r in rows}
        worst = min(rows, key=lambda r: civs[r["case"]].lo if civs[r["case"]].decided
                    else r["contended_ratio"])
        v = V.all_of(V.verdict(civs[r["case"]], 0.95) for r in rows)
        tally.record("no case below 0.95x, contended", civs[worst["case"]], 0.95, True, v)
        out.append((f"no case below 0.95x the socket with {contended} busy loops", v,
                    f"lowest: {worst['case']} {civs[worst['case']].text(2)}x"))
        if prop:
            iv = civs["prop"]
            out.append((f"round trips (-prop) not slower than the socket with {contended} "
                        "busy loops", tally.judge("prop contended", iv, 0.95),
                        f"{iv.text(2)}x"))
    return out, tally


def why(r):
    """The measured reason a case is where it is."""
    if r["x11perf_cpu_socket"] >= 0.9 and r["x11perf_cpu_ring"] >= 0.9:
        return "client-bound: x11perf at a full core on both transports"
    if r["xwayland_cpu_socket"] >= 0.9 and r["xwayland_cpu_ring"] >= 0.9:
        return "server-bound: Xwayland at a full core on both transports"
    if r["full_waits_per_10k"] >= 1:
        return "client waited for room (server slower than the client)"
    return ""


def table(rows, args, machine, load_before=None):
    c = args.contend
    cloops = contend.BusyLoops(c, args.contend_pin)
    lines = [f"x11perf on smtwc's Xwayland (headless, pixman), {machine}; median of "
             f"{args.rounds} rounds, each in a fresh session (compositor and Xwayland), "
             f"alternating which transport runs first, each the average "
             f"of x11perf -repeat {args.repeat} with a fixed -reps (about {args.time} s of timed "
             f"work, found by probing on the socket); the ratio is the median of the "
             f"rounds' ratios with its 95% interval. {V.load_text(load_before, V.loadavg())}. "
             + (f"Contended: each pair measured again with {cloops.text()}, in the same "
                f"round; the contended column is the median of those rounds' ratios. "
                if c else "") +
             f"{datetime.date.today().isoformat()}.", "",
             "|  socket/s |    ring/s |  ratio [95%] | " +
             (f"ratio, {c} busy loops [95%] | " if c else "") +
             "operation | CPU Xwayland socket / ring | "
             "CPU x11perf socket / ring | eventfd writes per 10k requests | ring full per 10k "
             "| spins found / missed / lost the CPU / skipped per 10k" +
             (", quiet; contended" if c else "") + " | measured reason |",
             "|---:|---:|---:|" + ("---:|" if c else "") + "---|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        iv = ratio_iv(r)
        civ = contended_iv(r) if c else None
        lines.append(
            f"| {r['socket_per_s']:.1f} | {r['ring_per_s']:.1f} | {iv.text(2)}"
            f"{' wide' if iv.wide else ''} | " +
            (f"{civ.text(2)}{' wide' if civ.wide else ''} | " if c else "") +
            f"{r['what']} "
            f"| {r['xwayland_cpu_socket'] * 100:.0f}% / {r['xwayland_cpu_ring'] * 100:.0f}% "
            f"| {r['x11perf_cpu_socket'] * 100:.0f}% / {r['x11perf_cpu_ring'] * 100:.0f}% "
            f"| {r['eventfd_writes_per_10k']:.2f} | {r['full_waits_per_10k']:.0f} "
            f"| {spin_text(r, '')}{'; ' + spin_text(r, 'contended_') if c else ''} "
            f"| {why(r)} |")
    out, tally = targets(rows, c)
    lines += ["", "| target (seed 000) | verdict | measured: median [95% interval] |",
              "|---|---|---|"]
    for what, v, measured in out:
        lines.append(f"| {what} | {v} | {measured} |")
    if args.omitted:
        lines += ["", "Omitted (x11perf: \"benchmark omitted\", e.g. a font not on the "
                  "session's font path): " + ", ".join("-" + c for c in args.omitted) + "."]
    if args.repeated:
        lines += ["", "x11perf caps the -reps of " +
                  ", ".join("-" + c for c in args.repeated) + " (as many parents of subwindows "
                  "as fit the screen: about a millisecond of timed work per run), so these ran "
                  "with more timed runs instead, averaged by x11perf: " +
                  ", ".join(f"-{c} -reps {r} -repeat {n}"
                            for c, (r, n) in args.repeated.items()) + "."]
    lines += ["", tally.summary() + f" ({args.rounds} rounds; a single round decides nothing). "
              f"Reading: {V.METHOD}."]
    return "\n".join(lines)


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    fig, ax = plt.subplots(figsize=(max(9, 0.28 * len(rows)), 4))
    names = [r["case"] for r in rows]

    def spread(r, k):
        # The 95% interval around the median (none for a single round).
        v = r.get(k)
        return abs(v - r["ratio"]) if isinstance(v, float) and math.isfinite(v) else 0.0
    contended = "contended_ratio" in rows[0]
    width = 0.4 if contended else 0.8
    xs = range(len(rows))
    ax.bar([x - (width / 2 if contended else 0) for x in xs], [r["ratio"] for r in rows],
           width=width,
           yerr=[[spread(r, "ratio_lo") for r in rows], [spread(r, "ratio_hi") for r in rows]],
           error_kw={"elinewidth": 0.8, "capsize": 2},
           color=["tab:blue" if r["transport_bound"] else "tab:gray" for r in rows])
    if contended:
        # The same pairs with the busy loops of --contend beside them.
        def cspread(r, k):
            v = r.get(k)
            return abs(v - r["contended_ratio"]) if isinstance(v, float) and \
                math.isfinite(v) else 0.0
        ax.bar([x + width / 2 for x in xs], [r["contended_ratio"] for r in rows], width=width,
               yerr=[[cspread(r, "contended_ratio_lo") for r in rows],
                     [cspread(r, "contended_ratio_hi") for r in rows]],
               error_kw={"elinewidth": 0.8, "capsize": 2}, color="tab:orange",
               label="with busy loops (--contend)")
    ax.set_xticks(list(xs))
    ax.set_xticklabels(names)
    for y, style, label in ((1.0, "-", "socket"), (0.95, ":", "0.95x floor"),
                            (1.3, "--", "noop target 1.3x")):
        ax.axhline(y, color="black", linestyle=style, linewidth=0.8, label=label)
    # Ratios on a log scale (0.5x and 2x equally far from 1); intervals
    # wider than the axis are cut at its ends.
    ax.set_yscale("log")
    ax.set_ylim(0.25, 4)
    ax.set_yticks([0.25, 0.5, 0.95, 1.3, 2, 4])
    ax.get_yaxis().set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.get_yaxis().set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylabel("ring / socket (x11perf rate)")
    ax.set_title("X requests through the ring vs the socket (blue: transport-bound; "
                 "bars: 95% interval over the rounds)")
    ax.tick_params(axis="x", rotation=45)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    load_before = V.loadavg()
    runs = measure(h, args)
    if args.smoke:
        check_spin_counted(runs)
    rows = summarize(runs, args)
    text = table(rows, args, benchenv.machine(), load_before)
    print("\n" + text + "\n")
    base = "x11ring-broad" if args.wide else "x11ring"
    targets(rows, args.contend)[1].write(os.path.join(out, base + "-verdicts.csv"))
    with open(os.path.join(out, base + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    plot(rows, os.path.join(out, base + ".png"))
    log(f"results in {out}/{base}.csv and {out}/{base}.png")
    if not args.no_write:
        if args.wide:
            benchenv.write_doc_block("x11.md", text, BROAD_BEGIN, BROAD_END)
        else:
            benchenv.write_doc_block("x11.md", text, BEGIN, END)
        for src, dst in ((base + ".csv", "bench"), (base + ".png", "plots")):
            shutil.copy(os.path.join(out, src), os.path.join(ROOT, "docs", dst, src))
        log(f"CSV and plot copied to docs/bench/{base}.csv and docs/plots/{base}.png")


def main():
    benchenv.require("matplotlib")
    args = parse_args()
    sys.argv = [sys.argv[0]]
    harness.main(lambda h: run(h, args))


if __name__ == "__main__":
    main()
