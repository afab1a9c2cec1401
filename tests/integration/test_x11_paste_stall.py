#!/usr/bin/env python3
"""A Wayland client that stops reading a paste from an X program does not
stall the owner's later pastes (xwayland-glue/wm/wm_paste_pipe.c; red
team, session 29).

xclip serves one INCR transfer at a time and waits for the requestor to
take each chunk; wlroots 0.15 takes a chunk only once it has written it
whole to the reader's pipe. A reader that reads nothing kept xclip
waiting, and every later paste of its selection waited for good. Now a
paste whose pipe has taken nothing for 5 s while the owner waits is
abandoned (the reader keeps what came), the owner's transfer is taken to
its end, and it serves the next paste.

Checked, what happened, never a duration: xclip owns 8 MB (8 chunks); a
reader that never reads (`wl-paste | sleep`: the pipe between them fills,
and wl-paste stops reading its own); then an ordinary paste by another
client must arrive whole (before: it waited for good), the compositor must
count the abandoned paste and say so in its log; another X client is
answered meanwhile.
"""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, check, log  # noqa: E402
from harness.selections import TEXT, describe, offered, read_bytes, selection_text  # noqa: E402


def pastes(s):
    st = s.control("stats")
    check("x11_pastes" in st, f"`smtctl stats` has no x11_pastes: {sorted(st)}")
    return st["x11_pastes"]


def test(h):
    with Session(h, "paste-stall", x11=True) as s:
        s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
        s.wait_x_window("--classname", "focusholder", timeout=15)
        s.wait_for_border(FOCUSED, what="the xterm to be focused")

        data = selection_text("stall", 8_000_000)
        path = os.path.join(s.tmp, "stall.txt")
        with open(path, "wb") as f:
            f.write(data)
        xclip = s.spawn(["xclip", "-quiet", "-selection", "clipboard", "-i", path], name="xclip")
        s.wait_until(lambda: offered(s), timeout=30, interval=0.2,
                     what="xclip's selection offered to Wayland clients")

        paste = shlex.join(["wl-paste", "-n", "-t", TEXT])
        stuck = s.spawn(["sh", "-c", f"{paste} | sleep 100000"], name="never-reads")
        # Its transfer is under way once wlroots has had a chunk for it.
        s.wait_until(lambda: pastes(s)["slots_used"] >= 1, timeout=30,
                     what="the stuck reader's paste to be followed")

        out = os.path.join(s.tmp, "out-after")
        try:
            s.run(["sh", "-c", f"exec {paste} > {shlex.quote(out)}"], timeout=90)
        except harness.TestFailure as e:
            harness.fail(f"{e}: a paste after a reader that never reads did not arrive "
                         f"({describe(read_bytes(out), data)})")
        check(read_bytes(out) == data, f"the paste after the stuck one: "
                                       f"{describe(read_bytes(out), data)}")
        st = pastes(s)
        check(st["abandoned"] >= 1, f"x11_pastes: no paste abandoned: {st}")
        check("a Wayland client has read nothing of a paste" in s.stderr_text(),
              "no log line says a paste was abandoned")
        xr = s.run(["xwininfo", "-root"], timeout=60, check_rc=False)
        check(xr.returncode == 0, f"another X client: {xr.returncode} {xr.stderr[-300:]}")
        log(f"the paste after a reader that never reads arrived whole: {st}")
        s.stop_client(stuck)
        s.stop_client(xclip)


harness.main(test)
