#!/usr/bin/env python3
"""Prints 'N passed, N failed, N skipped' over meson testlog.json files.

A failing test's name and the end of its output are printed again here,
last: CI keeps only the tail of a run, and the line that says which test
failed is otherwise far above it.
"""
import json
import sys

TAIL_LINES = 25

passed = failed = skipped = 0
failures = []
for path in sys.argv[1:]:
    try:
        with open(path) as log:
            for line in log:
                test = json.loads(line)
                result = test.get("result")
                if result in ("OK", "EXPECTEDFAIL"):
                    passed += 1
                elif result == "SKIP":
                    skipped += 1
                else:
                    failed += 1
                    failures.append((path, test))
    except FileNotFoundError:
        print(f"summarize: {path} missing (that build did not run its tests)")
        failed += 1
for path, test in failures:
    print(f"FAILED ({test.get('result')}) {test.get('name')} in {path}:")
    output = (test.get("stdout") or "") + (test.get("stderr") or "")
    for text in output.splitlines()[-TAIL_LINES:]:
        print(f"    {text}")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
