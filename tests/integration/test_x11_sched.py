#!/usr/bin/env python3
"""Xwayland's smart scheduler settings ([xwayland] in the config, docs/x11.md
"Scheduling X clients") reach the Xwayland the session starts: the defaults,
values from the config file, and a refused value that keeps the default.
smt-xwayland itself passes a valid setting on and refuses a malformed or
out-of-range one by name, leaving Xwayland's own default (what a hand-set
environment could try)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.programs import build_program  # noqa: E402


def sched_options(s):
    """-schedInterval and -schedMax as the session's Xwayland got them
    (None: not given)."""
    s.run(["xdpyinfo"], timeout=30)  # the lazy Xwayland starts for its first client
    xw = s.xwayland_pid()
    check(xw is not None, "no Xwayland in the session after xdpyinfo ran")
    with open(f"/proc/{xw}/cmdline", "rb") as f:
        argv = f.read().decode().split("\0")
    log(f"Xwayland's arguments: {' '.join(argv)}")
    out = {}
    for opt in ("-schedInterval", "-schedMax"):
        check(argv.count(opt) <= 1, f"{opt} given {argv.count(opt)} times: {argv}")
        out[opt] = argv[argv.index(opt) + 1] if opt in argv else None
    return out


def launcher_args(env_extra):
    """What smt-xwayland execs with, through /bin/echo instead of Xwayland."""
    env = dict(os.environ, SMT_XWAYLAND_BINARY="/bin/echo",
               SMT_X11RING_SERVER_LIB="/nonexistent/libsmt-x11ring-server.so", **env_extra)
    # The suite's pinned font path (-fp) is another option of ours: left out
    # here so that only the scheduler's options are compared.
    for k in ("SMT_XWAYLAND_SCHED_INTERVAL_MS", "SMT_XWAYLAND_SCHED_MAX_MS",
              "SMT_XWAYLAND_FONT_PATH"):
        if k not in env_extra:
            env.pop(k, None)
    launcher = build_program("SMT_XWAYLAND_LAUNCHER", "xwayland-glue/smt-xwayland")
    p = subprocess.run([launcher, ":9", "-rootless"], env=env, capture_output=True,
                       text=True, timeout=10)
    check(p.returncode == 0, f"smt-xwayland exited with {p.returncode}: {p.stderr}")
    return p.stdout.split(), p.stderr


def test(h):
    # The launcher alone: valid values pass, bad ones are refused by name.
    args, _ = launcher_args({"SMT_XWAYLAND_SCHED_INTERVAL_MS": "2",
                             "SMT_XWAYLAND_SCHED_MAX_MS": "30"})
    check(args == [":9", "-rootless", "-schedInterval", "2", "-schedMax", "30"],
          f"smt-xwayland passed {args}")
    args, _ = launcher_args({})
    check(args == [":9", "-rootless"], f"without settings smt-xwayland passed {args}")
    for bad in ("0", "1001", "abc", "5x", "-3", "99999999999999999999"):
        args, err = launcher_args({"SMT_XWAYLAND_SCHED_INTERVAL_MS": bad,
                                   "SMT_XWAYLAND_SCHED_MAX_MS": "20"})
        check(args == [":9", "-rootless", "-schedMax", "20"],
              f"interval {bad!r}: smt-xwayland passed {args}")
        check(f"SMT_XWAYLAND_SCHED_INTERVAL_MS={bad} is not 1-1000 ms" in err,
              f"interval {bad!r} refused without naming it: {err!r}")
    log("smt-xwayland passes 1-1000 ms on and refuses the rest by name")

    with Session(h, "defaults", x11=True) as s:
        got = sched_options(s)
        check(got == {"-schedInterval": "5", "-schedMax": "15"},
              f"default session: Xwayland got {got}")
    with Session(h, "configured", x11=True,
                 config="[xwayland]\nsched-interval-ms = 3\nsched-max-ms = 40\n") as s:
        got = sched_options(s)
        check(got == {"-schedInterval": "3", "-schedMax": "40"},
              f"configured session: Xwayland got {got}")
    with Session(h, "refused", x11=True,
                 config="[xwayland]\nsched-interval-ms = 0\nsched-max-ms = 7\n") as s:
        got = sched_options(s)
        check(got == {"-schedInterval": "5", "-schedMax": "7"},
              f"a refused interval: Xwayland got {got}")
        check("invalid value '0' for 'sched-interval-ms'" in s.stderr_text(),
              "the refused sched-interval-ms = 0 was not reported")


if __name__ == "__main__":
    harness.main(test)
