#!/usr/bin/env python3
"""Light grants cannot be won by taking turns (docs/x11.md "Light
clients", xwayland-glue/xserver/input_boost.c; red team, session 26).

The attacker is one program with 16 X connections that flood in turn
(`x11-plaid --connections 16 --turn-ms 40`): each connection floods for 40
ms, waits for its requests to run, and is idle for the next 15 turns, so
judged by itself each one had used nothing lately when its turn came and
was light: a light grant per turn, its requests served ahead of everyone
else's, and the shared time that a person's input grants draw on spent.
Lightness is judged per program (the connections of one pid), so none of
the attacker's connections is light while the program as a whole floods.

Beside it, the timed echo that nobody types into (seed 001's method,
x11-echo), on the ring and on the socket. What is checked is what the X
server's half counted, never a duration:
- not one of the attacker's connections got a light grant, while the echo
  did, and the attacker kept executing requests (it is held back, not
  starved);
- why that holds on every interleaving: the attacker is charged at least
  300 ms of the X server's time before the echo starts (waited for in the
  statistics), so its program used nearly all of the last two 100 ms
  windows of the X server's work, and while one of its connections floods
  it always has requests waiting: idle about never, it is never light
  (since session 28 lightness is the program's time against its own idle
  time). The echo's charge is still checked against 87 ms, the bound of
  the mean rule before session 28 (an echo is charged a few ms).
Before the bound (per-connection lightness), the same run gave the
attacker's connections light grants at most of their turns.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
import interactive as bench  # noqa: E402  (its x11-echo and x11-plaid drivers)

CONNECTIONS = 16
TURN_MS = 40
# x11_usage's window is 100 ms of the X server's work; "lately" is the last
# one or two of them.
CHARGED_FIRST_US = 300000
# Under this, the echo cannot make the attacker's program light (see above).
ECHO_BOUND_US = 87000


def attacker_rows(s, pid):
    return [r for r in s.x11ring_stats() if r.get("pid") == pid]


def gaming(s, transport):
    a = s.spawn([bench.program("x11-plaid"), "--connections", CONNECTIONS, "--turn-ms", TURN_MS],
                name=f"x11-plaid-turns-{transport}", env=bench.transport_env(transport))
    bench.wait_line(s, a, "ready", 30, f"the attacker ({transport}) to connect")

    def charged():
        rows = attacker_rows(s, a.pid)
        return len(rows) == CONNECTIONS and sum(r["xtime_us"] for r in rows) >= CHARGED_FIRST_US
    s.wait_until(charged, timeout=60,
                 what=f"the attacker's connections to be charged {CHARGED_FIRST_US} us")
    n0 = bench.flooder_counts(s, [a])
    lat, _ = bench.echo_run(s, transport, 1.5, f"gaming-{transport}", 0)
    n1 = bench.flooder_counts(s, [a])
    rows = attacker_rows(s, a.pid)
    a.terminate()
    s.clients.remove(a)
    echo = [r for r in s.x11ring_closed() if r.get("comm") == "x11-echo"][-1]
    log(f"{transport}: echo {echo}")
    log(f"{transport}: attacker's connections: "
        + ", ".join(f"{r['fd']}: xtime_us={r['xtime_us']} light_grants={r['light_grants']} "
                    f"yields={r['yields']}" for r in rows))
    answered = [x for x in lat if x is not None]
    check(len(answered) >= 20, f"the echo answered {len(answered)} of {len(lat)}")
    check(len(rows) == CONNECTIONS and all(r["transport"] == transport for r in rows),
          f"the attacker's {CONNECTIONS} connections should be on the {transport}: {rows}")
    check(echo["transport"] == transport, f"the echo should be on the {transport}: {echo}")
    check(n1[a.pid][0] > n0[a.pid][0],
          f"the attacker executed no request while the echo ran: {n0} then {n1}")
    check(echo["xtime_us"] < ECHO_BOUND_US,
          f"the echo was charged {echo['xtime_us']} us, the test's premise is under "
          f"{ECHO_BOUND_US}: {echo}")
    won = [r for r in rows if r["light_grants"] > 0]
    check(not won, f"{len(won)} of the attacker's {CONNECTIONS} connections got light grants "
                   f"(one program flooding in turns is not light): {won}")
    check(echo["light_grants"] > 0, f"the timed echo got no light grant: {echo}")


def test(h):
    with Session(h, "gaming", x11=True) as s:
        for transport in ("ring", "socket"):
            gaming(s, transport)


if __name__ == "__main__":
    harness.main(test)
