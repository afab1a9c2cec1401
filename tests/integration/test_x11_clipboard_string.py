#!/usr/bin/env python3
"""A copy from an X program that offers only STRING reaches Wayland
programs (session 40; docs/x11.md "The clipboard between X and Wayland").

Motif and Xt programs put their selection out as STRING alone: nedit's
clipboard offers TARGETS, TIMESTAMP and STRING. wlroots' X window manager
names UTF8_STRING and TEXT as MIME types and drops any other name without
a '/', so such a copy offered Wayland clients nothing (`wl-paste -l`
empty; wl-paste "No suitable type of content copied"). The compositor
now names STRING "text/plain" when the owner offers no other text.

1. xclip offering STRING only (`-t STRING`), on the clipboard and on
   PRIMARY: wl-paste lists text/plain and reads the text.
2. nedit, as a user does it: text typed, selected with Shift+Home, copied
   with Ctrl+C; wl-paste reads it from the clipboard.

wlroots' X window manager bridges X selections only while an X window has
the focus: an xterm (part 1) or nedit itself (part 2) has it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, log  # noqa: E402

SELECTIONS = [("clipboard", []), ("primary", ["--primary"])]


def wait_pasted(s, flag, text, what):
    """wl-paste (with flag) lists text/plain and gives text."""
    got = {}
    tool = " ".join(["wl-paste"] + flag)

    def pasted():
        types = s.run(["wl-paste", "-l"] + flag, timeout=10, check_rc=False)
        got["types"] = types.stdout.split()
        if "text/plain" not in got["types"]:
            return False
        r = s.run(["wl-paste", "-n", "-t", "text/plain"] + flag, timeout=10, check_rc=False)
        got["text"] = (r.returncode, r.stdout, r.stderr.strip())
        return r.returncode == 0 and r.stdout == text

    try:
        s.wait_until(pasted, timeout=30, what=what)
    except harness.TestFailure as e:
        harness.fail(f"{e}: {tool} last listed {got.get('types')}, "
                     f"read (exit, stdout, stderr) {got.get('text')}")


def xclip_part(s):
    s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
    s.wait_x_window("--classname", "focusholder", timeout=15)
    s.wait_for_border(FOCUSED, what="the xterm to be focused")
    for sel, flag in SELECTIONS:
        text = f"latin {sel} from X"
        path = os.path.join(s.tmp, f"string-{sel}.txt")
        with open(path, "w") as f:
            f.write(text)
        xc = s.spawn(["xclip", "-quiet", "-selection", sel, "-t", "STRING", "-i", path],
                     name=f"xclip-{sel}")
        wait_pasted(s, flag, text, f"wl-paste to read xclip's STRING-only {sel} selection "
                                   "as text/plain")
        s.stop_client(xc)
        log(f"{sel}: an X selection offered as STRING alone reached wl-paste")


def nedit_part(s):
    s.spawn(["nedit", "-geometry", "60x10+100+100"], name="nedit")
    s.wait_x_window("--class", "NEdit", timeout=60)
    s.wait_for_border(FOCUSED, what="nedit to be focused")
    text = "copied from nedit"
    s.run(["xdotool", "type", "--delay", "20", text], timeout=30)
    s.run(["xdotool", "key", "shift+Home"], timeout=10)
    # nedit owns PRIMARY once the text is selected; then Ctrl+C copies it.
    wait_pasted(s, ["--primary"], text, "nedit's selection to reach PRIMARY")
    s.run(["xdotool", "key", "ctrl+c"], timeout=10)
    wait_pasted(s, [], text, "wl-paste to read what Ctrl+C in nedit copied")
    targets = s.run(["xclip", "-o", "-selection", "clipboard", "-t", "TARGETS"], timeout=10,
                    check_rc=False).stdout.split()
    log(f"nedit's clipboard targets: {targets}")


def test(h):
    with Session(h, "xclip", x11=True) as s:
        xclip_part(s)
    with Session(h, "nedit", x11=True) as s:
        nedit_part(s)


harness.main(test)
