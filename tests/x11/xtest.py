"""Helpers of the X11 shim tests: a private Xvfb, running programs with and
without the shim, reading the shim's statistics.

Environment (set by tests/x11/meson.build):
  SMT_X11SHIM_LIB    the shim (libsmt-x11shim.so)
  SMT_X11RUN         the launcher
  X11_IMGCHECK       checker linked with libX11 only (the shim is preloaded)
  X11_IMGCHECK_SHIM  the same checker with the shim linked in
  SMT_ASAN_RUNTIME   set in sanitizer builds: libasan.so, preloaded first so
                     that the ASan-built shim can go into plain programs
"""
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def need(*programs):
    for p in programs:
        if not shutil.which(p):
            print(f"skip: {p} not installed")
            sys.exit(SKIP)


def font_path():
    """-fp with the suite's core font path (meson's test setup exports it),
    so that fonts other packages add to the server's default path change no
    drawing."""
    fp = os.environ.get("SMT_XWAYLAND_FONT_PATH")
    return ["-fp", fp] if fp else []


class Xvfb:
    """An Xvfb on a free display number (it picks one: -displayfd), stopped
    by pid. extra: more server arguments, e.g. ['-extension', 'MIT-SHM']."""

    def __init__(self, extra=()):
        need("Xvfb")
        r, w = os.pipe()
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            ["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x1024x24",
             "-nolisten", "tcp", "-noreset", *font_path(), *extra],
            pass_fds=(w,), stdin=subprocess.DEVNULL, stdout=self.log,
            stderr=self.log)
        os.close(w)
        num = b""
        try:
            while not num.endswith(b"\n"):
                ready, _, _ = select.select([r], [], [], 20)
                chunk = os.read(r, 16) if ready else b""
                if not chunk:
                    self.close()
                    self.log.seek(0)
                    raise RuntimeError("Xvfb did not start: " +
                                       self.log.read().decode(errors="replace"))
                num += chunk
        finally:
            os.close(r)
        self.display = ":" + num.decode().strip()

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def shim_env(base=None, preload=False, off=False, **settings):
    """Environment for a run: DISPLAY etc. from base, the shim's settings
    (PUT_MIN=1 -> SMT_X11SHIM_PUT_MIN=1; off -> SMT_X11SHIM=off), and
    LD_PRELOAD when the program does not link the shim itself."""
    env = dict(base or os.environ)
    for k in list(env):
        if k.startswith("SMT_X11SHIM") and k != "SMT_X11SHIM_LIB":
            del env[k]
    env.pop("LD_PRELOAD", None)
    if off:
        env["SMT_X11SHIM"] = "off"
    for k, v in settings.items():
        env["SMT_X11SHIM_" + k] = str(v)
    if preload:
        libs = [os.environ["SMT_X11SHIM_LIB"]]
        asan = os.environ.get("SMT_ASAN_RUNTIME")
        if asan:
            # A program without ASan: the runtime must come first, and its
            # own leaks are not ours to report.
            libs.insert(0, asan)
            env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
        env["LD_PRELOAD"] = ":".join(libs)
    return env


def run(cmd, env, timeout=300):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace"))
        raise RuntimeError(f"{cmd} exited with {p.returncode}")
    return p.stdout.decode()


STAT_RE = re.compile(r"smt-x11shim: pid=\d+ (connection|total connections=(\d+)) (.*)")


def read_stats(path):
    """Per-connection lines and the total line of a SMT_X11SHIM_STATS file."""
    conns, total = [], None
    with open(path) as f:
        for line in f:
            m = STAT_RE.match(line.strip())
            if not m:
                continue
            fields = dict(kv.split("=", 1) for kv in m.group(3).split())
            for k, v in fields.items():
                if v.isdigit():
                    fields[k] = int(v)
            if m.group(2) is not None:
                fields["connections"] = int(m.group(2))
                total = fields
            else:
                conns.append(fields)
    return conns, total


class Failures:
    def __init__(self):
        self.n = 0

    def check(self, ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            self.n += 1

    def same(self, got, want, what):
        ok = got == want
        self.check(ok, what)
        if not ok:
            g, w = got.splitlines(), want.splitlines()
            for i in range(max(len(g), len(w))):
                a = g[i] if i < len(g) else "<none>"
                b = w[i] if i < len(w) else "<none>"
                if a != b:
                    print(f"     want: {b}\n     got:  {a}")

    def exit(self):
        sys.exit(1 if self.n else 0)
