"""Session methods that start clients and ask the compositor about them (the
control socket: windows, statistics, connection counts)."""

import json
import os
import shlex
import signal
import socket
import struct
import subprocess

from .checks import fail, log, scaled
from .processes import Process, _preexec_client
from .programs import find_program


def read_file(path):
    """What a client wrote to path so far, or None while it has made no
    such file (tests wait for it, or check that it never came)."""
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return None


class ClientsMixin:
    # -- clients --------------------------------------------------------------

    def client_env(self, env=None):
        e = dict(self.env)
        if self.display:
            e["WAYLAND_DISPLAY"] = self.display
        if env:
            e.update(env)
        return e

    def spawn(self, argv, name=None, env=None, stdin=subprocess.DEVNULL):
        """Start a long-running client (own process group, output to a log
        file in the temp dir). Returns a Process; cleanup terminates it."""
        argv = [str(a) for a in argv]
        argv[0] = find_program(argv[0])
        name = name or os.path.basename(argv[0])
        log_path = os.path.join(self.tmp, f"client-{len(self.clients)}-{name}.log")
        with open(log_path, "wb") as out:
            popen = subprocess.Popen(
                argv, env=self.client_env(env), stdin=stdin, stdout=out, stderr=subprocess.STDOUT,
                cwd=self.tmp, start_new_session=True, preexec_fn=_preexec_client,
                **self.as_user())
        p = Process(name, argv, popen, log_path)
        self.clients.append(p)
        log(f"spawned {name} pid {p.pid}: {shlex.join(argv)}")
        return p

    def stop_client(self, p):
        """End a spawned client (its whole process group) before the
        session ends; cleanup no longer owns it. Returns its exit code."""
        rc = p.terminate()
        self.clients.remove(p)
        return rc

    def control(self, line, timeout=5.0):
        """One request on the compositor's control socket; the JSON answer."""
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # A blocking connect waits for room in the control socket's listen
        # backlog (8) for up to SO_SNDTIMEO; a socket with a Python timeout
        # is non-blocking and gets EAGAIN at once while the backlog is full
        # (control_hostile's 31 peers not yet all accepted).
        c.setblocking(True)
        c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                     struct.pack("ll", int(scaled(timeout)), 0))
        try:
            if self.user is None:
                c.connect(self.socket_path + ".smtwc")
            else:
                # The control socket answers its own uid only (SO_PEERCRED,
                # taken at connect): connect as the session's user.
                os.setegid(self.user)
                os.seteuid(self.user)
                try:
                    c.connect(self.socket_path + ".smtwc")
                finally:
                    os.seteuid(0)
                    os.setegid(0)
            c.settimeout(scaled(timeout))
            c.sendall(line.encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
            # Wait for the compositor to close its end: a query leaves no
            # connection behind, so fd counts taken after it are exact.
            c.shutdown(socket.SHUT_WR)
            while c.recv(65536):
                pass
        finally:
            c.close()
        return json.loads(data.decode())

    def ring_commands(self, procs):
        """{pid: ring commands executed} of these client processes, from
        the control socket's stats (a process not counted yet is absent)."""
        pids = {p.pid for p in procs}
        return {c["pid"]: c["commands"] for c in self.control("stats")["clients"]
                if c["pid"] in pids}

    def wait_served(self, procs, since=None, timeout=60.0, what="every flooder served"):
        """Until each of procs has had ring commands executed (more than in
        `since`, an earlier ring_commands()); returns the counts then."""
        def served():
            now = self.ring_commands(procs)
            if since is None:
                ok = len(now) == len(procs) and all(v > 0 for v in now.values())
            else:
                ok = all(v > since[k] for k, v in now.items())
            return now if ok else None
        return self.wait_until(served, timeout=timeout, what=what)

    def windows(self):
        """The compositor's mapped windows, front to back: dicts with pid,
        app_id, title, x, y, width, height (the window geometry in layout
        coordinates), focused, maximized, fullscreen, minimized."""
        return self.control("windows")["windows"]

    def wait_window(self, pred=lambda w: True, timeout=15.0, what="a window"):
        """Wait for a mapped window for which pred(window dict) is true."""
        def find():
            return next((w for w in self.windows() if pred(w)), None)
        return self.wait_until(find, timeout=timeout, what=what, interval=0.2)

    def run(self, argv, timeout=10.0, check_rc=True, input=None, env=None):
        """Run a short-lived client to completion (own process group, killed
        on timeout). Returns subprocess.CompletedProcess with text output."""
        argv = [str(a) for a in argv]
        if os.sep not in argv[0]:
            argv[0] = find_program(argv[0])
        popen = subprocess.Popen(
            argv, env=self.client_env(env),
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.tmp,
            start_new_session=True, preexec_fn=_preexec_client, **self.as_user())
        p = Process(os.path.basename(argv[0]), argv, popen, None)
        self.clients.append(p)
        try:
            out, err = popen.communicate(
                input=input.encode() if isinstance(input, str) else input,
                timeout=scaled(timeout))
        except subprocess.TimeoutExpired:
            p.terminate(1.0)
            popen.communicate()
            fail(f"{shlex.join(argv)} did not finish within {scaled(timeout):.0f} s")
        finally:
            if popen.poll() is not None:
                p.signal_group(signal.SIGKILL)  # stray children of that client
                self.clients.remove(p)
        res = subprocess.CompletedProcess(argv, popen.returncode,
                                          out.decode("utf-8", "replace"),
                                          err.decode("utf-8", "replace"))
        if check_rc and res.returncode != 0:
            fail(f"{shlex.join(argv)} exited with code {res.returncode}\n"
                 f"stdout: {res.stdout[-2000:]}\nstderr: {res.stderr[-2000:]}")
        return res


    # -- compositor state for synchronisation --------------------------------

    def server_stats(self):
        return self.control("stats")["server"]

    def keyboard_modifiers(self):
        return self.server_stats()["keyboard_modifiers"]

    def wayland_clients(self):
        """Wayland connections the compositor has (a disconnect counts once
        the compositor has processed it and freed what the client had)."""
        return self.server_stats()["wayland_clients"]

    def wait_clients(self, n, timeout=20.0):
        """Wait until the compositor has exactly n Wayland connections: the
        point where resource counts can be compared, instead of a sleep."""
        self.wait_until(lambda: self.wayland_clients() == n, timeout=timeout,
                        what=f"the compositor to count {n} Wayland clients "
                             f"(it counts {self.wayland_clients()})")
