#!/usr/bin/env python3
"""keyboard-shortcuts-inhibit: a window that asked (a VM or remote-desktop
viewer) gets the compositor's key combinations while it has the keyboard.

With the inhibitor's window focused, Mod+m reaches the window as keys and
does not maximize it; with another window focused the same keys are the
compositor's again and maximize that one.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, window  # noqa: E402
from harness import Session, check  # noqa: E402


def test(h):
    probe = desktop_clients.probe(h)
    with Session(h) as s:
        vm = s.spawn([probe, "--title", "vm", "--shortcuts-inhibit"])
        s.wait_window(lambda w: w["title"] == "vm" and w["focused"], what="the viewer")
        s.wait_until(lambda: "shortcuts active" in lines(vm), what="the inhibitor to be active")
        check(s.control("seat")["seat"]["shortcuts_inhibited"], "seat not inhibited")
        mark = len(lines(vm))
        s.key("logo+m")
        s.wait_until(lambda: any(l.endswith(" pressed") for l in lines(vm)[mark:]),
                     what="Mod+m to reach the viewer")
        check(not window(s, "vm")["maximized"], "Mod+m maximized the window that inhibits it")

        s.spawn([probe, "--title", "plain", "--size", "200x100", "--color", "20a040"])
        s.wait_window(lambda w: w["title"] == "plain" and w["focused"], what="another window")
        check(not s.control("seat")["seat"]["shortcuts_inhibited"],
              "shortcuts stay inhibited for a window that did not ask")
        s.key("logo+m")
        s.wait_until(lambda: window(s, "plain")["maximized"],
                     what="Mod+m to maximize the other window")
        check(not window(s, "vm")["maximized"], "the viewer got maximized")


harness.main(test)
