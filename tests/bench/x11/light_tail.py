#!/usr/bin/env python3
"""The timed X echo's tail among X flooders, by `[xwayland] light-read-cap`
(issue 26's tail; docs/x11.md "The tail: held clients' buffered requests").

    tests/bench/x11/light_tail.py [--rounds R] [--seconds S] [--flooders N]
        [--caps 0,256] [--transports ring,socket] [--smoke] [--out DIR]

Seed 001's echo (x11-echo: every 10 ms a rectangle and a property change,
the PropertyNotify timed; nobody types into it) among N x11-plaid flooders,
at the compositor's defaults but for light-read-cap: 0 is the previous
behaviour (light grants at the X server's polls only, other clients' reads
cut only while a grant is live), the others cut other ring clients' reads
to the request under way plus that many bytes while a client is light and
active, and grant a light client's waiting requests at another client's
read. Each round starts one headless smtwc per cap (rotating which goes
first) and in it runs each transport (alternating which goes first; the
echo and the flooders on the same one). Beside each echo: the flooders'
throughput paired with the first cap's in the same round and transport,
requests per Xwayland CPU-second, and what the X server's half counted for
the echo (light grants, those made at another client's read, and the other
clients' requests the X server might still run before a granted echo:
`light_ahead` per grant, and the grants where no other client had more
than the request under way, `light_clear`).

Verdicts (tests/bench/verdict.py) on issue 26's targets for the last cap:
echo p50 <= 1 ms, p99 <= 2 ms, flooders' throughput >= 0.95x of the first
cap's. Writes DIR/x11-light-tail.csv (DIR: build/bench). --smoke: one round
of 1.5 s with 4 flooders (the test suite's bench_x11lighttail).
"""
import argparse
import datetime
import os
import statistics
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
import interactive as I  # noqa: E402  (x11-echo and x11-plaid drivers)

ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=6.0, help="echo among the flooders")
    ap.add_argument("--flooders", type=int, default=12)
    ap.add_argument("--caps", default="0,256,2048", help="[xwayland] light-read-cap values")
    ap.add_argument("--transports", default="ring,socket")
    ap.add_argument("--echo-warmup", type=float, default=1.0)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.seconds, args.flooders, args.echo_warmup = 1, 1.5, 4, 0.5
    args.cap_list = [int(x) for x in args.caps.split(",")]
    if len(args.cap_list) < 2 or any(not 0 <= x <= 16384 for x in args.cap_list):
        ap.error("--caps: two or more, 0-16384 each")
    args.transport_list = args.transports.split(",")
    if any(t not in I.TRANSPORTS for t in args.transport_list):
        ap.error("--transports: ring, socket")
    benchenv.use_build(args.smtwc)
    return args


def one(s, args, rnd, cap, transport):
    flooders = [s.spawn([I.program("x11-plaid")], name=f"x11-plaid-{i}",
                        env=I.transport_env(transport)) for i in range(args.flooders)]
    for p in flooders:
        I.wait_line(s, p, "ready", 30, f"x11-plaid {p.pid} to start")
    time.sleep(1)  # every flooder past its first batches (a warm-up, not a wait for a state)
    xw = s.xwayland_pid()  # started lazily, by the first flooder
    load0, c0 = I.loadavg(), I.cpu_ticks(xw)
    t0 = time.monotonic()
    n0 = I.flooder_counts(s, flooders)
    lat, delay = I.echo_run(s, transport, args.seconds, f"r{rnd}-cap{cap}-{transport}",
                            args.echo_warmup)
    n1 = I.flooder_counts(s, flooders)
    c1, t1 = I.cpu_ticks(xw), time.monotonic()
    echo = [r for r in s.x11ring_closed() if r.get("comm") == "x11-echo"][-1]
    fl = [r for r in s.x11ring_stats() if r.get("pid") in {p.pid for p in flooders}]
    for p in flooders:
        p.terminate()
        s.clients.remove(p)
    reqs = sum(n1[k][0] - n0[k][0] for k in n1)
    span = statistics.median((n1[k][1] - n0[k][1]) / 1e9 for k in n1)
    cpu = (c1 - c0) / os.sysconf("SC_CLK_TCK") / (t1 - t0)
    got = [x for x in lat if x is not None]
    grants = echo.get("light_grants", 0)
    r = {"round": rnd + 1, "cap": cap, "transport": transport, "samples": len(lat),
         "lost": len(lat) - len(got), "p50": I.pct(got, 50), "p90": I.pct(got, 90),
         "p99": I.pct(got, 99), "max": max(got) if got else float("nan"),
         "echo_cpu_wait_ms": delay, "throughput": reqs / span, "xwayland_cpu": cpu,
         "per_cpu_second": reqs / span / cpu if cpu > 0 else float("nan"),
         "light_grants": grants, "light_early": echo.get("light_early", 0),
         "boost_served": echo.get("boost_served", 0),
         "ahead_per_grant": echo.get("light_ahead", 0) / grants if grants else float("nan"),
         "clear": echo.get("light_clear", 0),
         "echo_xtime_us": echo.get("xtime_us", 0),
         "flooder_xtime_us": statistics.median(x.get("xtime_us", 0) for x in fl) if fl else 0,
         "flooder_yields": sum(x.get("yields", 0) for x in fl),
         "flooder_light_grants": sum(x.get("light_grants", 0) for x in fl),
         "load_before": load0, "load_after": I.loadavg()}
    log(f"round {rnd + 1}, cap {cap}, {transport}: echo p50 {r['p50']:.2f} p99 {r['p99']:.2f} "
        f"max {r['max']:.2f} ms; flooders {r['throughput']:.0f} req/s, Xwayland "
        f"{cpu * 100:.0f}%; X server time charged: echo {r['echo_xtime_us'] / 1e3:.1f} ms, "
        f"median flooder {r['flooder_xtime_us'] / 1e3:.1f} ms; echo {grants} light grants ({r['light_early']} at a read), "
        f"{r['ahead_per_grant']:.1f} requests ahead per grant, {r['clear']} grants with at most "
        "one ahead per flooder")
    return r


