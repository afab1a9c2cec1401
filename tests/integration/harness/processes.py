"""Processes a test starts: each in its own process group, ended by pid,
dying with the test (PR_SET_PDEATHSIG); and what a process holds (fds,
mappings) for leak checks."""

import ctypes
import os
import signal
import subprocess

from .checks import TestFailure, log, scaled

# ---------------------------------------------------------------------------
# Processes

_libc = None


def _set_pdeathsig(sig):
    """preexec_fn: have the kernel send sig to the child if the test process
    dies (even by SIGKILL), so nothing outlives a killed test."""
    global _libc
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        _libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)
    except Exception:
        pass


def _preexec_client():
    _set_pdeathsig(signal.SIGKILL)


def _preexec_compositor():
    _set_pdeathsig(signal.SIGTERM)


class Process:
    """A started process, in its own process group (pgid == pid)."""

    def __init__(self, name, argv, popen, log_path):
        self.name = name
        self.argv = argv
        self.popen = popen
        self.pid = popen.pid
        self.log_path = log_path

    def poll(self):
        return self.popen.poll()

    @property
    def returncode(self):
        return self.popen.returncode

    def alive(self):
        return self.popen.poll() is None

    def wait(self, timeout):
        try:
            return self.popen.wait(timeout=scaled(timeout))
        except subprocess.TimeoutExpired:
            return None

    def signal_group(self, sig):
        """Signal the process group we created (pgid == our child's pid)."""
        if self.popen.poll() is not None:
            # The leader is reaped; its group may still have members (a shell's
            # children), signal them anyway. ESRCH simply means none are left.
            pass
        try:
            os.killpg(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def terminate(self, timeout=3.0):
        """SIGTERM the group, SIGKILL after timeout. Returns the exit code."""
        if self.popen.poll() is None:
            self.signal_group(signal.SIGTERM)
            if self.wait(timeout) is None:
                log(f"{self.name} (pid {self.pid}) ignored SIGTERM, sending SIGKILL")
                self.signal_group(signal.SIGKILL)
                self.popen.wait()
        else:
            # Make sure stragglers in the group (children of a shell) are gone.
            self.signal_group(signal.SIGKILL)
        return self.popen.returncode

    def log_tail(self, lines=40):
        return _tail(self.log_path, lines)


def _tail(path, lines=40):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return ""
    text = data.decode("utf-8", "replace").splitlines()
    return "\n".join(text[-lines:])


def _readlink(path):
    try:
        return os.readlink(path)
    except OSError:
        return None


def thread_nice(pid, tid):
    """A thread's nice value, from /proc (the 17th field after the
    command's closing parenthesis: the 19th of the line)."""
    with open(f"/proc/{pid}/task/{tid}/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def thread_nices(pid, comm):
    """The nice of every thread of pid named comm (ring-worker,
    ring-lane...)."""
    seen = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                if f.read().strip() == comm:
                    seen.append(thread_nice(pid, tid))
        except OSError:
            pass  # (a thread that ended meanwhile)
    return seen


def fd_targets(pid):
    """{fd: what it is} of a process, without control connections: the one
    of the last query (wait_clients, stats) may still be open, as the
    compositor closes it when it reads the EOF."""
    with open("/proc/net/unix") as f:
        control = {f"socket:[{p[6]}]" for p in (line.split() for line in f)
                   if len(p) > 7 and p[7].endswith(".smtwc")}
    targets = {}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        target = _readlink(f"/proc/{pid}/fd/{fd}")
        if target is not None and target not in control:
            targets[int(fd)] = target
    return targets


def fd_diff(before, after):
    """What changed between two fd_targets, for a leak check's message."""
    gone = {fd: t for fd, t in before.items() if after.get(fd) != t}
    new = {fd: t for fd, t in after.items() if before.get(fd) != t}
    return f"gone {gone}, new {new}"


def process_resources(pid):
    """(fds, mappings) of a process, for leak checks. Under ASan its allocator
    maps anonymous regions of its own as it grows and never unmaps them, so
    there only file-backed mappings count (client memfds, output buffers,
    libraries); LeakSanitizer checks the memory itself at exit."""
    fds = len(fd_targets(pid))
    with open(f"/proc/{pid}/maps") as f:
        lines = f.readlines()
    # With ring worker threads (SMT_TEST_WORKERS) glibc gives threads
    # arenas of their own: 64 MiB heaps it keeps mapped at their high-water
    # mark once pixmaps drawn on a worker are freed. Only file-backed
    # mappings count there too; the heap's bytes in use (mallinfo2, every
    # arena) judge the memory.
    if any("libasan" in line for line in lines) or os.environ.get("SMT_TEST_WORKERS"):
        return fds, sum(1 for line in lines if len(line.split(None, 5)) == 6
                        and line.split(None, 5)[5].startswith("/"))
    return fds, len(lines)


class ResourceBaseline:
    """A process's fds and mappings at one point, and the wait for it to hold
    exactly those again. Waited for, not sampled once: a descriptor can
    outlive the disconnect that frees it by a turn of the compositor's loop
    (one queued in a live client's outgoing messages until the loop flushes
    them) without being a leak; one that stays is named in the failure."""

    def __init__(self, pid):
        self.pid = pid
        self.counts = process_resources(pid)
        self.fds = fd_targets(pid)

    def wait_back(self, session, what, timeout=15.0, mappings=True):
        """mappings=False: fds only (glibc keeps gone threads' stacks and
        arenas mapped)."""
        n = 2 if mappings else 1
        first = process_resources(self.pid)
        if first[:n] != self.counts[:n]:
            # (logged: which descriptors outlive a disconnect, and for how long)
            log(f"{what}: not yet: fds/mappings {first}, at the start {self.counts}; "
                f"fds {fd_diff(self.fds, fd_targets(self.pid))}")
        try:
            session.wait_until(lambda: process_resources(self.pid)[:n] == self.counts[:n],
                               timeout=timeout, what=what)
        except TestFailure:
            raise TestFailure(
                f"{what}: fds/mappings {process_resources(self.pid)}, at the start "
                f"{self.counts}; fds {fd_diff(self.fds, fd_targets(self.pid))}") from None
        return self.counts



def _is_zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return True


def _describe_rc(rc):
    if rc is None:
        return "still running"
    if rc < 0:
        try:
            return f"killed by {signal.Signals(-rc).name}"
        except ValueError:
            return f"killed by signal {-rc}"
    return "clean" if rc == 0 else "error"
