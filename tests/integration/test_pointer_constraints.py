#!/usr/bin/env python3
"""Pointer locking, confinement and relative motion reach the client.

A game-like window (smt-probe --lock-pointer --relative) with the keyboard
gets its lock once the pointer is on it: the cursor then stays put whatever
the mouse does (relative and absolute devices alike) while the window
receives every motion as relative events. When another window takes the
keyboard the lock is released and the cursor moves again. A window
confining the pointer to a region keeps the cursor inside that region.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, seat  # noqa: E402
from harness import Session, check, log  # noqa: E402


def cursor(s):
    st = seat(s)
    return (st["cursor_x"], st["cursor_y"])


def test(h):
    probe = desktop_clients.probe(h)
    with Session(h) as s:
        game = s.spawn([probe, "--title", "game", "--size", "400x300", "--lock-pointer",
                        "--relative"])
        w = s.wait_window(lambda w: w["title"] == "game" and w["focused"], what="the game window")
        check("locked" not in lines(game), "locked before the pointer was on the window")
        s.vpointer("move", w["x"] + 100, w["y"] + 100)
        s.wait_until(lambda: "locked" in lines(game), what="the lock once the pointer is on it")
        check(seat(s)["pointer_constraint"] == "locked", f"seat: {seat(s)}")
        at = cursor(s)

        mark = len(lines(game))
        s.vpointer("rel", 50, 20, "rel", -10, 5)
        s.wait_until(lambda: "relative -10 5" in lines(game)[mark:],
                     what="relative motion to reach the locked window")
        check(lines(game)[mark:].count("relative 50 20") == 1,
              f"relative events: {lines(game)[mark:]}")
        check(cursor(s) == at, f"the cursor moved from {at} to {cursor(s)} while locked")
        # An absolute device (tablet, VNC) is locked too; the motion still arrives.
        s.vpointer("move", 1000, 600)
        check(cursor(s) == at, f"an absolute motion moved the locked cursor to {cursor(s)}")
        moves = [l for l in lines(game)[mark:] if l.startswith("motion")]
        check(not moves, f"the locked window was sent pointer positions: {moves}")

        # Another window takes the keyboard: the lock goes, the cursor moves.
        s.spawn([probe, "--title", "other", "--size", "200x150", "--color", "20a040"])
        s.wait_window(lambda w: w["title"] == "other" and w["focused"], what="another window")
        s.wait_until(lambda: "unlocked" in lines(game), what="the lock to be released")
        check(seat(s)["pointer_constraint"] == "none", f"seat: {seat(s)}")
        s.vpointer("move", 1000, 600)
        check(cursor(s) == (1000, 600), f"the cursor is at {cursor(s)} after the lock went, "
              "not where it was moved (1000, 600)")

        # Confinement: the cursor stays inside the region, whatever moves it.
        box = s.spawn([probe, "--title", "box", "--size", "300x300", "--color", "a0a020",
                       "--confine-pointer", "50,60,100,80"])
        b = s.wait_window(lambda w: w["title"] == "box" and w["focused"], what="the box window")
        region = (b["x"] + 50, b["y"] + 60, b["x"] + 150, b["y"] + 140)
        s.vpointer("move", b["x"] + 70, b["y"] + 80)
        s.wait_until(lambda: "confined" in lines(box), what="the confinement to start")
        s.vpointer("move", 5, 5)
        x, y = cursor(s)
        check(region[0] <= x < region[2] and region[1] <= y < region[3],
              f"an absolute move took the confined cursor to {(x, y)}, outside {region}")
        s.vpointer("rel", 500, 500)
        x, y = cursor(s)
        check(region[0] <= x < region[2] and region[1] <= y < region[3],
              f"a relative move took the confined cursor to {(x, y)}, outside {region}")
        log(f"confined cursor at {(x, y)} in {region}")


harness.main(test)
