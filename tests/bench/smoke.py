#!/usr/bin/env python3
"""A benchmark's smoke run, for the test suite: run its command once and
check that it completed, left no process behind in its process group and
wrote what it documents (its table, CSV, plot); not its figures: a busy
machine may produce any figure, and judging figures is the benchmark's
business.

    smoke.py [--out DIR] [--stdout REGEX] [--file REL] [--csv REL]
             [--plot REL] [--json REL] -- COMMAND [ARG...]

Every '{out}' in COMMAND's arguments becomes the output directory: a fresh
temporary one, removed afterwards, unless --out names one to keep (the files
to check are deleted from it first). REL paths are relative to it. Checks:
  --stdout REGEX  the command's output has a line matching REGEX (its table)
  --file REL      exists and is not empty
  --csv REL       a header and at least one row, every row as wide as the header
  --plot REL      a PNG (signature, IHDR with a non-zero size) or an SVG
                  (well-formed XML whose root is <svg>)
  --json REL      parses as JSON
"""
import argparse
import csv
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET


class Interrupted(Exception):
    pass


def problems_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2:
        return f"{path}: {len(rows)} line(s), want a header and at least one row"
    bad = [i + 1 for i, r in enumerate(rows) if len(r) != len(rows[0])]
    return f"{path}: lines {bad[:5]} not as wide as the header" if bad else None


def problems_plot(path):
    with open(path, "rb") as f:
        head = f.read(32)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        if head[12:16] != b"IHDR":
            return f"{path}: PNG without IHDR"
        w, h = struct.unpack(">II", head[16:24])
        return f"{path}: PNG of {w}x{h}" if not (w and h) else None
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return f"{path}: neither a PNG nor well-formed XML ({e})"
    if root.tag not in ("svg", "{http://www.w3.org/2000/svg}svg"):
        return f"{path}: XML root <{root.tag}>, not <svg>"
    return None


def problems_json(path):
    try:
        with open(path) as f:
            json.load(f)
    except ValueError as e:
        return f"{path}: not JSON ({e})"
    return None


def check_outputs(args, out, text):
    problems = []
    for rx in args.stdout:
        if not re.search(rx, text, re.M):
            problems.append(f"no output line matches {rx!r}")
    checks = ([(r, None) for r in args.file] + [(r, problems_csv) for r in args.csv] +
              [(r, problems_plot) for r in args.plot] + [(r, problems_json) for r in args.json])
    for rel, extra in checks:
        path = os.path.join(out, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}: not written")
        elif os.path.getsize(path) == 0:
            problems.append(f"{rel}: empty")
        elif extra:
            p = extra(path)
            if p:
                problems.append(p)
    return problems


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def end_group(pgid, grace):
    """SIGTERM the command's process group, SIGKILL what is left after grace
    seconds. False if anything was still there."""
    deadline = time.monotonic() + grace
    while group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not group_alive(pgid):
        return True
    try:
        os.killpg(pgid, signal.SIGTERM)
        time.sleep(2)
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return False


def run(cmd):
    """Run cmd in a process group of its own, echoing its output as it comes;
    (exit status, output, whether it left processes behind)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    lines = []
    try:
        for raw in p.stdout:
            line = raw.decode("utf-8", "replace")
            lines.append(line)
            sys.stdout.write(line)
            sys.stdout.flush()
        rc = p.wait()
        # What it started and ended may still be exiting (a compositor
        # freeing its clients) on a loaded machine: left behind means
        # still there 30 s later.
        return rc, "".join(lines), not end_group(p.pid, 30)
    finally:
        if p.poll() is None:  # interrupted: end it and everything it started
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                pass
            end_group(p.pid, 0)


def on_signal(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    for opt in ("stdout", "file", "csv", "plot", "json"):
        ap.add_argument("--" + opt, action="append", default=[])
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        ap.error("no command after --")
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, on_signal)
    out = args.out or tempfile.mkdtemp(prefix="smt-bench-smoke-")
    os.makedirs(out, exist_ok=True)
    checked = args.file + args.csv + args.plot + args.json
    for rel in checked:  # a kept directory: what an earlier run wrote does not count
        if os.path.exists(os.path.join(out, rel)):
            os.unlink(os.path.join(out, rel))
    name = cmd[0] if os.sep not in cmd[0] else os.path.join(
        os.path.basename(os.path.dirname(os.path.abspath(cmd[0]))), os.path.basename(cmd[0]))
    try:
        cmd = [a.replace("{out}", out) for a in cmd]
        print(f"smoke: {' '.join(cmd)}", flush=True)
        rc, text, leftovers = run(cmd)
        if rc != 0:
            print(f"FAIL: {name} exited with status {rc}", flush=True)
            return 1
        if leftovers:
            print(f"FAIL: {name} left processes behind (ended now)", flush=True)
            return 1
        problems = check_outputs(args, out, text)
        for p in problems:
            print(f"FAIL: {name}: {p}", flush=True)
        if problems:
            return 1
        print(f"PASS: {name} completed and wrote {', '.join(checked) or 'its table'}",
              flush=True)
        return 0
    except Interrupted as e:
        print(f"FAIL: {name}: interrupted by {e}", flush=True)
        return 1
    finally:
        if not args.out:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
