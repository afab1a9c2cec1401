#!/usr/bin/env python3
"""smtwc started inside another Wayland desktop opens nested in a window
(wlroots' wayland backend), and its own clients show in that window."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402


def test(h):
    with Session(h, "outer") as outer:
        before = outer.screenshot()
        excl = outer.cursor_exclusion()
        # No --backend: with WAYLAND_DISPLAY set, "auto" must pick nesting.
        # Its startup client draws the 250x250 simple-shm pattern inside.
        supp = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sanitizers",
                            "lsan-nested.supp")
        env = {"LSAN_OPTIONS": f"suppressions={os.path.abspath(supp)}:print_suppressions=0"}
        inner = outer.spawn([h.smtwc, "-c", "/dev/null", "-s", "weston-simple-shm"],
                            name="smtwc-nested", env=env)

        def nested_client(img):
            # The nested output has the same background colour, so what
            # tells it apart is simple-shm's white margin inside it.
            white = img.bbox((255, 255, 255), exclude=excl)
            return white if white is not None and white.w >= 200 and white.h >= 200 else None

        img, r = outer.wait_screenshot(nested_client, timeout=15,
                                       what="the nested session's simple-shm window")
        log(f"nested client visible at {r}")
        check(before.bbox((255, 255, 255), exclude=excl) is None,
              "white pixels before the nested session started")
        check(inner.alive(), "the nested compositor exited")
        log_text = open(inner.log_path).read() if inner.log_path else ""
        check("wayland backend" in log_text.lower() or "WL-1" in log_text,
              lambda: "the nested compositor did not use the wayland backend:\n"
                      + log_text[-2000:])
        # The nested compositor ends cleanly on SIGTERM like the outer one,
        # given the outer one's time (Session.EXIT_TIMEOUT: an ASan build
        # frees everything and LeakSanitizer scans the heap at exit, seconds
        # a loaded machine stretches; 5 s was a margin, not a hang bound).
        inner.terminate(timeout=Session.EXIT_TIMEOUT)
        check(inner.returncode == 0, f"nested compositor exit code {inner.returncode}")

        def gone(img):
            return img.bbox((255, 255, 255), exclude=excl) is None or None

        outer.wait_screenshot(gone, timeout=10, what="the nested window to disappear")
        check(img.count_not(BACKGROUND) > 0, "nothing drawn")


harness.main(test)
