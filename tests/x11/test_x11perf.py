"""x11perf's PutImage/GetImage cases draw the same with and without the shim,
and the shim keeps one segment however many calls it converts.

Each case runs with a fixed repetition count (-reps, so the drawing is
deterministic) and pauses after its run (-pause) with its window still up;
the screen is captured with xwd during that pause, x11perf stopped
(SIGSTOP) from the moment its result line is read until the capture is
done: on a loaded machine xwd can take longer to start than the pause
lasts, and the window would be gone. x11perf's output goes to a
pseudo-terminal so that the result line arrives when the run ends rather
than at exit.
"""
import hashlib
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import xtest  # noqa: E402

CASES = ["putimage10", "putimage100", "putimage500",
         "getimage10", "getimage100", "getimage500"]
REPS = {"putimage10": 2000, "putimage100": 400, "putimage500": 40,
        "getimage10": 400, "getimage100": 100, "getimage500": 10}
PAUSE = 3


def capture_during_pause(case, env, prefix=()):
    """Runs one x11perf case (after prefix: the launcher); returns the md5 of
    the screen captured right after the run, while x11perf pauses."""
    reps = REPS[case]
    master, slave = pty.openpty()
    p = subprocess.Popen([*prefix, "x11perf", "-repeat", "1", "-reps", str(reps),
                          "-pause", str(PAUSE), "-" + case],
                         stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    out, shot = b"", None
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1)
            if not ready:
                if p.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
            if shot is None and b"reps @" in out:
                # Held in its pause (its window up) until xwd has the screen.
                os.kill(p.pid, signal.SIGSTOP)
                try:
                    shot = subprocess.run(["xwd", "-root", "-silent"], env=env,
                                          stdout=subprocess.PIPE, check=True).stdout
                finally:
                    os.kill(p.pid, signal.SIGCONT)
        p.wait(timeout=PAUSE + 30)
    finally:
        os.close(master)
        if p.poll() is None:
            p.kill()
            p.wait()
    if shot is None or p.returncode != 0:
        sys.stderr.write(out.decode(errors="replace"))
        sys.stderr.write(p.stderr.read().decode(errors="replace"))
        raise RuntimeError(f"x11perf -{case} failed")
    line = [s for s in out.decode(errors="replace").splitlines() if "reps @" in s]
    print(f"     {case}: {line[0].strip() if line else '?'}")
    return hashlib.md5(xwd_pixels(shot)).hexdigest()


def xwd_pixels(dump):
    """The picture of an xwd dump: its size and pixels, without the rest of
    the header and the colormap, whose entries' pad byte xwd leaves
    uninitialised (two dumps of one screen differed there, one byte in
    every 12 of the colormap, on a loaded machine)."""
    header_size, = struct.unpack(">I", dump[0:4])
    fields = struct.unpack(">25I", dump[0:100])
    width, height, ncolors = fields[4], fields[5], fields[19]
    start = header_size + 12 * ncolors
    return struct.pack(">II", width, height) + dump[start:]


def main():
    xtest.need("x11perf", "xwd")
    f = xtest.Failures()
    run = os.environ["SMT_X11RUN"]
    with xtest.Xvfb() as x:
        base = dict(os.environ, DISPLAY=x.display)
        for case in CASES:
            plain = capture_during_pause(case, xtest.shim_env(base))
            # Through the launcher, as the session starts X programs; with
            # thresholds that convert the 100x100 cases whatever the defaults.
            env = xtest.shim_env(base, PUT_MIN=16384, GET_MIN=16384)
            if os.environ.get("SMT_ASAN_RUNTIME"):
                env["LD_PRELOAD"] = os.environ["SMT_ASAN_RUNTIME"]
                env["ASAN_OPTIONS"] = env.get("ASAN_OPTIONS", "") + ":detect_leaks=0"
            with tempfile.NamedTemporaryFile(prefix="smt-x11shim-stats-") as st:
                env["SMT_X11SHIM_STATS"] = st.name
                shim = capture_during_pause(case, env, prefix=[run])
                _, total = xtest.read_stats(st.name)
            f.same(shim, plain, f"x11perf -{case}: same screen with and without the shim")
            big = case.endswith("500") or case.endswith("100")
            if total and big:
                key = "puts" if case.startswith("put") else "gets"
                f.check(total[key] >= REPS[case] * 4 and total["segments"] == 1,
                        f"x11perf -{case}: {total[key]} calls converted, "
                        f"segments={total['segments']}")

        # Thousands of calls, one segment.
        env = xtest.shim_env(base, preload=True)
        with tempfile.NamedTemporaryFile(prefix="smt-x11shim-stats-") as st:
            env["SMT_X11SHIM_STATS"] = st.name
            subprocess.run(["x11perf", "-repeat", "1", "-reps", "2500", "-putimage100"],
                           env=env, stdout=subprocess.DEVNULL, check=True)
            conns, total = xtest.read_stats(st.name)
        f.check(total is not None and total["puts"] >= 10000 and total["segments"] == 1
                and all(c["segments"] == 1 for c in conns),
                f"10000 PutImage calls, one segment "
                f"({total and total['puts']} converted, segments={total and total['segments']}, "
                f"ring waits={total and total['ring_waits']})")
    f.exit()


if __name__ == "__main__":
    main()
