#!/usr/bin/env python3
"""What a program that games light grants does to an X echo beside it
(docs/x11.md "Light clients": one program's connections taking turns).

    tests/bench/x11/light_gaming.py [--rounds R] [--seconds S] [--flooders N]
        [--connections K] [--turn-ms T] [--attackers none,program,processes]
        [--transports ring,socket] [--before PATH] [--smoke] [--out DIR]
        [--smtwc PATH]

Seed 001's echo (x11-echo: every 10 ms a rectangle and a property change,
the PropertyNotify timed) among N x11-plaid flooders, at the compositor's
defaults, with and without an attacker beside them: one more x11-plaid
with K connections that flood in turn, T ms each (`--connections K
--turn-ms T`), so that each of its connections is idle for K - 1 turns and
looked light by itself (light grants before session 26's bound):
"program", all K in one process; "processes", each in a process of its
own taking turns by the clock (`--fork`), which the per-program judgement
does not join. The echo runs twice in each: typed into (a key every 10 ms
by wtype, each answered by the same echo: a person typing) and timed
(nobody types: what light grants are for). Each round is one headless
smtwc; in it each transport (alternating which goes first), and in that
each attacker (rotating which goes first). Beside each echo: the flooders'
throughput, and what the X server's half counted: the echo's input and
light grants, and the light grants the attacker's connections got, the flooders' light grants
(a flooder should never look light), and why the echo was refused light
grants (`light_heavy`: its program was judged not light; `light_no_share`,
`light_unearned`, `light_no_slot`; counters an older build has not are
blank). `--attackers none --flooders 76`: the echo among many ordinary
flooders (issue 26's other tail).

--before PATH (an older build's smtwc, e.g. main's built aside): each
round runs a session of each tree, alternating which goes first, so both
are measured under the same load in one run (the `tree` column); each
tree's x11-echo, x11-plaid and smt-x11run are the ones beside its smtwc.
Writes DIR/x11-light-gaming.csv (DIR: build/bench). --smoke: one round of
1.5 s per echo with 4 flooders.
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
ECHOES = ("typed", "timed")
ATTACKERS = ("none", "program", "processes")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0, help="each echo")
    ap.add_argument("--flooders", type=int, default=12)
    ap.add_argument("--connections", type=int, default=64, help="the attacker's")
    ap.add_argument("--turn-ms", type=int, default=5, help="the attacker's turn per connection")
    ap.add_argument("--attackers", default="none,program,processes")
    ap.add_argument("--transports", default="ring")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--smtwc", default=None)
    ap.add_argument("--before", default=None,
                    help="an older build's smtwc, measured beside this one in each round")
    args = ap.parse_args()
    if args.smoke:
        args.rounds, args.seconds, args.flooders = 1, 1.5, 4
    args.attacker_list = args.attackers.split(",")
    if args.attacker_list[0] != "none" or any(
            a not in ATTACKERS for a in args.attacker_list):
        ap.error("--attackers: none first, then program and/or processes")
    args.transport_list = args.transports.split(",")
    if any(t not in I.TRANSPORTS for t in args.transport_list):
        ap.error("--transports: ring, socket")
    if not 2 <= args.connections <= 200:
        ap.error("--connections: 2-200")
    benchenv.use_build(args.smtwc)
    args.trees = [("this", os.path.abspath(os.environ["SMTWC"]))]
    if args.before:
        if not os.access(args.before, os.X_OK):
            ap.error(f"--before {args.before}: not an executable")
        args.trees.append(("before", os.path.abspath(args.before)))
    return args


# Why the echo got no light grant, counted by the X server's half (blank
# for a build without the counter).
WHY = ("light_heavy", "light_unearned", "light_no_share", "light_no_slot", "light_share_kept")


def use_tree(h, smtwc):
    """The sessions and the programs beside them (x11-echo, x11-plaid,
    smt-x11run) from the build of this smtwc."""
    h.smtwc = smtwc
    os.environ["SMTWC"] = smtwc
    for var in ("SMT_X11_ECHO", "SMT_X11_PLAID", "SMT_X11RUN"):
        os.environ.pop(var, None)


def one(s, args, rnd, tree, transport, attack, flooders):
    """Both echoes among the flooders (and the attacker, unless "none")."""
    out = []
    attacker = None
    if attack != "none":
        attacker = s.spawn([I.program("x11-plaid"), "--connections", args.connections,
                            "--turn-ms", args.turn_ms]
                           + (["--fork"] if attack == "processes" else []),
                           name=f"x11-plaid-{attack}-{rnd}", env=I.transport_env(transport))
        I.wait_line(s, attacker, "ready", 60, "the attacker to connect")
        time.sleep(1)  # a few rounds of its turns (a warm-up, not a wait for a state)
    mine = {p.pid for p in flooders}

    def attackers():
        # its processes: x11-plaid connections that are not the flooders'
        return [r for r in s.x11ring_stats()
                if attacker and r.get("comm") == "x11-plaid" and r.get("pid") not in mine]
    def flooder_light_grants():
        return sum(r.get("light_grants", 0) for r in s.x11ring_stats() if r.get("pid") in mine)
    for echo in ECHOES:
        n0 = I.flooder_counts(s, flooders)
        before = {(r["pid"], r["fd"]): r for r in attackers()}
        fl0 = flooder_light_grants()
        tag = f"r{rnd}-{transport}-{attack}-{echo}"
        lat, delay = I.echo_run(s, transport, args.seconds, tag, 0.5, keys=echo == "typed")
        n1 = I.flooder_counts(s, flooders)
        after = attackers()
        fl1 = flooder_light_grants()
        e = [r for r in s.x11ring_closed() if r.get("comm") == "x11-echo"][-1]
        got = [x for x in lat if x is not None]
        span = statistics.median((n1[k][1] - n0[k][1]) / 1e9 for k in n1)
        won = sum(r["light_grants"] - before.get((r["pid"], r["fd"]), {}).get("light_grants", 0)
                  for r in after)
        r = {"round": rnd + 1, "tree": tree, "transport": transport, "attacker": attack,
             "echo": echo, "samples": len(lat), "lost": len(lat) - len(got),
             "p50": I.pct(got, 50), "p90": I.pct(got, 90), "p99": I.pct(got, 99),
             "max": max(got) if got else float("nan"), "echo_cpu_wait_ms": delay,
             "throughput": sum(n1[k][0] - n0[k][0] for k in n1) / span,
             "echo_grants": e.get("boosts", 0), "echo_light_grants": e.get("light_grants", 0),
             "echo_served": e.get("boost_served", 0),
             "attacker_light_grants": won, "flooder_light_grants": fl1 - fl0,
             "echo_xtime_us": e.get("xtime_us", 0), "echo_idle_us": e.get("idle_us", ""),
             "load": I.loadavg()}
        r.update({k: e.get(k, "") for k in WHY})
        log(f"round {rnd + 1}, {tree}, {transport}, attacker {attack}, "
            f"{echo}: echo p50 {r['p50']:.2f} p99 {r['p99']:.2f} max {r['max']:.2f} ms; "
            f"echo grants {r['echo_grants']} input, {r['echo_light_grants']} light; attacker "
            f"{won} light grants; flooders {r['throughput']:.0f} req/s, "
            f"{r['flooder_light_grants']} light grants; echo refused: "
            + ", ".join(f"{k} {r[k]}" for k in WHY))
        out.append(r)
    if attacker:
        attacker.terminate()
        s.clients.remove(attacker)
    return out


def run(h, args):
    out = args.out or os.path.join(ROOT, "build", "bench")
    os.makedirs(out, exist_ok=True)
    results = []
    load_before = V.loadavg()
    for rnd in range(args.rounds):
        trees = args.trees if rnd % 2 == 0 else args.trees[::-1]
        for tree, smtwc in trees:
            if args.before:
                use_tree(h, smtwc)
            with Session(h, f"r{rnd}-{tree}", x11=True) as s:
                order = args.transport_list if rnd % 2 == 0 else args.transport_list[::-1]
                for j, transport in enumerate(order):
                    flooders = [s.spawn([I.program("x11-plaid")],
                                        name=f"x11-plaid-{transport}-{i}",
                                        env=I.transport_env(transport))
                                for i in range(args.flooders)]
                    for p in flooders:
                        I.wait_line(s, p, "ready", 60, f"x11-plaid {p.pid} to start")
                    time.sleep(1)  # every flooder past its first batches (a warm-up)
                    k = (rnd + j) % len(args.attacker_list)
                    for attack in args.attacker_list[k:] + args.attacker_list[:k]:
                        results += one(s, args, rnd, tree, transport, attack, flooders)
                    for p in flooders:
                        p.terminate()
                        s.clients.remove(p)
    if args.before:
        use_tree(h, args.trees[0][1])
    load_after = V.loadavg()
    lines = [f"x11-echo among {args.flooders} x11-plaid flooders, with and without an "
             f"attacker ({args.connections} connections flooding in turn, {args.turn_ms} ms "
             "each: 'program', one x11-plaid; 'processes', one process per connection), "
             f"{args.seconds:g} s per echo, the compositor's "
             f"defaults, {benchenv.machine()}, {args.rounds} rounds, "
             f"{datetime.date.today().isoformat()}. Median over the rounds [min-max]; the "
             "attacker's effect as the ratio of the echo's p99 with it to with none, paired "
             "per round.",
             "", "| tree | transport | echo | attacker | p50 ms | p90 ms | p99 ms | max ms | "
             "p99 vs none | echo grants: input / light | echo refused: heavy / unearned / "
             "no share / no slot / share kept | attacker's light grants | flooders' light "
             "grants | flooders req/s |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def total(rs, key):
        v = [r[key] for r in rs if r.get(key, "") != ""]
        return str(sum(v)) if v else "-"
    for tree, _ in args.trees:
        for transport in args.transport_list:
            for echo in ECHOES:
                base = {r["round"]: r for r in results
                        if (r["tree"], r["transport"], r["echo"], r["attacker"]) ==
                        (tree, transport, echo, "none")}
                for attack in args.attacker_list:
                    attacked = attack != "none"
                    rs = [r for r in results
                          if (r["tree"], r["transport"], r["echo"], r["attacker"]) ==
                          (tree, transport, echo, attack)]
                    ratio = [r["p99"] / base[r["round"]]["p99"] for r in rs
                             if attacked and r["round"] in base and base[r["round"]]["p99"] > 0]
                    lines.append(
                        f"| {tree} | {transport} | {echo} | {attack} "
                        f"| {I.spread([r['p50'] for r in rs], '{:.2f}')} "
                        f"| {I.spread([r['p90'] for r in rs], '{:.2f}')} "
                        f"| {I.spread([r['p99'] for r in rs], '{:.2f}')} "
                        f"| {I.spread([r['max'] for r in rs], '{:.1f}')} "
                        f"| {I.spread(ratio, '{:.2f}') if ratio else ''} "
                        f"| {sum(r['echo_grants'] for r in rs)} / "
                        f"{sum(r['echo_light_grants'] for r in rs)} "
                        f"| {' / '.join(total(rs, k) for k in WHY)} "
                        f"| {sum(r['attacker_light_grants'] for r in rs) if attacked else ''} "
                        f"| {sum(r['flooder_light_grants'] for r in rs)} "
                        f"| {I.spread([r['throughput'] for r in rs], '{:.0f}')} |")
    lines += ["", V.load_text(load_before, load_after) + "."]
    print("\n" + "\n".join(lines) + "\n")
    path = os.path.join(out, "x11-light-gaming.csv")
    benchenv.write_csv(path, results)
    log(f"results in {path}")


def main():
    benchenv.harness_main(harness.main, parse_args, run)


if __name__ == "__main__":
    main()
