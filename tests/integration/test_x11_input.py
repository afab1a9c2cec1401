#!/usr/bin/env python3
"""Input to X programs: two xterms, the newer one focused (its frame has the
focus colour); a click on the older one moves the focus frame to it, and
text typed through wtype (a Wayland virtual keyboard) reaches that xterm's
shell and not the other one; a click back moves focus and input back."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, UNFOCUSED, Rect, Session, check, log, read_file  # noqa: E402

BORDER = 2


def frame_of(r, title):
    """The compositor's frame around an X window: its title bar (title px
    high) on top, the border around both."""
    return Rect(r.x - BORDER, r.y - title - BORDER, r.w + 2 * BORDER, r.h + title + 2 * BORDER)


def title_height(s):
    return s.wait_until(lambda: next((w["title_bar"]["height"] for w in s.windows()
                                      if w["title_bar"]["height"] > 0), None),
                        what="a window with a title bar")


def xterm_reader(name, path, geometry):
    return ["xterm", "-name", name, "-bg", "white", "-fg", "black", "-geometry", geometry,
            "-e", "sh", "-c", f'read l; printf %s "$l" > {shlex.quote(path)}; exec sleep 600']


def placed(s, wid, x, y, what):
    """The X window's geometry once it is where its -geometry asked. In a
    loaded CI-like run (session 33, ASan) xterm b was first read at (2, 27),
    before it went where it asked: the compositor's pacing held its place
    past the map (mended in session 34, docs/x11.md "Where an X window is
    first shown"; x11_placement guards it); the places seen are logged."""
    seen = []

    def at():
        g = s.x_geometry(wid)
        if not seen or seen[-1] != g:
            seen.append(g)
        return g if (g.x, g.y) == (x, y) else None

    try:
        return s.wait_until(at, timeout=30, interval=0.2, what=f"{what} at ({x}, {y})")
    finally:
        log(f"{what}: X geometries seen {seen}")


def test(h):
    with Session(h, x11=True) as s:
        fa, fb = os.path.join(s.tmp, "a.txt"), os.path.join(s.tmp, "b.txt")
        s.spawn(xterm_reader("xa", fa, "50x10+80+80"), name="xterm-a")
        ga = placed(s, s.wait_x_window("--classname", "xa"), 80, 80, "xterm a")
        s.spawn(xterm_reader("xb", fb, "50x10+560+300"), name="xterm-b")
        gb = placed(s, s.wait_x_window("--classname", "xb"), 560, 300, "xterm b")
        log(f"xterm a covers {ga}, xterm b covers {gb}")
        th = title_height(s)
        check(frame_of(ga, th).intersect(frame_of(gb, th)).w == 0 or
              frame_of(ga, th).intersect(frame_of(gb, th)).h == 0,
              f"the xterms overlap ({ga}, {gb}): the test needs them apart")

        def focus_on(focused, other):
            ff, fo = frame_of(focused, th), frame_of(other, th)

            def pred(img):
                m1, t1 = img.frame_count(ff, FOCUSED, width=BORDER)
                m2, t2 = img.frame_count(fo, UNFOCUSED, width=BORDER)
                m3, _ = img.frame_count(fo, FOCUSED, width=BORDER)
                return m1 >= 0.9 * t1 and m2 >= 0.9 * t2 and m3 == 0
            return pred

        def describe(img, r):
            f = frame_of(r, th)
            return (f"focused-colour {img.frame_count(f, FOCUSED, width=BORDER)}, "
                    f"unfocused-colour {img.frame_count(f, UNFOCUSED, width=BORDER)} "
                    f"(matching, total) frame pixels")

        def expect_focus(name, focused, other, what):
            pred = focus_on(focused, other)
            try:
                return s.wait_screenshot(pred, timeout=15, what=what)
            except harness.TestFailure:
                img = s.last_image
                log(f"focused window's frame {frame_of(focused, th)}: "
                    f"{describe(img, focused)}")
                log(f"other window's frame {frame_of(other, th)}: {describe(img, other)}")
                raise

        expect_focus("b", gb, ga, "the newest xterm (b) to have the focus frame and a an "
                                  "unfocused one")

        # Click into a: focus and the frame move to it.
        s.click(*ga.center())
        s.park_pointer()
        expect_focus("a", ga, gb, "the focus frame to move to the clicked xterm (a) after a "
                                  "click into it")

        s.type_text("typed into x11", enter=True)
        s.wait_until(lambda: read_file(fa) is not None, timeout=10,
                     what=f"xterm a's shell to receive the typed line (file {fa}); "
                          f"b got {read_file(fb)!r}")
        check(read_file(fa) == "typed into x11",
              f"xterm a's shell read {read_file(fa)!r}, expected 'typed into x11'")
        check(read_file(fb) is None, f"xterm b received input too: {read_file(fb)!r}")

        # And back: click b, type there.
        s.click(*gb.center())
        s.park_pointer()
        expect_focus("b", gb, ga, "the focus frame to move back to xterm b after a click")
        s.type_text("second: B!", enter=True)
        s.wait_until(lambda: read_file(fb) is not None, timeout=10,
                     what=f"xterm b's shell to receive the typed line (file {fb})")
        check(read_file(fb) == "second: B!",
              f"xterm b's shell read {read_file(fb)!r}, expected 'second: B!'")
        check(read_file(fa) == "typed into x11",
              f"xterm a's file changed to {read_file(fa)!r}")


harness.main(test)
