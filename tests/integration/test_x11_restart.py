#!/usr/bin/env python3
"""Xwayland dying mid-session (SIGKILL) costs only the X clients: the
compositor lives on and keeps answering (wayland-info), a Wayland client
(weston-simple-shm) keeps animating, the dead X windows go away, and the
next X client starts a new Xwayland (lazily) and works."""
import os
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402


def animating(s, rect, what, timeout=15):
    """Wait for the pixels of rect to change between screenshots."""
    first = s.screenshot().crop(rect)
    s.wait_screenshot(lambda img: img.crop(rect).diff_count(first) > 100, timeout=timeout,
                      what=f"{what} to animate (pixels of {rect} changing)")


def test(h):
    with Session(h, x11=True) as s:
        shm = s.spawn(["weston-simple-shm"], name="simple-shm")
        img, shm_rect = s.wait_screenshot(
            lambda img: img.bbox_not(BACKGROUND, exclude=s.cursor_exclusion()),
            timeout=10, what="weston-simple-shm's window")
        log(f"weston-simple-shm drawn at {shm_rect}")
        shm_area = shm_rect.inset(4)

        eyes = s.spawn(["xeyes", "-geometry", "200x150+800+400"], name="xeyes-1")
        g = s.x_geometry(s.wait_x_window("--classname", "xeyes", timeout=15))
        s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g) >= 0.95 * g.w * g.h,
                          timeout=10, what=f"xeyes drawn at {g}")
        xw = s.xwayland_pid()
        check(xw is not None, "no Xwayland in the compositor's session although xeyes runs")
        log(f"Xwayland pid {xw}; killing it with SIGKILL")
        os.kill(xw, signal.SIGKILL)

        s.wait_until(lambda: not os.path.exists(f"/proc/{xw}") or harness._is_zombie(xw),
                     timeout=15, what=f"Xwayland (pid {xw}) to die")
        rc = eyes.wait(10)
        check(rc is not None, "xeyes still runs although its X server was killed")
        log(f"xeyes exited with {rc} (its X server died)")
        s.clients.remove(eyes)
        s.check_alive()

        # The compositor answers and keeps drawing Wayland clients.
        info = s.run(["wayland-info"], timeout=10)
        check("wl_compositor" in info.stdout, "wayland-info lists no wl_compositor after "
                                              "Xwayland died")
        check(shm.alive(), f"weston-simple-shm died with Xwayland:\n{shm.log_tail()}")
        animating(s, shm_area, "weston-simple-shm after Xwayland died")
        # The dead X window is gone from the screen.
        s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g) == 0, timeout=15,
                          what=f"xeyes' window {g} to disappear after its X server died")
        s.check_alive()  # it has handled Xwayland's death by now

        # A new X client brings up a new Xwayland, lazily.
        eyes2 = s.spawn(["xeyes", "-geometry", "200x150+400+420"], name="xeyes-2")
        try:
            g2 = s.x_geometry(s.wait_x_window("--classname", "xeyes", timeout=15))
        except harness.TestFailure as e:
            harness.fail(f"no X client works after Xwayland was killed: {e}\n"
                         f"xeyes: alive={eyes2.alive()} {eyes2.log_tail()}")
        xw2 = s.xwayland_pid()
        check(xw2 is not None and xw2 != xw,
              f"Xwayland pid after the restart is {xw2} (before: {xw})")
        log(f"new Xwayland pid {xw2}; xeyes covers {g2}")
        s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g2) >= 0.95 * g2.w * g2.h,
                          timeout=10, what=f"the new xeyes drawn at {g2}")
        animating(s, shm_area, "weston-simple-shm after Xwayland's restart")
        check(eyes2.alive(), f"the new xeyes exited:\n{eyes2.log_tail()}")
        log("compositor log about Xwayland:\n" + "\n".join(
            line for line in s.stderr_text().splitlines() if "wayland" in line.lower()
            and ("Xwayland" in line or "xwm" in line)))


harness.main(test)
