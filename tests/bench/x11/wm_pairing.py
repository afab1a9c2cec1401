#!/usr/bin/env python3
"""What pairing X windows with their surfaces costs the compositor's main
loop (docs/x11.md "The window manager's events"), this build beside
another, side by side.

    tests/bench/x11/wm_pairing.py [--rounds R] [--windows N] [--flood]
        [--before SMTWC] [--out DIR]

wlroots 0.15 reads eleven properties and the X-Resource pid of every
window it pairs with its wl_surface, one synchronous round trip each;
wm_property_fetch.c sends them together first. Per round and build
(alternated round by round): a headless smtwc (x11=True), with --flood an
x11-titleflood setting its title all the while; then N xmessage windows
started at once, and waited for until the compositor lists all N (bound
300 s). Measured: windows listed per second (N over that time), the
compositor's CPU seconds over it (/proc), and from the pacer's log (its
line at the compositor's end): replies it waited for on the main loop and
how long in all, its longest turn of wlroots' handler (the longest any of
its lines reports), pairings read ahead, and windows paired after their
surface drew. Median over the rounds [min-max]. Writes
DIR/x11-wm-pairing.csv (DIR: build/bench).
"""
import argparse
import datetime
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchenv  # noqa: E402
import harness  # noqa: E402
from harness import Session, log  # noqa: E402
import interactive as I  # noqa: E402  (program(), wait_line(), cpu_ticks(), spread(), loadavg())

WAITED = re.compile(r"(\d+) waited for in ([\d.]+) ms; longest turn ([\d.]+) ms")
PAIRINGS = re.compile(r"(\d+) windows' pairings read ahead")
LATE = re.compile(r"paired after its surface drew: shown now \((\d+) such windows")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--windows", type=int, default=200)
    ap.add_argument("--flood", action="store_true", help="an X title flood all the while")
    ap.add_argument("--before", default=None, help="another build's smtwc, measured beside")
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    benchenv.use_build(args.smtwc)
    args.builds = {"now": os.environ["SMTWC"]}
    if args.before:
        args.builds["before"] = os.path.abspath(args.before)
    return args


def one(h, args, rnd, build):
    r = {"round": rnd + 1, "build": build, "load": I.loadavg()}
    h.smtwc = args.builds[build]
    with Session(h, f"r{rnd}-{build}", x11=True) as s:
        pid = s.compositor.pid
        flooder = None
        if args.flood:
            flooder = s.spawn([I.program("x11-titleflood"), "--start-on-usr1", "--until-usr2"],
                              name="x11-titleflood")
            I.wait_line(s, flooder, "ready", 30, "x11-titleflood to map its window")
            flooder.signal_group(signal.SIGUSR1)
        titles = [f"pairing-{i}" for i in range(args.windows)]
        cpu0 = I.cpu_ticks(pid)
        t0 = time.monotonic()
        xs = [s.spawn(["xmessage", "-name", t, "-title", t, t], name=t) for t in titles]
        want = set(titles)
        try:
            s.wait_until(lambda: want <= {w["title"] for w in s.windows()}, timeout=300,
                         what=f"{args.windows} xmessage windows listed", interval=0.1)
            r["seconds"] = time.monotonic() - t0
        except Exception as e:  # noqa: BLE001  (a row saying "not all" is the result)
            log(f"not all listed: {e}")
            r["seconds"] = float("nan")
        r["cpu_s"] = (I.cpu_ticks(pid) - cpu0) / os.sysconf("SC_CLK_TCK")
        r["per_s"] = args.windows / r["seconds"]
        if flooder is not None:
            s.stop_client(flooder)
        for x in xs:
            s.stop_client(x)
        s.stop()
        text = s.stderr_text()
        said = WAITED.findall(text)
        r["waits"] = int(said[-1][0]) if said else float("nan")
        r["waited_ms"] = float(said[-1][1]) if said else float("nan")
        r["longest_turn_ms"] = max((float(x[2]) for x in said), default=float("nan"))
        pairings = PAIRINGS.findall(text)
        r["read_ahead"] = int(pairings[-1]) if pairings else 0
        late = LATE.findall(text)
        r["late"] = int(late[-1]) if late else 0
    log(f"round {rnd + 1}, {build}: {r}")
    return r


def run(h, args):
    out = args.out or os.path.join(benchenv.REPO, "build", "bench")
    os.makedirs(out, exist_ok=True)
    results = []
    load0 = I.loadavg()
    names = list(args.builds)
    for rnd in range(args.rounds):
        for build in (names if rnd % 2 == 0 else names[::-1]):
            results.append(one(h, args, rnd, build))
    flood = "beside an x11-titleflood" if args.flood else "alone"
    lines = [f"{args.windows} xmessage windows started at once, {flood}, {benchenv.machine()}, "
             f"{args.rounds} rounds, {datetime.date.today().isoformat()}, load average "
             f"{load0:.1f} -> {I.loadavg():.1f}. Median over the rounds [min-max].", "",
             "| build | windows listed per s | compositor CPU s | replies waited for | "
             "waited ms | longest turn ms | pairings read ahead | paired late |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for build in names:
        rs = [r for r in results if r["build"] == build]
        lines.append(
            f"| {build} | {I.spread([r['per_s'] for r in rs], '{:.1f}')} "
            f"| {I.spread([r['cpu_s'] for r in rs], '{:.2f}')} "
            f"| {I.spread([r['waits'] for r in rs], '{:.0f}')} "
            f"| {I.spread([r['waited_ms'] for r in rs], '{:.0f}')} "
            f"| {I.spread([r['longest_turn_ms'] for r in rs], '{:.1f}')} "
            f"| {I.spread([r['read_ahead'] for r in rs], '{:.0f}')} "
            f"| {I.spread([r['late'] for r in rs], '{:.0f}')} |")
    print("\n" + "\n".join(lines) + "\n")
    path = os.path.join(out, "x11-wm-pairing.csv")
    benchenv.write_csv(path, results)
    log(f"results in {path}")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
