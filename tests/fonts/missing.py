#!/usr/bin/env python3
"""missing.py TEST.py: runs the given integration test (one that starts a
session) on a machine without each of the suite's font packages in turn, and
requires it to fail naming the package and scripts/deps.sh.

The suite's fonts are fonts-dejavu-core's six faces (tests/fonts/fonts.conf)
and xfonts-base's misc directory (Xwayland's core font path); scripts/deps.sh
installs both. A machine without them is made without touching this one: an
empty directory bind-mounted over the package's directory in a private mount
namespace (private_mounts.py), one package at a time. Without the harness's
check (harness/fonts.py, require_suite_fonts) a test there timed out waiting
for foot's window or smt-demo's frame, or passed, and nothing said which
package was missing. docs/reliability.md, "Fonts in tests"."""
import os
import subprocess
import sys
import tempfile

from private_mounts import MountError, bind, enter_private_mounts, unbind

# Each package, the directory it fills and a file of it that must vanish.
PACKAGES = (
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu", "DejaVuSans.ttf"),
    ("xfonts-base", "/usr/share/fonts/X11/misc", "fonts.alias"),
)


def fail(msg):
    print(f"FAIL: fonts_missing: {msg}", flush=True)
    sys.exit(1)


def main():
    if len(sys.argv) != 2:
        fail("usage: missing.py TEST.py")
    test = sys.argv[1]
    problems = []
    with tempfile.TemporaryDirectory(prefix="smt-fonts-missing-") as empty:
        try:
            enter_private_mounts()
        except MountError as e:
            fail(str(e))
        for package, directory, probe in PACKAGES:
            try:
                bind(empty, directory)
            except MountError as e:
                fail(str(e))
            try:
                if os.path.exists(os.path.join(directory, probe)):
                    fail(f"{directory}/{probe} is still there: the machine without "
                         f"{package} was not made")
                print(f"--- {os.path.basename(test)} without {package} ---", flush=True)
                r = subprocess.run([sys.executable, test], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                print(r.stdout, end="", flush=True)
                said = [line for line in r.stdout.splitlines() if line.startswith("FAIL")]
                if r.returncode == 0:
                    problems.append(f"it passed without {package}")
                elif not any(package in line and "scripts/deps.sh" in line for line in said):
                    problems.append(f"without {package} it failed with {said or r.returncode}, "
                                    f"not naming {package} and scripts/deps.sh")
            finally:
                unbind(directory)
    if problems:
        fail("; ".join(problems))
    print(f"PASS: without each of {', '.join(p for p, _, _ in PACKAGES)}, "
          f"{os.path.basename(test)} fails naming it")


if __name__ == "__main__":
    main()
