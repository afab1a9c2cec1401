#!/usr/bin/env python3
"""foot maps a window with a focused border; text typed with wtype reaches it."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, FOCUSED, Session, check, log, read_file  # noqa: E402


def test(h):
    with Session(h) as s:
        out = os.path.join(s.tmp, "out")
        foot = s.spawn(["foot", "sh", "-c", f'read line; printf %s "$line" > {shlex.quote(out)}'])
        img, r = s.wait_for_border(FOCUSED, timeout=15, what="foot's window with a focused border")
        log(f"foot window (with border) at {r}")
        check(r.w >= 300 and r.h >= 200, lambda: f"foot window suspiciously small: {r} "
                                         f"(saved {s.save(img, 'small')})")
        inside = r.inset(2)
        nonbg = img.count_not(BACKGROUND, rect=inside, exclude=s.cursor_exclusion())
        check(nonbg >= 0.95 * inside.w * inside.h, lambda:
              f"foot's window content is mostly desktop background ({nonbg} of "
              f"{inside.w * inside.h} pixels differ; saved {s.save(img, 'content')})")

        s.type_text("hello smtwc", enter=True)
        rc = foot.wait(10)
        check(rc is not None, f"foot (its shell) did not finish after typing a line; "
                              f"{out} holds {read_file(out)!r}")
        got = read_file(out)
        check(got == "hello smtwc", f"typed 'hello smtwc' + Return, the shell read {got!r}")
        check(rc == 0, f"foot exited with code {rc}:\n{foot.log_tail()}")
        log("text arrived; waiting for the window to go away")
        s.wait_screenshot(s.only_background, timeout=15,
                          what="the screen to be background only after foot exited")


harness.main(test)
