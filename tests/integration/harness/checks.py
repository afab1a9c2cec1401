"""How a test says what went wrong, and how long it waits: every other
part of the harness fails through these, so one TestFailure reaches main()."""

import os
import time

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
