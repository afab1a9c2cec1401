#!/usr/bin/env python3
"""One style for every C file of the project (docs/architecture.md,
"Style"): the repository's .clang-format, checked the way clang-format
checks (`--dry-run --Werror`), so that what the formatter would change is
what fails. One clang-format reads every file (one process per file cost
most of the test's time); the files it names are formatted again, one by
one, to print each with its first lines of difference; `clang-format -i
FILE` fixes it.

Generated files (the build's protocol headers) and the fuzzers' corpora
are not sources and are not checked.

Usage: check_style.py SOURCE_ROOT
"""
import difflib
import os
import re
import shutil
import subprocess
import sys

FOLDERS = ["clients", "common", "compositor", "protocol", "tests", "xwayland-glue"]
SKIP_FOLDERS = {"corpus", "corpus-config", "corpus-submit", "corpus-x11fds",
                "corpus-x11stream", "__pycache__"}
# How --dry-run names a change it would make: "PATH:LINE:COL: error: code
# should be clang-formatted [-Wclang-format-violations]".
VIOLATION = re.compile(r"^(.+?):\d+:\d+: (?:error|warning): code should be clang-formatted",
                       re.M)


def sources(root):
    for folder in FOLDERS:
        for dirpath, dirs, files in os.walk(os.path.join(root, folder)):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_FOLDERS)
            for name in sorted(files):
                if name.endswith((".c", ".h")):
                    yield os.path.join(dirpath, name)


def main():
    root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else ".")
    tool = shutil.which("clang-format")
    if tool is None:
        print("FAIL: clang-format is not installed (scripts/deps.sh test installs it)")
        return 1
    if not os.path.isfile(os.path.join(root, ".clang-format")):
        print(f"FAIL: {root}/.clang-format is missing")
        return 1
    paths = list(sources(root))
    # --style=file finds the root's .clang-format from each file's path;
    # --dry-run --Werror warns for every change it would make and fails.
    run = subprocess.run([tool, "--style=file", "--dry-run", "--Werror", *paths],
                         capture_output=True, text=True)
    named = set(VIOLATION.findall(run.stderr))
    if run.returncode != 0 and not named & set(paths):
        print(f"FAIL: clang-format exited with {run.returncode} naming no file:\n"
              f"{run.stderr[-2000:]}")
        return 1
    problems = 0
    for path in paths:
        if path not in named:
            continue
        problems += 1
        with open(path, encoding="utf-8") as f:
            original = f.read()
        formatted = subprocess.run([tool, "--style=file", path], check=True,
                                   capture_output=True, text=True).stdout
        rel = os.path.relpath(path, root)
        diff = list(difflib.unified_diff(original.splitlines(), formatted.splitlines(),
                                         rel, rel + " (clang-format)", n=0, lineterm=""))
        print(f"{rel}: not in the project's style (clang-format -i {rel})")
        for line in diff[2:14]:
            print("    " + line)
    checked = len(paths)
    if problems:
        print(f"FAIL: {problems} of {checked} C files differ from .clang-format")
        return 1
    print(f"ok: {checked} C files in the project's style")
    return 0


if __name__ == "__main__":
    sys.exit(main())
