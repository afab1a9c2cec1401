"""The hostile ring client (tests/tools/hostile, smt-hostile) as the ring
tests run it: one attack per run, its outcome checked against what the
compositor must say."""
import os

from .checks import check, log


def hostile_tool(h):
    return os.environ.get("SMT_HOSTILE") or os.path.join(os.path.dirname(h.vpointer),
                                                         "smt-hostile")


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
