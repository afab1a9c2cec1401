#!/usr/bin/env python3
"""What an X client asking the window manager for work in a loop costs
everybody else (red team, session 28; docs/reliability.md "Red team and
real programs (session 28)"), this build beside another, side by side.

    tests/bench/x11/wm_attacks.py [--rounds R] [--seconds S] [--probe P]
        [--cases window-churn,window-churn-or,state-loop,iconify-loop,configure-loop]
        [--before SMTWC] [--out DIR]

Per case, round and build: a headless smtwc (x11=True) of the build, the
attacker `smt-x11-wm-hostile CASE 0` started; 1 s later `smt-hostile
sync-probe P` (wl_display round trips every 10 ms) measures another
Wayland client, its wall-clock bound 60 s (a probe that does not finish:
"no answer"); the compositor's CPU during the probe and its RSS before the
attacker, at the probe's end and 2 s after the attacker stopped
(/proc); whether the attacker's X connection lived (its exit code),
whether Xwayland gave up ("Fatal server error" in the log); then another
X client's window after the attacker stopped (seconds, bound 60), and,
with the attacker churning again, whether the compositor exits on
SIGTERM within 30 s (its exit code; "hung": killed). Median over the
rounds [min-max]. Writes DIR/x11-wm-attacks.csv (DIR: build/bench).
"""
import argparse
import datetime
import os
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
from harness.hostile import hostile_tool, wm_hostile_tool  # noqa: E402
import interactive as I  # noqa: E402  (cpu_ticks(), spread(), loadavg())

CASES = {
    "window-churn": ["window-churn", "0"],
    "window-churn-or": ["window-churn", "0", "--or"],
    "state-loop": ["state-loop", "0"],
    "iconify-loop": ["iconify-loop", "0"],
    "configure-loop": ["configure-loop", "0"],
}


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--probe", type=float, default=3.0)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--before", default=None, help="another build's smtwc, measured beside")
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    args = ap.parse_args()
    args.case_list = args.cases.split(",")
    if any(c not in CASES for c in args.case_list):
        ap.error("--cases: " + ",".join(CASES))
    benchenv.use_build(args.smtwc)
    args.builds = {"now": os.environ["SMTWC"]}
    if args.before:
        args.builds["before"] = os.path.abspath(args.before)
    return args


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    return int(ln.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def wait_proc(p, timeout):
    end = time.monotonic() + timeout
    while p.alive() and time.monotonic() < end:
        time.sleep(0.05)
    return not p.alive()


def one(h, args, rnd, build, case):
    r = {"round": rnd + 1, "build": build, "case": case, "load": I.loadavg()}
    h.smtwc = args.builds[build]
    with Session(h, f"r{rnd}-{build}-{case}", x11=True) as s:
        pid = s.compositor.pid
        r["rss0"] = rss_mib(pid)
        attacker = s.spawn([wm_hostile_tool(h)] + CASES[case], name=case)
        time.sleep(1.0)
        cpu0 = I.cpu_ticks(pid)
        probe = s.spawn([hostile_tool(h), "sync-probe", str(args.probe)], name="sync-probe")
        done = wait_proc(probe, 60)
        r["cpu_s"] = (I.cpu_ticks(pid) - cpu0) / os.sysconf("SC_CLK_TCK")
        r["rss1"] = rss_mib(pid)
        with open(probe.log_path) as f:
            line = [ln for ln in f.read().splitlines() if ln.startswith("SYNC")]
        if done and line:
            f = dict(kv.split("=") for kv in line[0].split()[1:] if "=" in kv)
            r.update(p50=float(f["p50"]), p99=float(f["p99"]), max=float(f["max"]))
        else:
            r.update(p50=float("nan"), p99=float("nan"), max=float("nan"))
        r["answered"] = "yes" if done and line else "no answer"
        s.stop_client(attacker)
        s.stop_client(probe)
        r["attacker_rc"] = attacker.returncode
        t0 = time.monotonic()
        other = s.spawn([wm_hostile_tool(h), "steal-focus", "bystander"], name="bystander")
        try:
            s.wait_window(lambda w: w["title"] == "bystander", timeout=60,
                          what="another X client's window after the attack")
            r["window_after_s"] = time.monotonic() - t0
        except Exception as e:  # noqa: BLE001  (a row saying "not shown" is the result)
            log(f"no window after the attack: {e}")
            r["window_after_s"] = float("nan")
        s.stop_client(other)
        time.sleep(2.0)
        r["rss2"] = rss_mib(pid)
        r["fatal"] = "yes" if "Fatal server error" in s.stderr_text() else "no"
        again = s.spawn([wm_hostile_tool(h)] + CASES[case], name=case + "-again")
        time.sleep(1.0)
        t1 = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        rc = s.compositor.wait(30)
        if rc is None:
            os.kill(pid, signal.SIGKILL)
            s.compositor.popen.wait()
            r["sigterm"] = "hung"
        else:
            r["sigterm"] = f"exit {rc} in {time.monotonic() - t1:.1f} s"
        s.exit_checked = True
        s.stop_client(again)
    log(f"round {rnd + 1}, {build}, {case}: {r}")
    return r


def connection(r):
    """The attacker exits 0 when its X connection lived through it."""
    return "lived" if r["attacker_rc"] == 0 else f"ended ({r['attacker_rc']})"


def run(h, args):
    out = args.out or os.path.join(benchenv.REPO, "build", "bench")
    os.makedirs(out, exist_ok=True)
    results = []
    load0 = I.loadavg()
    names = list(args.builds)
    for rnd in range(args.rounds):
        for case in args.case_list:
            order = names if rnd % 2 == 0 else names[::-1]
            for build in order:
                results.append(one(h, args, rnd, build, case))
    lines = [f"smt-x11-wm-hostile CASE 0 beside smt-hostile sync-probe {args.probe:g} "
             f"(wl_display round trips every 10 ms), {benchenv.machine()}, {args.rounds} "
             f"rounds, {datetime.date.today().isoformat()}, load average {load0:.1f} -> "
             f"{I.loadavg():.1f}. Median over the rounds [min-max].", "",
             "| case | build | probe answered | p50 ms | p99 ms | max ms | compositor CPU s "
             "in the probe | RSS MiB before / at the probe's end / 2 s after | attacker's "
             "X connection | Xwayland gave up | new X window after, s | SIGTERM during it |",
             "|---|---|---|---:|---:|---:|---:|---|---|---|---:|---|"]
    for case in args.case_list:
        for build in names:
            rs = [r for r in results if (r["case"], r["build"]) == (case, build)]
            lines.append(
                f"| {case} | {build} | {', '.join(r['answered'] for r in rs)} "
                f"| {I.spread([r['p50'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['p99'] for r in rs], '{:.1f}')} "
                f"| {I.spread([r['max'] for r in rs], '{:.1f}')} "
                f"| {I.spread([r['cpu_s'] for r in rs], '{:.2f}')} "
                f"| {I.spread([r['rss0'] for r in rs], '{:.0f}')} / "
                f"{I.spread([r['rss1'] for r in rs], '{:.0f}')} / "
                f"{I.spread([r['rss2'] for r in rs], '{:.0f}')} "
                f"| {', '.join(connection(r) for r in rs)} "
                f"| {', '.join(r['fatal'] for r in rs)} "
                f"| {I.spread([r['window_after_s'] for r in rs], '{:.1f}')} "
                f"| {'; '.join(r['sigterm'] for r in rs)} |")
    print("\n" + "\n".join(lines) + "\n")
    path = os.path.join(out, "x11-wm-attacks.csv")
    benchenv.write_csv(path, results)
    log(f"results in {path}")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
