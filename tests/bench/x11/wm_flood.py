#!/usr/bin/env python3
"""Another Wayland client's round trip while an X client floods its title
(session 26's red team; docs/x11.md "The window manager's events").

    tests/bench/x11/wm_flood.py [--rounds R] [--seconds S] [--tail T]
        [--transports ring,socket] [--before SMTWC] [--smoke] [--out DIR]

x11-titleflood sets WM_NAME and _NET_WM_NAME on its mapped top-level in a
loop for S seconds (wlroots' window manager answers each PropertyNotify
with a synchronous GetProperty from the compositor's main loop) while
`smt-hostile sync-probe` makes wl_display round trips every 10 ms for S + T
seconds: an unpaced window manager drains what the flood queued after
it too, one round trip per PropertyNotify, and a round trip in flight
when the probe's time ends still counts, however long it waits. Each
round starts one headless smtwc of this build ("paced") and, with
--before, one of another build ("before": e.g. main's before the pacer,
/path/build/compositor/smtwc), rotating which goes first, and in each
runs every transport of the flooder. Also: the titles the flooder set,
how long after the flood its final round trip returned (the X server and
the window manager caught up with it), whether the compositor's window
list showed the last one within 60 s after the flood (and how long
after), and what the pacer said (PropertyNotify merged, turns cut at the
budget; cumulative over the session's transports). Median over the
rounds [min-max]; the target, the probe's maximum under 50 ms during the
flood (tests/bench/hostile's), judged on the 95% interval of the rounds'
maxima for "paced". Writes DIR/x11-wm-flood.csv (DIR: build/bench).
--smoke: one round of 1.5 s, ring only.
"""
import argparse
import datetime
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)
import benchenv  # noqa: E402
import verdict as V  # noqa: E402
import harness  # noqa: E402
from harness import Session, log  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
import interactive as I  # noqa: E402  (program(), wait_line(), spread(), transport_env())

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
TARGET_MAX_MS = 50.0
PACER_LINE = re.compile(r"X window manager (?:under load|at the end): (\d+) PropertyNotify "
                        r"merged, (\d+) turns ended at the budget")
# What the compositor still waited for (wm_property_fetch.c): GetProperty
# replies read ahead and taken, those waited for, the time it stood still.
FETCH_LINE = re.compile(r"GetProperty sent ahead \((\d+) taken by it\), (\d+) waited for in "
                        r"([\d.]+) ms")


def fetch_said(s):
    """(taken, waits, waited ms) of the compositor's last word so far; None
    from a build that does not read ahead."""
    said = FETCH_LINE.findall(s.stderr_text())
    return tuple(float(g) for g in said[-1]) if said else None


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--tail", type=float, default=5.0, help="the probe after the flood")
    ap.add_argument("--transports", default="ring,socket")
    ap.add_argument("--before", default=None, help="another build's smtwc, measured beside")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.seconds, args.tail, args.transports = 1, 1.5, 1.0, "ring"
    args.transport_list = args.transports.split(",")
    if any(t not in I.TRANSPORTS for t in args.transport_list):
        ap.error("--transports: ring, socket")
    benchenv.use_build(args.smtwc)
    args.builds = {"paced": os.environ["SMTWC"]}
    if args.before:
        args.builds["before"] = os.path.abspath(args.before)
    return args


