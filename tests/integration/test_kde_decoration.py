#!/usr/bin/env python3
"""GTK 3 windows get the decorations they were promised (compositor/desktop/
decoration.c). smtwc offers KDE's server-decoration protocol with server
mode as its default, so GTK 3 draws no title bar of its own for a window
without a header bar and asks for server mode: the compositor must then
draw one. A window with a header bar decorates itself (it asks for client
mode) and gets none from the compositor. Before the fix, the first kind
(zathura, xfce4-terminal, any GtkWindow with a plain title) had no title
bar at all: nothing to move it by or close it with."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

GTK3_WINDOW = r'''
import sys
import gi
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk
w = Gtk.Window(title=sys.argv[1])
w.set_default_size(300, 200)
if sys.argv[2] == "headerbar":
    bar = Gtk.HeaderBar(title=sys.argv[1], show_close_button=True)
    w.set_titlebar(bar)
w.add(Gtk.Label(label=sys.argv[1]))
w.connect("destroy", Gtk.main_quit)
w.show_all()
Gtk.main()
'''


def test(h):
    with Session(h) as s:
        env = {"GDK_BACKEND": "wayland"}
        for title, kind, server_side in (("plain-gtk3", "plain", True),
                                         ("headerbar-gtk3", "headerbar", False)):
            p = s.spawn(["/usr/bin/python3", "-c", GTK3_WINDOW, title, kind], name=title, env=env)
            w = s.wait_window(lambda w: w["title"] == title, what=f"the {kind} GTK 3 window")
            # GTK asks for its mode right after the window maps.
            w = s.wait_until(lambda: next((x for x in s.windows() if x["title"] == title and
                                           x["server_side_decoration"] == server_side), None),
                             timeout=10, what=f"the {kind} window's decoration "
                                              f"(server side: {server_side}): {w}")
            log(f"{kind}: server_side_decoration={w['server_side_decoration']} "
                f"title bar {w['title_bar']}")
            check((w["title_bar"]["height"] > 0) == server_side,
                  f"the {kind} window's title bar is {w['title_bar']}")
            s.stop_client(p)


harness.main(test)
