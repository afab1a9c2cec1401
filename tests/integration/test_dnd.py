#!/usr/bin/env python3
"""Drag and drop between two GTK 3 programs on Wayland (session 37): a drag
from one window's button, released over the other window, delivers the
text. Before the fix no drop ever landed: the drag icon, which follows the
cursor with its corner at the pointer, was in the scene that input
searches, so the client under the pointer was the icon's, the source
itself, and the drop was cancelled. And the implicit grab: a button held
keeps the pointer on the surface it was pressed on (a fast drag, asked for
once the pointer has left the source, was refused; a release off the
window never reached it).

Then from a GTK 3 Wayland window onto a GTK 3 X program (GDK_BACKEND=x11,
through the X ring), which wlroots' X window manager carries as XDND
(session 38). Before the mend the X program was told of the drop and then,
at once, of the drag leaving (wlroots 0.15.1 clears a drag's focus before
its window manager lets go of it), and its request for the data was
refused: nothing dropped, and the source never heard its drag end
(compositor/input/drop_focus.h).

The button is released only once the compositor's seat shows the drag over
the target and the target's acceptance (smtctl seat: drag_target_pid, for
an X window its program's pid, and drag_accepted), so no pause stands in
for the client's answer."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

# argv: source|target OUT. The source's button drags the text
# "dropped-text" as text/plain;charset=utf-8 (an X target sees UTF8_STRING);
# the target takes text as GTK's text widgets do, and writes what is dropped on it to OUT and each
# button press and release it gets to OUT.buttons, and the source writes
# "end" to OUT.end when its drag ends, dropped or not.
GTK3_DND = r'''
import sys
import gi
gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk
role, out = sys.argv[1], sys.argv[2]
w = Gtk.Window(title="dnd-" + role)
w.set_default_size(300, 200)
targets = [Gtk.TargetEntry.new("text/plain;charset=utf-8", 0, 0)]
if role == "source":
    b = Gtk.Button(label="drag me")
    b.drag_source_set(Gdk.ModifierType.BUTTON1_MASK, targets, Gdk.DragAction.COPY)
    b.connect("drag-data-get", lambda wid, ctx, data, info, t: data.set_text("dropped-text", -1))
    b.connect("drag-end", lambda *a: open(out + ".end", "w").write("end\n"))
    w.add(b)
else:
    box = Gtk.EventBox()
    box.add(Gtk.Label(label="drop here"))
    box.drag_dest_set(Gtk.DestDefaults.ALL, [], Gdk.DragAction.COPY)
    box.drag_dest_add_text_targets()
    box.connect("drag-data-received",
                lambda wid, ctx, x, y, data, info, t: open(out, "w").write(data.get_text() + "\n"))
    for name in ("press", "release"):
        box.connect("button-" + name + "-event",
                    lambda wid, ev, name=name: open(out + ".buttons", "a").write(name + "\n"))
    w.add(box)
w.connect("destroy", Gtk.main_quit)
w.show_all()
Gtk.main()
'''


def uncovered_point(target, cover):
    """A point of the target window's box that the cover window's box does
    not hide (the windows cascade: the later one overlaps the first)."""
    tx, ty, tw, th = target["x"], target["y"], target["width"], target["height"]
    cx, cy, cw, ch = cover["x"], cover["y"], cover["width"], cover["height"]
    for x, y in ((tx + 10, ty + th // 2), (tx + tw // 2, ty + 10),
                 (tx + tw - 10, ty + th // 2), (tx + tw // 2, ty + th - 10)):
        if not (cx <= x < cx + cw and cy <= y < cy + ch):
            return x, y
    return None


def spawn_pair(s, out, target_env):
    """The drop target, then the drag source (GTK 3 on Wayland), each
    mapped; the source focused and on top."""
    target = s.spawn(["/usr/bin/python3", "-c", GTK3_DND, "target", out], name="target",
                     env=target_env)
    t = s.wait_window(lambda w: w["title"] == "dnd-target", what="the drop target's window")
    source = s.spawn(["/usr/bin/python3", "-c", GTK3_DND, "source", out], name="source",
                     env={"GDK_BACKEND": "wayland"})
    src = s.wait_window(lambda w: w["title"] == "dnd-source" and w["focused"],
                        what="the drag source's window, focused")
    check(t["pid"] == target.pid, f"the target's window {t} is not its program's ({target.pid})")
    return target, t, source, src


def drag(s, kind, out, target, t, source, src):
    """A drag from the source's button released over the target: the
    target receives the text, the source's drag and the seat's end."""
    drop = uncovered_point(t, src)
    check(drop is not None, f"the source {src} hides the whole target {t}")
    start = (src["x"] + src["width"] // 2, src["y"] + src["height"] // 2)

    def over_target():
        seat = s.control("seat")["seat"]
        return seat if seat["dragging"] and seat["drag_target_pid"] == target.pid and \
            seat["drag_accepted"] else None

    for f in (out, out + ".end"):
        if os.path.exists(f):
            os.unlink(f)
    log(f"{kind} drag from {start} (source) to {drop} (target)")
    s.vpointer("move", *start, "down", "left")
    x, y = start
    if kind != "fast":
        # Over the source until the seat shows the drag GTK asks for
        # on a motion past its threshold, in its own time.
        step_x = -4 if drop[0] < start[0] else 4
        for _ in range(40):
            if s.control("seat")["seat"]["dragging"]:
                break
            if src["x"] + 12 <= x + step_x < src["x"] + src["width"] - 12:
                x += step_x
            s.vpointer("move", x, y)
        check(s.control("seat")["seat"]["dragging"],
              "no drag started after 40 motions over the source with the button held")
    # "fast": straight on; GTK asks for the drag once the pointer
    # has left the source, which the implicit grab keeps it for (a
    # drag asked for by a surface without the pointer is refused).
    steps = []
    for i in range(1, 11):
        steps += ["move", x + (drop[0] - x) * i // 10, y + (drop[1] - y) * i // 10]
    s.vpointer(*steps)
    try:
        s.wait_until(over_target, timeout=15,
                     what=f"the {kind} drag over the target's window, accepted by it")
    finally:
        seat = s.control("seat")["seat"]
        log(f"seat: dragging={seat['dragging']} over pid {seat['drag_target_pid']} "
            f"(source {source.pid}, target {target.pid}), "
            f"accepted={seat['drag_accepted']}")
        s.vpointer("up", "left")
    s.wait_until(lambda: os.path.exists(out) and open(out).read().endswith("\n"),
                 timeout=15, what=f"the target to receive the {kind} drag's text")
    text = open(out).read().strip()
    check(text == "dropped-text", f"the target received {text!r}")
    s.wait_until(lambda: os.path.exists(out + ".end"), timeout=15,
                 what="the source's drag to end")
    s.wait_until(lambda: not s.control("seat")["seat"]["dragging"], timeout=10,
                 what="the seat's drag to end")
    log(f"{kind}: the target received the source's text, the drag ended")
    return drop


def test(h):
    with Session(h) as s:
        out = os.path.join(s.tmp, "dropped.txt")
        pair = spawn_pair(s, out, {"GDK_BACKEND": "wayland"})
        drag(s, "slow", out, *pair)
        drop = drag(s, "fast", out, *pair)

        # The implicit grab's release: a press on the target, the pointer
        # taken off every window, the release there. Before, the target
        # got a leave and never the release (its button stayed down).
        buttons = out + ".buttons"
        corner = (1279, 719)
        s.vpointer("move", *drop, "down", "left", "move", 700, 500, "move", *corner,
                   "up", "left")
        s.wait_until(lambda: os.path.exists(buttons) and
                     open(buttons).read().count("release") >= 1, timeout=15,
                     what=f"the target's release after the pointer left it "
                          f"(its buttons: {open(buttons).read().split() if os.path.exists(buttons) else []})")
        check(open(buttons).read().split() == ["press", "release"],
              f"the target's buttons: {open(buttons).read().split()}")
        log("the release reached the window the button was pressed on")

    # Wayland to X: the target a GTK 3 X program through the X ring.
    with Session(h, x11=True) as s:
        out = os.path.join(s.tmp, "dropped.txt")
        pair = spawn_pair(s, out, {"GDK_BACKEND": "x11", "GTK_THEME": "Adwaita",
                                   "NO_AT_BRIDGE": "1"})
        drag(s, "slow to X", out, *pair)
        drag(s, "slow to X, again", out, *pair)


harness.main(test)
