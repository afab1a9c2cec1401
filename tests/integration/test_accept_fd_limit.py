#!/usr/bin/env python3
"""At the process's fd limit the compositor neither spins nor floods its
log (issue 24: 3.2 million lines of "failed to accept: Too many open
files" in 10 s, a full core, every new client hung). The compositor runs
with RLIMIT_NOFILE 40, below what its budget assumes, so accept itself
fails with EMFILE while a process holds connections: each pending
connection is then accepted into the spare descriptor and closed
(counted), the listening socket wakes the loop about once per connection
attempt (not thousands of times), the log says so a bounded number of
times, and once the holder is gone a new client is served."""
import math
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool  # noqa: E402
from harness import Session, check, log  # noqa: E402

LIMIT = 40
ATTEMPTS = 40
LOG_LIMIT_PER_SECOND = 5  # compositor/log_limit.h


def test(h):
    # inherited by the compositor (and the clients: they need few)
    resource.setrlimit(resource.RLIMIT_NOFILE, (LIMIT, LIMIT))
    with Session(h) as s:
        clients = s.wayland_clients()
        before = s.server_stats()
        start = time.monotonic()
        holder = s.spawn([hostile_tool(h), "hold-connections", str(ATTEMPTS)],
                         name="holder")
        s.wait_until(lambda: "CONNECTIONS" in open(holder.log_path).read()
                     or not holder.alive(), what="the holder's connections")
        out = open(holder.log_path).read()
        # (while the holder holds, the control socket is at the limit too:
        # its connections are dropped the same way, so ask afterwards)
        holder.signal_group(9)
        holder.wait(10)
        s.clients.remove(holder)
        s.wait_clients(clients)
        st = s.server_stats()
        dropped = st["connections_dropped_at_fd_limit"] - before["connections_dropped_at_fd_limit"]
        wakeups = st["accept_wakeups"] - before["accept_wakeups"]
        log(f"holder: {out.strip().splitlines()[-1]}; dropped at the fd limit {dropped}, "
            f"accept wakeups {wakeups}")
        check(dropped > 0, f"the fd limit was never reached: {st}\n{out[-800:]}")
        # every attempt is one connection: accepted, refused or dropped,
        # and each wakes the loop at most once
        check(wakeups <= ATTEMPTS + 1,
              f"{wakeups} accept wakeups for {ATTEMPTS + 1} connection attempts: a busy loop")
        # at most 5 lines a second, each with the running count, and a
        # second after the burst one line with the total
        s.wait_until(lambda: f"({dropped} so far" in s.stderr_text(),
                     what=f"the log's count to reach {dropped}")
        # Every drop happened between the holder's start and now: a burst
        # of `span` seconds touches at most ceil(span) + 1 one-second
        # windows of LOG_LIMIT_PER_SECOND lines and as many summary lines.
        # A burst under 3 s (any unloaded machine) allows 20; a loaded
        # machine that stretches the burst gets the rate's bound, not
        # a failure for being slow.
        span = time.monotonic() - start
        bound = min(dropped, max(20, (LOG_LIMIT_PER_SECOND + 1) * (math.ceil(span) + 1)))
        lines = sum(1 for line in s.stderr_text().splitlines()
                    if "at the process's fd limit" in line)
        check(0 < lines <= bound, f"{lines} log lines about the fd limit for "
              f"{dropped} connections dropped in {span:.1f} s (at most {bound})")
        res = s.run([hostile_tool(h), "echo-probe", "0.2"], timeout=60, check_rc=False)
        check(res.returncode == 0 and "ECHO n=" in res.stdout,
              f"a new client after the holder left: {res.stdout}{res.stderr}")
        log(f"{lines} log lines for {dropped} connections dropped; a new client is served")


harness.main(test)
