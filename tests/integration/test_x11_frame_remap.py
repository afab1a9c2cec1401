#!/usr/bin/env python3
"""An X window's title bar is charged with its surface (Xwayland's
connection, counted, never refused; docs/reliability.md, "What each kind
of object costs"), and given back when that surface goes: Xwayland
destroys a window's surface at its unmap. Remapped, the window is shown
on a new surface, and its bar, the same as before, was charged to
nothing until it changed (session 37's note; mended in session 38: the
map says the frame to the accounts again). Behaviour only: the bytes
`smtctl stats` counts for title bars, before, between and after."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402


def frame_bytes(s):
    return s.server_stats()["total_frame_bytes"]


def test(h):
    with Session(h, x11=True) as s:
        s.spawn(["xlogo", "-name", "frameremap", "-title", "frameremap"], name="xlogo")
        s.wait_window(lambda w: w["title"] == "frameremap", what="xlogo mapped")
        s.wait_until(lambda: frame_bytes(s) > 0, what="its title bar charged")
        bar = frame_bytes(s)
        wid = s.run(["xdotool", "search", "--classname", "frameremap"]).stdout.split()[0]

        s.run(["xdotool", "windowunmap", "--sync", wid])
        s.wait_until(lambda: not any(w["title"] == "frameremap" for w in s.windows()),
                     what="xlogo unmapped")
        # the surface goes in Xwayland's own time after the unmap
        s.wait_until(lambda: frame_bytes(s) == 0, what="the bar given back with the surface")

        s.run(["xdotool", "windowmap", "--sync", wid])
        s.wait_window(lambda w: w["title"] == "frameremap", what="xlogo mapped again")
        # charged at the map itself (nothing here changes the bar)
        again = frame_bytes(s)
        log(f"title bar: {bar} bytes charged, 0 after the unmap, {again} after the remap")
        check(again == bar, f"the remapped window's title bar: {again} bytes charged, "
                            f"{bar} before its unmap")


harness.main(test)
