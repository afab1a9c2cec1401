#!/usr/bin/env python3
"""Where each echo and animation frame spent its time, from the compositor's
event trace (SMTWC_TRACE, compositor/trace/trace.h) beside the clients' CSVs
that `echo.py --trace` keeps.

    tests/bench/workers/trace.py RAW_DIR [--worst N] [--tag w1-nNone-r0]

RAW_DIR is echo.py's raw-* directory (trace-TAG.txt, rb-TAG.csv,
anim-TAG.csv, pids-TAG.txt per round and setting). For every echo (from
the motion event's receipt, recv_ns, to the mark PRESENT's execution,
exec_ns) and every animation frame (issue_ns to exec_ns) the client's own
events are cut into phases, summed over the two PRESENTs each one crosses:

  seen      from the client's publish (recv / issue) or a settle's end to
            the scheduler hearing of the work (ready / reported)
  picked    ready until a worker (or the main thread) picked the ring
  ran       picked until the run ended (for a worker: handed a PRESENT)
  handoff   a worker's run end until the main thread began to settle it
  settle    the main thread's settle (the PRESENT's copy)

plus the output renders that overlapped the span. The echoes at or over
the round's p99 are also cut from the mouse's send (tail_split: the main
thread's dispatch of the move, the client's wake-up, the publish noticed,
the scheduler's wait, the execution while the runner ran and while it
waited for a CPU). Printed per tag: mean,
p99 and max of each phase; the frame-interval outliers' and the worst
echoes' phases; and the N worst echoes' and frames' whole timelines.
"""
import argparse
import bisect
import csv
import glob
import os
import sys

PHASES = ("seen", "picked", "ran", "handoff", "settle", "render")


def load_trace(path):
    ev = []
    main_tid = None
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                main_tid = int(line.split("main tid ")[1].split(",")[0])
                continue
            t, tid, name, pid, arg, cpu = line.split()
            ev.append((int(t), int(tid), name, int(pid), int(arg), int(cpu)))
    ev.sort()
    return ev, main_tid


def read_csv(path):
    with open(path) as f:
        return [{k: int(v) for k, v in r.items()} for r in csv.DictReader(f)]


def read_pids(path):
    out = {}
    with open(path) as f:
        for line in f:
            k, v = line.split()
            out[k] = int(v)
    return out


def phases(ev, times, pid, t0, t1):
    """The client's phases between t0 and t1 (see the module's doc)."""
    i = bisect.bisect_left(times, t0)
    j = bisect.bisect_right(times, t1)
    ph = dict.fromkeys(PHASES, 0)
    state, since = "seen", t0
    render_at = None
    for t, tid, name, p, arg, _ in ev[i:j]:
        if name == "render_begin":
            render_at = t
        elif name == "render_end" and render_at is not None:
            ph["render"] += t - render_at
            render_at = None
        if p != pid:
            continue
        if name in ("ready", "reported") and state == "seen":
            ph["seen"] += t - since
            state, since = "picked", t
        elif name == "pick" and state in ("seen", "picked"):
            ph[state] += t - since
            state, since = "ran", t
        elif name == "run_end" and state == "ran":
            ph["ran"] += t - since
            state, since = ("handoff" if arg & 1 else "seen"), t
        elif name == "present_exec" and state == "ran":
            # (workers 0: the PRESENT runs inside the pick)
            ph["ran"] += t - since
            since = t
        elif name == "settle_begin" and state == "handoff":
            ph["handoff"] += t - since
            state, since = "settle", t
        elif name == "settle_end" and state == "settle":
            ph["settle"] += t - since
            state, since = "seen", t
    if state in ph and state != "render":
        ph[state] += t1 - since
    if render_at is not None:
        ph["render"] += t1 - render_at
    return ph


def pct(v, q):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[min(len(v) - 1, int(q / 100 * len(v)))]


def timeline(ev, times, main_tid, pids, t0, t1, names):
    """Every event in [t0, t1], the flooders' pieces folded into counts."""
    i = bisect.bisect_left(times, t0)
    j = bisect.bisect_right(times, t1)
    folded = 0
    out = []
    for t, tid, name, p, arg, _ in ev[i:j]:
        who = names.get(p, "flooder %d" % p if p else "")
        if who.startswith("flooder") and name in ("piece_end", "pick", "run_end", "ready",
                                                  "reported", "settle_begin", "settle_end",
                                                  "present_exec"):
            folded += 1
            continue
        if folded:
            out.append("        (%d flooder events)" % folded)
            folded = 0
        thread = "main" if tid == main_tid else "w%d" % tid
        out.append("  %+8.3f ms %-5s %-13s %-12s %d" % ((t - t0) / 1e6, thread, name, who, arg))
    if folded:
        out.append("        (%d flooder events)" % folded)
    return out


