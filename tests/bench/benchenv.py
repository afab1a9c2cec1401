"""Where every Python benchmark starts: the Debian packages the benchmarks
need (scripts/deps.sh bench installs whichever are missing), a python3 that
can import them, and the build to measure.

Which python3: the one first on PATH (the scripts start with
`#!/usr/bin/env python3`). Debian's python3-numpy and python3-matplotlib are
visible to /usr/bin/python3 only, so a benchmark that needs them and was
started under a python3 that cannot import them (pyenv, a venv) says so and
re-executes itself under /usr/bin/python3.
"""
import csv
import importlib.util
import os
import platform
import signal
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SYSTEM_PYTHON = "/usr/bin/python3"


def _name():
    return os.path.basename(sys.argv[0]) or "benchmark"


def require(*modules):
    """Install the bench set if anything is missing, then make sure each of
    `modules` imports. Call it before importing them."""
    deps = os.path.join(REPO, "scripts", "deps.sh")
    if subprocess.run([deps, "bench"]).returncode != 0:
        sys.exit(f"{_name()}: {deps} bench failed")
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return
    if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
            os.access(SYSTEM_PYTHON, os.X_OK):
        print(f"{_name()}: {sys.executable} cannot import {', '.join(missing)}; running under "
              f"{SYSTEM_PYTHON}, which has Debian's packages", file=sys.stderr, flush=True)
        os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
    sys.exit(f"{_name()}: {sys.executable} cannot import {', '.join(missing)} "
             f"(scripts/deps.sh bench installs them for {SYSTEM_PYTHON})")


def stop(proc, timeout=10):
    """End a process a benchmark started (a compositor): SIGTERM, then
    SIGKILL if it has not exited after timeout seconds; reaped either way."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def use_build(smtwc=None):
    """The compositor to measure: smtwc if given, else $SMTWC, else this
    clone's build/ (the harness finds the other programs next to it)."""
    if smtwc:
        os.environ["SMTWC"] = smtwc
    os.environ.setdefault("SMTWC", os.path.join(REPO, "build", "compositor", "smtwc"))


def write_doc_block(doc, text, begin, end):
    """Replaces what stands between the markers `begin` and `end` in
    docs/`doc` with `text` (a benchmark's table in its page)."""
    path = os.path.join(REPO, "docs", doc)
    with open(path) as f:
        page = f.read()
    a, b = page.find(begin), page.find(end)
    if a < 0 or b <= a:
        sys.exit(f"{_name()}: {path} has no {begin} ... {end} block")
    with open(path, "w") as f:
        f.write(page[:a + len(begin)] + "\n" + text + "\n" + page[b:])
    print(f"{_name()}: table written to {path}", file=sys.stderr, flush=True)


def machine():
    """The machine a table was measured on: CPU model, count, kernel."""
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} CPUs, Linux {platform.release()}"


def write_csv(path, rows):
    """A benchmark's rows (dicts with the same keys, in the columns' order)
    as CSV at path, floats to four decimals."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in r.items()})


def harness_main(harness_run, parse_args, run):
    """main() of a benchmark built on the integration harness: its own
    options parsed, then run(h, args) under harness_run (harness.main),
    which reads a command line of its own: given none."""
    args = parse_args()
    sys.argv = [sys.argv[0]]
    harness_run(lambda h: run(h, args))
