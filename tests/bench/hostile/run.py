#!/usr/bin/env python3
"""Hostile fairness: how long a well-behaved client waits while another
client attacks the compositor, next to the idle baseline, in one run.

    tests/bench/hostile/run.py [--build DIR] [--seconds N] [--rounds R] [--out FILE]
                               [--only NAME]

A headless compositor (normal build; a fresh one per round) with the limits
below. For each attack the attackers start, reach their steady state (they say so), then two
victims measure for N seconds: `smt-hostile echo-probe` (a FENCE through its
ring and back: the scheduler's answer) and `smt-hostile sync-probe`
(wl_display round trips: request dispatch), 10 ms apart. Meanwhile the
compositor's fd count, RSS and mapping count are sampled from /proc. Every process started
is ended by its pid; the compositor runs in its own XDG_RUNTIME_DIR.

Prints a Markdown table (docs/reliability.md, "Hostile fairness"; --out:
also into FILE, and its verdicts into FILE's name with -verdicts.csv), with the
machine's CPU pressure (PSI "some", last 10 s) at the end of each attack.
Every attack runs in R rounds (default 3; the attacks in reverse order in
every other round): the table shows the median of the rounds with their
min-max, and the target, a victim maximum under 50 ms during every attack,
is judged on the 95% interval of each attack's per-round maxima
(tests/bench/verdict.py): met, missed or undecided.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.dirname(HERE))
import benchenv  # noqa: E402
import verdict as V  # noqa: E402

TOTAL_FDS = 1000            # cap on all clients' fds (via fd-headroom)
CLIENT_MIB, PROCESS_MIB, TOTAL_MIB = 160, 256, 512


def config():
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return ("[limits]\n"
            f"client-memory-mib = {CLIENT_MIB}\n"
            f"process-memory-mib = {PROCESS_MIB}\n"
            f"total-memory-mib = {TOTAL_MIB}\n"
            f"fd-headroom = {hard - TOTAL_FDS}\n")


class Bench:
    def __init__(self, build, extra_limits=""):
        """extra_limits: more [limits] lines (damage.py's settings)."""
        self.build = build
        self.hostile = os.path.join(build, "tests/tools/smt-hostile")
        self.procs = []
        self.dir = tempfile.mkdtemp(prefix="smtwc-hostile-bench-")
        os.chmod(self.dir, 0o700)
        cfg = os.path.join(self.dir, "smtwc.ini")
        with open(cfg, "w") as f:
            f.write(config() + extra_limits)
        self.env = dict(os.environ, XDG_RUNTIME_DIR=self.dir, WLR_BACKENDS="headless",
                        WLR_RENDERER="pixman")
        for name in ("DISPLAY", "WAYLAND_DISPLAY"):
            self.env.pop(name, None)
        with open(os.path.join(self.dir, "smtwc.log"), "w") as log:
            self.compositor = subprocess.Popen(
                [os.path.join(build, "compositor/smtwc"), "--backend", "headless", "-c", cfg],
                env=self.env, stdout=log, stderr=subprocess.STDOUT)
        self.wait_for(lambda: self.socket_name() is not None, "the compositor's socket")
        self.env["WAYLAND_DISPLAY"] = self.socket_name()

    def socket_name(self):
        for name in os.listdir(self.dir):
            if name.startswith("wayland-") and not name.endswith((".lock", ".smtwc")):
                if os.path.exists(os.path.join(self.dir, name + ".smtwc")):
                    return name
        return None

    def wait_for(self, pred, what, timeout=60):
        end = time.monotonic() + timeout
        while not pred():
            if time.monotonic() > end or self.compositor.poll() is not None:
                sys.exit(f"hostile bench: no {what}")
            time.sleep(0.05)

    def start(self, argv):
        out = tempfile.NamedTemporaryFile("w+", dir=self.dir, delete=False)
        p = subprocess.Popen(argv, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        p.out = out.name
        self.procs.append(p)
        return p

    def output(self, p):
        with open(p.out) as f:
            return f.read()

    def stop(self, p):
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
        p.wait()
        self.procs.remove(p)

    def stats(self):
        out = subprocess.run([os.path.join(self.build, "clients/smtctl"), "stats", "--json"],
                             env=self.env, capture_output=True, text=True, check=True).stdout
        return json.loads(out)["server"]

    def clients(self):
        return self.stats()["wayland_clients"]

    def sample(self, stop, peak):
        pid = self.compositor.pid
        while not stop.is_set():
            fds = len(os.listdir(f"/proc/{pid}/fd"))
            with open(f"/proc/{pid}/status") as f:
                rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))
            with open(f"/proc/{pid}/maps") as f:
                maps = sum(1 for _ in f)
            peak["fds"] = max(peak["fds"], fds)
            peak["rss"] = max(peak["rss"], rss)
            peak["maps"] = max(peak["maps"], maps)
            time.sleep(0.02)

    def measure(self, seconds, kill_midway=()):
        """kill_midway: attackers killed together halfway through, so the
        victims measure their teardown too."""
        stop, peak = threading.Event(), {"fds": 0, "rss": 0, "maps": 0}
        sampler = threading.Thread(target=self.sample, args=(stop, peak))
        sampler.start()
        echo = self.start([self.hostile, "echo-probe", str(seconds)])
        sync = self.start([self.hostile, "sync-probe", str(seconds)])
        held = None
        if kill_midway:
            time.sleep(seconds / 2)
            held = self.stats()  # what they hold, counted, before the kill
            for p in kill_midway:
                p.send_signal(signal.SIGKILL)
            for p in kill_midway:
                p.wait()
        results = {}
        for p, key in ((echo, "ECHO"), (sync, "SYNC")):
            p.wait(seconds * 20 + 120)
            line = next((l for l in self.output(p).splitlines() if l.startswith(key)), None)
            results[key] = parse(line) if line else None
            self.stop(p)
        usage = held or self.stats()
        stop.set()
        sampler.join()
        peak["pressure"] = cpu_pressure()
        return results, peak, usage

    def finish(self):
        for p in list(self.procs):
            self.stop(p)
        benchenv.stop(self.compositor, 10)
        shutil.rmtree(self.dir, ignore_errors=True)


