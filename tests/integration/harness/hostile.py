"""The hostile ring client (tests/tools/hostile, smt-hostile) as the ring
tests run it: one attack per run, its outcome checked against what the
compositor must say."""
import os

from .checks import check, log


def hostile_tool(h):
    return os.environ.get("SMT_HOSTILE") or os.path.join(os.path.dirname(h.vpointer),
                                                         "smt-hostile")


def wm_hostile_tool(h):
    """smt-x11-wm-hostile (tests/tools): an X client asking wlroots' window
    manager for work."""
    return os.environ.get("SMT_X11_WM_HOSTILE") or os.path.join(os.path.dirname(h.vpointer),
                                                                "smt-x11-wm-hostile")


def round_trips_answered(s, h, what, seconds="0.3"):
    """Another Wayland client's round trips (smt-hostile sync-probe for
    `seconds`) answered while `what` goes on; returns its summary line."""
    probe = s.run([hostile_tool(h), "sync-probe", seconds], timeout=120, check_rc=False)
    check(probe.returncode == 0 and "SYNC n=" in probe.stdout,
          f"another Wayland client's round trips during {what}: rc={probe.returncode} "
          f"{probe.stdout!r} {probe.stderr[-300:]!r}")
    return probe.stdout.strip()


def everyone_answered(s, h, what):
    """Round trips of another Wayland client, the control socket and another X
    client (xwininfo) answered while `what` goes on (an X client working the
    window manager); returns the probe's summary line."""
    line = round_trips_answered(s, h, what)
    stats = s.control("stats", timeout=60)
    check("server" in stats, f"the control socket during {what}: {stats}")
    xr = s.run(["xwininfo", "-root"], timeout=120, check_rc=False)
    check(xr.returncode == 0 and "Window id" in xr.stdout,
          f"another X client during {what}: {xr.returncode} {xr.stderr[-300:]}")
    return line


def run_hostile_case(s, h, case, expected, *args, timeout=120):
    """Runs `smt-hostile CASE ARGS...` to its end and checks that it exited
    0, said each of `expected` (a string or a list) and left the compositor
    alive. Returns what it printed."""
    res = s.run([hostile_tool(h), case, *args], timeout=timeout, check_rc=False)
    out = res.stdout + res.stderr
    check(res.returncode == 0, f"{case}: exit {res.returncode}\n{out[-1500:]}")
    for e in expected if isinstance(expected, list) else [expected]:
        check(e in out, f"{case}: '{e}' missing in:\n{out[-1500:]}")
    check(s.compositor.alive(), f"the compositor died in {case}")
    log(f"{case}: {expected}")
    return out
