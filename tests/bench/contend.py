"""A repeatable CPU contention for benchmarks: N busy loops beside what is
measured (`--contend N`), so that "under load" is something another
machine can reproduce instead of whatever else happened to run.

    with contend.BusyLoops(2, pin=False) as loops:
        ...                       # measure; loops.text() for the table

Each loop is a separate python3 process spinning in user space at the
default nice level (no syscalls, so it never sleeps and is always
runnable: what a compile job or a second busy program does to a desktop).
With pin=True loop i is bound to CPU i mod ncpu (os.sched_setaffinity),
so two loops on a 2-CPU machine take one core each for the scheduler's
whole period; unpinned, the kernel balances them. They are stopped by
their own pids (SIGKILL, then reaped) however the block is left.
"""
import os
import signal
import subprocess
import sys

# The loop: its own process, so it competes as one more runnable task (a
# thread of the benchmark would share its nice level and cgroup, and the
# GIL would let it spin only half the time).
_LOOP = "while True:\n    pass\n"


class BusyLoops:
    def __init__(self, n, pin=False):
        self.n, self.pin = max(0, int(n)), pin
        self.procs = []

    def __enter__(self):
        cpus = sorted(os.sched_getaffinity(0))
        for i in range(self.n):
            p = subprocess.Popen([sys.executable, "-c", _LOOP], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.procs.append(p)
            if self.pin:
                os.sched_setaffinity(p.pid, {cpus[i % len(cpus)]})
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            try:
                os.kill(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in self.procs:
            p.wait()
        self.procs = []
        return False

    def alive(self):
        """How many loops still run (a benchmark checks all of them did)."""
        return sum(1 for p in self.procs if p.poll() is None)

    def text(self):
        """For a table's heading: what ran beside the measurement."""
        if self.n == 0:
            return "no added contention"
        return (f"{self.n} busy loop{'s' if self.n != 1 else ''} beside it "
                f"({'each pinned to one CPU' if self.pin else 'unpinned'}; --contend "
                f"{self.n}{' --contend-pin' if self.pin else ''})")