def cpu_pressure():
    """Share of the last 10 s in which some runnable task waited for a CPU
    (PSI): on a shared machine the victim's outliers follow it."""
    try:
        with open("/proc/pressure/cpu") as f:
            return float(f.readline().split()[1].split("=")[1])
    except (OSError, IndexError, ValueError):
        return None


def parse(line):
    fields = dict(f.split("=") for f in line.split()[1:] if "=" in f)
    return {k: float(fields[k]) for k in ("p50", "p99", "max")} | {"n": int(fields["n"])}


# name, what it does, attackers: (argv after smt-hostile, ready line); the
# names in KILLED_MIDWAY have their attackers killed halfway through the
# measurement (the victims measure the teardown).
KILLED_MIDWAY = {"teardown x6", "top ids x16", "canvases x40", "surfaces x40", "regions x40",
                 "pixmap churn x4", "canvas teardown"}
ATTACKS = [
    ("idle", "no attacker (baseline)", []),
    ("drain", "16 MiB ring of 4096x4096 OVER fills refilled as it drains, then "
              "create_pool, resize, destroy, get_canvas, resize, destroy",
     [(["drain-attack", "{long}"], "DRAIN_ATTACK started")]),
    ("big element", "1 MiB ring kept full of single-rectangle fills over 4096x4096",
     [(["big-fill", "{long}"], "RING_FULL started")]),
    ("present", "a 1 MiB ring kept full of full-damage PRESENTs of a 4500x4500 canvas "
                "(77 MiB copied each)",
     [(["present-attack", "{long}"], "PRESENT_ATTACK started")]),
    ("flood x4", "four clients keep 1 MiB rings full of 1024x1024 fills",
     [(["ring-full", "{long}"], "RING_FULL started")] * 4),
    ("fds", f"40 clients each hold a ring and 32 pools (35 fds) against a "
            f"{TOTAL_FDS}-fd total",
     [(["hold-fds", "32"], ("HOLDING", "REFUSED"))] * 40),
    ("memory", f"8 clients each fill 2 pixmaps of 64 MiB against {CLIENT_MIB} MiB "
               f"per client and {TOTAL_MIB} MiB in total",
     [(["hold-memory", "2"], ("HOLDING", "REFUSED"))] * 8),
    # Issue 24, part A: memory and costs.
    ("teardown x6", "6 clients each hold 8 rings x 31,000 1x1 pixmaps (each ring just "
                    "under the old 8 MiB threshold), killed together halfway",
     [(["hold-pixmaps", "8x31000"], ("HOLDING", "REFUSED"))] * 6),
    ("top ids x16", "16 clients each hold a 1x1 pixmap with id 2^18-1 on 8 rings, "
                    "killed together halfway",
     [(["hold-top-id", "8"], ("HOLDING", "REFUSED"))] * 16),
    ("canvas limit", "one client asks for 52,000 1x1 canvases on surfaces of their own "
                     "(refused past client-canvases=1024)",
     [(["canvas-flood", "52000"], "CANVAS_FLOOD started")]),
    ("canvases x40", "40 clients each make 1,000 1x1 canvases on surfaces of their own "
                     "(measured while they make them; refused past uid-canvases=4096), "
                     "killed together halfway",
     [(["canvas-flood", "1000"], "CANVAS_FLOOD started")] * 40),
    ("surfaces x40", "40 clients each make 1,000 bare wl_surfaces (measured while they "
                     "make them; refused past uid-surfaces=8192), killed together halfway",
     [(["surface-flood", "1000"], "SURFACE_FLOOD started")] * 40),
    ("regions x40", "40 clients each make 100,000 wl_regions (measured while they make "
                    "them; refused past client-objects=16384 and uid-objects=32768), "
                    "killed together halfway",
     [(["region-flood", "100000"], "REGION_FLOOD started")] * 40),
    ("canvas teardown", "present's attacker (a 4500x4500 canvas, 154 MiB of written "
                        "images) killed halfway",
     [(["present-attack", "{long}"], "PRESENT_ATTACK started")]),
    ("pixmap churn x4", "four clients create and free 2,000 pixmaps at ids spread over "
                        "2^18, 20 rounds on each of 4 rings, killed halfway",
     [(["pixmap-churn"], "PIXMAP_CHURN started")] * 4),
    # issue 24, part B
    ("parked fds", f"20 processes, each with connections parking 56 fds in never-completed "
                   f"messages until refused (process-fds, {TOTAL_FDS}-fd total)",
     [(["hold-parked", "6"], "HOLDING")] * 20),
    ("connections", "4 processes open 31 connections each (process-connections=16)",
     [(["hold-connections", "30"], "CONNECTIONS")] * 4),
    ("resize stack", "4 clients queue 60 resizes of one pool behind a 1 MiB ring of "
                     "4096x4096 fills",
     [(["resize-stack", "60"], ("RESIZED", "refused"))] * 4),
    ("address space", "20 processes each hold 3 pools of 4 GiB (sparse memfds)",
     [(["hold-address", "3"], ("HOLDING", "REFUSED"))] * 20),
    ("wl_shm buffers", "20 processes each keep 100 buffers of destroyed 1 MiB wl_shm pools "
                       "(libwayland keeps each mapped)",
     [(["hold-shm-buffers", "100"], ("HOLDING", "REFUSED"))] * 20),
    ("one process", f"one process, 8 connections, each filling 2 pixmaps of 64 MiB "
                    f"(process-memory-mib={PROCESS_MIB})",
     [(["hold-memory-conns", "8"], "HOLDING")]),
]


