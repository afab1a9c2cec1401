"""Integration test harness: one real headless smtwc per test.

Python 3 standard library only. A test script does:

    import harness
    from harness import Session, FOCUSED

    def test(h):
        with Session(h, "name") as s:
            s.spawn(["foot"])
            rect = s.wait_for_border(FOCUSED)
            ...

    harness.main(test)

Paths of the binaries under test come from the environment (set by meson):
SMTWC (the compositor) and SMT_VPOINTER (tests/tools/smt-vpointer), or from
--smtwc PATH / --vpointer PATH on the command line. External programs (foot,
grim, wtype, wayland-info, weston-simple-shm) are looked up in PATH; a missing
one makes the test FAIL (the project's install scripts provide them).

X programs: Session(h, x11=True) adds a startup command (-s) that writes the
DISPLAY the compositor exports to what it launches (its lazy Xwayland), and
the LD_PRELOAD it gives them (the X shim: requests through the X ring), into
the private XDG_RUNTIME_DIR; the session reads them at start (s.x_display)
and gives them to every client it starts, as the session would. Xwayland logs
one line per X connection as it closes (SMT_X11RING_LOG): s.x11ring_closed(). Helpers: s.xwayland_pid() (the Xwayland
in the compositor's session), s.x_search / s.wait_x_window (xdotool),
s.x_window_info / s.x_geometry (xwininfo), s.x_override_redirect_windows().

Other environment knobs:
  SMT_TEST_LOGDIR        where failing screenshots/logs are saved (meson-logs)
  SMT_TEST_TIMEOUT_SCALE multiply every timeout (slow machines, sanitizers)
  SMT_TEST_VERBOSE=1     print the compositor's log even when a test passes
Everything else (ASAN_OPTIONS, WLR_RENDERER, ...) is passed through.
"""

import ctypes
import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
import traceback

BACKGROUND = (48, 48, 64)
# A small Qt5 widgets program from Debian (qtbase5-examples); run it with
# QT_QPA_PLATFORM=wayland (qtwayland5).
QT_GALLERY = "/usr/lib/x86_64-linux-gnu/qt5/examples/widgets/gallery/gallery"
FOCUSED = (76, 120, 153)
UNFOCUSED = (58, 58, 58)
OUTPUT_W, OUTPUT_H = 1280, 720

# Where each external program comes from (for the failure message).
PACKAGES = {
    "foot": "foot",
    "grim": "grim",
    "wtype": "wtype",
    "wayland-info": "wayland-utils",
    "weston-simple-shm": "weston",
    "wlr-randr": "wlr-randr",
    # X clients (Session(x11=True) tests)
    "xterm": "xterm",
    "xeyes": "x11-apps",
    "xclock": "x11-apps",
    "x11perf": "x11-apps",
    "xmessage": "x11-utils",
    "xwininfo": "x11-utils",
    "xprop": "x11-utils",
    "xdotool": "xdotool",
    "xclip": "xclip",
    "wl-copy": "wl-clipboard",
    "wl-paste": "wl-clipboard",
    # Toolkits as people run them (test_toolkits and friends)
    "weston-terminal": "weston",
    "gtk3-demo": "gtk-3-examples",
    "gtk3-widget-factory": "gtk-3-examples",
    "gtk4-demo": "gtk-4-examples",
    "gtk4-widget-factory": "gtk-4-examples",
    QT_GALLERY: "qtbase5-examples (and qtwayland5)",
    "swaylock": "swaylock",
    "swayidle": "swayidle",
    "wlsunset": "wlsunset",
}

_TIMEOUT_SCALE = float(os.environ.get("SMT_TEST_TIMEOUT_SCALE", "1") or "1")


def scaled(seconds):
    return seconds * _TIMEOUT_SCALE


class TestFailure(AssertionError):
    pass


def fail(msg):
    raise TestFailure(msg)


def check(cond, msg):
    """Fail with msg unless cond. msg may be a callable (called only on
    failure, e.g. to save a screenshot for the message)."""
    if not cond:
        raise TestFailure(msg() if callable(msg) else msg)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# ---------------------------------------------------------------------------
# Rectangles and images


