"""Driving tests/tools/smt-present-colours (a ring window that fills its
canvas with a new colour per PRESENT when told), for the tests of damage
under other windows (test_ring_hidden_damage, test_ring_hidden_reveal)."""
import re
import subprocess

from .checks import check
from .clients import read_file


def tool_lines(p):
    return (read_file(p.log_path) or "").splitlines()


def start_colours(s, tool, side, *args, app_id="present-colours"):
    """The tool started with a SIDE x SIDE window, once it said READY."""
    p = s.spawn([tool, side, *args], name=app_id, stdin=subprocess.PIPE)
    s.wait_until(lambda: "READY" in tool_lines(p), timeout=30, what=f"{app_id}'s window")
    return p


def present_colours(s, p, n):
    """Tells the tool to present n colours, each waited for: returns how
    many were reported, how many with a display time, and the last colour
    as the screenshot's (r, g, b)."""
    before = len([ln for ln in tool_lines(p) if ln.startswith("PRESENTED")])
    p.popen.stdin.write(f"{n}\n".encode())
    p.popen.stdin.flush()

    def reported():
        lines = [ln for ln in tool_lines(p) if ln.startswith("PRESENTED")]
        return lines[before] if len(lines) > before else None
    line = s.wait_until(reported, timeout=60, what=f"{n} PRESENTs reported")
    m = re.fullmatch(r"PRESENTED (\d+) SHOWN (\d+) COLOUR ([0-9a-f]{6})", line)
    check(m is not None, f"smt-present-colours said {line!r}")
    v = int(m.group(3), 16)
    return int(m.group(1)), int(m.group(2)), (v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff)
