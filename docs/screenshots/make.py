#!/usr/bin/env python3
"""Makes docs/screenshots/session.png and smt-demo.png: a headless smtwc session with real
clients (the ring demo, foot, X programs through Xwayland, a layer-shell
panel), arranged with Logo+drag like a user would, captured with grim.

    build/... : python3 docs/screenshots/make.py [BUILD_DIR]
"""
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
os.environ.setdefault("SMTWC", os.path.join(BUILD, "compositor", "smtwc"))
os.environ.setdefault("SMT_VPOINTER", os.path.join(BUILD, "tests", "tools", "smt-vpointer"))
import harness  # noqa: E402
from harness import FOCUSED, Session, log, write_png  # noqa: E402


def drag(s, start, end):
    """Logo + left drag: moves the window under start by end - start."""
    hold = s.hold_modifiers("logo")
    s.vpointer("move", *start, "down", "left", "sleep", 50, "move", *end, "sleep", 50,
               "up", "left")
    s.release_modifiers(hold)
    time.sleep(0.3)


def make(h):
    with Session(h, "screenshot", x11=True) as s:
        s.spawn([os.path.join(BUILD, "tests", "tools", "smt-panel"), "--anchor", "top",
                 "--size", "24", "--exclusive", "24", "--color", "202030"])
        demo = s.spawn([os.path.join(BUILD, "clients", "smt-demo")])
        s.wait_until(lambda: "DEMO" in open(demo.log_path).read() or True, timeout=5)
        s.wait_for_border(FOCUSED)
        time.sleep(0.5)
        drag(s, (60, 70), (38, 66))           # the demo to the top-left, below the panel
        s.spawn(["foot", "--window-size-pixels=410x300", "sh", "-c",
                 "printf 'smtwc session\\n\\n'; uname -sr; echo; "
                 "smtctl clients 2>/dev/null | cut -c1-58; exec sh"],
                env={"PATH": os.path.join(BUILD, "clients") + ":" + os.environ["PATH"]})
        time.sleep(1.0)
        drag(s, (300, 200), (1090, 470))      # foot to the bottom-right
        s.spawn(["xeyes", "-geometry", "170x100+1090+50"])
        s.spawn(["xclock", "-geometry", "150x140+1110+183"])
        time.sleep(2.0)
        s.park_pointer()
        img = s.screenshot()
        out = os.path.join(ROOT, "docs", "screenshots", "session.png")
        write_png(img, out)
        log(f"wrote {out}")

    # smt-demo alone, its static frame: every ring command kind.
    with Session(h, "demo") as s:
        demo = s.spawn([os.path.join(BUILD, "clients", "smt-demo"), "--static"])
        s.wait_until(lambda: "DEMO_READY" in open(demo.log_path).read(), timeout=15)
        img, frame = s.wait_screenshot(lambda img: img.bbox(FOCUSED), what="the demo window")
        out = os.path.join(ROOT, "docs", "screenshots", "smt-demo.png")
        write_png(img.crop(frame), out)
        log(f"wrote {out}")


harness.main(make)
