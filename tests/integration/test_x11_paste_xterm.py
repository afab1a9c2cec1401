#!/usr/bin/env python3
"""A Wayland selection larger than 64 KiB pasted into xterm arrives whole
(xwayland-glue/wm/wm_selection_budget.c; docs/reliability.md, "Red team
and real programs (session 30)", mended in session 31).

wlroots 0.15 sends an X requestor a selection of 64 KiB or more in pieces
(ICCCM INCR): it puts a chunk on the requestor's window and puts the next
when the requestor deletes it, which it learns from a PropertyNotify. It
selects PropertyChange only on the windows it manages (top-level ones);
xterm (Xt) asks for a selection from its VT100 widget's window, a child
window, so the deletion was never reported to wlroots: xterm got nothing,
the Wayland source's writer stayed blocked on a pipe wlroots held, and
the source gave nothing to anybody afterwards. xclip and xsel ask from
top-level windows and were served. The window manager now selects
PropertyChange (with StructureNotify) on any requestor wlroots does not
manage when its transfer starts.

Checked, what happened, never a duration: an xterm whose shell copies
what it is given to a file, on the X ring and, in a second session, on
the socket (SMT_X11RING=off):
1. wl-copy --primary with 200,000 bytes, a middle click (the compositor's
   virtual pointer) in the xterm: the file gets the 200,000 bytes, exactly;
   wl-paste --primary then still reads them whole;
2. wl-copy (the clipboard) with 150,000 other bytes, Shift+Insert bound to
   insert-selection(CLIPBOARD): the file gets them after the first ones;
3. no transfer is left in the window manager (smtctl stats x11_selections).
Without the mend the first wait ends with 0 bytes of 200,000 (checked).
"""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, check, log  # noqa: E402
from harness.selections import describe, offered, read_bytes, selection_text  # noqa: E402

PRIMARY_BYTES = 200_000
CLIPBOARD_BYTES = 150_000
# xterm's paste of the CLIPBOARD on Shift+Insert (its default pastes PRIMARY).
CLIPBOARD_KEY = ["-xrm", "XTerm.vt100.translations: #override "
                         "Shift <Key>Insert: insert-selection(CLIPBOARD)"]


def transfers(s):
    return s.control("stats")["x11_selections"]["transfers"]


def pasted(s, out, want, what):
    """Waits until xterm's output file holds len(want) bytes, then checks
    they are want."""
    try:
        s.wait_until(lambda: len(read_bytes(out)) >= len(want), timeout=60, interval=0.2,
                     what=f"xterm to paste {what}")
    except harness.TestFailure as e:
        harness.fail(f"{e}: xterm got {describe(read_bytes(out), want)}")
    check(read_bytes(out) == want, f"{what} pasted into xterm: {describe(read_bytes(out), want)}")


def paste_into_xterm(s, how):
    out = os.path.join(s.tmp, "xterm-out")
    # -icanon: the terminal hands on lines of any length; -echo: xterm does
    # not draw 350 KB it is given.
    xterm = s.spawn(["xterm", "-name", "xdst", "-geometry", "60x10+100+100"] + CLIPBOARD_KEY +
                    ["-e", "sh", "-c", f"stty -icanon -echo; exec cat > {shlex.quote(out)}"],
                    name="xterm")
    s.wait_x_window("--classname", "xdst", timeout=15)
    s.wait_for_border(FOCUSED, what="the xterm to be focused")
    s.wait_until(lambda: os.path.exists(out), timeout=15, what="xterm's shell to start cat")
    geo = next(w for w in s.windows() if w["focused"])

    primary = selection_text("primary", PRIMARY_BYTES)
    clipboard = selection_text("clipboard", CLIPBOARD_BYTES)
    for name, data in (("primary", primary), ("clipboard", clipboard)):
        with open(os.path.join(s.tmp, name), "wb") as f:
            f.write(data)
    copy_primary = s.spawn(["sh", "-c", "exec wl-copy --primary < " +
                            shlex.quote(os.path.join(s.tmp, "primary"))], name="wl-copy-primary")
    s.wait_until(lambda: offered(s, primary=True), timeout=30, interval=0.2,
                 what="the Wayland PRIMARY selection offered")

    s.click(geo["x"] + 40, geo["y"] + 40, "middle")
    pasted(s, out, primary, f"{len(primary)} bytes of PRIMARY ({how})")
    again = s.run(["wl-paste", "--primary", "--no-newline"], timeout=30, check_rc=False)
    check(again.stdout.encode() == primary,
          f"wl-paste --primary after xterm's paste: {describe(again.stdout.encode(), primary)}")
    log(f"{how}: xterm's middle click pasted {len(primary)} bytes of PRIMARY, whole")

    copy_clipboard = s.spawn(["sh", "-c", "exec wl-copy < " +
                              shlex.quote(os.path.join(s.tmp, "clipboard"))],
                             name="wl-copy-clipboard")
    s.wait_until(lambda: offered(s), timeout=30, interval=0.2,
                 what="the Wayland clipboard offered")
    s.key("shift+Insert")
    pasted(s, out, primary + clipboard, f"{len(clipboard)} bytes of CLIPBOARD ({how})")
    log(f"{how}: xterm's Shift+Insert pasted {len(clipboard)} bytes of CLIPBOARD, whole")

    s.wait_until(lambda: transfers(s) == 0, timeout=30,
                 what="no selection transfer left in the window manager")
    for p in (xterm, copy_primary, copy_clipboard):
        s.stop_client(p)


def test(h):
    with Session(h, "xterm-ring", x11=True) as s:
        paste_into_xterm(s, "X ring")
    with Session(h, "xterm-socket", x11=True, env={"SMT_X11RING": "off"}) as s:
        paste_into_xterm(s, "socket")


harness.main(test)
