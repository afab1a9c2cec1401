"""The shim never changes what is drawn, read or reported.

test_imgcheck.py main|threads|displays|noshm

Runs x11-imgcheck without any shim (the reference), then with the shim in
several configurations, against a private Xvfb, and requires the same
output byte for byte; checks the shim's statistics (it really converted,
with one segment per connection).
  main      all sections; shim off, default, small segments with every image
            converted (ring waits, bands, images too large for the ring),
            SysV instead of memfd, and preloaded into the plain checker
  threads   XInitThreads, four threads drawing through one display
  displays  two connections, one closed midway
  noshm     a server without MIT-SHM: the shim stays out of the way and the
            result equals a normal server's
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xtest  # noqa: E402

PLAIN = os.environ["X11_IMGCHECK"]
LINKED = os.environ["X11_IMGCHECK_SHIM"]


def stats_run(f, cmd, env, what, conns=1, state="active", converted=True):
    """Runs cmd with statistics into a fresh file; checks them; returns
    the output."""
    with tempfile.NamedTemporaryFile(prefix="smt-x11shim-stats-") as st:
        env = dict(env, SMT_X11SHIM_STATS=st.name)
        out = xtest.run(cmd, env)
        lines, total = xtest.read_stats(st.name)
    f.check(total is not None and total["connections"] >= conns,
            f"{what}: statistics printed for {conns} connection(s)")
    if total is None:
        return out
    if state == "active":
        f.check(all(c["segments"] <= 1 for c in lines) and
                total["segments"] <= total["connections"],
                f"{what}: one segment per connection "
                f"(segments={total['segments']}, connections={total['connections']})")
    if converted:
        f.check(total["puts"] > 0 and total["gets"] > 0,
                f"{what}: images went through the segment "
                f"(puts={total['puts']} gets={total['gets']} "
                f"ring_waits={total['ring_waits']} plain={total['plain']})")
    else:
        f.check(total["puts"] == 0 and total["gets"] == 0 and total["segments"] == 0,
                f"{what}: nothing converted, no segment")
    return out


def main(mode):
    f = xtest.Failures()
    args = {"main": [], "threads": ["--threads"], "displays": ["--displays"],
            "noshm": []}[mode]
    extra = ["-extension", "MIT-SHM"] if mode == "noshm" else []
    with xtest.Xvfb() as x:
        env = dict(os.environ, DISPLAY=x.display)
        ref = xtest.run([PLAIN, *args], xtest.shim_env(env))
        f.check(ref.count("section ") >= 1, f"reference run printed sections "
                f"({ref.count('section ')})")
    if mode == "noshm":
        with xtest.Xvfb(extra) as x:
            env = dict(os.environ, DISPLAY=x.display)
            out = stats_run(f, [LINKED], xtest.shim_env(env), "no MIT-SHM",
                            state="off", converted=False)
            f.same(out, ref, "no MIT-SHM: same result as a normal server without shim")
            out = stats_run(f, [PLAIN], xtest.shim_env(env, preload=True),
                            "no MIT-SHM, preloaded", state="off", converted=False)
            f.same(out, ref, "no MIT-SHM, preloaded: same result")
        f.exit()

    conns = 2 if mode == "displays" else 1
    with xtest.Xvfb() as x:
        env = dict(os.environ, DISPLAY=x.display)
        runs = [
            ("shim linked, SMT_X11SHIM=off", [LINKED], xtest.shim_env(env, off=True), False),
            ("shim linked, defaults", [LINKED], xtest.shim_env(env), True),
            ("shim linked, 1 MiB segment, every image converted", [LINKED],
             xtest.shim_env(env, SEGMENT="1M", PUT_MIN=1, GET_MIN=1), True),
            ("shim linked, 256 KiB segment (most images too large)", [LINKED],
             xtest.shim_env(env, SEGMENT="256K", PUT_MIN=1, GET_MIN=1), True),
        ]
        if mode == "main":
            runs += [
                ("shim linked, SysV segment", [LINKED], xtest.shim_env(env, SYSV=1), True),
                ("shim preloaded", [PLAIN], xtest.shim_env(env, preload=True), True),
            ]
        for what, cmd, renv, converted in runs:
            if converted:
                out = stats_run(f, cmd + args, renv, what, conns=conns)
            else:
                out = xtest.run(cmd + args, renv)
            f.same(out, ref, f"{what}: same output as without the shim")
    f.exit()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "main")
