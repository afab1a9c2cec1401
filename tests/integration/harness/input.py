"""Session methods that drive the seat like a user: the virtual pointer
(smt-vpointer), keys and text (wtype), held modifiers."""

import re
import subprocess

from .checks import check, fail
from .defaults import OUTPUT_H, OUTPUT_W

MODIFIER_BITS = {"shift": 1, "caps": 2, "ctrl": 4, "alt": 8, "mod2": 16, "mod3": 32,
                 "logo": 64, "mod5": 128}


def modifier_mask(mods):
    """wlroots' modifier bits for wtype modifier names."""
    mask = 0
    for m in mods:
        check(m.lower() in MODIFIER_BITS, f"unknown modifier {m!r}")
        mask |= MODIFIER_BITS[m.lower()]
    return mask



class InputMixin:
    # -- input ----------------------------------------------------------------

    def seat_capabilities(self):
        """The wl_seat capabilities wayland-info reports, as a set of words."""
        res = self.run(["wayland-info"], timeout=10)
        m = re.search(r"interface: 'wl_seat'.*?\n\s*name: .*?\n\s*capabilities:([^\n]*)",
                      res.stdout, re.S)
        return set(m.group(1).split()) if m else set()

    def add_keyboard_anchor(self):
        """Keep a virtual keyboard connected for the whole session, like the
        physical keyboard of a real machine. Without one the seat has no
        keyboard capability until the first wtype connects, and that wtype's
        first key races with the client binding wl_keyboard (the press is
        lost, the client only gets the key in wl_keyboard.enter's array)."""
        self.kbd_anchor = self.spawn(["wtype", "-s", "600000"], name="kbd-anchor")
        # (15 s: a hang bound for starting a process, which a loaded
        # machine can stretch past a few seconds)
        self.wait_until(lambda: "keyboard" in self.seat_capabilities(), timeout=15,
                        what="the seat to advertise a keyboard (a wtype virtual keyboard is "
                             "connected)")
        # Its keymap comes after it: the compositor then holds wlroots'
        # keymap file, which a leak check's baseline must already count.
        self.wait_until(lambda: self.server_stats()["keyboards_with_keymap"] >= 1, timeout=15,
                        what="the anchor's keymap")

    def vpointer(self, *actions):
        """Run smt-vpointer with the given actions (strings or numbers)."""
        argv = [self.h.vpointer] + [str(a) for a in actions]
        self.run(argv, timeout=10.0)
        # Track the pointer position so screenshots can ignore the cursor.
        acts = [str(a) for a in actions]
        i = 0
        while i < len(acts):
            if acts[i] == "--extent":
                i += 2
            elif acts[i] == "move":
                self.pointer = (int(acts[i + 1]), int(acts[i + 2]))
                i += 3
            elif acts[i] == "rel":
                if self.pointer is not None:
                    self.pointer = (int(self.pointer[0] + float(acts[i + 1])),
                                    int(self.pointer[1] + float(acts[i + 2])))
                i += 3
            else:
                i += 2

    def park_pointer(self):
        """Move the pointer to the bottom-right corner of the (first) output,
        out of the way of windows."""
        self.vpointer("move", OUTPUT_W - 1, OUTPUT_H - 1)

    def click(self, x, y, button="left"):
        self.vpointer("move", x, y, "click", button)

    def type_text(self, text, enter=False):
        argv = ["wtype", "--", text] if not enter else ["wtype", text, "-k", "Return"]
        if enter and text.startswith("-"):
            fail("type_text: text starting with '-' cannot be combined with enter")
        self.run(argv, timeout=10.0)

    def key(self, combo):
        """Press a combination like 'logo+shift+q' or 'Return' with wtype."""
        parts = combo.split("+")
        mods, key = parts[:-1], parts[-1]
        argv = ["wtype"]
        for m in mods:
            argv += ["-M", m.lower()]
        argv += ["-k", key]
        for m in reversed(mods):
            argv += ["-m", m.lower()]
        self.run(argv, timeout=10.0)

    def logo_drag(self, button, start, delta, steps=5):
        """Hold Logo, press button at start, move by delta in steps,
        release; the pointer parked after."""
        x0, y0 = start
        dx, dy = delta
        actions = ["move", x0, y0, "down", button]
        for i in range(1, steps + 1):
            actions += ["move", x0 + dx * i // steps, y0 + dy * i // steps]
        actions += ["up", button]
        hold = self.hold_modifiers("logo")
        try:
            self.vpointer(*actions)
        finally:
            self.release_modifiers(hold)
        self.park_pointer()

    def hold_modifiers(self, *mods):
        """Start a wtype that presses mods and keeps them pressed until its
        stdin is closed (release_modifiers). Returns the Process."""
        argv = ["wtype"]
        for m in mods:
            argv += ["-M", m]
        argv += ["-"]
        for m in reversed(mods):
            argv += ["-m", m]
        p = self.spawn(argv, name="wtype-hold", stdin=subprocess.PIPE)
        p.held_mask = modifier_mask(mods)
        # The press travels on wtype's own connection: input another client
        # sends is ordered after it only once the compositor has seen it.
        self.wait_until(lambda: not p.alive() or
                        self.keyboard_modifiers() & p.held_mask == p.held_mask,
                        what=f"the compositor to see {mods} held")
        check(p.alive(), f"wtype holding {mods} exited early:\n{p.log_tail()}")
        return p

    def release_modifiers(self, p, timeout=5.0):
        try:
            p.popen.stdin.close()
        except OSError:
            pass
        rc = p.wait(timeout)
        check(rc == 0, f"wtype holding modifiers ended with {rc}:\n{p.log_tail()}")
        self.clients.remove(p)
        self.wait_until(lambda: self.keyboard_modifiers() & p.held_mask == 0,
                        what="the compositor to see the modifiers released")
