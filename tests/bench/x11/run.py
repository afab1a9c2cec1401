#!/usr/bin/env python3
"""X11 shared-memory shim benchmark: x11perf PutImage/GetImage with and
without the shim, and ShmPutImage (the application using MIT-SHM itself) as
the reference, measured side by side in one run.

    tests/bench/x11/run.py [--display :N] [--build DIR] [--rounds R]
                           [--time S] [--repeat N] [--sizes] [--smoke]
                           [--out FILE | --no-write] [--verdicts FILE]
                           [--contend N [--contend-pin]]

Without --display it starts its own Xvfb (1280x1024x24); with it, it measures
an existing server (e.g. the compositor's Xwayland). Rounds alternate which
variant runs first and report the median, because the machine is noisy;
each ratio carries its 95% interval over the rounds and each target is
judged on it: met, missed or undecided (tests/bench/verdict.py). The
table, with machine facts and the date, replaces the block between the
bench markers in docs/x11.md. --sizes adds a sweep of image sizes between
x11perf's (imgsizes.c, compiled here with cc) with every image converted,
to show where the shim starts to pay off. --smoke is the test suite's run:
two rounds of every case with a fixed x11perf -reps 100 instead of x11perf's
calibration, which takes ~9 s per test whatever -time says (its figures mean
nothing). Otherwise that calibration runs once per case, before the rounds
(plain, for -time S of work), and every measured run uses the -reps it
found, so that the rounds do the same work and cost S each, not 9 s + S.
--verdicts FILE also writes every target's verdict as CSV (verdict.py
compare A B). --contend N runs N busy loops (tests/bench/contend.py) through
the rounds, after the calibration: the same work under a CPU contention
another machine can repeat.
"""
import argparse
import datetime
import os
import platform
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import contend  # noqa: E402 (--contend: busy loops beside the rounds)
import verdict as V  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BEGIN, END = "<!-- bench:x11 begin -->", "<!-- bench:x11 end -->"
SIZES = (10, 100, 500)
SWEEP = (8, 16, 24, 32, 48, 64, 90, 128, 180, 256, 320)
RESULT = re.compile(r"\(\s*([0-9.]+)/sec\):\s*(.*)$")


