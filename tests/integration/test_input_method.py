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
- GTK3 (zenity --entry): the committed text lands in the entry; OK prints
  it.
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
from harness import Session, check, log  # noqa: E402

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
        zenity = s.spawn(["zenity", "--entry", "--text", "Name"],
                         env={"GTK_THEME": "Adwaita", "NO_AT_BRIDGE": "1",
                              "GDK_BACKEND": "wayland"})
        z = s.wait_window(lambda w: w["app_id"] == "zenity" and w["focused"], timeout=30,
                          what="zenity's entry dialog")
        ime = s.spawn([desktop_tool, "ime", TEXT])
        s.wait_until(lambda: "activate" in lines(ime), timeout=15,
                     what="GTK's text input to activate the input method")
        ime.terminate()
        s.wait_until(lambda: not seat(s)["input_method"], what="the input method to go")
        # Its OK button: the right one of the two at the bottom (Adwaita).
        s.click(z["x"] + z["width"] * 3 // 4, z["y"] + z["height"] - 24)
        check(zenity.wait(15) == 0, f"zenity did not finish with OK: {lines(zenity)}")
        check(lines(zenity)[-1:] == [TEXT], f"zenity printed {lines(zenity)}, the input "
              f"method committed {TEXT!r}")

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