def rounds_of(attacks, rounds):
    """The attacks of each round: every attack once, in reverse order every
    other round, so that the machine's drift over the run does not always
    hit the same attack."""
    for rnd in range(rounds):
        yield attacks if rnd % 2 == 0 else attacks[::-1]


TARGET_MAX_MS = 50.0


def report(rows, args, after, load_before):
    """The Markdown table: per attack the median of the rounds' p50 / p99 /
    max with the maxima's min-max, the target judged on each attack's
    per-round maxima (both victims)."""
    by = {}
    for row in rows:
        by.setdefault(row[0], []).append(row)
    tally = V.Tally()

    def lat(rs, key):
        got = [r[2][key] for r in rs if r[2][key] is not None]
        if not got:
            return "n/a"
        med = {k: statistics.median(g[k] for g in got) for k in ("p50", "p99", "max")}
        mx = [g["max"] for g in got]
        return (f"{med['p50']:.2f} / {med['p99']:.2f} / {med['max']:.2f} "
                f"[{min(mx):.2f}-{max(mx):.2f}]")

    lines = [
        f"Victim round trips in ms (p50 / p99 / max, each the median of {args.rounds} rounds, "
        f"[min-max] of the rounds' maxima), {args.seconds} s per attack and round, "
        f"10 ms apart; limits: {CLIENT_MIB} MiB per client, {PROCESS_MIB} MiB per "
        f"process, {TOTAL_MIB} MiB and {TOTAL_FDS} fds in total, the rest as the defaults "
        f"(docs/config.md); counted: at the end of the attack (for attackers killed "
        f"halfway: just before the kill), with the victims' own. Target: victim maximum "
        f"under {TARGET_MAX_MS:g} ms, judged on the 95% interval of the per-round maxima.",
        "",
        "| attack | ring FENCE echo | wl_display round trip | max < 50 ms | attackers refused | "
        "compositor fds peak | RSS peak (MiB) | mappings peak | counted: fds / MiB / "
        "mappings / GiB of address space | CPU pressure |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, rs in by.items():
        what = rs[0][1]
        maxima = [max(r[2][k]["max"] for k in ("ECHO", "SYNC") if r[2][k] is not None)
                  for r in rs if any(r[2][k] is not None for k in ("ECHO", "SYNC"))]
        # A maximum of 0 ms cannot be: both probes time in ns.
        iv = V.value_interval([max(m, 1e-3) for m in maxima]) if maxima else None
        v = tally.judge(f"{name}: victim max < {TARGET_MAX_MS:g} ms", iv, TARGET_MAX_MS,
                        higher=False)
        pressure = [r[3]["pressure"] for r in rs if r[3]["pressure"] is not None]
        refused = ", ".join(str(r[5]) for r in rs)
        lines.append(
            f"| {name}: {what} | {lat(rs, 'ECHO')} | {lat(rs, 'SYNC')} | "
            f"{V.short(v)} {iv.text(2) if iv is not None else '-'} | {refused} of {rs[0][6]} | "
            f"{max(r[3]['fds'] for r in rs)} | {max(r[3]['rss'] for r in rs) // 1024} | "
            f"{max(r[3]['maps'] for r in rs)} | "
            f"{max(r[4]['total_fds'] for r in rs)} / "
            f"{max(r[4]['total_memory'] for r in rs) >> 20} / "
            f"{max(r[4]['total_mappings'] for r in rs)} / "
            f"{max(r[4]['total_address_space'] for r in rs) >> 30} | "
            f"{'n/a' if not pressure else '%.0f-%.0f%%' % (min(pressure), max(pressure))} |")
    lines.append("")
    lines.append(f"After the last round's attacks (a fresh compositor per round): "
                 f"{after['total_fds']} fds "
                 f"({after['total_connections']} connections), {after['total_memory']} bytes, "
                 f"{after['total_mappings']} mappings counted. Peaks and counts: the largest "
                 f"of the rounds; refused: per round.")
    every = V.all_of(r[4] for r in tally.rows)
    lines.append(f"Victim maximum under {TARGET_MAX_MS:g} ms during every attack: {every}. "
                 f"{tally.summary()}; {V.load_text(load_before, V.loadavg())}.")
    lines.append(f"Reading: {V.METHOD}.")
    return lines, tally


def run_attack(bench, args, base_clients, name, what, attackers):
    """One attack on `bench`'s compositor: its attackers ready, the victims'
    samples, then everything it caused released; the row for report()."""
    started = []
    for argv, ready in attackers:
        argv = [a.format(long=args.seconds * 10 + 60) for a in argv]
        started.append((bench.start([bench.hostile] + argv), ready))
    for p, ready in started:
        ready = ready if isinstance(ready, tuple) else (ready,)
        bench.wait_for(lambda: any(r in bench.output(p) for r in ready) or
                       p.poll() is not None, f"{name}: attacker ready", 120)
    # refused: a pixmap or pool not made, or an error naming a limit
    # ("... reached") at any of its connections, before or during the
    # measurement (an attacker that failed before it was killed)
    failed = {i for i, (p, _) in enumerate(started) if p.poll() not in (None, 0)}
    results, peak, usage = bench.measure(
        args.seconds, [p for p, _ in started] if name in KILLED_MIDWAY else ())
    refused = sum(1 for i, (p, _) in enumerate(started) if i in failed or
                  "REFUSED" in bench.output(p) or "reached" in bench.output(p))
    for p, _ in started:
        bench.stop(p)
    bench.wait_for(lambda: bench.clients() == base_clients, f"{name}: attackers gone")
    # a gone ring's many pixmaps and its mappings are freed in pieces
    # after it (each remaining connection's socket stays counted: 2 fds)
    bench.wait_for(lambda: (lambda st: st["total_fds"] == 2 * st["total_connections"]
                            and st["total_memory"] == 0 and
                            st["reclaim_items"] == 0)(bench.stats()),
                   f"{name}: the attackers' usage released")
    print(f"{name}: {results} peak {peak} usage fds {usage['total_fds']} "
          f"memory {usage['total_memory'] >> 20} MiB, refused {refused}/{len(started)}",
          file=sys.stderr)
    return (name, what, results, peak, usage, refused, len(started))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("--only", action="append", help="run only this attack (repeatable)")
    args = ap.parse_args()
    load_before = V.loadavg()
    rows = []
    after = None
    for rnd, attacks in enumerate(rounds_of(ATTACKS, args.rounds)):
        # A fresh compositor per round: the rounds also sample what changes
        # between compositors, not one compositor's history. Within a round
        # the attacks share it, each ending with everything it caused
        # released (run_attack waits for that).
        bench = Bench(os.path.abspath(args.build))
        try:
            base_clients = bench.clients()
            for name, what, attackers in attacks:
                if args.only and name not in args.only:
                    continue
                rows.append(run_attack(bench, args, base_clients, name, what, attackers))
            after = bench.stats()
        finally:
            bench.finish()

    lines, tally = report(rows, args, after, load_before)
    if args.out:
        tally.write(os.path.splitext(args.out)[0] + "-verdicts.csv")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
