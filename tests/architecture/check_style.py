#!/usr/bin/env python3
"""One brace style in every C file of the project (docs/architecture.md,
"Style"): a function's opening brace stands on its own line; braces of
statements, structs and initialisers end their line. Fails naming each
function whose brace ends its signature line instead.

The check lexes just enough C to know the brace depth at the start of each
line (comments, strings and character literals skipped): a line at file
scope whose code ends in ") {" and opens the only brace is a function
definition written the other way.

Usage: check_style.py SOURCE_ROOT
"""
import os
import sys

FOLDERS = ["clients", "compositor", "protocol", "tests", "xwayland-glue"]


def misplaced_function_braces(text):
    """Line numbers (1-based) of function definitions with `) {`."""
    found = []
    depth = 0
    in_comment = False
    for number, line in enumerate(text.splitlines(), 1):
        start_depth = depth
        code = []
        i, n, quote = 0, len(line), None
        while i < n:
            c = line[i]
            if in_comment:
                if line.startswith("*/", i):
                    in_comment = False
                    i += 2
                    continue
                i += 1
                continue
            if quote:
                if c == "\\":
                    i += 2
                    continue
                if c == quote:
                    quote = None
                i += 1
                continue
            if line.startswith("/*", i):
                in_comment = True
                i += 2
                continue
            if line.startswith("//", i):
                break
            if c in "\"'":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            code.append(c)
            i += 1
        code = "".join(code).rstrip()
        if (start_depth == 0 and depth == 1 and code.endswith(") {")
                and not line.lstrip().startswith("#")
                and "=" not in code.split("(")[0]):
            found.append(number)
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    problems = []
    checked = 0
    for folder in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    lines = misplaced_function_braces(f.read())
                checked += 1
                rel = os.path.relpath(path, root)
                problems += [f"{rel}:{n}: a function's opening brace goes on its own line"
                             for n in lines]
    for p in problems:
        print(p)
    if problems:
        print(f"FAIL: {len(problems)} function(s) in the other brace style")
        return 1
    print(f"ok: {checked} C files, every function's brace on its own line")
    return 0


if __name__ == "__main__":
    sys.exit(main())
