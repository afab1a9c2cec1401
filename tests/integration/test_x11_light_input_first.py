#!/usr/bin/env python3
"""Input grants come before light grants (docs/x11.md "Light clients",
"Input first"; xwayland-glue/xserver/input_boost.c).

Two X programs, each of which the server half favours for a different
reason, at the same time:
- x11-plaid --keys, a flooder that selects key presses and is typed into
  (wtype, a key every 10 ms): each key gives it an input grant, and since
  it always has requests waiting it is favoured for the whole credit of
  each grant;
- x11-echo without keys (seed 001's timed echo: a rectangle and a property
  change every 10 ms): it uses a small part of the X server's time, so it
  is light, and each time its requests wait it gets a light grant.
So the echo's light grants keep meeting the flooder's favoured input
grants. What is checked, on the ring and on the socket, is what the X
server's half counted, never a duration:
- the echo's light grants gave way to input (its statistics'
  `light_gave_way`: its read refused or its readiness dropped while it held
  a live light grant and an input grant was favoured): waited for, since
  how soon the two first meet depends on the interleaving;
- the typed flooder, while it held a live input grant, was never held back
  (`input_held` 0: a counter that only grows, so a look at any time
  covers everything before it) although it got input grants and the
  echo got light grants;
- both kept running: the flooder executed requests and the echo answered.
With the order reversed (light grants before input ones, tried locally on
the session-27 tree) the echo's light grants never give way and the
flooder is held back behind them: `input_held` grows and the wait for
`light_gave_way` times out.
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

# How many times the echo's light grant must have given way: more than one
# meeting, so that the flooder's input_held covers several.
GAVE_WAY_MIN = 5
# wtype's keys: enough for the wait below at 10 ms a key (it is stopped
# once the wait is over).
KEYS = 6000


def row(s, pid):
    rows = [r for r in s.x11ring_stats() if r.get("pid") == pid]
    return rows[0] if len(rows) == 1 else None


def input_first(s, transport):
    env = bench.transport_env(transport)
    echo = s.spawn([bench.program("x11-echo"), "--seconds", 120, "--warmup", 0,
                    "--csv", os.path.join(s.tmp, f"echo-{transport}.csv")],
                   name=f"x11-echo-{transport}", env=env)
    bench.wait_line(s, echo, "ready", 30, f"x11-echo ({transport}) to map its window")
    # The newest window takes the focus: the flooder's, so the keys go to it.
    typed = s.spawn([bench.program("x11-plaid"), "--keys"], name=f"x11-plaid-keys-{transport}",
                    env=env)
    bench.wait_line(s, typed, "ready", 30, f"x11-plaid --keys ({transport}) to map its window")
    s.wait_until(lambda: (row(s, echo.pid) or {}).get("light_grants", 0) > 0, timeout=60,
                 what=f"the echo ({transport}) to be light (a light grant)")
    n0 = bench.flooder_counts(s, [typed])
    keys = s.spawn(["wtype", "-d", "10", "--", "x" * KEYS], name=f"wtype-{transport}")

    last = {}

    def met():
        e, t = row(s, echo.pid), row(s, typed.pid)
        last.update(echo=e, typed=t)
        return e and t and e["light_gave_way"] >= GAVE_WAY_MIN and t["boosts"] > 0
    try:
        s.wait_until(met, timeout=60,
                     what=f"the echo's light grants to give way to the typed flooder's "
                          f"input grants ({transport}) {GAVE_WAY_MIN} times")
    except BaseException:
        log(f"{transport}: the last statistics looked at: {last}")
        raise
    s.stop_client(keys)
    n1 = bench.flooder_counts(s, [typed])
    # the counters only grow: a look after the wait covers all of it
    t = row(s, typed.pid)
    e = row(s, echo.pid)
    log(f"{transport}: typed flooder {t}")
    log(f"{transport}: echo {e}")
    check(t and e, f"statistics of both programs ({transport}): {t} {e}")
    check(t["transport"] == transport and e["transport"] == transport,
          f"both on the {transport}: {t['transport']} {e['transport']}")
    check(t["input_events"] > 0 and t["boosts"] > 0,
          f"the typed flooder got input and input grants ({transport}): {t}")
    check(e["input_events"] == 0 and e["boosts"] == 0,
          f"the echo got no input ({transport}): {e}")
    check(t["input_held"] == 0,
          f"the typed flooder was held back {t['input_held']} times while it held a live "
          f"input grant ({transport}: light grants went before input): {t}")
    check(e["light_grants"] > 0 and e["light_gave_way"] >= GAVE_WAY_MIN,
          f"the echo's light grants gave way to input ({transport}): {e}")
    check(n1[typed.pid][0] > n0[typed.pid][0],
          f"the typed flooder executed no request while typed into ({transport}): "
          f"{n0} then {n1}")
    check(e["answers"] > 0, f"the echo was answered ({transport}): {e}")
    s.stop_client(typed)
    s.stop_client(echo)


def test(h):
    with Session(h, "input-first", x11=True) as s:
        for transport in ("ring", "socket"):
            input_first(s, transport)


if __name__ == "__main__":
    harness.main(test)