def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    results = []
    load_before = V.loadavg()
    for rnd in range(args.rounds):
        k = rnd % len(args.cap_list)
        for j, cap in enumerate(args.cap_list[k:] + args.cap_list[:k]):
            order = args.transport_list if (rnd + j) % 2 == 0 else args.transport_list[::-1]
            with Session(h, f"r{rnd}-cap{cap}", x11=True,
                         config=f"[xwayland]\nlight-read-cap = {cap}\n") as s:
                for transport in order:
                    results.append(one(s, args, rnd, cap, transport))
    load_after = V.loadavg()
    base = args.cap_list[0]
    lines = [f"x11-echo among {args.flooders} x11-plaid flooders, {args.seconds:g} s each, "
             f"by `[xwayland] light-read-cap` (other settings the defaults), "
             f"{benchenv.machine()}, {args.rounds} rounds, {datetime.date.today().isoformat()}. "
             f"Median over the rounds [min-max]; ratios paired per round against cap {base}.",
             "", "| cap | transport | p50 ms | p90 ms | p99 ms | max ms | flooders req/s | "
             f"vs cap {base} | req per Xwayland CPU-s | echo light grants (at a read) | "
             "requests ahead per grant | grants with <= 1 ahead per client |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    tally = V.Tally()
    judged = []
    for cap in args.cap_list:
        for transport in args.transport_list:
            rs = [r for r in results if (r["cap"], r["transport"]) == (cap, transport)]
            bs = {r["round"]: r for r in results if (r["cap"], r["transport"]) == (base, transport)}
            mine = [r["throughput"] for r in rs if r["round"] in bs]
            theirs = [bs[r["round"]]["throughput"] for r in rs if r["round"] in bs]
            ratio = [a / b for a, b in zip(mine, theirs) if b > 0]
            lines.append(
                f"| {cap} | {transport} | {I.spread([r['p50'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['p90'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['p99'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['max'] for r in rs], '{:.1f}')} "
                f"| {I.spread([r['throughput'] for r in rs], '{:.0f}')} "
                f"| {I.spread(ratio, '{:.3f}') if cap != base else ''} "
                f"| {I.spread([r['per_cpu_second'] / 1e3 for r in rs], '{:.0f}K')} "
                f"| {sum(r['light_grants'] for r in rs)} ({sum(r['light_early'] for r in rs)}) "
                f"| {I.spread([r['ahead_per_grant'] for r in rs], '{:.1f}')} "
                f"| {sum(r['clear'] for r in rs)} of {sum(r['light_grants'] for r in rs)} |")
            if cap != args.cap_list[-1]:
                continue
            for q, target in (("p50", I.TARGET_P50), ("p99", I.TARGET_P99)):
                v = [r[q] for r in rs if r[q] == r[q] and r[q] > 0]
                name = f"{transport}, cap {cap}: timed echo {q} <= {target:g} ms"
                iv = V.value_interval(v) if v else None
                judged.append((name, tally.judge(name, iv, target, False), iv))
            if cap != base and mine:
                name = (f"{transport}, cap {cap}: flooders' throughput >= "
                        f"{I.TARGET_THROUGHPUT:g}x of cap {base}")
                iv = V.ratio_interval(mine, theirs)
                judged.append((name, tally.judge(name, iv, I.TARGET_THROUGHPUT, True), iv))
    lines += ["", "| target (median [95% interval]) | verdict | measured |", "|---|---|---|"]
    lines += [f"| {n} | {v} | {iv.text(3) if iv else '-'}"
              f"{'  (spread too wide to judge)' if iv and iv.wide else ''} |"
              for n, v, iv in judged]
    lines += ["", tally.summary() + "; " + V.load_text(load_before, load_after) + ".",
              "", "Reading: " + V.METHOD + "."]
    print("\n" + "\n".join(lines) + "\n")
    tally.write(os.path.join(out, "x11lighttail-verdicts.csv"))
    path = os.path.join(out, "x11-light-tail.csv")
    benchenv.write_csv(path, results)
    log(f"results in {path}")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