def runs_summary(ev, main_tid):
    """The runners' pieces (a pick or a piece's end to the next piece's
    end, on one thread): wall time, and the part the thread did not run
    (wall minus its CPU time: waiting for a CPU, or blocked)."""
    last = {}
    pieces = []
    for t, tid, name, p, arg, cpu in ev:
        if name == "pick":
            last[tid] = (t, cpu)
        elif name in ("piece_end", "run_end") and tid in last:
            t0, c0 = last[tid]
            if name == "piece_end":
                pieces.append((t - t0, (t - t0) - (cpu - c0), tid == main_tid))
            last[tid] = (t, cpu)
    if not pieces:
        return
    wall = sorted(w for w, _, _ in pieces)
    long_ = [(w, off) for w, off, _ in pieces if w > 2e6]
    print("  worker pieces: %d, wall p50 %s / p99 %s / max %s ms; %d over 2 ms, of which "
          "not running %s of %s ms" % (
              len(pieces), fmt(pct(wall, 50)), fmt(pct(wall, 99)), fmt(wall[-1]), len(long_),
              fmt(sum(o for _, o in long_)), fmt(sum(w for w, _ in long_))))


def mechanics(ev, main_tid):
    """Counts of the handoff machinery: runs handed to the main thread, the
    main thread's wake-ups per handoff, how long a raised yield took to end
    the runner's piece (its reach), lone slices picked, and handoffs that
    an output render overtook (the PRESENT settled after a repaint began
    that it could have been in: shown a frame later)."""
    handed = woke = lone = 0
    wakes = [0, 0, 0, 0]  # trace.h's trace_wake_reason
    raised = {}
    reach = []
    pending = {}
    overtaken = 0
    for t, tid, name, p, arg, _ in ev:
        if name == "run_end" and arg & 1:
            handed += 1
            pending[p] = False
        elif name == "wake_main":
            wakes[min(arg, 3)] += 1
        elif name == "main_woke":
            woke += 1
        elif name == "pick":
            lone += arg >> 32
            raised.pop(p, None)  # (a raise after the run's last piece)
        elif name == "yield_raised":
            raised.setdefault(p, t)
        elif name == "piece_end" and p in raised:
            reach.append(t - raised.pop(p))
        elif name == "render_begin":
            for k in pending:
                pending[k] = True
        elif name == "settle_begin" and p in pending:
            overtaken += pending.pop(p)
    reach.sort()
    print("  handoffs %d; main thread woken by workers %d times (%.2f per handoff: at a "
          "handoff %d, a run's end %d, a report %d, a posted PRESENT %d), woke from sleep %d; "
          "lone slices "
          "picked %d; handoffs a render overtook %d" % (
              handed, sum(wakes), sum(wakes) / max(1, handed), wakes[0], wakes[1], wakes[2], wakes[3],
              woke, lone, overtaken))
    if reach:
        print("  a raised yield to the runner's piece end: p50 %s / p99 %s / max %s ms (%d)" % (
            fmt(pct(reach, 50)), fmt(pct(reach, 99)), fmt(reach[-1]), len(reach)))


TAIL = ("dispatch", "client", "notice", "sched", "exec_cpu", "exec_wait")


def tail_split(ev, times, pid, send, recv, exec_):
    """One echo from the mouse's send to the mark's execution, cut into:
    dispatch  send until the main thread sent the motion (TRACE_INPUT): its
              wake-up, its wait for a CPU, what it ran before
    client    that until the client's callback ran (recv): the echo
              client woken by the event and waiting for a CPU (workers 0
              has the same wait; no compositor change reaches it)
    notice    recv until the scheduler heard of the ring's work (ready,
              reported): the client's drawing, its publish seen
    sched     heard of until a worker (or the main thread) picked the ring
    exec_cpu  picked until the run ended or the PRESENT ran, while the
              runner's thread ran (its CLOCK_THREAD_CPUTIME_ID)
    exec_wait the same span while the runner held the ring but did not run
              (waiting for a CPU)
    summed over the runs the echo crosses."""
    out = dict.fromkeys(TAIL, 0)
    i = bisect.bisect_left(times, send)
    j = bisect.bisect_right(times, exec_)
    inp = None
    for t, tid, name, p, arg, cpu in ev[i:j]:
        if p == pid and name == "input" and t <= recv:
            inp = t
    if inp is None:  # (coalesced, or outside the trace: all dispatch)
        inp = recv
    out["dispatch"] = inp - send
    out["client"] = recv - inp
    state, since, run_tid, last = "notice", recv, None, None
    i = bisect.bisect_left(times, recv)
    for t, tid, name, p, arg, cpu in ev[i:j]:
        if p != pid:
            continue
        if name in ("ready", "reported") and state == "notice":
            out["notice"] += t - since
            state, since = "sched", t
        elif name == "pick" and state in ("notice", "sched"):
            out[state] += t - since
            state, since, run_tid, last = "ran", t, tid, (t, cpu)
        elif state == "ran" and tid == run_tid and name in ("piece_end", "run_end",
                                                            "present_exec"):
            wall, used = t - last[0], cpu - last[1]
            used = max(0, min(wall, used))
            out["exec_cpu"] += used
            out["exec_wait"] += wall - used
            last = (t, cpu)
            if name == "run_end":
                state, since = "notice", t
    if state == "ran":
        out["exec_cpu"] += exec_ - last[0]
    elif state in out:
        out[state] += exec_ - since
    return out


