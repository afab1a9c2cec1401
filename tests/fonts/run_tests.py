"""What the hostile_*.py checks share: run each test script again, with its
own output, and name those that failed."""
import os
import subprocess
import sys


def run_tests(tests, as_who, env=None, cwd=None):
    """Runs each test script (its own waits bounded; meson's timeout bounds
    the whole) and returns the names of those that failed."""
    failed = []
    for t in tests:
        name = os.path.basename(t)
        print(f"--- {name} {as_who} ---", flush=True)
        r = subprocess.run([sys.executable, t], stdin=subprocess.DEVNULL, env=env, cwd=cwd)
        print(f"--- {name}: {'ok' if r.returncode == 0 else f'FAILED ({r.returncode})'}",
              flush=True)
        if r.returncode != 0:
            failed.append(name)
    return failed
