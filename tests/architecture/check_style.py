#!/usr/bin/env python3
"""One style for every C file of the project (docs/architecture.md,
"Style"): the repository's .clang-format, checked the way clang-format
checks (`--dry-run --Werror`), so that what the formatter would change is
what fails. Prints each file the formatter would change with its first
lines of difference; `clang-format -i FILE` fixes it.

Generated files (the build's protocol headers) and the fuzzers' corpora
are not sources and are not checked.

Usage: check_style.py SOURCE_ROOT
"""
import difflib
import os
import shutil
import subprocess
import sys

FOLDERS = ["clients", "common", "compositor", "protocol", "tests", "xwayland-glue"]
SKIP_FOLDERS = {"corpus", "corpus-config", "corpus-submit", "corpus-x11fds",
                "corpus-x11stream", "__pycache__"}


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
    problems = 0
    checked = 0
    for path in sources(root):
        checked += 1
        with open(path, encoding="utf-8") as f:
            original = f.read()
        # --style=file finds the root's .clang-format from the file's path.
        formatted = subprocess.run([tool, "--style=file", path], check=True,
                                   capture_output=True, text=True).stdout
        if formatted == original:
            continue
        problems += 1
        rel = os.path.relpath(path, root)
        diff = list(difflib.unified_diff(original.splitlines(), formatted.splitlines(),
                                         rel, rel + " (clang-format)", n=0, lineterm=""))
        print(f"{rel}: not in the project's style (clang-format -i {rel})")
        for line in diff[2:14]:
            print("    " + line)
    if problems:
        print(f"FAIL: {problems} of {checked} C files differ from .clang-format")
        return 1
    print(f"ok: {checked} C files in the project's style")
    return 0


if __name__ == "__main__":
    sys.exit(main())
