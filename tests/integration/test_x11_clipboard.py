#!/usr/bin/env python3
"""The clipboard and the primary selection between X and Wayland, both ways.

1. Tools: xclip sets the X CLIPBOARD/PRIMARY, wl-paste (Wayland,
   wlr-data-control) reads it; wl-copy sets the Wayland selection, xclip
   reads it in X.
2. What a user does: select a word in xterm with a double-click and paste it
   into foot (Shift+Insert: primary; Ctrl+Shift+V: clipboard, with xterm's
   selectToClipboard), and the reverse: select a word in foot (Ctrl+Shift+C
   for the clipboard) and paste it into xterm with Shift+Insert.

wlroots' X window manager only bridges selections while an X window has the
focus (it refuses X reads of the Wayland selection, and X selection changes,
otherwise), so an xterm has the focus whenever X is involved."""
import hashlib
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Rect, Session, check, log, read_file  # noqa: E402

SELECTIONS = [("clipboard", []), ("primary", ["--primary"])]


def reader(path, word):
    """A shell that writes the first len(word) characters typed into its
    terminal to path. Non-canonical, so no Return is needed: a Return sent
    after a paste could overtake the paste, which is asynchronous."""
    q = shlex.quote(path)
    return ["sh", "-c", f"stty -icanon min 1; head -c {len(word.encode())} > {q}.tmp && "
                        f"mv {q}.tmp {q}; exec sleep 600"]


def shower(word):
    return ["sh", "-c", f"printf '%s\\n' {shlex.quote(word)}; exec sleep 600"]


def tools_part(s):
    s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
    s.wait_x_window("--classname", "focusholder", timeout=15)
    s.wait_for_border(FOCUSED, what="the xterm to be focused")
    for sel, flag in SELECTIONS:
        # X -> Wayland
        text = f"x11 {sel} to wayland"
        path = os.path.join(s.tmp, f"xclip-{sel}.txt")
        with open(path, "w") as f:
            f.write(text)
        xc = s.spawn(["xclip", "-quiet", "-selection", sel, "-i", path], name=f"xclip-{sel}")
        got = [None]

        def pasted():
            r = s.run(["wl-paste", "--no-newline"] + flag, timeout=10, check_rc=False)
            got[0] = (r.returncode, r.stdout, r.stderr.strip())
            return r.returncode == 0 and r.stdout == text

        try:
            s.wait_until(pasted, timeout=15, interval=0.2,
                         what=f"wl-paste {' '.join(flag)} to read what xclip put in the X "
                              f"{sel.upper()} selection")
        except harness.TestFailure as e:
            harness.fail(f"{e}: wl-paste last gave (exit, stdout, stderr) {got[0]}, "
                         f"expected {text!r}")
        log(f"X {sel} -> Wayland: ok ({text!r})")
        s.stop_client(xc)

        # Wayland -> X
        text = f"wayland {sel} to x11"
        wc = s.spawn(["wl-copy", "--foreground"] + flag + ["--", text], name=f"wl-copy-{sel}")

        def xpasted():
            r = s.run(["xclip", "-o", "-selection", sel], timeout=10, check_rc=False)
            got[0] = (r.returncode, r.stdout, r.stderr.strip())
            return r.returncode == 0 and r.stdout == text

        try:
            s.wait_until(xpasted, timeout=15, interval=0.2,
                         what=f"xclip -o to read what wl-copy {' '.join(flag)} put in the "
                              f"Wayland {sel} selection from the X {sel.upper()} selection")
        except harness.TestFailure as e:
            harness.fail(f"{e}: xclip last gave (exit, stdout, stderr) {got[0]}, "
                         f"expected {text!r}")
        log(f"Wayland {sel} -> X: ok ({text!r})")
        s.stop_client(wc)
    big_part(s)


