#!/usr/bin/env python3
"""Each test's meson timeout against how long it took: reads meson
testlog.json files (a run on a harsh machine: scripts/test-harsh.sh) and
`meson introspect --tests` of the build, prints one row per test, slowest
first, and exits 1 if a test failed or took more than a third of its
timeout (docs/reliability.md, "The suite on a loaded machine": every
timeout at least 3x the harsh run's duration).

    tests/timeout_margins.py BUILD_DIR TESTLOG.json...
"""
import json
import subprocess
import sys

MARGIN = 3.0
MESON_DEFAULT_TIMEOUT = 30  # meson's, for a test() that names none


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build, logs = sys.argv[1], sys.argv[2:]
    tests = json.loads(subprocess.run(["meson", "introspect", "--tests", build],
                                      capture_output=True, text=True, check=True).stdout)
    # testlog.json names a test "project:suite / name" (meson allows one
    # name in two suites).
    timeout = {f"{t['suite'][0]} / {t['name']}": t["timeout"] or MESON_DEFAULT_TIMEOUT
               for t in tests}
    runs = {}
    for path in logs:
        with open(path) as log:
            for line in log:
                r = json.loads(line)
                runs[r["name"]] = r
    bad = 0
    print(f"{'test':34} {'result':8} {'seconds':>8} {'timeout':>8} {'margin':>7}")
    for name, r in sorted(runs.items(), key=lambda kv: -kv[1]["duration"]):
        t = timeout.get(name, MESON_DEFAULT_TIMEOUT)
        margin = t / max(r["duration"], 0.01)
        short = r["result"] not in ("OK", "SKIP", "EXPECTEDFAIL") or margin < MARGIN
        bad += short
        print(f"{name:34} {r['result']:8} {r['duration']:8.1f} {t:8} {margin:6.1f}x"
              + ("  <--" if short else ""))
    print(f"timeout_margins: {len(runs)} tests, {bad} failed or under {MARGIN:g}x their "
          "duration")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
