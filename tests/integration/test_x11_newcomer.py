#!/usr/bin/env python3
"""A new X program's start-up among X flooders is served by light grants
(docs/x11.md "Newcomers", xwayland-glue/stream/x11_usage.h; session 41).

Until session 41 a program was judged light only once it had a whole
window (100 ms of the X server's work) of history, so that a new flooder
was not light at its start; a new program's hello, connection setup and
first round trips each waited in the flooders' round robin (xprop among
4 flooders: 76-170 ms against 11 ms alone, tests/bench/x11/startup.py).
Now a program that has used less than X11_USAGE_NEW_BUDGET_NS of the X
server in all is a newcomer: the polls that find its connection with
bytes waiting (its first bytes too, before it is a ring or a socket
client) give it a light grant, paid from the light grants' quarter above
one credit.

What is checked is what the X server's half counted for each new program,
never a duration:
- xprop and `x11-echo --mapped` (a window mapped and exposed) started one
  after the other among FLOODERS x11-plaid, on the ring and on the socket:
  no poll found one of them with requests waiting without granting it
  (`light_heavy` 0; before: 12-48 such polls per start), each got a
  newcomer's grant (`light_new`), and most had reads served under it
  (`light_served`: a light grant favours only while the shared favour
  holds more than a credit, which the flooders' own newcomers' grants
  spend at their start, so the flooders are first charged past the
  budget);
- a program that reconnects from the same pid over and over
  (tests/bench/x11/x11-reconnect.py, each connection a burst of 16 KiB
  and a round trip) is a newcomer once: no connection after its first
  gets a newcomer's grant (`light_new` 0), since its pid left lately;
- a new process per connection (--fork: ATTACKERS attackers that
  connect as fast as they can, each connection a newcomer) beside a timed echo among the
  flooders: the echo still has most of its echoes read under a light
  grant and every flooder keeps executing requests, while the attacker's
  connections did get newcomers' grants (the case is exercised).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.x11_flood import start_flooders, stop  # noqa: E402
import interactive as bench  # noqa: E402  (its x11-echo and x11-plaid drivers)

FLOODERS = 4
STARTS = 3  # of each program on each transport
RECONNECTS = 20
ATTACKERS = 3  # forked reconnectors at once
RECONNECT = os.path.join(HERE, "..", "bench", "x11", "x11-reconnect.py")
ECHO_SECONDS = 3
ECHOES_MIN = 30
# X11_USAGE_NEW_BUDGET_NS: the flooders are newcomers until charged this
# much (or a window old), and their newcomers' grants spend the shared
# favour a new program's grant then finds kept (`light_share_kept`).
NEW_BUDGET_US = 10000


def closed_of(s, pids):
    """The closed-connection rows of pids, once Xwayland logged them all."""
    def rows():
        got = {r["pid"]: r for r in s.x11ring_closed() if r.get("pid") in pids}
        return got if set(pids) <= set(got) else None
    return s.wait_until(rows, timeout=30, what="Xwayland to log the new programs' closes")


def flooders_settled(s, flooders):
    pids = {p.pid for _, p in flooders}
    s.wait_until(lambda: all(r["xtime_us"] > NEW_BUDGET_US for r in s.x11ring_stats()
                             if r.get("pid") in pids),
                 timeout=60, what=f"every flooder charged over {NEW_BUDGET_US} us")


def new_programs(s):
    progs = {"xprop": ["xprop", "-root", "_NET_ACTIVE_WINDOW"],
             "x11-echo": [bench.program("x11-echo"), "--mapped"]}
    for transport in ("ring", "socket"):
        pids = {}
        for i in range(STARTS):
            for name, argv in progs.items():
                p = s.spawn(argv, name=f"{name}-{transport}-{i}",
                            env=bench.transport_env(transport))
                rc = p.wait(harness.scaled(60))
                s.clients.remove(p)
                check(rc == 0, f"{name} on the {transport} exited with {rc}:\n{p.log_tail()}")
                pids[p.pid] = name
        rows = closed_of(s, set(pids))
        served = 0
        for pid, name in pids.items():
            r = rows[pid]
            log(f"{name} {pid} on the {transport}: light_heavy {r['light_heavy']}, "
                f"light_grants {r['light_grants']}, light_served {r['light_served']}, "
                f"light_new {r.get('light_new')}, light_no_share {r['light_no_share']}, "
                f"xtime_us {r['xtime_us']}")
            check(r["transport"] == transport, f"{name} {pid}: not on the {transport}: {r}")
            check(r["light_heavy"] == 0,
                  f"{name} {pid} on the {transport} was found with requests waiting and "
                  f"no grant {r['light_heavy']} times: its start-up waited in the "
                  f"flooders' round robin")
            check(r.get("light_new", 0) >= 1,
                  f"{name} {pid} on the {transport}: no newcomer's light grant: {r}")
            served += r["light_served"] >= 1
        # A grant favours only while the shared favour holds more than a
        # credit (input first), which the starts themselves spend: most,
        # not every one, had reads served under it.
        check(served * 2 >= len(pids),
              f"on the {transport} only {served} of {len(pids)} new programs had a read "
              f"served under their light grant")


def reconnecting(s):
    p = s.spawn([sys.executable, RECONNECT, "--display", s.x_display, "--count", RECONNECTS],
                name="x11-reconnect")
    rc = p.wait(harness.scaled(120))
    s.clients.remove(p)
    check(rc == 0, f"x11-reconnect exited with {rc}:\n{p.log_tail()}")
    rows = s.wait_until(
        lambda: (lambda r: r if len(r) >= RECONNECTS else None)(
            [r for r in s.x11ring_closed() if r.get("pid") == p.pid]),
        timeout=30, what="Xwayland to log the reconnector's closes")
    log("reconnector's connections, light_new: " + " ".join(str(r["light_new"]) for r in rows))
    check(all(r["light_new"] == 0 for r in rows[1:]),
          "a connection after the reconnector's first got a newcomer's grant: "
          + " ".join(str(r["light_new"]) for r in rows))


def forked_attacker(s, flooders):
    procs = [p for _, p in flooders]
    attackers = [s.spawn([sys.executable, RECONNECT, "--display", s.x_display, "--fork"],
                         name=f"x11-reconnect-fork-{i}") for i in range(ATTACKERS)]
    for a in attackers:
        bench.wait_line(s, a, "ready", 60, "a forked reconnector's first connection")
    n0 = bench.flooder_counts(s, procs)
    lat, _ = bench.echo_run(s, "ring", ECHO_SECONDS, "newcomer", 0, min_answers=ECHOES_MIN)
    n1 = bench.flooder_counts(s, procs)
    for a in attackers:
        s.stop_client(a)
    echo = [r for r in s.x11ring_closed() if r.get("comm") == "x11-echo"][-1]
    mine = {p.pid for p in procs} | {a.pid for a in attackers} | {echo["pid"]}
    forked = [r for r in s.x11ring_closed()
              if r.get("comm", "").startswith("python") or
              r.get("comm", "").startswith("x11-reconnect")]
    forked = [r for r in forked if r["pid"] not in mine]
    answered = [x for x in lat if x is not None]
    echoes = echo["requests"] // 2
    log(f"forked attacker: {len(forked)} connections, {sum(r['light_new'] for r in forked)} "
        f"newcomers' grants, {sum(r['light_no_share'] for r in forked)} refused for the "
        f"share; echo: {echoes} echoes, light_served {echo['light_served']}, light_no_share "
        f"{echo['light_no_share']}, light_heavy {echo['light_heavy']}")
    check(len(answered) >= ECHOES_MIN, f"the echo answered {len(answered)} of {len(lat)}")
    check(sum(r["light_new"] for r in forked) > 0,
          f"the forked reconnector's {len(forked)} connections got no newcomer's grant: "
          f"the case is not exercised")
    check(echo["light_served"] * 2 >= echoes,
          f"only {echo['light_served']} of the echo's {echoes} echoes were read under a "
          f"light grant beside the forked reconnector")
    for pid in n1:
        check(n1[pid][0] > n0[pid][0],
              f"x11-plaid {pid} executed no request beside the forked reconnector: "
              f"{n0[pid][0]} then {n1[pid][0]}")


def test(h):
    with Session(h, "newcomer", x11=True) as s:
        s.run(["xprop", "-root", "_NET_ACTIVE_WINDOW"], timeout=60)  # Xwayland up
        flooders = start_flooders(s, {"ring": FLOODERS})
        flooders_settled(s, flooders)
        new_programs(s)
        reconnecting(s)
        forked_attacker(s, flooders)
        stop(s, [p for _, p in flooders])


if __name__ == "__main__":
    harness.main(test)