class Rect(tuple):
    """(x, y, w, h), like struct wlr_box. x2/y2 are exclusive."""

    __slots__ = ()

    def __new__(cls, x, y, w, h):
        return tuple.__new__(cls, (int(x), int(y), int(w), int(h)))

    x = property(lambda self: self[0])
    y = property(lambda self: self[1])
    w = property(lambda self: self[2])
    h = property(lambda self: self[3])
    x2 = property(lambda self: self[0] + self[2])
    y2 = property(lambda self: self[1] + self[3])

    def contains(self, px, py):
        return self.x <= px < self.x2 and self.y <= py < self.y2

    def center(self):
        return (self.x + self.w // 2, self.y + self.h // 2)

    def inset(self, d):
        return Rect(self.x + d, self.y + d, max(0, self.w - 2 * d), max(0, self.h - 2 * d))

    def intersect(self, other):
        x1, y1 = max(self.x, other.x), max(self.y, other.y)
        x2, y2 = min(self.x2, other.x2), min(self.y2, other.y2)
        return Rect(x1, y1, max(0, x2 - x1), max(0, y2 - y1))

    def __repr__(self):
        return f"Rect(x={self.x}, y={self.y}, w={self.w}, h={self.h})"


def _match_table(value, tol):
    return bytes(1 if abs(i - value) <= tol else 0 for i in range(256))


_NONZERO = bytes([0] + [1] * 255)


def _popcount(n):
    try:
        return n.bit_count()
    except AttributeError:  # Python < 3.10
        return bin(n).count("1")


class Image:
    """An RGB screenshot. Analysis uses bytes/int bulk operations, so a full
    1280x720 pass takes milliseconds, not seconds."""

    def __init__(self, width, height, data):
        check(len(data) == width * height * 3, "image data size mismatch")
        self.width = width
        self.height = height
        self.data = bytes(data)

    @classmethod
    def from_ppm(cls, blob):
        # P6 <ws> width <ws> height <ws> maxval <single ws> data; '#' comments.
        tokens = []
        pos = 0
        n = len(blob)
        while len(tokens) < 4:
            while pos < n and blob[pos:pos + 1].isspace():
                pos += 1
            if pos < n and blob[pos:pos + 1] == b"#":
                while pos < n and blob[pos:pos + 1] not in (b"\n", b"\r"):
                    pos += 1
                continue
            start = pos
            while pos < n and not blob[pos:pos + 1].isspace() and blob[pos:pos + 1] != b"#":
                pos += 1
            if start == pos:
                fail(f"truncated PPM header ({n} bytes)")
            tokens.append(blob[start:pos])
        pos += 1  # the single whitespace after maxval
        if tokens[0] != b"P6":
            fail(f"not a binary PPM (magic {tokens[0]!r})")
        try:
            w, h, maxval = int(tokens[1]), int(tokens[2]), int(tokens[3])
        except ValueError:
            fail(f"bad PPM header {tokens!r}")
        if not (0 < w <= 32768 and 0 < h <= 32768):
            fail(f"absurd PPM size {w}x{h}")
        if maxval != 255:
            fail(f"unsupported PPM maxval {maxval}")
        data = blob[pos:pos + w * h * 3]
        if len(data) != w * h * 3:
            fail(f"truncated PPM data: {len(data)} of {w * h * 3} bytes")
        return cls(w, h, data)

    def to_ppm(self):
        return b"P6\n%d %d\n255\n" % (self.width, self.height) + self.data

    def save(self, path):
        with open(path, "wb") as f:
            f.write(self.to_ppm())
        return path

    @property
    def rect(self):
        return Rect(0, 0, self.width, self.height)

    def pixel(self, x, y):
        check(0 <= x < self.width and 0 <= y < self.height,
              f"pixel ({x},{y}) outside {self.width}x{self.height}")
        i = (y * self.width + x) * 3
        return tuple(self.data[i:i + 3])

    def _region(self, rect):
        """Raw bytes of rect (clipped to the image), and the clipped rect."""
        r = self.rect if rect is None else Rect(*rect).intersect(self.rect)
        if r == self.rect:
            return self.data, r
        stride = self.width * 3
        rows = [self.data[y * stride + r.x * 3:y * stride + r.x2 * 3] for y in range(r.y, r.y2)]
        return b"".join(rows), r

    def crop(self, rect):
        data, r = self._region(rect)
        return Image(r.w, r.h, data)

    def mask(self, color, tol=0, rect=None, invert=False, exclude=()):
        """One byte per pixel of rect: 1 where the pixel is within tol of
        color on every channel (or, with invert, where it is not). Pixels in
        the exclude rects are 0. Returns (mask bytes, clipped rect)."""
        data, r = self._region(rect)
        n = r.w * r.h
        if n == 0:
            return b"", r
        m = -1
        for c in range(3):
            ch = data[c::3].translate(_match_table(color[c], tol))
            m &= int.from_bytes(ch, "little")
        if invert:
            m ^= int.from_bytes(b"\x01" * n, "little")
        out = bytearray(m.to_bytes(n, "little"))
        for ex in exclude:
            e = Rect(*ex).intersect(r)
            if e.w and e.h:
                zero = bytes(e.w)
                for y in range(e.y, e.y2):
                    off = (y - r.y) * r.w + (e.x - r.x)
                    out[off:off + e.w] = zero
        return bytes(out), r

    def count(self, color, tol=0, rect=None, exclude=()):
        """Number of pixels within tol of color in rect."""
        m, _ = self.mask(color, tol, rect, exclude=exclude)
        return m.count(1)

    def count_not(self, color, tol=0, rect=None, exclude=()):
        m, _ = self.mask(color, tol, rect, invert=True, exclude=exclude)
        return m.count(1)

    @staticmethod
    def _mask_bbox(m, r):
        if not m:
            return None
        one = b"\x01"
        y0 = y1 = None
        x0, x1 = r.w, -1
        for yy in range(r.h):
            row = m[yy * r.w:(yy + 1) * r.w]
            a = row.find(one)
            if a < 0:
                continue
            b = row.rfind(one)
            if y0 is None:
                y0 = yy
            y1 = yy
            x0 = min(x0, a)
            x1 = max(x1, b)
        if y0 is None:
            return None
        return Rect(r.x + x0, r.y + y0, x1 - x0 + 1, y1 - y0 + 1)

    def bbox(self, color, tol=0, rect=None, exclude=()):
        """Bounding box of the pixels matching color, or None."""
        m, r = self.mask(color, tol, rect, exclude=exclude)
        return self._mask_bbox(m, r)

    def bbox_not(self, color=BACKGROUND, tol=0, rect=None, exclude=()):
        """Bounding box of the pixels NOT matching color (default: of
        everything that is not the desktop background), or None."""
        m, r = self.mask(color, tol, rect, invert=True, exclude=exclude)
        return self._mask_bbox(m, r)

    def _diff_mask(self, other, rect):
        check((self.width, self.height) == (other.width, other.height),
              "diff of images of different sizes")
        a, r = self._region(rect)
        b, _ = other._region(rect)
        n = r.w * r.h
        if n == 0:
            return 0, r
        x = (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")
        x = x.translate(_NONZERO)
        m = 0
        for c in range(3):
            m |= int.from_bytes(x[c::3], "little")
        return m, r

    def diff_count(self, other, rect=None):
        """Number of pixels of rect that differ (any channel) from other."""
        m, _ = self._diff_mask(other, rect)
        return _popcount(m)

    def diff_bbox(self, other, rect=None):
        """Bounding box of the pixels of rect that differ from other, or None."""
        m, r = self._diff_mask(other, rect)
        return self._mask_bbox(m.to_bytes(r.w * r.h, "little"), r) if m else None

    def frame_count(self, rect, color, width=2, tol=0):
        """(matching, total) pixels in the width-pixel frame just inside rect:
        how much of a border of that colour is visible."""
        r = Rect(*rect)
        parts = [
            Rect(r.x, r.y, r.w, width),
            Rect(r.x, r.y2 - width, r.w, width),
            Rect(r.x, r.y + width, width, r.h - 2 * width),
            Rect(r.x2 - width, r.y + width, width, r.h - 2 * width),
        ]
        match = total = 0
        for p in parts:
            p = p.intersect(self.rect)
            total += p.w * p.h
            match += self.count(color, tol, p)
        return match, total

    def colors(self, rect=None, top=8):
        """Most common colours in rect (diagnostics)."""
        data, _ = self._region(rect)
        hist = {}
        step = max(1, len(data) // 3 // 20000) * 3  # sample at most ~20k pixels
        for i in range(0, len(data) - 2, step):
            k = data[i:i + 3]
            hist[k] = hist.get(k, 0) + 1
        best = sorted(hist.items(), key=lambda kv: -kv[1])[:top]
        return [(tuple(k), v) for k, v in best]


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


MODIFIER_BITS = {"shift": 1, "caps": 2, "ctrl": 4, "alt": 8, "mod2": 16, "mod3": 32,
                 "logo": 64, "mod5": 128}


def modifier_mask(mods):
    """wlroots' modifier bits for wtype modifier names."""
    mask = 0
    for m in mods:
        check(m.lower() in MODIFIER_BITS, f"unknown modifier {m!r}")
        mask |= MODIFIER_BITS[m.lower()]
    return mask


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
    if any("libasan" in line for line in lines):
        return fds, sum(1 for line in lines if len(line.split(None, 5)) == 6
                        and line.split(None, 5)[5].startswith("/"))
    return fds, len(lines)


def build_program(var, rel):
    """A program of this build: $VAR (meson sets it), else REL under the
    build directory that holds $SMTWC (for scripts run by hand)."""
    p = os.environ.get(var)
    if p:
        return p
    smtwc = os.environ.get("SMTWC", "")
    build = os.path.dirname(os.path.dirname(os.path.abspath(smtwc))) if smtwc else ""
    return os.path.join(build, rel)


def _x11ring_fields(line):
    out = {}
    for kv in line.split():
        k, _, v = kv.partition("=")
        out[k] = int(v) if v.isdigit() else v
    return out


def find_program(name):
    path = shutil.which(name) if os.sep not in name else (
        name if os.access(name, os.X_OK) else None)
    if path is None:
        pkg = PACKAGES.get(name)
        hint = f" (Debian package '{pkg}'; the install scripts should provide it)" if pkg else ""
        fail(f"required program '{name}' not found in PATH{hint}")
    return path


class Harness:
    """Per-test-script context: binaries under test, log directory, the
    registry of sessions so that a signal still cleans everything up."""

    def __init__(self, name, argv=None):
        self.name = name
        argv = list(sys.argv[1:] if argv is None else argv)
        opts = {"--smtwc": os.environ.get("SMTWC"), "--vpointer": None}
        i = 0
        while i < len(argv):
            a = argv[i]
            key, eq, val = a.partition("=")
            if key in opts:
                if not eq:
                    if i + 1 >= len(argv):
                        fail(f"{key} needs a value")
                    i += 1
                    val = argv[i]
                opts[key] = val
            else:
                fail(f"unknown argument {a!r} (accepted: --smtwc PATH, --vpointer PATH)")
            i += 1
        self.smtwc = self._binary(opts["--smtwc"], "SMTWC", "the compositor (build/compositor/smtwc)")
        if self.smtwc and not os.environ.get("SMTWC"):
            os.environ["SMTWC"] = self.smtwc  # for build_program's fallback
        self._vpointer = opts["--vpointer"] or build_program(
            "SMT_VPOINTER", "tests/tools/smt-vpointer")
        logdir = os.environ.get("SMT_TEST_LOGDIR") or tempfile.gettempdir()
        try:
            os.makedirs(logdir, exist_ok=True)
        except OSError:
            logdir = tempfile.gettempdir()
        self.logdir = logdir
        self.sessions = []
        self.saved = 0

    @staticmethod
    def _binary(path, var, what):
        if not path:
            fail(f"${var} is not set: path to {what} (meson sets it; or pass it on the command line)")
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            fail(f"${var}={path}: not an executable file ({what})")
        return os.path.abspath(path)

    @property
    def vpointer(self):
        return self._binary(self._vpointer, "SMT_VPOINTER", "tests/tools/smt-vpointer")

    def save_path(self, label, ext="ppm"):
        self.saved += 1
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
        return os.path.join(self.logdir, f"smtwc-{self.name}-{os.getpid()}-{self.saved}-{safe}.{ext}")

    def save_image(self, img, label):
        path = self.save_path(label)
        try:
            img.save(path)
            log(f"screenshot saved: {path}")
        except OSError as e:
            log(f"could not save screenshot {path}: {e}")
        return path


class Session:
    """One headless smtwc in a private XDG_RUNTIME_DIR, plus every process the
    test starts against it. Use as a context manager: exit terminates every
    process by pid (SIGTERM, then SIGKILL), checks the compositor exits 0 on
    SIGTERM and removes its socket, and deletes the temporary directory."""

    def __init__(self, h, label="main", args=(), config=None, outputs=None, env=None,
                 startup=None, start=True, park=True, keyboard=True, x11=False):
        self.h = h
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
        os.mkdir(self.runtime_dir, 0o700)
        os.mkdir(self.config_home, 0o700)
        self.config_path = None
        if config is not None:
            self.config_path = os.path.join(self.tmp, "smtwc.conf")
            with open(self.config_path, "w") as f:
                f.write(config)
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
        env = dict(os.environ)
        for k in ("WAYLAND_DISPLAY", "WAYLAND_SOCKET", "DISPLAY", "WLR_BACKENDS",
                  "WLR_HEADLESS_OUTPUTS", "SWAYSOCK", "I3SOCK", "XAUTHORITY"):
            env.pop(k, None)
        env["XDG_RUNTIME_DIR"] = self.runtime_dir
        env["XDG_CONFIG_HOME"] = self.config_home
        env["LC_ALL"] = "C.UTF-8"
        env.pop("LANGUAGE", None)
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
                preexec_fn=_preexec_compositor)
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

    def stdout_text(self):
        return "".join(self._stdout_lines)

    def stderr_text(self):
        try:
            with open(self.compositor_log, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

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
                cwd=self.tmp, start_new_session=True, preexec_fn=_preexec_client)
        p = Process(name, argv, popen, log_path)
        self.clients.append(p)
        log(f"spawned {name} pid {p.pid}: {shlex.join(argv)}")
        return p

    def control(self, line, timeout=5.0):
        """One request on the compositor's control socket; the JSON answer."""
        c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        c.settimeout(scaled(timeout))
        try:
            c.connect(self.socket_path + ".smtwc")
            c.sendall(line.encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = c.recv(65536)
                if not chunk:
                    break
                data += chunk
        finally:
            c.close()
        return json.loads(data.decode())

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
            start_new_session=True, preexec_fn=_preexec_client)
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

    # -- input ----------------------------------------------------------------

    def seat_capabilities(self):
        """The wl_seat capabilities wayland-info reports, as a set of words."""
        res = self.run(["wayland-info"], timeout=10)
        m = re.search(r"interface: 'wl_seat'.*?\n\s*name: .*?\n\s*capabilities:([^\n]*)",
                      res.stdout, re.S)
        return set(m.group(1).split()) if m else set()

    def add_keyboard_anchor(self):
        """Keep a virtual keyboard connected for the whole session, like the
        physical keyboard of a real machine. Without one the seat has no
        keyboard capability until the first wtype connects, and that wtype's
        first key races with the client binding wl_keyboard (the press is
        lost, the client only gets the key in wl_keyboard.enter's array)."""
        self.kbd_anchor = self.spawn(["wtype", "-s", "600000"], name="kbd-anchor")
        self.wait_until(lambda: "keyboard" in self.seat_capabilities(), timeout=5,
                        what="the seat to advertise a keyboard (a wtype virtual keyboard is "
                             "connected)")

    def vpointer(self, *actions):
        """Run smt-vpointer with the given actions (strings or numbers)."""
        argv = [self.h.vpointer] + [str(a) for a in actions]
        self.run(argv, timeout=10.0)
        # Track the pointer position so screenshots can ignore the cursor.
        acts = [str(a) for a in actions]
        i = 0
        while i < len(acts):
            if acts[i] == "--extent":
                i += 2
            elif acts[i] == "move":
                self.pointer = (int(acts[i + 1]), int(acts[i + 2]))
                i += 3
            elif acts[i] == "rel":
                if self.pointer is not None:
                    self.pointer = (int(self.pointer[0] + float(acts[i + 1])),
                                    int(self.pointer[1] + float(acts[i + 2])))
                i += 3
            else:
                i += 2

    def park_pointer(self):
        """Move the pointer to the bottom-right corner of the (first) output,
        out of the way of windows."""
        self.vpointer("move", OUTPUT_W - 1, OUTPUT_H - 1)

    def click(self, x, y, button="left"):
        self.vpointer("move", x, y, "click", button)

    def type_text(self, text, enter=False):
        argv = ["wtype", "--", text] if not enter else ["wtype", text, "-k", "Return"]
        if enter and text.startswith("-"):
            fail("type_text: text starting with '-' cannot be combined with enter")
        self.run(argv, timeout=10.0)

    def key(self, combo):
        """Press a combination like 'logo+shift+q' or 'Return' with wtype."""
        parts = combo.split("+")
        mods, key = parts[:-1], parts[-1]
        argv = ["wtype"]
        for m in mods:
            argv += ["-M", m.lower()]
        argv += ["-k", key]
        for m in reversed(mods):
            argv += ["-m", m.lower()]
        self.run(argv, timeout=10.0)

    def hold_modifiers(self, *mods):
        """Start a wtype that presses mods and keeps them pressed until its
        stdin is closed (release_modifiers). Returns the Process."""
        argv = ["wtype"]
        for m in mods:
            argv += ["-M", m]
        argv += ["-"]
        for m in reversed(mods):
            argv += ["-m", m]
        p = self.spawn(argv, name="wtype-hold", stdin=subprocess.PIPE)
        p.held_mask = modifier_mask(mods)
        # The press travels on wtype's own connection: input another client
        # sends is ordered after it only once the compositor has seen it.
        self.wait_until(lambda: not p.alive() or
                        self.keyboard_modifiers() & p.held_mask == p.held_mask,
                        what=f"the compositor to see {mods} held")
        check(p.alive(), f"wtype holding {mods} exited early:\n{p.log_tail()}")
        return p

    def release_modifiers(self, p, timeout=5.0):
        try:
            p.popen.stdin.close()
        except OSError:
            pass
        rc = p.wait(timeout)
        check(rc == 0, f"wtype holding modifiers ended with {rc}:\n{p.log_tail()}")
        self.clients.remove(p)
        self.wait_until(lambda: self.keyboard_modifiers() & p.held_mask == 0,
                        what="the compositor to see the modifiers released")

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

    # -- X clients (Session(x11=True)) ------------------------------------------

    def xwayland_pid(self):
        """Pid of the Xwayland this compositor runs, or None while none runs.
        wlroots double-forks it, so it is not the compositor's child: it is
        the Xwayland process in the compositor's session (the harness starts
        the compositor with setsid, so that session id is the compositor's
        pid and nothing of other tests is in it)."""
        if self.compositor is None or not self.compositor.alive():
            return None
        sid = self.compositor.pid
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    comm_rest = f.read()
            except OSError:
                continue
            lpar, rpar = comm_rest.find("("), comm_rest.rfind(")")
            fields = comm_rest[rpar + 2:].split()
            # fields: state ppid pgrp session ...
            if comm_rest[lpar + 1:rpar] == "Xwayland" and len(fields) > 3 \
                    and int(fields[3]) == sid and fields[0] != "Z":
                return int(entry)
        return None

    def x11ring_closed(self):
        """The X connections Xwayland has closed, from its log (one dict per
        connection: comm, transport ("ring" or "socket"), requests,
        ring_bytes, fd_messages, ... as ints where numeric)."""
        out = []
        for line in self.stderr_text().splitlines():
            m = re.search(r"smt-x11ring: closed: (.*)$", line)
            if m:
                out.append(_x11ring_fields(m.group(1)))
        return out

    def x11ring_stats(self):
        """The live X connections of this session's Xwayland, as
        `smt-x11run --stats` prints them (list of dicts, see x11ring_closed)."""
        res = self.run([build_program("SMT_X11RUN", "xwayland-glue/smt-x11run"), "--stats"],
                       timeout=10.0, env={"LD_PRELOAD": ""})
        return [_x11ring_fields(line) for line in res.stdout.splitlines() if line.strip()]

    def x_search(self, *criteria):
        """X window ids (ints) that `xdotool search --onlyvisible criteria`
        finds, e.g. x_search("--classname", "xeyes")."""
        check(self.x_display, "x_search needs Session(x11=True)")
        res = self.run(["xdotool", "search", "--onlyvisible"] + list(criteria),
                       timeout=10.0, check_rc=False)
        return [int(w) for w in res.stdout.split()]

    def wait_x_window(self, *criteria, timeout=15.0):
        """Wait for exactly one viewable X window matching criteria (see
        x_search); returns its id."""
        found = self.wait_until(lambda: self.x_search(*criteria), timeout=timeout,
                                what=f"a viewable X window ({' '.join(criteria)})",
                                interval=0.2)
        check(len(found) == 1, f"{len(found)} X windows match {criteria}: {found}")
        return found[0]

    def x_window_info(self, wid):
        """What xwininfo says of an X window: a dict with x, y (outer
        top-left on the root, as xwininfo's "Absolute upper-left"), width and
        height (inside the X border), border (width), viewable and
        override_redirect (bools)."""
        res = self.run(["xwininfo", "-id", str(wid)], timeout=10.0)
        keys = {"x": "Absolute upper-left X", "y": "Absolute upper-left Y", "width": "Width",
                "height": "Height", "border": "Border width"}
        info = {}
        for k, key in keys.items():
            m = re.search(r"^\s*" + re.escape(key) + r":\s*(-?\d+)", res.stdout, re.M)
            check(m, f"xwininfo -id {wid}: no '{key}' in:\n{res.stdout}")
            info[k] = int(m.group(1))
        info["viewable"] = "Map State: IsViewable" in res.stdout
        info["override_redirect"] = "Override Redirect State: yes" in res.stdout
        return info

    def x_override_redirect_windows(self, min_size=1):
        """Viewable override-redirect X windows (menus, tooltips, x11perf's
        windows) at least min_size wide and high: {id: x_window_info}."""
        out = {}
        for wid in self.x_search("--name", ""):
            try:
                info = self.x_window_info(wid)
            except TestFailure:
                continue  # gone meanwhile
            if info["viewable"] and info["override_redirect"] \
                    and min(info["width"], info["height"]) >= min_size:
                out[wid] = info
        return out

    def x_geometry(self, wid):
        """The area an X window covers on the root, its X border included
        (that is what Xwayland draws into the window's surface): a Rect."""
        i = self.x_window_info(wid)
        return Rect(i["x"], i["y"], i["width"] + 2 * i["border"], i["height"] + 2 * i["border"])

    # -- screenshots ------------------------------------------------------------

    def cursor_exclusion(self):
        """Rects screenshot analysis should ignore: around the pointer (the
        headless backend has no hardware cursor, so the cursor is in the
        screenshot)."""
        if self.pointer is None:
            return []
        x, y = self.pointer
        return [Rect(x - 32, y - 32, 80, 80)]

    def screenshot(self, output=None):
        argv = ["grim", "-t", "ppm"]
        if output:
            argv += ["-o", output]
        argv.append("-")
        last = None
        for attempt in range(3):
            popen = subprocess.Popen(
                [find_program("grim")] + argv[1:], env=self.client_env(),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                cwd=self.tmp, start_new_session=True, preexec_fn=_preexec_client)
            p = Process("grim", argv, popen, None)
            self.clients.append(p)
            try:
                out, err = popen.communicate(timeout=scaled(10))
            except subprocess.TimeoutExpired:
                p.terminate(1.0)
                popen.communicate()
                self.clients.remove(p)
                fail("grim did not finish within 10 s (screencopy not answered?)")
            self.clients.remove(p)
            if popen.returncode == 0:
                img = Image.from_ppm(out)
                self.last_image = img
                return img
            last = err.decode("utf-8", "replace")
            time.sleep(0.1)
        fail(f"grim failed (exit {popen.returncode}): {last}")

    def save(self, img, label):
        return self.h.save_image(img, f"{self.label}-{label}")

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

    def wait_screenshot(self, pred, timeout=10.0, what="screen condition", interval=0.1):
        """Take screenshots until pred(img) returns a true value; returns
        (img, value). On timeout the last screenshot is saved and its path
        is in the failure message."""
        deadline = time.monotonic() + scaled(timeout)
        img = None
        while True:
            self.check_alive()
            img = self.screenshot()
            v = pred(img)
            if v:
                return img, v
            if time.monotonic() > deadline:
                path = self.save(img, "timeout")
                fail(f"timed out after {scaled(timeout):.1f} s waiting for {what}; "
                     f"last screenshot: {path} (most common colours: {img.colors(top=6)})")
            time.sleep(interval)

    def window_border(self, img, color=FOCUSED, min_w=50, min_h=50):
        """Bounding box of the pixels of a border colour if it looks like a
        window frame (big enough, frame mostly of that colour)."""
        r = img.bbox(color, exclude=self.cursor_exclusion())
        if r is None or r.w < min_w or r.h < min_h:
            return None
        match, total = img.frame_count(r, color)
        if match < 0.9 * total:
            return None
        return r

    def wait_for_border(self, color=FOCUSED, timeout=10.0, what=None, stable=True):
        """Wait for a window frame of this colour, stable over two
        consecutive screenshots. Returns (image, Rect)."""
        prev = [None]

        def pred(img):
            r = self.window_border(img, color)
            ok = r is not None and (not stable or r == prev[0])
            prev[0] = r
            return r if ok else None

        return self.wait_screenshot(pred, timeout, what or f"a window border of colour {color}")

    def only_background(self, img):
        """True if the screen shows nothing but the desktop background
        (ignoring the cursor)."""
        return img.count_not(BACKGROUND, exclude=self.cursor_exclusion()) == 0

    # -- compositor life ----------------------------------------------------------

    def check_alive(self):
        if self.compositor is not None and not self.compositor.alive() and not self.exit_checked:
            fail(f"compositor died (exit code {self.compositor.returncode}, "
                 f"{_describe_rc(self.compositor.returncode)}).\n"
                 f"--- smtwc stderr ---\n{self.compositor.log_tail(60)}")

    def wait_exit(self, timeout=5.0, what="exit"):
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

    def stop(self, timeout=5.0):
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


def raw_connect(session, timeout=5.0):
    """A raw Unix socket connected to the compositor (no libwayland)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(scaled(timeout))
    s.connect(session.socket_path)
    return s


def wait_closed(sock, timeout=5.0):
    """Read until the peer closes the connection. Returns (closed, bytes
    received)."""
    deadline = time.monotonic() + scaled(timeout)
    got = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except (ConnectionResetError, BrokenPipeError):
            return True, got
        if not chunk:
            return True, got
        got += chunk
    return False, got


class _Interrupted(BaseException):
    pass


def _on_signal(signum, frame):
    raise _Interrupted(f"interrupted by {signal.Signals(signum).name}")


def main(test_fn):
    """Run test_fn(harness) and exit 0 (pass) or 1 (fail). Sessions left
    open are cleaned up; SIGTERM/SIGINT (a meson timeout) also clean up."""
    name = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    if name.startswith("test_"):
        name = name[5:]
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)
    rc = 1
    h = None
    start = time.monotonic()
    try:
        h = Harness(name)
        test_fn(h)
        rc = 0
    except TestFailure as e:
        print(f"FAIL: {name}: {e}", file=sys.stderr, flush=True)
    except _Interrupted as e:
        print(f"FAIL: {name}: {e}", file=sys.stderr, flush=True)
    except Exception:
        traceback.print_exc()
        print(f"FAIL: {name}: unexpected exception (harness or test bug?)", file=sys.stderr,
              flush=True)
    finally:
        if h is not None:
            for s in list(h.sessions):
                try:
                    s.close(failed=rc != 0)
                except TestFailure as e:
                    print(f"FAIL: {name}: during cleanup: {e}", file=sys.stderr, flush=True)
                    rc = 1
                except BaseException as e:
                    print(f"cleanup error: {e!r}", file=sys.stderr, flush=True)
                    rc = 1
    if rc == 0:
        print(f"PASS: {name} ({time.monotonic() - start:.1f} s)", flush=True)
    sys.exit(rc)


def seeded_random(label):
    """A deterministic RNG (seed printed) so a failure can be replayed."""
    seed = int(os.environ.get("SMT_TEST_SEED", "0") or "0") or random.SystemRandom().randrange(1, 2**31)
    log(f"random seed for {label}: {seed} (set SMT_TEST_SEED={seed} to replay)")
    return random.Random(seed)