def one(s, h, args, rnd, setting, transport):
    p = s.spawn([I.program("x11-titleflood"), "--seconds", args.seconds],
                name=f"x11-titleflood-{transport}", env=I.transport_env(transport))
    I.wait_line(s, p, "ready", 30, "x11-titleflood to map its window")
    flood_end = time.monotonic() + args.seconds  # it floods from "ready" on
    fetch0 = fetch_said(s) or (0.0, 0.0, 0.0)
    cpu0 = I.cpu_ticks(s.compositor.pid)
    probe = s.spawn([hostile_tool(h), "sync-probe", args.seconds + args.tail],
                    name="sync-probe")
    line = I.wait_line(s, probe, "SYNC", 600, "the sync probe's result")[0]
    f = dict(kv.split("=") for kv in line.split()[1:] if "=" in kv)
    cpu = (I.cpu_ticks(s.compositor.pid) - cpu0) / os.sysconf("SC_CLK_TCK")
    titles = int(I.wait_line(s, p, "TITLES", 600, "the title flood to end")[0].split()[1])
    t0 = time.monotonic()
    # The flooder's last request is a round trip: when it returns, the X
    # server (and the window manager it waits on) caught up with the flood.
    caught_up = max(0.0, t0 - flood_end)
    shown = None
    try:
        s.wait_window(lambda w: w["title"] == f"final {titles}", timeout=60,
                      what="the last title in the compositor's window list")
        shown = time.monotonic() - t0
    except Exception as e:  # noqa: BLE001  (a row saying "not shown" is the result)
        log(f"last title not shown: {e}")
    said = [m.groups() for m in PACER_LINE.finditer(s.stderr_text())]
    fetch1 = fetch_said(s)
    ahead, waited_ms = ((fetch1[0] - fetch0[0], fetch1[2] - fetch0[2]) if fetch1
                        else (float("nan"), float("nan")))
    merged, cut = (int(said[-1][0]), int(said[-1][1])) if said else (0, 0)
    s.stop_client(p)
    s.stop_client(probe)
    r = {"round": rnd + 1, "setting": setting, "transport": transport, "n": int(f["n"]),
         "p50": float(f["p50"]), "p99": float(f["p99"]), "max": float(f["max"]),
         "titles": titles, "caught_up_s": caught_up, "shown_after_s": shown if shown is not None else float("nan"),
         "merged": merged, "cut": cut, "compositor_cpu_s": cpu, "read_ahead": ahead,
         "waited_ms": waited_ms, "load": I.loadavg()}
    log(f"round {rnd + 1}, {setting}, {transport}: probe p50 {r['p50']:.2f} p99 "
        f"{r['p99']:.2f} max {r['max']:.1f} ms ({r['n']} round trips); {titles} titles, "
        f"last shown after {r['shown_after_s']:.2f} s; pacer: {merged} merged, {cut} cut")
    return r


def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    results = []
    load_before = V.loadavg()
    names = list(args.builds)
    for rnd in range(args.rounds):
        k = rnd % len(names)
        for j, setting in enumerate(names[k:] + names[:k]):
            order = args.transport_list if (rnd + j) % 2 == 0 else args.transport_list[::-1]
            h.smtwc = args.builds[setting]
            with Session(h, f"r{rnd}-{setting}", x11=True) as s:
                for transport in order:
                    results.append(one(s, h, args, rnd, setting, transport))
    load_after = V.loadavg()
    lines = [f"x11-titleflood for {args.seconds:g} s beside smt-hostile sync-probe "
             f"(wl_display round trips every 10 ms, for {args.seconds + args.tail:g} s), "
             f"{benchenv.machine()}, {args.rounds} "
             f"rounds, {datetime.date.today().isoformat()}. Median over the rounds [min-max].",
             "", "| build | transport | probe p50 ms | p99 ms | max ms | "
             "round trips | titles set | X caught up after the flood, s | last title shown "
             "after that, s | PropertyNotify merged | turns cut | compositor CPU s during the probe "
             "| GetProperty read ahead | compositor waited in GetProperty, ms |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    tally = V.Tally()
    judged = []
    for transport in args.transport_list:
        for setting in names:
            rs = [r for r in results if (r["setting"], r["transport"]) == (setting, transport)]
            lines.append(
                f"| {setting} | {transport} | {I.spread([r['p50'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['p99'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['max'] for r in rs], '{:.1f}')} "
                f"| {I.spread([r['n'] for r in rs], '{:.0f}')} "
                f"| {I.spread([r['titles'] for r in rs], '{:.0f}')} "
                f"| {I.spread([r['caught_up_s'] for r in rs], '{:.1f}')} "
                f"| {I.spread([r['shown_after_s'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['merged'] for r in rs], '{:.0f}')} "
                f"| {I.spread([r['cut'] for r in rs], '{:.0f}')} "
                f"| {I.spread([r['compositor_cpu_s'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['read_ahead'] for r in rs], '{:.0f}')} "
                f"| {I.spread([r['waited_ms'] for r in rs], '{:.1f}')} |")
            if setting == "paced":
                name = f"{transport}: another client's round trip max <= {TARGET_MAX_MS:g} ms"
                iv = V.value_interval([r["max"] for r in rs])
                judged.append((name, tally.judge(name, iv, TARGET_MAX_MS, False), iv))
    lines += ["", "| target (median [95% interval]) | verdict | measured |", "|---|---|---|"]
    lines += [f"| {n} | {v} | {iv.text(3) if iv else '-'}"
              f"{'  (spread too wide to judge)' if iv and iv.wide else ''} |"
              for n, v, iv in judged]
    lines += ["", tally.summary() + "; " + V.load_text(load_before, load_after) + ".",
              "", "Reading: " + V.METHOD + "."]
    print("\n" + "\n".join(lines) + "\n")
    tally.write(os.path.join(out, "x11wmflood-verdicts.csv"))
    path = os.path.join(out, "x11-wm-flood.csv")
    benchenv.write_csv(path, results)
    log(f"results in {path}")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