def tail(ev, times, pid, rb_rows, q=99):
    """The echoes over the round's p99: their phases (tail_split) summed,
    and which phase was the largest in how many of them."""
    lat = sorted(r["exec_ns"] - r["send_ns"] for r in rb_rows)
    if not lat:
        return
    cut = pct(lat, q)
    slow = [r for r in rb_rows if r["exec_ns"] - r["send_ns"] >= cut]
    split = [tail_split(ev, times, pid, r["send_ns"], r["recv_ns"], r["exec_ns"]) for r in slow]
    total = sum(sum(s.values()) for s in split) or 1
    largest = dict.fromkeys(TAIL, 0)
    for s in split:
        largest[max(TAIL, key=lambda k: s[k])] += 1
    print("  echoes at or over p%d (%s ms): %d; phase: share of their time, mean ms, "
          "largest in" % (q, fmt(cut), len(slow)))
    for k in TAIL:
        v = [s[k] for s in split]
        print("    %-9s %5.1f%%  %s  %d" % (k, 100 * sum(v) / total, fmt(sum(v) / len(v)),
                                           largest[k]))


def fmt(v):
    return "%.2f" % (v / 1e6)


def analyse(raw, tag, worst):
    ev, main_tid = load_trace(os.path.join(raw, "trace-%s.txt" % tag))
    times = [e[0] for e in ev]
    pids = read_pids(os.path.join(raw, "pids-%s.txt" % tag))
    rb, an = pids["rubberband"], pids["anim"]
    names = {rb: "rubberband", an: "anim"}
    rb_rows = [r for r in read_csv(os.path.join(raw, "rb-%s.csv" % tag)) if r["exec_ns"]]
    an_rows = [r for r in read_csv(os.path.join(raw, "anim-%s.csv" % tag)) if r["exec_ns"]]
    print("== %s: %d events, %d echoes, %d frames" % (tag, len(ev), len(rb_rows), len(an_rows)))
    runs_summary(ev, main_tid)
    mechanics(ev, main_tid)
    tail(ev, times, rb, rb_rows)
    echo = [(r["exec_ns"] - r["send_ns"], r, phases(ev, times, rb, r["recv_ns"], r["exec_ns"]))
            for r in rb_rows]
    frames = [(r["exec_ns"] - r["issue_ns"], r, phases(ev, times, an, r["issue_ns"],
                                                         r["exec_ns"])) for r in an_rows]
    for label, rows in (("echo (recv -> exec)", echo), ("frame (issue -> exec)", frames)):
        print("  %s, ms: phase mean / p99 / max" % label)
        for k in PHASES:
            v = [p[k] for _, _, p in rows]
            print("    %-8s %s / %s / %s" % (k, fmt(sum(v) / max(1, len(v))), fmt(pct(v, 99)),
                                            fmt(max(v) if v else 0)))
    # the frame intervals far from the period: which phase moved
    iv = []
    for a, b in zip(frames, frames[1:]):
        iv.append((b[1]["exec_ns"] - a[1]["exec_ns"], b))
    if iv:
        period = sorted(x for x, _ in iv)[len(iv) // 2]
        iv.sort(key=lambda x: -abs(x[0] - period))
        print("  frame intervals furthest from the median %.2f ms (interval: issue->exec phases)"
              % (period / 1e6))
        for x, (lat, r, p) in iv[:worst]:
            print("    %6.2f ms: frame %d late by %s; %s" % (
                x / 1e6, r["frame"], fmt(lat), ", ".join("%s %s" % (k, fmt(p[k]))
                                                         for k in PHASES if p[k] > 50000)))
    echo.sort(key=lambda x: -x[0])
    print("  worst echoes (send -> exec; receipt, then phases after it)")
    for lat, r, p in echo[:worst]:
        print("    %6.2f ms at +%.3f s: receipt %s; %s" % (
            lat / 1e6, (r["send_ns"] - ev[0][0]) / 1e9, fmt(r["recv_ns"] - r["send_ns"]),
            ", ".join("%s %s" % (k, fmt(p[k])) for k in PHASES if p[k] > 50000)))
    for lat, r, p in echo[:min(worst, 2)]:
        print("  timeline of the %.2f ms echo (0 = its send)" % (lat / 1e6))
        for line in timeline(ev, times, main_tid, pids, r["send_ns"], r["exec_ns"], names):
            print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw")
    ap.add_argument("--worst", type=int, default=5)
    ap.add_argument("--tag", action="append", default=[])
    args = ap.parse_args()
    tags = args.tag or sorted(os.path.basename(p)[6:-4]
                              for p in glob.glob(os.path.join(args.raw, "trace-*.txt")))
    if not tags:
        sys.exit("no trace-*.txt in %s (echo.py --trace)" % args.raw)
    for tag in tags:
        analyse(args.raw, tag, args.worst)


if __name__ == "__main__":
    main()
