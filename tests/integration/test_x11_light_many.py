#!/usr/bin/env python3
"""An echo stays light among many X flooders (docs/x11.md "Light
clients", xwayland-glue/stream/x11_usage.h; issue 26, session 28).

Until session 28 a program was light when it used less than a quarter of
the mean X server time of the programs that used any. Among many
flooders that mean is small (each flooder gets its share of the round
robin), so an echo that needs 1% of the X server was at times not light
and waited in a round robin of 76 flooders (p99 321-428 ms). Now a
program is light when it used less than a quarter of the time it had
nothing waiting: a flooder always has requests waiting and never is, an
echo is idle between its redraws and always is, however many flooders
share the X server.

The echo here (x11-echo --rects, on the ring) redraws a few hundred
rectangles every 20 ms, so that it uses more than a quarter of what each
of FLOODERS flooders gets (checked below from the X server's own
charges: the premise, under which the mean rule judged it heavy at every
poll), and well under a fifth of the X server. What is checked is what
the X server's half counted, never a duration:
- after its first windows, the echo is judged light at nearly every
  poll that finds it with requests waiting (`light_heavy`: polls where
  its program was judged not light; with the mean rule, most of them),
  and most of its echoes are read under a light grant (`light_served`);
- the flooders, which the X server always finds with requests waiting,
  are not light: together they get fewer light grants than the echo
  (a flooder can look light only after its process sat without a CPU
  long enough that the X server found it idle, on a loaded machine);
- every flooder keeps executing requests.

The same echo (one rectangle) beside a forked gamer (x11-plaid
--connections 64 --turn-ms 5 --fork: 64 processes flooding in turn, each
light at the start of its turn) among 12 flooders: each process's light
grant buys one read, and the grant ends with it when that read left
requests waiting, so the gamer's processes do not keep the table of grants
full. Checked: the echo is hardly ever refused a grant for a full table
(`light_no_slot`; before session 28 the ended grants stayed in the table
for their 100 ms and the echo was refused 55,187 times in 3 s) and most
of its echoes are read under a light grant, while the gamer's processes
did get light grants (the case is exercised).

Checked by putting the mean rule back locally (session 28): the first part
failed twice (the echo judged not light at 2,536 and 2,610 polls for 392
and 352 echoes, the flooders given 161 and 165 light grants against its
22 and 27; with 40 flooders and 300 rectangles it answered only 36 echoes
in the measured part), the second twice (refused for a full table 65
times for 126 echoes, 25 for 159). With the new rule and the table mend
taken out (a light grant kept for its 100 ms after a read that left
requests waiting) the second part still passed at this load: it tells
the rules apart, not that mend (unit/x11_boost_rules checks the grant's
end).
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.x11_flood import start_flooders, stop  # noqa: E402
import interactive as bench  # noqa: E402  (its x11-echo and x11-plaid drivers)

FLOODERS = 40
RECTS = 300
ECHO_SECONDS = 8
# The echo's period. Lightness is judged on the X server's working clock,
# so the idle time between two redraws is what the X server worked while
# the echo slept: at 10 ms, under ASan beside two busy loops, Xwayland ran
# about a third of the wall clock and the echo's 300 rectangles cost about
# a quarter of that (0.9 ms against 3.6 ms in the windows it was judged
# heavy, session 39: 2 failures in 3 runs), the rule's very threshold.
# At 20 ms its idle is twice that, while it still uses several times the
# quarter of a flooder's time the premise below asks.
PERIOD_MS = 20
# The measured part starts once the echo was idle for this much of the X
# server's work (a window is 100 ms of it; its first charge must be a
# window old before it can be light) ...
SETTLED_IDLE_US = 300000
# ... and needs at least this many echoes.
ECHOES_MIN = 50


# The forked gamer beside the plain echo.
GAMER_FLOODERS = 12
GAMER_CONNECTIONS = 64
GAMER_TURN_MS = 5


def rows_of(s, pids):
    return {r["pid"]: r for r in s.x11ring_stats() if r.get("pid") in pids}


def measured_echo(s, procs, label, rects, tries=3):
    """measured_one_echo until its measured part has ECHOES_MIN echoes, at
    most `tries` runs, each twice as long as the one before: the part
    starts once the echo has settled, which on a loaded machine took most
    of a run (39 echoes, ASan beside other work) or all of it (session 42:
    the echo exited before it settled), and a count of echoes in a fixed
    time is a rate. What is checked is per echo, whatever the run's
    length."""
    seconds = ECHO_SECONDS
    for attempt in range(tries):
        got = measured_one_echo(s, procs, f"{label}-{attempt}", rects, seconds)
        if got is None:
            log(f"{label}: the echo exited ({seconds} s) before it settled")
        else:
            a, b, fa, fb = got
            if (b["requests"] - a["requests"]) // 2 >= ECHOES_MIN:
                break
            log(f"{label}: {(b['requests'] - a['requests']) // 2} echoes in the measured part "
                f"({seconds} s)")
        seconds *= 2
    check(got is not None, f"{label}: the echo exited before it settled in all {tries} runs")
    return a, b, fa, fb


def measured_one_echo(s, procs, label, rects, seconds):
    """The echo among the running flooders, its statistics at the start
    of the measured part (once it was idle for SETTLED_IDLE_US of the X
    server's work) and at its close, the flooders' rows at both, and every
    flooder checked to execute requests meanwhile; None if the echo
    exited before it settled."""
    pids = {p.pid for p in procs}
    csv_path = os.path.join(s.tmp, f"echo-{label}.csv")
    echo = s.spawn([bench.program("x11-echo"), "--seconds", seconds, "--warmup", 0,
                    "--rects", rects, "--period-ms", PERIOD_MS, "--csv", csv_path],
                   name=f"x11-echo-{label}")
    bench.wait_line(s, echo, "ready", 60, f"x11-echo ({label}) to map its window")

    def settled():
        r = rows_of(s, {echo.pid}).get(echo.pid)
        return r if r and r.get("idle_us", 0) >= SETTLED_IDLE_US else None
    a = s.wait_until(lambda: settled() or not echo.alive(), timeout=seconds + 60,
                     what=f"the echo idle for {SETTLED_IDLE_US} us of the X server's work")
    if a is True:
        rc = echo.wait(10)
        s.clients.remove(echo)
        check(rc == 0, f"x11-echo ({label}) exited with {rc}:\n{echo.log_tail()}")
        return None
    fa = rows_of(s, pids)
    n0 = bench.flooder_counts(s, procs)
    rc = echo.wait(seconds + 60)
    s.clients.remove(echo)
    check(rc == 0, f"x11-echo ({label}) exited with {rc}:\n{echo.log_tail()}")
    n1 = bench.flooder_counts(s, procs)
    fb = rows_of(s, pids)
    b = s.wait_until(lambda: [r for r in s.x11ring_closed() if r["pid"] == echo.pid],
                     timeout=10, what=f"Xwayland to log the echo's ({label}) close")[-1]
    for pid in n1:
        check(n1[pid][0] > n0[pid][0],
              f"x11-plaid {pid} executed no request while the echo ran: "
              f"{n0[pid][0]} then {n1[pid][0]}")
    check(b["transport"] == "ring" and all(r["transport"] == "ring" for r in fb.values()),
          f"the echo and the flooders should be on the ring: {b}, {fb}")
    log(f"{label}: echo at the start of the measured part: {a}")
    log(f"{label}: echo at its end: {b}")
    return a, b, fa, fb


def forked_gamer(s):
    flooders = start_flooders(s, {"ring": GAMER_FLOODERS})
    procs = [p for _, p in flooders]
    mine = {p.pid for p in procs}
    gamer = s.spawn([bench.program("x11-plaid"), "--connections", GAMER_CONNECTIONS,
                     "--turn-ms", GAMER_TURN_MS, "--fork"], name="x11-plaid-forked")
    bench.wait_line(s, gamer, "ready", 60, "the forked gamer to connect")

    def gamers():
        return [r for r in s.x11ring_stats()
                if r.get("comm") == "x11-plaid" and r.get("pid") not in mine]
    s.wait_until(lambda: len(gamers()) == GAMER_CONNECTIONS, timeout=60,
                 what=f"the gamer's {GAMER_CONNECTIONS} processes to connect")
    g0 = sum(r["light_grants"] for r in gamers())
    a, b, _, _ = measured_echo(s, procs, "forked", 1)
    g1 = sum(r["light_grants"] for r in gamers())
    s.stop_client(gamer)
    stop(s, procs)
    d = {k: b[k] - a[k] for k in ("requests", "light_no_slot", "light_served", "light_grants",
                                  "light_heavy")}
    echoes = d["requests"] // 2
    log(f"forked: measured part: echo {d}, {echoes} echoes; the gamer's light grants "
        f"{g1 - g0}")
    check(echoes >= ECHOES_MIN, f"the echo answered {echoes} echoes in the measured part")
    check(g1 > g0, "the gamer's processes got no light grant: the case is not exercised")
    check(d["light_no_slot"] * 10 <= echoes,
          f"the echo was refused a light grant for a full table {d['light_no_slot']} times "
          f"for {echoes} echoes")
    check(d["light_served"] * 2 >= echoes,
          f"only {d['light_served']} of the echo's {echoes} echoes were read under a light "
          f"grant beside the forked gamer")


def many_flooders(s):
    flooders = start_flooders(s, {"ring": FLOODERS})
    procs = [p for _, p in flooders]
    time.sleep(1)  # every flooder past its first batches (a warm-up, not a wait for a state)
    a, b, fa, fb = measured_echo(s, procs, "many", RECTS)
    stop(s, procs)
    check(len(fb) == FLOODERS, f"{len(fb)} of the {FLOODERS} flooders listed: {fb}")
    d = {k: b[k] - a[k] for k in ("requests", "xtime_us", "idle_us", "light_heavy",
                                  "light_served", "light_grants")}
    echoes = d["requests"] // 2  # a PolyFillRectangle and a ChangeProperty each
    flood_x = [fb[p]["xtime_us"] - fa[p]["xtime_us"] for p in fb if p in fa]
    flood_grants = sum(fb[p]["light_grants"] - fa[p]["light_grants"] for p in fb if p in fa)
    mean_x = sum(flood_x) / len(flood_x)
    log(f"many: measured part: echo {d}, {echoes} echoes; flooders' X server time: mean "
        f"{mean_x:.0f} us, min {min(flood_x)}, max {max(flood_x)}; flooders' light grants "
        f"{flood_grants}")
    check(echoes >= ECHOES_MIN, f"the echo answered {echoes} echoes in the measured part")
    # The premise: by the mean rule (a quarter of the mean of the
    # programs that used time) the echo was heavy.
    check(d["xtime_us"] * 4 > mean_x,
          f"the echo used {d['xtime_us']} us against the flooders' mean {mean_x:.0f} us: "
          f"under a quarter, so the test does not tell the rules apart (more --rects)")
    check(d["xtime_us"] * 4 < d["idle_us"],
          f"the echo used {d['xtime_us']} us and was idle {d['idle_us']} us: not light by "
          f"the rule either (fewer --rects)")
    check(d["light_heavy"] * 10 <= echoes,
          f"the echo was judged not light at {d['light_heavy']} polls for {echoes} echoes")
    check(d["light_served"] * 2 >= echoes,
          f"only {d['light_served']} of the echo's {echoes} echoes were read under a light "
          f"grant")
    check(flood_grants < d["light_grants"],
          f"the flooders got {flood_grants} light grants, the echo {d['light_grants']}")


# The premise (the echo above a quarter of a flooder's X server time) was
# calibrated at a 2 ms slice. At the 5 ms default (session 29) the premise
# failed once (the echo 26.9 ms against the flooders' mean 158 ms: fewer,
# longer flooder picks; not analysed further). The rule under test is the
# same at any slice, so the slice it was calibrated at is pinned.
CALIBRATED = "[xwayland]\nsched-interval-ms = 2\n"


def test(h):
    with Session(h, "many", x11=True, config=CALIBRATED) as s:
        many_flooders(s)
    with Session(h, "forked", x11=True) as s:
        forked_gamer(s)


if __name__ == "__main__":
    harness.main(test)
