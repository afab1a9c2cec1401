"""Processes a test starts: each in its own process group, ended by pid,
dying with the test (PR_SET_PDEATHSIG); and what a process holds (fds,
mappings) for leak checks."""

import ctypes
import os
import signal
import subprocess

from .checks import log, scaled

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


def process_resources(pid):
    """(fds, mappings) of a process, for leak checks. Under ASan its allocator
    maps anonymous regions of its own as it grows and never unmaps them, so
    there only file-backed mappings count (client memfds, output buffers,
    libraries); LeakSanitizer checks the memory itself at exit."""
    # The control connection of the last query (wait_clients, stats) may
    # still be open: the compositor closes it when it reads the EOF.
    with open("/proc/net/unix") as f:
        control = {f"socket:[{p[6]}]" for p in (line.split() for line in f)
                   if len(p) > 7 and p[7].endswith(".smtwc")}
    fds = sum(1 for fd in os.listdir(f"/proc/{pid}/fd")
              if _readlink(f"/proc/{pid}/fd/{fd}") not in control)
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
