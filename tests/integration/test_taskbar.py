#!/usr/bin/env python3
"""Taskbars see and drive windows (wlr-foreign-toplevel-management); a
sandboxed program's dialog finds its parent window (xdg-foreign).

- Every mapped window is listed with its title, app id, states and output;
  the focused one is "activated"; a title a program changes (foot, by an
  escape sequence) is seen.
- Requests from the taskbar act: minimize hides the window (and the
  compositor's state says so), activate brings it back focused, maximize
  fills the usable area, close asks the client to close (it exits).
- gtk3-demo, a real toolkit window, is listed under its app id.
- xdg-foreign v2: a window imported by handle from another client and made
  the parent of a new window gets that window centred over it, as a dialog,
  and the taskbar sees the dialog's parent.
- An X dialog (a Tk toplevel made transient for the main window: its
  WM_TRANSIENT_FOR) is listed with that window as its parent, as sway does,
  whether it was transient when it mapped or became so later.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, window  # noqa: E402
from harness import OUTPUT_H, OUTPUT_W, Session, check, log  # noqa: E402


parents = {}  # title: the parent window's title, as of the last listing


def listing(s, desktop_tool):
    """{title: (app_id, states, outputs)} as a taskbar sees it now."""
    out = s.run([desktop_tool, "toplevels"], timeout=10).stdout.splitlines()
    result = {}
    parents.clear()
    for line in out:
        if line.startswith("toplevel "):
            title, app_id, states, outputs, parent = line[len("toplevel "):].split("|")
            result[title] = (app_id, set(filter(None, states.split(","))), int(outputs))
            parents[title] = parent
    return result


def test(h):
    probe = desktop_clients.probe(h)
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h) as s:
        a = s.spawn([probe, "--title", "alpha", "--app-id", "org.example.alpha"])
        s.wait_window(lambda w: w["title"] == "alpha", what="alpha")
        b = s.spawn([probe, "--title", "beta", "--app-id", "org.example.beta", "--color", "20a040"])
        s.wait_window(lambda w: w["title"] == "beta" and w["focused"], what="beta")
        seen = listing(s, desktop_tool)
        log(f"taskbar: {seen}")
        check(seen.get("alpha") == ("org.example.alpha", set(), 1) and
              seen.get("beta") == ("org.example.beta", {"activated"}, 1),
              f"the taskbar sees {seen}")

        # Minimize alpha from the taskbar; then bring it back.
        s.run([desktop_tool, "toplevels", "minimize", "alpha"], timeout=10)
        s.wait_until(lambda: window(s, "alpha")["minimized"], what="alpha minimized")
        check("minimized" in listing(s, desktop_tool)["alpha"][1], "the taskbar missed it")
        s.run([desktop_tool, "toplevels", "activate", "alpha"], timeout=10)
        s.wait_until(lambda: window(s, "alpha")["focused"] and not window(s, "alpha")["minimized"],
                     what="alpha activated from the taskbar")
        seen = listing(s, desktop_tool)
        check(seen["alpha"][1] == {"activated"} and seen["beta"][1] == set(),
              f"after activating alpha the taskbar sees {seen}")

        s.run([desktop_tool, "toplevels", "maximize", "beta"], timeout=10)
        s.wait_until(lambda: window(s, "beta")["maximized"] and
                     (window(s, "beta")["width"], window(s, "beta")["height"]) ==
                     (OUTPUT_W, OUTPUT_H), what="beta maximized from the taskbar")
        check("maximized" in listing(s, desktop_tool)["beta"][1], "the taskbar missed it")

        s.run([desktop_tool, "toplevels", "close", "beta"], timeout=10)
        check(b.wait(10) is not None, "beta did not exit when closed from the taskbar")
        # (its exit comes before the compositor has read the end of its
        # connection: the listing follows once it has)
        s.wait_until(lambda: "beta" not in listing(s, desktop_tool),
                     what="the closed window to leave the taskbar's listing")

        # A title changed by the program.
        s.spawn(["foot", "sh", "-c", "printf '\\033]2;renamed\\007'; read l"])
        s.wait_until(lambda: listing(s, desktop_tool).get("renamed", ("",))[0] == "foot",
                     what="foot's new title on the taskbar")

        # A real toolkit window, under its app id.
        s.spawn(["gtk3-demo"], env={"GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1",
                                    "GDK_BACKEND": "wayland"})
        s.wait_window(lambda w: w["app_id"] == "gtk3-demo", timeout=30, what="gtk3-demo")
        s.wait_until(lambda: any(v[0] == "gtk3-demo" for v in listing(s, desktop_tool).values()),
                     what="gtk3-demo on the taskbar")

        # xdg-foreign: a dialog of another client, parented by handle.
        a.terminate()
        parent = s.spawn([probe, "--title", "parent", "--size", "700x500", "--export"])
        s.wait_until(lambda: any(l.startswith("exported ") for l in lines(parent)),
                     what="the exported handle")
        handle = next(l.split()[1] for l in lines(parent) if l.startswith("exported "))
        p = s.wait_window(lambda w: w["title"] == "parent", what="the parent window")
        s.spawn([probe, "--title", "portal-dialog", "--size", "300x200", "--import", handle,
                 "--color", "a0a020"])
        d = s.wait_window(lambda w: w["title"] == "portal-dialog", what="the dialog")
        want = (p["x"] + (p["width"] - 300) // 2, p["y"] + (p["height"] - 200) // 2)
        check((d["x"], d["y"]) == want, f"the dialog opened at {(d['x'], d['y'])}, not centred "
              f"over its imported parent {p} at {want}")
        listing(s, desktop_tool)
        check(parents.get("portal-dialog") == "parent" and parents.get("parent") == "",
              f"the taskbar sees parents {parents}; the dialog's should be 'parent'")


# A Tk main window and a dialog transient for it (WM_TRANSIENT_FOR). Each
# line on stdin is Tcl: the test changes the dialog while it is mapped.
TK_DIALOG = """
wm title . x-main
wm geometry . 500x300
toplevel .d
wm title .d x-dialog
wm geometry .d 200x100
wm transient .d .
toplevel .e
wm title .e x-later
wm geometry .e 200x100
fileevent stdin readable {eval [gets stdin]}
"""


def x_dialog_part(h, desktop_tool):
    with Session(h, label="x11", x11=True) as s:
        script = os.path.join(s.tmp, "dialog.tcl")
        with open(script, "w") as f:
            f.write(TK_DIALOG)
        tk = s.spawn(["wish", script], name="wish", stdin=subprocess.PIPE)
        s.wait_until(lambda: {"x-main", "x-dialog", "x-later"} <= set(listing(s, desktop_tool)),
                     timeout=20, what="the Tk window and its dialog on the taskbar")
        s.wait_until(lambda: listing(s, desktop_tool) and parents.get("x-dialog") == "x-main",
                     what="the X dialog listed with its WM_TRANSIENT_FOR parent")
        check(parents.get("x-main") == "", f"the main X window has a parent: {parents}")
        log(f"X dialog's parent on the taskbar: {parents['x-dialog']!r}")
        check(parents.get("x-later") == "", f"a window not yet transient has a parent: "
              f"{parents}")
        # Made transient while mapped: the taskbar follows.
        tk.popen.stdin.write(b"wm transient .e .\n")
        tk.popen.stdin.flush()
        s.wait_until(lambda: listing(s, desktop_tool) and parents.get("x-later") == "x-main",
                     what="the X window made transient later listed with its parent")


def test_all(h):
    test(h)
    x_dialog_part(h, desktop_clients.desktop_tool(h))


harness.main(test_all)