def start_xvfb():
    r, w = os.pipe()
    p = subprocess.Popen(["Xvfb", "-displayfd", str(w), "-screen", "0",
                          "1280x1024x24", "-nolisten", "tcp", "-noreset"],
                         pass_fds=(w,), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    os.close(w)
    num = b""
    while not num.endswith(b"\n"):
        ready, _, _ = select.select([r], [], [], 20)
        chunk = os.read(r, 16) if ready else b""
        if not chunk:
            p.kill()
            sys.exit("run.py: Xvfb did not start")
        num += chunk
    os.close(r)
    return p, ":" + num.decode().strip()


REPS = re.compile(r"^\s*(\d+) reps @")


def printed_reps(test, env, length):
    """The object count x11perf prints for one plain run of `test`."""
    out = subprocess.run(["x11perf", "-repeat", "1", *length, "-" + test], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         check=True).stdout.decode()
    reps = [int(m.group(1)) for m in map(REPS.search, out.splitlines()) if m]
    if not reps:
        sys.exit(f"run.py: no result from x11perf -{test}:\n{out}")
    return reps[-1]


def fixed_reps(test, env, args):
    """The -reps that make about args.time seconds of `test`, from one run
    of x11perf's own calibration (about 9 s whatever -time says): found
    once per test, so that every measured run does the same fixed work
    without calibrating again. x11perf prints objects (reps times the
    objects one rep draws), so one rep is run to learn that."""
    per_time = printed_reps(test, env, ["-time", str(args.time)])
    per_rep = printed_reps(test, env, ["-reps", "1"])
    return max(1, per_time // max(1, per_rep))


def x11perf(test, env, args, prefix=()):
    """ops/sec of one x11perf test (the average line when repeated)."""
    reps = args.reps or args.case_reps.get(test)
    length = ["-reps", str(reps)] if reps else ["-time", str(args.time)]
    out = subprocess.run([*prefix, "x11perf", "-repeat", str(args.repeat), *length, "-" + test],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         check=True).stdout.decode()
    rates = [float(m.group(1)) for m in map(RESULT.search, out.splitlines()) if m]
    if not rates:
        sys.exit(f"run.py: no result from x11perf -{test}:\n{out}")
    return rates[-1]


def shim_stats(path):
    """The total line the shim printed at exit."""
    try:
        with open(path) as f:
            lines = [l for l in f if "total connections=" in l]
    except OSError:
        return {}
    if not lines:
        return {}
    return {k: v for k, v in (kv.split("=", 1) for kv in lines[-1].split()[3:])}


def server_name(env):
    try:
        out = subprocess.run(["xdpyinfo"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL).stdout.decode()
        vendor = re.search(r"vendor string:\s*(.*)", out)
        release = re.search(r"vendor release number:\s*(\d+)", out)
        return f"{vendor.group(1) if vendor else '?'} {release.group(1) if release else ''}".strip()
    except OSError:
        return "?"


def measure(args, env, launcher):
    cases = [f"{op}{n}" for op in ("putimage", "getimage") for n in SIZES]
    refs = [f"shmput{n}" for n in SIZES]
    runs = {c: {"plain": [], "shim": []} for c in cases}
    runs.update({r: {"ref": []} for r in refs})
    waits = {}
    if not args.reps:
        for c in cases + refs:
            args.case_reps[c] = fixed_reps(c, env, args)
            print(f"{c}: -reps {args.case_reps[c]} per run", flush=True)
    # The busy loops of --contend run through the rounds, not the
    # calibration: the same -reps as a run without them.
    with contend.BusyLoops(args.contend, args.contend_pin) as loops:
        rounds(args, env, launcher, cases, refs, runs, waits)
        if loops.alive() != loops.n:
            sys.exit("run.py: a busy loop of --contend ended early")
    med = {c: {v: statistics.median(xs) for v, xs in d.items()} for c, d in runs.items()}
    return med, runs, waits


def rounds(args, env, launcher, cases, refs, runs, waits):
    for rnd in range(args.rounds):
        for c in cases:
            order = ("plain", "shim") if rnd % 2 == 0 else ("shim", "plain")
            for v in order:
                if v == "plain":
                    runs[c][v].append(x11perf(c, env, args))
                    continue
                with tempfile.NamedTemporaryFile(prefix="smt-x11shim-stats-") as st:
                    senv = dict(env, SMT_X11SHIM_STATS=st.name)
                    runs[c][v].append(x11perf(c, senv, args, prefix=[launcher]))
                    stats = shim_stats(st.name)
                    waits.setdefault(c, []).append(stats)
            print(f"round {rnd + 1} {c}: plain {runs[c]['plain'][-1]:.0f}/s "
                  f"shim {runs[c]['shim'][-1]:.0f}/s", flush=True)
        for r in refs:
            runs[r]["ref"].append(x11perf(r, env, args))
            print(f"round {rnd + 1} {r}: {runs[r]['ref'][-1]:.0f}/s", flush=True)


def table(med, runs, waits):
    rows = ["| case | plain ops/s | shim ops/s | shim / plain [95%] | per-round shim / plain "
            "| ShmPutImage ops/s | shim / ShmPutImage [95%] | calls converted |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for op, name in (("putimage", "PutImage"), ("getimage", "GetImage")):
        for n in SIZES:
            c = f"{op}{n}"
            p, s = med[c]["plain"], med[c]["shim"]
            conv = waits.get(c, [{}])[-1]
            key = "puts" if op == "putimage" else "gets"
            converted = "yes" if int(conv.get(key, "0")) > 100 else "no (below threshold)"
            if op == "putimage":
                ref = med[f"shmput{n}"]["ref"]
                rcol = f"{ref:.0f}"
                rratio = V.ratio_interval(runs[c]["shim"], runs[f"shmput{n}"]["ref"],
                                          paired=False).text(2)
            else:
                rcol, rratio = "", ""
            ratios = [b / a for a, b in zip(runs[c]["plain"], runs[c]["shim"])]
            spread = f"{min(ratios):.2f} .. {max(ratios):.2f}"
            iv = V.ratio_interval(runs[c]["shim"], runs[c]["plain"])
            rows.append(f"| {name} {n}x{n} | {p:.0f} | {s:.0f} | {iv.text(2)} | {spread} "
                        f"| {rcol} | {rratio} | {converted} |")
    return "\n".join(rows)


def targets(runs):
    """Each target judged on the 95% interval of its ratio over the rounds:
    shim against plain paired round by round (they alternate within a
    round), shim against ShmPutImage unpaired (the reference runs after the
    cases)."""
    put500, put100 = runs["putimage500"], runs["putimage100"]
    goals = [
        ("PutImage 500x500 through the shim >= 3x plain",
         V.ratio_interval(put500["shim"], put500["plain"]), 3.0),
        ("PutImage 500x500 through the shim >= 60% of ShmPutImage",
         V.ratio_interval(put500["shim"], runs["shmput500"]["ref"], paired=False), 0.60),
        ("PutImage 100x100 through the shim >= 2x plain",
         V.ratio_interval(put100["shim"], put100["plain"]), 2.0),
    ]
    for c, d in runs.items():
        if "shim" in d:
            goals.append((f"{c}: no slower than plain by more than 5%",
                          V.ratio_interval(d["shim"], d["plain"]), 0.95))
    tally = V.Tally()
    lines = []
    for what, iv, want in goals:
        v = tally.judge(what, iv, want)
        lines.append(f"- {v:<9} {what}: {iv.text(2)} (want >= {want})"
                     f"{' (spread too wide to judge)' if iv.wide else ''}")
    return lines + ["", tally.summary(), "", f"Reading: {V.METHOD}."], tally


def build_imgsizes(tmp):
    exe = os.path.join(tmp, "imgsizes")
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "imgsizes.c")
    subprocess.run(["cc", "-O2", "-o", exe, src, "-lX11"], check=True)
    return exe


def sweep(args, env, launcher, exe):
    """ops/s per size, plain and with every image converted (thresholds 1)."""
    res = {op: {n: {"plain": [], "shim": []} for n in SWEEP} for op in ("put", "get")}
    shim_env = dict(env, SMT_X11SHIM_PUT_MIN="1", SMT_X11SHIM_GET_MIN="1")
    for rnd in range(args.rounds):
        for op in ("put", "get"):
            order = ("plain", "shim") if rnd % 2 == 0 else ("shim", "plain")
            for v in order:
                cmd = [exe, op, "0.5", *map(str, SWEEP)]
                if v == "shim":
                    cmd = [launcher] + cmd
                out = subprocess.run(cmd, env=shim_env if v == "shim" else env,
                                     stdout=subprocess.PIPE, check=True).stdout.decode()
                for line in out.splitlines():
                    _, n, rate = line.split()
                    res[op][int(n)][v].append(float(rate))
        print(f"round {rnd + 1} sizes done", flush=True)
    rows = ["| NxN | bytes | put plain/s | put shim/s | put ratio | get plain/s "
            "| get shim/s | get ratio |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in SWEEP:
        cells = [f"{n}", f"{n * n * 4}"]
        for op in ("put", "get"):
            p = statistics.median(res[op][n]["plain"])
            s = statistics.median(res[op][n]["shim"])
            cells += [f"{p:.0f}", f"{s:.0f}", f"{s / p:.2f}"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def write_doc(path, text):
    try:
        with open(path) as f:
            doc = f.read()
    except OSError:
        doc = ""
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip() + "\n\n## Measurements\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(doc)


def main():
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import benchenv  # scripts/deps.sh bench: Xvfb, x11perf, xdpyinfo
    benchenv.require()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--display", help="measure this server instead of a private Xvfb")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"),
                    help="build directory with xwayland-glue/smt-x11run")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--time", type=int, default=2, help="x11perf -time")
    ap.add_argument("--repeat", type=int, default=2, help="x11perf -repeat")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "x11.md"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--sizes", action="store_true",
                    help="also sweep sizes with every image converted")
    ap.add_argument("--verdicts", default=None,
                    help="also write every target's verdict to this CSV (verdict.py compare)")
    ap.add_argument("--smoke", action="store_true",
                    help="2 rounds, x11perf -repeat 1 -reps 100: the test suite's run")
    ap.add_argument("--contend", type=int, default=0,
                    help="N busy loops beside the rounds (tests/bench/contend.py)")
    ap.add_argument("--contend-pin", action="store_true",
                    help="pin busy loop i to CPU i (with --contend)")
    args = ap.parse_args()
    args.reps = None
    args.case_reps = {}  # test: -reps found once (fixed_reps)
    if args.smoke:
        args.rounds, args.repeat, args.reps = 2, 1, 100

    for prog in ("x11perf",) + (() if args.display else ("Xvfb",)):
        if not shutil.which(prog):
            sys.exit(f"run.py: {prog} not installed")
    launcher = os.path.join(args.build, "xwayland-glue", "smt-x11run")
    if not os.access(launcher, os.X_OK):
        sys.exit(f"run.py: no launcher at {launcher} (build first, or --build)")

    server = None
    display = args.display
    if not display:
        server, display = start_xvfb()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SMT_X11SHIM") and k != "LD_PRELOAD"}
    env["DISPLAY"] = display
    sizes = None
    try:
        load0 = os.getloadavg()
        started = datetime.datetime.now()
        med, runs, waits = measure(args, env, launcher)
        if args.sizes:
            with tempfile.TemporaryDirectory() as tmp:
                sizes = sweep(args, env, launcher, build_imgsizes(tmp))
        load1 = os.getloadavg()
        name = server_name(env)
    finally:
        if server:
            server.terminate()
            server.wait()

    goals, tally = targets(runs)
    if args.verdicts:
        tally.write(args.verdicts)
        print(f"verdicts written to {args.verdicts} (tests/bench/verdict.py compare A B)")
    what = "a private Xvfb 1280x1024x24" if server else f"display {display}"
    lines = [
        BEGIN,
        f"Measured {started:%Y-%m-%d %H:%M} on {benchenv.machine()}; X server: {name} "
        f"({what}). Load average {load0[0]:.2f} before, {load1[0]:.2f} after.",
        f"Median of {args.rounds} rounds, each the average of x11perf -repeat "
        f"{args.repeat} " + (f"-reps {args.reps} (SMOKE)" if args.reps else
                             f"-reps found once per case for {args.time} s of work "
                             f"(x11perf's calibration, plain)")
        + "; variants alternate within a round. "
        "Shim defaults (segment, thresholds) unless noted."
        + (f" Contended: {contend.BusyLoops(args.contend, args.contend_pin).text()} "
           "through the rounds." if args.contend else ""),
        "",
        table(med, runs, waits),
        "",
        "Targets (median [95% interval] of the rounds):",
        "",
        *goals,
        "",
        *([f"Sizes between x11perf's, every image converted (thresholds 1; "
           "`imgsizes.c`, synchronised every 200 puts / 20 gets):", "", sizes, ""]
          if sizes else []),
        "Regenerate: `tests/bench/x11/run.py"
        + (" --sizes" if sizes else "") + "` (this block is replaced).",
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_doc(args.out, text)
        print(f"written to {args.out}")


if __name__ == "__main__":
    main()
