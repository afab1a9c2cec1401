"""Running one test script: the binaries under test and the log directory
(Harness), main() with its exit code and cleanup on failure or signal, and
a replayable random seed."""

import os
import random
import re
import signal
import sys
import tempfile
import time
import traceback

from .checks import TestFailure, fail, log
from .programs import build_program


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
