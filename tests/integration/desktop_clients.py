"""Helpers for the tests of desktop protocols: where our test clients are,
what they printed, and what the compositor says about its seat and windows.

smt-probe and smt-desktop-tool print one line per event; a test reads a
client's log in order, so anything the compositor sent before a line it
waits for is already there when it finds that line.
"""
import os


def tool_path(h, var, name):
    """A test tool built beside smt-vpointer (meson passes its path in var)."""
    return os.environ.get(var) or os.path.join(os.path.dirname(h.vpointer), name)


def probe(h):
    return tool_path(h, "SMT_PROBE", "smt-probe")


def desktop_tool(h):
    return tool_path(h, "SMT_DESKTOP_TOOL", "smt-desktop-tool")


def lines(p):
    """What a spawned client has printed so far, line by line."""
    with open(p.log_path, encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def seat(s):
    """The control socket's seat state (cursor, focus, locks, inhibitors)."""
    return s.control("seat")["seat"]


def window(s, title):
    """The mapped window with this title, or None."""
    return next((w for w in s.windows() if w["title"] == title), None)
