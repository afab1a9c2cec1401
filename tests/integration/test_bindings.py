#!/usr/bin/env python3
"""Default key bindings, the -s startup command, a config file with a bad
line (reported as file:line, the rest still applies) and its own binding and
[startup] command, and Logo+Shift+e quitting cleanly."""
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, UNFOCUSED, Session, check, log, read_file  # noqa: E402


def default_bindings(h):
    with Session(h, "defaults") as s:
        # Logo+Return opens a terminal (foot).
        s.key("logo+Return")
        _, r1 = s.wait_for_border(FOCUSED, timeout=15,
                                  what="a foot window opened by Logo+Return")
        log(f"Logo+Return opened a window at {r1}")

        # A second one; Logo+Tab gives focus back to the first.
        s.key("logo+Return")

        def second(img):
            r2 = s.window_border(img, FOCUSED)
            u = img.bbox(UNFOCUSED, exclude=s.cursor_exclusion())
            return (r2, u) if r2 is not None and r2 != r1 and u == r1 else None

        _, (r2, _) = s.wait_screenshot(second, timeout=15,
                                       what="a second terminal, focused, the first unfocused")
        log(f"second window at {r2}")
        s.key("logo+Tab")

        def cycled(img):
            f = img.bbox(FOCUSED, exclude=s.cursor_exclusion())
            u = img.bbox(UNFOCUSED, exclude=s.cursor_exclusion())
            return f == r1 and u == r2

        s.wait_screenshot(cycled, timeout=15,
                          what=f"Logo+Tab to move focus to the first window {r1} "
                               f"(focused border there, unfocused on {r2})")
        log("Logo+Tab cycled focus")

        # Logo+Shift+q closes the focused window (the first), then the other.
        s.key("logo+shift+q")

        def one_left(img):
            r = s.window_border(img, FOCUSED)
            return r == r2 and img.bbox(UNFOCUSED, exclude=s.cursor_exclusion()) is None

        s.wait_screenshot(one_left, timeout=15,
                          what=f"Logo+Shift+q to close the focused window {r1}, leaving {r2} "
                               f"focused")
        s.key("logo+shift+q")
        s.wait_screenshot(s.only_background, timeout=15,
                          what="Logo+Shift+q to close the last window (screen back to background)")
        log("Logo+Shift+q closed both windows")

        # Logo+Shift+e quits: exit code 0, socket and lock removed.
        s.key("logo+shift+e")
        s.wait_exit(what="exit on Logo+Shift+e")
        log("Logo+Shift+e: clean exit")


def startup_option(h):
    with Session(h, "startup-option", start=False) as s:
        out = os.path.join(s.tmp, "startup-out")
        s.startup = f'printf %s "$WAYLAND_DISPLAY" > {shlex.quote(out)}'
        s.start()
        got = s.wait_until(lambda: read_file(out), timeout=15,
                           what=f"the -s command to write {out}")
        check(got == s.display, f"-s command saw WAYLAND_DISPLAY={got!r}, expected {s.display!r}")
        log(f"-s command ran with WAYLAND_DISPLAY={got}")


def config_file(h):
    with Session(h, "config", start=False) as s:
        bound = os.path.join(s.tmp, "bound")
        started = os.path.join(s.tmp, "started")
        s.config_path = os.path.join(s.tmp, "smtwc.conf")
        lines = [
            "[general]",
            "this line is not valid",  # line 2
            "[bindings]",
            f"Logo+t = exec printf %s bound > {shlex.quote(bound)}",
            "[startup]",
            f"exec = printf %s started > {shlex.quote(started)}",
        ]
        with open(s.config_path, "w") as f:
            f.write("\n".join(lines) + "\n")
        s.start()
        got = s.wait_until(lambda: read_file(started), timeout=15,
                           what="the [startup] exec command to run")
        check(got == "started", f"[startup] command wrote {got!r}")
        err = s.stderr_text() + s.stdout_text()
        check(re.search(re.escape(s.config_path) + r":2\b", err),
              f"the bad line should be reported as {s.config_path}:2; compositor said:\n"
              + err[-3000:])
        log("bad config line reported with file:line")
        s.key("logo+t")
        got = s.wait_until(lambda: read_file(bound), timeout=15,
                           what="the configured Logo+t binding to run its command")
        check(got == "bound", f"Logo+t command wrote {got!r}")
        log("configured binding works")


def test(h):
    default_bindings(h)
    startup_option(h)
    config_file(h)


harness.main(test)
