#!/usr/bin/env python3
"""Input methods: text committed by an input-method-v2 client reaches the
text field (text-input-v3) that has the keyboard.

- smt-probe --text-input gets the keyboard before any input method runs;
  when one starts (smt-desktop-tool ime) the field is entered, enables
  itself, the input method is activated and its text arrives in the field.
  Focus moves to another window: the field leaves, the input method is
  deactivated. Focus back: activated again, the text arrives again.
- A second input method is refused while one runs.
- foot, a real terminal with IME support: the committed text goes through
  the terminal to the shell reading a line (non-ASCII included).
- GTK3 (gtk3-widget-factory): the committed text replaces the selected
  text of its focused entry on screen.
- An input method that grabs the keyboard gets the keys instead of the
  focused window; while swaylock holds input it gets none of them (they are
  the password), and it has them again once the lock is gone.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from desktop_clients import lines, seat  # noqa: E402
from harness import Rect, Session, check, log  # noqa: E402

SELECTION = (53, 132, 228)  # Adwaita's selection background

TEXT = "héllo wörld"


def test(h):
    probe = desktop_clients.probe(h)
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h) as s:
        field = s.spawn([probe, "--title", "field", "--text-input"])
        f = s.wait_window(lambda w: w["title"] == "field" and w["focused"], what="the field")
        s.wait_until(lambda: "keyboard enter" in lines(field), what="the field's keyboard focus")
        check("text-input enter" not in lines(field),
              "the text input was entered without an input method")

        ime = s.spawn([desktop_tool, "ime", TEXT])
        s.wait_until(lambda: f"commit {TEXT}" in lines(field),
                     what="the input method's text to reach the focused field")
        check(seat(s)["input_method"], f"seat: {seat(s)}")
        check("activate" in lines(ime), f"input method log: {lines(ime)}")

        # A second input method is refused.
        second = s.spawn([desktop_tool, "ime", "intruder"], name="second-ime")
        s.wait_until(lambda: "unavailable" in lines(second), what="a second input method refused")

        # Focus elsewhere: the field leaves, the input method is deactivated.
        s.spawn([probe, "--title", "plain", "--size", "200x100", "--color", "20a040"])
        s.wait_window(lambda w: w["title"] == "plain" and w["focused"], what="another window")
        s.wait_until(lambda: "text-input leave" in lines(field), what="the field to leave")
        s.wait_until(lambda: lines(ime)[-1] == "deactivate", what="the input method deactivated")

        # And back: the text arrives once more.
        s.click(f["x"] + f["width"] - 20, f["y"] + f["height"] - 20)
        s.wait_until(lambda: lines(field).count(f"commit {TEXT}") == 2,
                     what="the text again once the field has the keyboard back")
        log(f"field: {lines(field)}")
        ime.terminate()
        s.wait_until(lambda: not seat(s)["input_method"], what="the input method to go")

    with Session(h, "foot") as s:
        out = os.path.join(s.tmp, "line.txt")
        s.spawn(["foot", "sh", "-c", f"read l; printf '%s' \"$l\" > {out}"])
        s.wait_window(lambda w: w["app_id"] == "foot" and w["focused"], what="foot")
        ime = s.spawn([desktop_tool, "ime", TEXT])
        s.wait_until(lambda: "activate" in lines(ime), timeout=15,
                     what="foot's text input to activate the input method")
        ime.terminate()
        s.wait_until(lambda: not seat(s)["input_method"], what="the input method to go")
        s.key("Return")
        s.wait_until(lambda: os.path.exists(out), what="the shell in foot to read the line")
        with open(out, encoding="utf-8") as fh:
            got = fh.read()
        check(got == TEXT, f"foot's shell read {got!r}, the input method committed {TEXT!r}")

    with Session(h, "gtk3") as s:
        # gtk3-widget-factory opens with the text of its first entry selected
        # (white on the selection colour); the input method's text replaces
        # it (dark on white). The caret does not blink, so only that changes.
        cfg = os.path.join(s.tmp, "config")
        os.makedirs(os.path.join(cfg, "gtk-3.0"))
        with open(os.path.join(cfg, "gtk-3.0", "settings.ini"), "w") as f:
            f.write("[Settings]\ngtk-cursor-blink = false\n")
        s.spawn(["gtk3-widget-factory"], env={"GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1",
                                             "GDK_BACKEND": "wayland", "XDG_CONFIG_HOME": cfg})
        g = s.wait_window(lambda w: w["app_id"] == "gtk3-widget-factory" and w["focused"] and
                          not w["configure_pending"], timeout=30, what="gtk3-widget-factory")
        entry = Rect(g["x"] + 16, g["y"] + 64, 200, 20)  # inside its first entry

        def text_pixels(img):
            dark = img.count((0, 0, 0), tol=90, rect=entry)
            selected = img.count(SELECTION, tol=30, rect=entry)
            return dark, selected

        before = s.wait_screenshot(lambda img: text_pixels(img)[1] > 200 or None,
                                   timeout=15, what="the entry's selected text")[0]
        log(f"gtk3 entry before: dark, selected = {text_pixels(before)}")
        ime = s.spawn([desktop_tool, "ime", TEXT])
        s.wait_until(lambda: "activate" in lines(ime), timeout=15,
                     what="GTK's text input to activate the input method")
        after = s.wait_screenshot(lambda img: (lambda d, sel: d > 30 and sel == 0)(
            *text_pixels(img)) or None, what="the committed text in the entry, not selected")[0]
        log(f"gtk3 entry after: dark, selected = {text_pixels(after)}")

    with Session(h, "grab") as s:
        field = s.spawn([probe, "--title", "field", "--text-input"])
        s.wait_window(lambda w: w["title"] == "field" and w["focused"], what="the field")
        ime = s.spawn([desktop_tool, "ime", TEXT, "--grab"])
        s.wait_until(lambda: "ready" in lines(ime), what="the input method's grab")

        def grabbed():
            return [l for l in lines(ime) if l.startswith("grab key") and l.endswith("pressed")]

        s.type_text("a")
        s.wait_until(lambda: len(grabbed()) == 1, what="a key in the input method's grab")
        check(not any(l.startswith("key ") for l in lines(field)),
              f"the field got a key the input method grabbed: {lines(field)}")

        lock = s.spawn(["swaylock", "--color", "cc2020"])
        s.wait_until(lambda: seat(s)["input_inhibited"], timeout=15, what="swaylock to lock")
        s.wait_until(lambda: seat(s)["keyboard_focus_pid"] == lock.pid,
                     what="swaylock to have the keyboard")
        s.type_text("b")
        lock.terminate()
        s.wait_until(lambda: not seat(s)["input_inhibited"], what="the lock to go")
        s.type_text("c")
        s.wait_until(lambda: len(grabbed()) >= 2, what="keys in the grab after the lock")
        check(len(grabbed()) == 2, f"the input method's grab got a key typed into the lock "
              f"screen: {grabbed()}")


harness.main(test)
