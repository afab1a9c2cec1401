"""Session: one headless smtwc in a private XDG_RUNTIME_DIR and every
process a test starts against it, from start to a checked exit. What a test
does with a session lives in the mixins (clients, input, screen, x11)."""

import os
import re
import shlex
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time

from .checks import TestFailure, check, fail, log, scaled
from .clients import ClientsMixin
from .environment import pin_environment
from .fonts import pin_fonts, require_suite_fonts
from .input import InputMixin
from .processes import Process, _describe_rc, _is_zombie, _preexec_compositor, _tail
from .screen import ScreenMixin
from .x11 import X11Mixin


class Session(ClientsMixin, InputMixin, ScreenMixin, X11Mixin):
    """One headless smtwc in a private XDG_RUNTIME_DIR, plus every process the
    test starts against it. Use as a context manager: exit terminates every
    process by pid (SIGTERM, then SIGKILL), checks the compositor exits 0 on
    SIGTERM and removes its socket, and deletes the temporary directory."""

    def __init__(self, h, label="main", args=(), config=None, outputs=None, env=None,
                 startup=None, start=True, park=True, keyboard=True, x11=False, user=None):
        # Before anything is made: a machine without the suite's fonts is
        # told so, not left to time out.
        require_suite_fonts()
        self.h = h
        # user=UID: the compositor and every process the test starts run
        # as that uid (its gid the same, no supplementary groups), as an
        # ordinary user's session does: limits root is exempt from (the
        # uid's fds in flight, CAP_SYS_RESOURCE) then apply. The test
        # process stays root and acts as that uid only to connect.
        self.user = user
        self.x11 = x11
        self.x_display = None
        self.park = park
        self.keyboard = keyboard
        self.label = label
        self.extra_args = list(args)
        self.config_text = config
        self.outputs = outputs
        self.extra_env = dict(env or {})
        self.startup = startup
        self.clients = []
        self.compositor = None
        self.display = None
        self.exit_checked = False
        self.last_image = None
        self.pointer = None
        self.tmp = tempfile.mkdtemp(prefix=f"smtwc-{h.name}-")
        self.runtime_dir = os.path.join(self.tmp, "runtime")
        self.config_home = os.path.join(self.tmp, "config")
        # Empty: the system's /etc/xdg (foot.ini, weston.ini, GTK's
        # settings.ini: fonts among them) is an administrator's to change.
        self.config_dirs = os.path.join(self.tmp, "config-dirs")
        # Empty too: the caller's ~/.Xresources, ~/.config/weston.ini,
        # ~/.icons, ~/.bashrc are a user's (harness/environment.py).
        self.home = os.path.join(self.tmp, "home")
        os.mkdir(self.runtime_dir, 0o700)
        os.mkdir(self.config_home, 0o700)
        os.mkdir(self.config_dirs, 0o700)
        os.mkdir(self.home, 0o700)
        if user is not None:
            for d in (self.tmp, self.runtime_dir, self.config_home, self.config_dirs, self.home):
                os.chown(d, user, user)
        self.config_path = None
        # SMT_TEST_WORKERS=N (meson's plain and *_workers runs of the ring
        # tests: 0 and 2): every compositor of the test runs rings'
        # commands on N worker threads ([scheduler] workers; 0: the main
        # thread), so every mode stays tested beside the default's. Last in
        # the file: a test's own [scheduler] keys stay.
        workers = os.environ.get("SMT_TEST_WORKERS")
        if workers is not None and not any(a in ("-c", "--config") for a in self.extra_args):
            config = (config or "") + f"\n[scheduler]\nworkers = {int(workers)}\n"
        if config is not None:
            self.config_path = os.path.join(self.tmp, "smtwc.conf")
            with open(self.config_path, "w") as f:
                f.write(config)
            if user is not None:
                os.chown(self.config_path, user, user)
        self.env = self._base_env()
        self._stdout_lines = []
        self._ready = threading.Event()
        h.sessions.append(self)
        if start:
            try:
                self.start()
            except BaseException:
                self.close(failed=True)
                raise

    # -- environment and start ------------------------------------------------

    def _base_env(self):
        # Built from a list: the outer session's WAYLAND_DISPLAY, DISPLAY,
        # XAUTHORITY, WLR_*, a user's locale, toolkit and cursor variables
        # are not on it.
        env = pin_environment(os.environ, self.home)
        env["XDG_RUNTIME_DIR"] = self.runtime_dir
        env["XDG_CONFIG_HOME"] = self.config_home
        env["XDG_CONFIG_DIRS"] = self.config_dirs
        # GSettings from the schemas' defaults: no dconf database, the
        # system's (/etc/dconf: an administrator's font-name) included.
        env["GSETTINGS_BACKEND"] = "memory"
        pin_fonts(env)
        if self.outputs is not None:
            env["WLR_HEADLESS_OUTPUTS"] = str(self.outputs)
        if self.x11:
            env["SMT_X11RING_LOG"] = "1"
        env.update(self.extra_env)
        return env

    @property
    def socket_path(self):
        return os.path.join(self.runtime_dir, self.display or "wayland-0")

    @property
    def compositor_log(self):
        return os.path.join(self.tmp, "smtwc.log")

    def start(self, timeout=10.0):
        argv = [self.h.smtwc, "--backend", "headless"]
        if self.config_path is not None:
            argv += ["-c", self.config_path]
        elif "-c" not in self.extra_args:
            argv += ["-c", "/dev/null"]
        if self.startup is not None:
            argv += ["-s", self.startup]
        if self.x11:
            # The compositor exports DISPLAY (its lazy Xwayland socket) to
            # what it launches: let a startup command tell us which one.
            argv += ["-s", 'printf "%s\\n" "$DISPLAY" "$LD_PRELOAD" "$ASAN_OPTIONS" '
                           '> "$XDG_RUNTIME_DIR/.x-display.tmp" && '
                           'mv "$XDG_RUNTIME_DIR/.x-display.tmp" "$XDG_RUNTIME_DIR/.x-display"']
        argv += self.extra_args
        log(f"starting: {shlex.join(argv)}  (XDG_RUNTIME_DIR={self.runtime_dir})")
        errf = open(self.compositor_log, "wb")
        try:
            popen = subprocess.Popen(
                argv, env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=errf, cwd=self.tmp, start_new_session=True,
                preexec_fn=_preexec_compositor, **self.as_user())
        finally:
            errf.close()
        self.compositor = Process("smtwc", argv, popen, self.compositor_log)
        threading.Thread(target=self._read_stdout, args=(popen.stdout,), daemon=True).start()

        deadline = time.monotonic() + scaled(timeout)
        while time.monotonic() < deadline:
            if self._ready.is_set() and self.display and os.path.exists(self.socket_path):
                if not stat.S_ISSOCK(os.stat(self.socket_path).st_mode):
                    fail(f"{self.socket_path} is not a socket")
                log(f"compositor ready: pid {self.compositor.pid}, WAYLAND_DISPLAY={self.display}")
                self.env["WAYLAND_DISPLAY"] = self.display
                if self.x11:
                    self._learn_x_display(deadline)
                if self.keyboard:
                    self.add_keyboard_anchor()
                if self.park:
                    self.park_pointer()
                return
            if not self.compositor.alive():
                fail(f"compositor exited with code {self.compositor.returncode} before becoming "
                     f"ready.\n--- smtwc stderr ---\n{self.compositor.log_tail(60)}\n"
                     f"--- smtwc stdout ---\n" + "".join(self._stdout_lines[-20:]))
            time.sleep(0.02)
        what = ("no 'WAYLAND_DISPLAY=' line on stdout" if not self._ready.is_set()
                else f"socket {self.socket_path} never appeared")
        fail(f"compositor not ready after {scaled(timeout):.0f} s: {what}.\n"
             f"--- smtwc stderr ---\n{self.compositor.log_tail(60)}\n--- smtwc stdout ---\n"
             + "".join(self._stdout_lines[-20:]))

    def _learn_x_display(self, deadline):
        """Read the DISPLAY the x11 startup command wrote; X clients the test
        starts get it in their environment from then on."""
        path = os.path.join(self.runtime_dir, ".x-display")
        while not os.path.exists(path):
            if time.monotonic() > deadline or not self.compositor.alive():
                fail(f"the compositor's startup command did not report DISPLAY ({path} "
                     f"missing).\n--- smtwc stderr ---\n{self.compositor.log_tail(60)}")
            time.sleep(0.02)
        with open(path) as f:
            value, preload, asan_options = (f.read().split("\n") + ["", ""])[:3]
        check(re.fullmatch(r":\d+", value),
              f"the compositor exported DISPLAY={value!r}, expected ':N' (Xwayland unavailable?)"
              f"\n--- smtwc stderr ---\n{self.compositor.log_tail(60)}")
        self.x_display = value
        self.env["DISPLAY"] = value
        if preload:
            self.env["LD_PRELOAD"] = preload
            if asan_options:
                self.env["ASAN_OPTIONS"] = asan_options
        log(f"compositor's X display: DISPLAY={value}, LD_PRELOAD={preload}")

    def _read_stdout(self, pipe):
        with pipe:
            for raw in iter(pipe.readline, b""):
                line = raw.decode("utf-8", "replace")
                self._stdout_lines.append(line)
                m = re.match(r"^WAYLAND_DISPLAY=(\S+)\s*$", line)
                if m and not self._ready.is_set():
                    self.display = m.group(1)
                    self._ready.set()

    def as_user(self):
        """Popen's arguments that start a process as the session's user."""
        if self.user is None:
            return {}
        return {"user": self.user, "group": self.user, "extra_groups": []}

    def stdout_text(self):
        return "".join(self._stdout_lines)

    def stderr_text(self):
        try:
            with open(self.compositor_log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


    def wait_until(self, pred, timeout=10.0, what="condition", interval=0.1):
        """Poll pred() until it returns a true value; return that value."""
        deadline = time.monotonic() + scaled(timeout)
        while True:
            v = pred()
            if v:
                return v
            if time.monotonic() > deadline:
                fail(f"timed out after {scaled(timeout):.1f} s waiting for {what}")
            self.check_alive()
            time.sleep(interval)


    # -- compositor life ----------------------------------------------------------

    def check_alive(self):
        if self.compositor is not None and not self.compositor.alive() and not self.exit_checked:
            fail(f"compositor died (exit code {self.compositor.returncode}, "
                 f"{_describe_rc(self.compositor.returncode)}).\n"
                 f"--- smtwc stderr ---\n{self.compositor.log_tail(60)}")

    # How long the compositor may take to exit before it counts as hung
    # (a hang, not a duration: benchmarks time things). An ASan build frees
    # every client and LeakSanitizer scans the heap at exit, seconds of CPU
    # that a loaded machine stretches.
    EXIT_TIMEOUT = 30.0

    def wait_exit(self, timeout=EXIT_TIMEOUT, what="exit"):
        """Wait for the compositor to exit by itself; checks code 0 and that
        the socket and its lock file are gone. Returns the exit code."""
        rc = self.compositor.wait(timeout)
        if rc is None:
            fail(f"compositor did not {what} within {scaled(timeout):.0f} s")
        self.exit_checked = True
        check(rc == 0, f"compositor exited with code {rc} ({_describe_rc(rc)}) on {what}.\n"
                       f"--- smtwc stderr ---\n{self.compositor.log_tail(60)}")
        self.check_socket_gone()
        return rc

    def check_socket_gone(self, lock=True):
        check(not os.path.exists(self.socket_path),
              f"socket {self.socket_path} still exists after the compositor exited")
        if lock:
            check(not os.path.exists(self.socket_path + ".lock"),
                  f"lock file {self.socket_path}.lock still exists after the compositor exited")

    def stop(self, timeout=EXIT_TIMEOUT):
        """SIGTERM the compositor (by pid) and check a clean exit."""
        if self.compositor is None or self.exit_checked:
            return
        was_alive = self.compositor.alive()
        if was_alive:
            os.kill(self.compositor.pid, signal.SIGTERM)
        rc = self.compositor.wait(timeout)
        if rc is None:
            os.kill(self.compositor.pid, signal.SIGKILL)
            self.compositor.popen.wait()
            self.exit_checked = True
            fail(f"compositor did not exit within {scaled(timeout):.0f} s of SIGTERM "
                 f"(killed).\n--- smtwc stderr ---\n{self.compositor.log_tail(60)}")
        self.exit_checked = True
        when = "on SIGTERM" if was_alive else "before the test ended (not on SIGTERM)"
        check(rc == 0, f"compositor exited with code {rc} ({_describe_rc(rc)}) {when}.\n"
                       f"--- smtwc stderr ---\n{self.compositor.log_tail(60)}")
        self.check_socket_gone(lock=False)

    def _sweep_strays(self):
        """Processes the compositor launched (bindings, -s, [startup]) are not
        our children; find the ones still running with this test's private
        XDG_RUNTIME_DIR in their environment and end them by pid."""
        needle = b"XDG_RUNTIME_DIR=" + self.runtime_dir.encode() + b"\0"
        strays = []
        me = os.getpid()
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == me:
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    env = f.read()
            except OSError:
                continue
            if needle in env:
                strays.append(int(entry))
        for sig in (signal.SIGTERM, signal.SIGKILL):
            alive = []
            for pid in strays:
                try:
                    os.kill(pid, sig)
                    alive.append(pid)
                except ProcessLookupError:
                    pass
            strays = alive
            if not strays:
                break
            deadline = time.monotonic() + 2.0
            while strays and time.monotonic() < deadline:
                strays = [p for p in strays if os.path.exists(f"/proc/{p}")
                          and not _is_zombie(p)]
                time.sleep(0.05)
        return strays

    def close(self, failed=False):
        """Terminate everything by pid and remove the temp dir. Raises
        TestFailure if the compositor misbehaved on exit (unless failed, in
        which case problems are only printed)."""
        problems = []
        if failed and self.compositor is not None and self.compositor.alive():
            try:
                img = self.screenshot()
                self.save(img, "at-failure")
            except Exception as e:
                log(f"(no screenshot at failure: {e})")
        for p in reversed(self.clients):
            try:
                p.terminate(3.0)
            except Exception as e:
                problems.append(f"terminating {p.name} (pid {p.pid}): {e}")
        if self.compositor is not None:
            try:
                self.stop()
            except TestFailure as e:
                problems.append(str(e))
            finally:
                if self.compositor.alive():
                    os.kill(self.compositor.pid, signal.SIGKILL)
                    self.compositor.popen.wait()
        try:
            self._sweep_strays()
        except Exception as e:
            problems.append(f"stray sweep: {e}")
        show_logs = failed or problems or os.environ.get("SMT_TEST_VERBOSE") == "1"
        if show_logs:
            self.dump_logs()
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self in self.h.sessions:
            self.h.sessions.remove(self)
        if problems:
            msg = "\n".join(problems)
            if failed:
                log(f"cleanup problems (after the failure above):\n{msg}")
            else:
                fail(msg)

    def dump_logs(self):
        if self.compositor is not None:
            print(f"--- smtwc [{self.label}] stderr (tail) ---\n{self.compositor.log_tail(80)}",
                  flush=True)
        for name in sorted(os.listdir(self.tmp)) if os.path.isdir(self.tmp) else []:
            if name.startswith("client-") and name.endswith(".log"):
                tail = _tail(os.path.join(self.tmp, name), 20)
                if tail:
                    print(f"--- {name} (tail) ---\n{tail}", flush=True)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(failed=exc_type is not None)
        return False