def big_part(s):
    """2 MB from Wayland to X through the CLIPBOARD: more than one X
    request holds, so the window manager moves it in chunks (ICCCM INCR),
    each after the X client's PropertyNotify of the property's deletion;
    the X server half and the compositor merge and pace PropertyNotify
    (docs/x11.md "The window manager's events") and must lose none of
    these. (The other way, X to Wayland with INCR, is
    test_x11_clipboard_incr.py.)"""
    # Text (wl-copy offers it as text, which X asks for as STRING), no two
    # chunks alike.
    data = b"".join(b"%07d abcdefghijklmnopqrstuvwxyz\n" % i for i in range(2_000_000 // 35))
    path = os.path.join(s.tmp, "big.bin")
    with open(path, "wb") as f:
        f.write(data)
    digest = hashlib.sha256(data).hexdigest()
    got = [None]

    def same(argv):
        def check_once():
            r = s.run(["sh", "-c", f"{argv} | sha256sum"], timeout=60, check_rc=False)
            got[0] = (r.returncode, r.stdout.split()[:1], r.stderr.strip()[-200:])
            return r.returncode == 0 and r.stdout.split()[:1] == [digest]
        return check_once

    def wait_same(argv, what):
        try:
            s.wait_until(same(argv), timeout=60, interval=0.5, what=what)
        except harness.TestFailure as e:
            harness.fail(f"{e}: last (exit, sha256, stderr) {got[0]}, expected {digest}")

    wc = s.spawn(["sh", "-c", f"exec wl-copy --foreground --type text/plain < {shlex.quote(path)}"],
                 name="wl-copy-big")
    wait_same("xclip -o -selection clipboard", "xclip -o to read wl-copy's 2 MB whole")
    s.stop_client(wc)
    log("2 MB from Wayland to X through the clipboard (INCR): whole")


def wait_text_shown(s, where, what):
    """Wait until the terminal shows text in the line at where() = (x, y,
    w, h), asked again for each screenshot: more than a few pixels there
    differ from the line's background (taken just right of it). The shell's
    output reaches the screen when the terminal has read and drawn it; no
    fixed delay covers that on a loaded machine. Returns the last where()."""
    last = [None]

    def shown(img):
        x, y, w, h = last[0] = where()
        bg = img.pixel(min(img.width - 1, x + w + 30), y + h // 2)
        return img.count_not(bg, rect=Rect(x, y, w, h)) >= 10
    # 10 s was once too little beside a CI run, two helpers' loads and a
    # benchmark at nice -19.
    try:
        s.wait_screenshot(shown, timeout=30, what=what)
    except harness.TestFailure as e:
        harness.fail(f"{e} (the line looked at: {last[0]})")
    return last[0]


def double_click(s, x, y):
    s.vpointer("move", x, y, "click", "left", "click", "left")
    s.park_pointer()


def new_focused_frame(s, old):
    """Wait for a focused frame that is not `old`; returns its Rect."""
    def pred(img):
        r = s.window_border(img, FOCUSED)
        return r if r is not None and r != old else None
    prev = [None]

    def stable(img):
        r = pred(img)
        ok = r is not None and r == prev[0]
        prev[0] = r
        return r if ok else None

    return s.wait_screenshot(stable, timeout=15, what="a newly focused window")[1]


def xterm_to_foot(s, sel, word, xrm, paste_key):
    """Select word in xterm by double-click, paste it into foot."""
    src = s.spawn(["xterm", "-name", "xsrc", "-geometry", "40x5+760+60"] + xrm
                  + ["-e"] + shower(word), name="xterm-src")
    wid = s.wait_x_window("--classname", "xsrc", timeout=15)
    _, frame = s.wait_for_border(FOCUSED, what="the source xterm focused")
    geometries = []

    def word_line():
        # The X geometry is read again: once it was not where the window
        # showed the word (a CI run: the word on screen, the wait looking
        # elsewhere for 10 s).
        g = s.x_geometry(wid)
        if not geometries or geometries[-1] != g:
            geometries.append(g)
        # The word after the first cell (where the cursor was before it printed).
        return (g.x + 2 + 6, g.y + 2, 6 * (len(word) - 1), 13)

    wait_text_shown(s, word_line, f"xterm to show {word!r}")
    g = geometries[-1]
    log(f"xterm {wid:#x}: X geometry {' then '.join(map(str, geometries))}, "
        f"focused frame on screen {frame}")
    # First line of the xterm: 2 px internal border, 13 px "fixed" font.
    double_click(s, g.x + 20, g.y + 9)
    # xterm takes the selection when it handles the release, which reaches
    # it through Xwayland after the click was sent: ask until it has.
    got = [None]

    def selected():
        r = s.run(["xclip", "-o", "-selection", sel], timeout=10, check_rc=False)
        got[0] = (r.returncode, r.stdout, r.stderr.strip())
        return r.stdout == word

    try:
        s.wait_until(selected, timeout=15, interval=0.2,
                     what=f"xclip -o to show xterm's selection {word!r}")
    except harness.TestFailure:
        harness.fail(f"the double-click in xterm did not put {word!r} into the X "
                     f"{sel.upper()} selection (xclip -o: {got[0]})")
    # The compositor's window manager offers the X selection to Wayland
    # clients once Xwayland has told it of the new owner: an event of its
    # own X connection, not ordered with xclip's answer above. foot pastes
    # what Wayland offers, so that is waited for too.
    try:
        s.wait_until(lambda: wl_paste(s, sel)[1] == word, timeout=15, interval=0.2,
                     what=f"wl-paste to show xterm's selection {word!r}")
    except harness.TestFailure:
        harness.fail(f"xterm's {sel.upper()} selection {word!r} never reached Wayland "
                     f"clients (wl-paste: {wl_paste(s, sel)})")
    out = os.path.join(s.tmp, f"foot-{sel}.txt")
    dst = s.spawn(["foot"] + reader(out, word), name="foot-dst")
    new_focused_frame(s, frame)
    s.key(paste_key)
    try:
        s.wait_until(lambda: read_file(out) is not None, timeout=15,
                     what=f"foot's shell to read {len(word)} characters after {paste_key}")
    except harness.TestFailure as e:
        harness.fail(f"copy in xterm ({sel}), paste in foot: {e}; "
                     f"wl-paste now gives {wl_paste(s, sel)!r}")
    check(read_file(out) == word, f"copy in xterm ({sel}), paste in foot ({paste_key}): foot "
                                  f"got {read_file(out)!r}, expected {word!r}")
    log(f"xterm -> foot ({sel}): ok")
    for p in (dst, src):
        s.stop_client(p)


def wl_paste(s, sel):
    flag = ["--primary"] if sel == "primary" else []
    r = s.run(["wl-paste", "--no-newline"] + flag, timeout=10, check_rc=False)
    return (r.returncode, r.stdout, r.stderr.strip())


def foot_to_xterm(s, sel, word, copy_key, xrm):
    """Select word in foot by double-click (copy_key too), paste into xterm."""
    src = s.spawn(["foot"] + shower(word), name="foot-src")
    _, frame = s.wait_for_border(FOCUSED, what="the source foot focused")
    # First line of foot's text: its content starts at its window geometry,
    # below the compositor's title bar.
    geo = next(w for w in s.windows() if w["focused"])
    wait_text_shown(s, lambda: (geo["x"] + 12, geo["y"], 40, 14), f"foot to show {word!r}")
    double_click(s, geo["x"] + 20, geo["y"] + 8)
    if copy_key:
        s.key(copy_key)
    got = [None]

    def selected():
        got[0] = wl_paste(s, sel)
        return got[0][1] == word

    try:
        s.wait_until(selected, timeout=15, interval=0.2,
                     what=f"wl-paste to show foot's selection {word!r}")
    except harness.TestFailure:
        harness.fail(f"the double-click in foot (then {copy_key or 'nothing'}) did not put "
                     f"{word!r} into the Wayland {sel} selection (wl-paste: {got[0]}) "
                     f"(saved {s.save(s.screenshot(), 'foot-selection')})")
    out = os.path.join(s.tmp, f"xterm-{sel}.txt")
    dst = s.spawn(["xterm", "-name", "xdst", "-geometry", "40x5+760+300"] + xrm
                  + ["-e"] + reader(out, word), name="xterm-dst")
    s.wait_x_window("--classname", "xdst", timeout=15)
    new_focused_frame(s, frame)
    s.key("shift+Insert")
    s.wait_until(lambda: read_file(out) is not None, timeout=15,
                 what=f"copy in foot ({sel}), paste in xterm: xterm's shell to read "
                      f"{len(word)} characters after Shift+Insert")
    check(read_file(out) == word, f"copy in foot ({sel}), paste in xterm: xterm got "
                                  f"{read_file(out)!r}, expected {word!r}")
    log(f"foot -> xterm ({sel}): ok")
    for p in (dst, src):
        s.stop_client(p)


def test(h):
    with Session(h, "tools", x11=True) as s:
        tools_part(s)
    with Session(h, "terminals", x11=True) as s:
        xterm_to_foot(s, "primary", "xtermPrimaryWord42", [], "shift+Insert")
        xterm_to_foot(s, "clipboard", "xtermClipboardWord7",
                      ["-xrm", "XTerm*selectToClipboard: true"], "ctrl+shift+v")
        foot_to_xterm(s, "primary", "footPrimaryWord99", None, [])
        foot_to_xterm(s, "clipboard", "footClipboardWord3", "ctrl+shift+c",
                      ["-xrm", "XTerm.vt100.translations: #override "
                               "Shift <Key>Insert: insert-selection(CLIPBOARD)"])


harness.main(test)
