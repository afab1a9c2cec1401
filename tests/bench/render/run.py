#!/usr/bin/env python3
"""Output rendering: occlusion culling against wlroots' scene renderer, side
by side in one compositor.

    tests/bench/render/run.py [--windows N] [--seconds S] [--rounds R] [--smoke]
                              [--out DIR] [--smtwc PATH]

One headless smtwc (1280x720) with N stacked windows that repaint all the
time: animated ring demos (small damaged areas), weston-simple-shm (its
whole surface every frame) and two smt-plaid floods (their whole window,
several times a frame). The renderer is switched on the control socket
(`render culled` / `render scene`) every S seconds, R rounds of each, in
alternation, so both see the same windows and the same machine. For each
it reports, from the compositor's own frame statistics (`smtctl stats`):
frames rendered, the mean time a render takes, and how many pixels
were painted per damaged pixel (culled only); and an echo probe's FENCE
round trip (smt-hostile echo-probe, every 10 ms), which waits for renders.

Prints a table; writes DIR/render.json. Measures build/compositor/smtwc
unless --smtwc or $SMTWC says otherwise. --smoke is the test suite's run:
the same path with 6 windows, two rounds of 1 s (its figures mean nothing).

Every figure is the median of the rounds; scene / culled is the median of
the rounds' ratios (the two renderers alternate, so each round pairs them)
with its 95% interval, and the target, a culled render shorter than the
scene renderer's (scene / culled render time above 1), is judged on it
(tests/bench/verdict.py; verdicts in DIR/render-verdicts.csv).
"""
import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "integration"))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import harness  # noqa: E402
import verdict as V  # noqa: E402
from harness import Session, check, log  # noqa: E402


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--windows", type=int, default=24)
    ap.add_argument("--seconds", type=float, default=6.0)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    ap.add_argument("--smoke", action="store_true",
                    help="6 windows, 2 rounds of 1 s: the test suite's run")
    args = ap.parse_args()
    if args.smoke:
        args.windows, args.seconds, args.rounds = 6, 1.0, 2
    benchenv.use_build(args.smtwc)
    return args


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))] if v else 0.0


def run(h, args):
    demo = harness.build_program("SMT_DEMO", "clients/smt-demo")
    plaid = harness.build_program("SMT_PLAID", "clients/smt-plaid")
    hostile = harness.build_program("SMT_HOSTILE", "tests/tools/smt-hostile")
    out = args.out or os.path.join(os.environ.get("SMT_TEST_LOGDIR") or ".", "render-bench")
    os.makedirs(out, exist_ok=True)
    load_before = V.loadavg()
    with Session(h, "render") as s:
        kinds = []
        for i in range(args.windows):
            if i in (args.windows // 3, 2 * args.windows // 3):
                s.spawn([plaid], name=f"plaid{i}")
                kinds.append("smt-plaid")
            elif i % 3 == 1:
                s.spawn(["weston-simple-shm"], name=f"shm{i}")
                kinds.append("weston-simple-shm")
            else:
                s.spawn([demo], name=f"demo{i}")
                kinds.append("smt-demo")
            time.sleep(0.05)
        s.wait_until(lambda: len(s.control("clients").get("clients", [])) >= 2 * args.windows // 3,
                     timeout=30, what="the ring clients to connect")
        time.sleep(2.0)

        results = {"culled": [], "scene": []}
        modes = ["scene", "culled"] * args.rounds
        for mode in modes:
            check(s.control(f"render {mode}").get("ok"), f"render {mode} refused")
            time.sleep(0.5)  # the whole-output repaint of the switch is not measured
            before = s.control("stats")["render"]
            echo = s.spawn([hostile, "echo-probe-v", str(args.seconds)], name=f"echo-{mode}")
            rc = echo.wait(args.seconds + harness.scaled(20))
            after = s.control("stats")["render"]
            check(rc == 0, f"echo probe failed:\n{echo.log_tail()}")
            lat = [float(m) for m in re.findall(r"^S ([0-9.]+)$", open(echo.log_path).read(),
                                                 re.M)]
            frames = after["frames"] - before["frames"]
            damaged = after["pixels_damaged"] - before["pixels_damaged"]
            painted = after["pixels_painted"] - before["pixels_painted"]
            r = {"frames": frames,
                 "render_mean_ms": (after["ns_total"] - before["ns_total"]) / max(1, frames) / 1e6,
                 "echo_p50_ms": percentile(lat, 0.5), "echo_p99_ms": percentile(lat, 0.99),
                 "echo_max_ms": max(lat) if lat else 0.0,
                 "painted_per_damaged": painted / damaged if damaged else None}
            results[mode].append(r)
            log(f"{mode}: {json.dumps(r)}")
            s.check_alive()

    def med(mode, key):
        vals = sorted(x[key] for x in results[mode] if x[key] is not None)
        return vals[len(vals) // 2] if vals else None

    rows = [("frames per second", "frames", lambda v: v / args.seconds, "{:.1f}"),
            ("render time, mean (ms)", "render_mean_ms", None, "{:.2f}"),
            ("echo p50 (ms)", "echo_p50_ms", None, "{:.2f}"),
            ("echo p99 (ms)", "echo_p99_ms", None, "{:.2f}"),
            ("echo max (ms)", "echo_max_ms", None, "{:.1f}")]
    print(f"\n{args.windows} windows ({kinds.count('smt-demo')} smt-demo, "
          f"{kinds.count('weston-simple-shm')} weston-simple-shm, {kinds.count('smt-plaid')} "
          f"smt-plaid), 1280x720, {args.rounds} rounds of {args.seconds:.0f} s each, medians\n")
    print(f"| {'':28} | {'scene renderer':>14} | {'culled':>8} | {'scene / culled [95%]':>20} |")
    print(f"| {'-' * 28} | {'-' * 14}:| {'-' * 8}:| {'-' * 20}:|")
    tally = V.Tally()
    for label, key, conv, fmt in rows:
        a, b = med("scene", key), med("culled", key)
        if conv:
            a, b = conv(a), conv(b)
        pairs = [(x[key], y[key]) for x, y in zip(results["scene"], results["culled"])
                 if x[key] and y[key] and x[key] > 0 and y[key] > 0]
        iv = V.ratio_interval([p[0] for p in pairs], [p[1] for p in pairs]) if pairs else None
        if key == "render_mean_ms":
            tally.judge("culled render shorter than the scene renderer's (scene / culled > 1)",
                        iv, 1.0)
        ratio = f"{iv.text(2)}x" if iv is not None else "-"
        print(f"| {label:28} | {fmt.format(a):>14} | {fmt.format(b):>8} | {ratio:>20} |")
    ppd = med("culled", "painted_per_damaged")
    print(f"\nculled: {ppd:.2f} pixels painted per damaged pixel "
          "(the scene renderer paints each once per window under it, plus the clear)")
    print(f"\n{tally.summary()}; {V.load_text(load_before, V.loadavg())}.\nReading: {V.METHOD}.")
    tally.write(os.path.join(out, "render-verdicts.csv"))
    with open(os.path.join(out, "render.json"), "w") as f:
        json.dump({"windows": args.windows, "kinds": kinds, "seconds": args.seconds,
                   "results": results}, f, indent=2)
    log(f"results in {out}/render.json")


def main():
    benchenv.require()
    args = parse_args()
    sys.argv = [sys.argv[0]]
    harness.main(lambda h: run(h, args))


if __name__ == "__main__":
    main()
