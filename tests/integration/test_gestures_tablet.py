#!/usr/bin/env python3
"""Touchpad gestures and drawing tablets reach the client under the pointer.

No virtual-input protocol makes gestures or pen events, so the compositor's
headless test facility (control socket: input swipe|pinch|tablet) plays a
touchpad and a pen.
- A window bound to pointer-gestures gets a three-finger swipe and a pinch
  (begin, update with the deltas or scale, end) while the pointer is on it;
  a window without the pointer gets none.
- A window bound to tablet-v2 gets a pen stroke as pen events: proximity in,
  tip down, motion at the right surface coordinates with pressure, tip up,
  proximity out, and no pointer button.
- Over a window that did not bind tablet-v2 the pen is a mouse: its tip is
  the left button.
- A tablet pad's buttons, ring and strip go to the window with the keyboard
  focus when it bound tablet-v2 (enter and leave follow the focus), and to
  nobody otherwise.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines  # noqa: E402
from harness import Session, check, log  # noqa: E402


def test(h):
    probe = desktop_clients.probe(h)
    with Session(h) as s:
        pad = s.spawn([probe, "--title", "pad", "--size", "300x200", "--gestures", "--tablet"])
        p = s.wait_window(lambda w: w["title"] == "pad", what="the gesture window")
        other = s.spawn([probe, "--title", "other", "--size", "500x400", "--color", "20a040",
                         "--gestures"])
        o = s.wait_window(lambda w: w["title"] == "other", what="a second window")
        # The pointer on the first window, where the second does not cover it.
        px, py = p["x"] + 10, p["y"] + p["height"] - 10
        check(not (o["x"] <= px < o["x"] + o["width"] and o["y"] <= py < o["y"] + o["height"]),
              f"the test point {(px, py)} is under the second window {o}")
        s.vpointer("move", px, py)
        s.wait_until(lambda: any(l.startswith("pointer enter") for l in lines(pad)),
                     what="the pointer on the gesture window")

        mark = len(lines(pad))
        check(s.control("input swipe 3 12 -7").get("ok"), "input swipe refused")
        check(s.control("input pinch 2 1.5").get("ok"), "input pinch refused")
        want = ["swipe begin 3", "swipe update 12 -7", "swipe end",
                "pinch begin 2", "pinch update 1.50", "pinch end"]
        s.wait_until(lambda: [l for l in lines(pad)[mark:] if l.split()[0] in
                              ("swipe", "pinch")] == want,
                     what=f"the gestures in order: {want}")
        check(not any(l.startswith(("swipe", "pinch")) for l in lines(other)),
              f"the window without the pointer got gestures: {lines(other)}")

        # A pen stroke on the tablet-aware window (the tablet was plugged in
        # with the touchpad by the first input request).
        s.wait_until(lambda: "tablet added" in lines(pad), what="the tablet announced")
        mark = len(lines(pad))
        tx, ty = p["x"] + 40, p["y"] + 30
        check(s.control(f"input tablet {tx} {ty}").get("ok"), "input tablet refused")
        s.wait_until(lambda: "tablet proximity out" in lines(pad)[mark:],
                     what="the pen stroke on the tablet window")
        got = [l for l in lines(pad)[mark:] if l.startswith(("tablet", "button"))]
        log(f"pen stroke: {got}")
        want = ["tablet proximity in", "tablet motion 40 30", "tablet down",
                "tablet motion 50 40", "tablet pressure 32767", "tablet up",
                "tablet proximity out"]
        check(got == want, f"the pen stroke arrived as {got}, expected {want}")

        # On a window without tablet support the pen is a mouse (at a point
        # of it the first window, raised by the pen's tip, does not cover).
        mark = len(lines(other))
        check(s.control(f"input tablet {o['x'] + 400} {o['y'] + 300}").get("ok"),
              "input tablet refused")
        s.wait_until(lambda: "button 272 released" in lines(other)[mark:],
                     what="the pen's tip as the left button on a window without tablet support")
        check("button 272 pressed" in lines(other)[mark:], f"log: {lines(other)[mark:]}")

        # A pad (plugged in, attached to the tablet, by the first pad request)
        # is announced with its buttons, ring and strip. Its events go to the
        # keyboard focus: now the window without tablet support (the pen's
        # tip clicked it), so nowhere.
        mark = len(lines(pad))
        check(s.control("input pad 1 45 0.25").get("ok"), "input pad refused")
        s.wait_until(lambda: "pad added" in lines(pad)[mark:], what="the pad announced")
        check("pad buttons 3" in lines(pad)[mark:] and "pad group buttons 3" in lines(pad)[mark:],
              f"the pad was announced as {lines(pad)[mark:]}")
        # Focused, the tablet window gets the pad; its events arrive in order.
        s.click(px, py)
        s.park_pointer()
        s.wait_until(lambda: "pad enter" in lines(pad)[mark:],
                     what="the pad entering the tablet window once it has the keyboard")
        got = [l for l in lines(pad)[mark:] if l.startswith("pad ") and l != "pad enter"
               and not l.startswith(("pad buttons", "pad group", "pad added"))]
        check(not got, f"pad events reached the tablet window before it had the focus: {got}")
        mark = len(lines(pad))
        check(s.control("input pad 2 90 0.5").get("ok"), "input pad refused")
        s.wait_until(lambda: any(l.startswith("pad strip") for l in lines(pad)[mark:]),
                     what="the pad's events on the focused tablet window")
        got = [l for l in lines(pad)[mark:] if l.startswith("pad ")]
        want = ["pad button 2 pressed", "pad button 2 released", "pad ring 90", "pad strip 32767"]
        check(got == want, f"the pad's events arrived as {got}, expected {want}")
        # The focus moves away: the pad leaves.
        s.click(o["x"] + 400, o["y"] + 300)
        s.park_pointer()
        s.wait_until(lambda: "pad leave" in lines(pad)[mark:],
                     what="the pad leaving when the keyboard focus moved to the other window")
        check(not any(l.startswith("pad") for l in lines(other)),
              f"the window without tablet support got pad events: {lines(other)}")


harness.main(test)
