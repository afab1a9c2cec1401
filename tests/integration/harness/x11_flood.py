"""An x11-echo among x11-plaid flooders: the set-up the tests of the X
input boost share (test_x11_boost_xwayland.py, test_x11_light_tail.py).
The programs and their drivers are the X interactivity benchmark's
(tests/bench/x11/interactive.py), so the tests run what it measures.

Not imported by `harness` itself (the benchmark imports the harness):
a test imports it as `from harness.x11_flood import ...`.
"""

import os
import sys

from .checks import check

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench", "x11"))
import interactive as bench  # noqa: E402  (its x11-echo and x11-plaid drivers)

# The echo's run among the flooders, seconds, and the fewest answers it
# must get in it.
ECHO_SECONDS = 2.0
ECHO_ANSWERS_MIN = 20


def start_flooders(s, counts):
    """counts[transport] x11-plaid on each transport ("ring" or "socket"),
    each ready (its window mapped) when this returns: [(transport,
    process)]."""
    out = []
    for transport, n in counts.items():
        for i in range(n):
            p = s.spawn([bench.program("x11-plaid")], name=f"x11-plaid-{transport}-{i}",
                        env=bench.transport_env(transport))
            out.append((transport, p))
    for _, p in out:
        bench.wait_line(s, p, "ready", 30, f"x11-plaid {p.pid} to start")
    return out


def echo_among(s, flooders, transport, label, **echo_args):
    """The x11-echo run among the running flooders on one transport
    (x11-echo's options as interactive.echo_run's), and what every test
    built on it needs: the echo answered, every flooder executed requests
    meanwhile (none starved). Returns the echo's answers, ms."""
    procs = [p for _, p in flooders]
    n0 = bench.flooder_counts(s, procs)
    # (at least ECHO_SECONDS and ECHO_ANSWERS_MIN answers: on a loaded
    # machine each echo may take 100 ms, so a count of answers within a
    # fixed time would be a rate)
    if not echo_args.get("keys"):
        echo_args = dict(echo_args, min_answers=ECHO_ANSWERS_MIN)
    lat, _ = bench.echo_run(s, transport, ECHO_SECONDS, label, 0, **echo_args)
    n1 = bench.flooder_counts(s, procs)
    answered = [x for x in lat if x is not None]
    check(len(answered) >= ECHO_ANSWERS_MIN,
          f"the echo answered {len(answered)} of {len(lat)}")
    for pid in n1:
        check(n1[pid][0] > n0[pid][0],
              f"x11-plaid {pid} executed no request while the echo ran: "
              f"{n0[pid][0]} then {n1[pid][0]}")
    return answered


def stop(s, procs):
    """Ends clients a test started and no longer needs, before the
    session's end."""
    for p in procs:
        s.stop_client(p)
