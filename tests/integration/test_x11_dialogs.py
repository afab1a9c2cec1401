#!/usr/bin/env python3
"""X dialogs and menus: `xmessage -center` appears centred on the output
(where X asks) and takes the keyboard (Return presses its default button);
xterm's Ctrl+left-button menu appears as an override-redirect window at the
pointer, drawn above the xterm where X put it, and goes away when the button
is released."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, OUTPUT_H, OUTPUT_W, Rect, Session, check, log  # noqa: E402


def _blank(img, rects):
    """img's pixel bytes with rects set to black (to ignore them)."""
    data = bytearray(img.data)
    for r in rects:
        r = Rect(*r).intersect(img.rect)
        for y in range(r.y, r.y2):
            off = (y * img.width + r.x) * 3
            data[off:off + r.w * 3] = bytes(r.w * 3)
    return bytes(data)


def diff_bbox(a, b, exclude=()):
    """Bounding box of the pixels that differ between two screenshots of
    the same size, ignoring the exclude rects; None if none differ."""
    da, db = _blank(a, exclude), _blank(b, exclude)
    stride = a.width * 3
    x0, y0, x1, y1 = a.width, a.height, -1, -1
    for y in range(a.height):
        ra, rb = da[y * stride:(y + 1) * stride], db[y * stride:(y + 1) * stride]
        if ra == rb:
            continue
        first = len(os.path.commonprefix([ra, rb])) // 3
        last = (stride - 1 - len(os.path.commonprefix([ra[::-1], rb[::-1]]))) // 3
        x0, x1 = min(x0, first), max(x1, last)
        y0 = min(y0, y)
        y1 = y
    if x1 < 0:
        return None
    return Rect(x0, y0, x1 - x0 + 1, y1 - y0 + 1)


def xmessage_part(s):
    msg = s.spawn(["xmessage", "-center", "-default", "okay", "-buttons", "okay:7",
                   "a dialog from X, centred"], name="xmessage")
    wid = s.wait_x_window("--classname", "xmessage", timeout=15)
    g = s.x_geometry(wid)
    log(f"xmessage: X window {wid:#x} covers {g}")
    cx, cy = OUTPUT_W // 2, OUTPUT_H // 2
    check(abs(g.center()[0] - cx) <= 50 and abs(g.center()[1] - cy) <= 50,
          f"X put the -center dialog at {g} (centre {g.center()}), not near the output centre "
          f"{cx},{cy}")

    def visible(img):
        box = img.bbox_not(BACKGROUND, exclude=s.cursor_exclusion())
        if box is None:
            return None
        if img.count_not(BACKGROUND, rect=g) < 0.95 * g.w * g.h:
            return None
        return box

    img, box = s.wait_screenshot(visible, timeout=10,
                                 what=f"the xmessage dialog drawn where X has it ({g})")
    log(f"dialog on screen: {box} (centre {box.center()})")
    check(abs(box.center()[0] - cx) <= 50 and abs(box.center()[1] - cy) <= 50,
          lambda: f"the dialog is drawn at {box} (centre {box.center()}), more than 50 px from "
                  f"the output centre {cx},{cy} (saved {s.save(img, 'xmessage')})")
    title = next(w["title_bar"]["height"] for w in s.windows() if w["focused"])
    check(box.w <= g.w + 8 and box.h <= g.h + title + 8,
          lambda: f"more than the dialog and its {title} px title bar is drawn: {box} vs "
                  f"the X window {g} (saved {s.save(img, 'xmessage')})")

    # It has the keyboard: Return presses the default button, xmessage exits
    # with that button's code and its window goes away.
    s.key("Return")
    rc = msg.wait(15)  # (a hang bound: under ASan its exit runs LeakSanitizer)
    check(rc == 7, f"xmessage did not get Return (exit code {rc}, expected 7): the dialog "
                   f"did not get keyboard focus?\n{msg.log_tail()}")
    s.clients.remove(msg)
    s.wait_screenshot(s.only_background, timeout=15, what="the dialog to disappear")


def menu_part(s):
    s.spawn(["xterm", "-bg", "white", "-fg", "black", "-geometry", "40x8+100+100"],
            name="xterm")
    wid = s.wait_x_window("--classname", "xterm", timeout=15)
    g = s.x_geometry(wid)
    log(f"xterm covers {g}")
    # Near the xterm's bottom-right corner, so most of the menu is over the
    # desktop; above its middle so the menu has room below.
    px, py = g.x2 - 30, g.y2 - 30
    img0, _ = s.wait_screenshot(lambda img: img.count_not(BACKGROUND, rect=g) >= 0.95 * g.w * g.h,
                                timeout=10, what=f"the xterm drawn at {g}")
    s.vpointer("move", px, py)
    # The xterm may redraw once the pointer enters (its cursor, its frame):
    # "before" is the screen once two consecutive screenshots agree.
    prev = [None]

    def settled(img):
        ok = prev[0] is not None and img.diff_count(prev[0]) == 0
        prev[0] = img
        return ok
    before, _ = s.wait_screenshot(settled, what="the screen to settle after the pointer moved")
    excl = [Rect(px - 32, py - 32, 80, 80)]

    hold = s.hold_modifiers("ctrl")
    # Ctrl+button press; the button stays down (the seat keeps it pressed)
    # until the "up" below: xterm's menu is up exactly as long.
    s.vpointer("down", "left")
    released = False
    try:
        ors = s.wait_until(lambda: s.x_override_redirect_windows(min_size=20), timeout=15,
                           what="an override-redirect X window (xterm's Ctrl+click menu)")
        check(len(ors) == 1, f"{len(ors)} override-redirect windows: {ors}")
        (mwid, mi), = ors.items()
        mg = s.x_geometry(mwid)
        log(f"menu: X window {mwid:#x} covers {mg}; click point {px},{py}")
        check(mg.contains(px, py) and py - mg.y <= 60,
              f"X put the menu at {mg}, not at the click point {px},{py} (expected it to "
              f"contain the point, within 60 px of its top)")

        # Only look near the menu: elsewhere the xterm may redraw (its text
        # cursor turns hollow when the menu takes the keyboard). The xterm's
        # frame is ignored too: the menu has the keyboard focus, so the frame
        # turns unfocused at the xterm's next commit, or not, if it draws
        # nothing meanwhile.
        near = Rect(mg.x - 30, mg.y - 30, mg.w + 60, mg.h + 60).intersect(before.rect)
        frame = [Rect(g.x - 2, g.y - 2, g.w + 4, 2), Rect(g.x - 2, g.y2, g.w + 4, 2),
                 Rect(g.x - 2, g.y, 2, g.h), Rect(g.x2, g.y, 2, g.h)]
        ignore = [Rect(e.x - near.x, e.y - near.y, e.w, e.h) for e in excl + frame]

        def menu_drawn(img):
            box = diff_bbox(before.crop(near), img.crop(near), exclude=ignore)
            if box is not None:
                box = Rect(box.x + near.x, box.y + near.y, box.w, box.h)
            if box is None:
                return None
            if max(abs(box.x - mg.x), abs(box.y - mg.y), abs(box.x2 - mg.x2),
                   abs(box.y2 - mg.y2)) > 4:
                return None
            return box

        img, box = s.wait_screenshot(menu_drawn, timeout=15,
                                     what=f"the menu drawn where X has it, {mg} (the changed "
                                          f"area of the screen)")
        log(f"menu drawn at {box}")
        # Above the xterm: where the two overlap, the menu's pixels show.
        over = mg.intersect(g)
        if over.w and over.h:
            changed = diff_bbox(before.crop(over), img.crop(over),
                                exclude=[Rect(e.x - over.x, e.y - over.y, e.w, e.h)
                                         for e in excl])
            check(changed is not None,
                  lambda: f"the menu is not drawn above the xterm in their overlap {over} "
                          f"(saved {s.save(img, 'menu')})")
        # Over the desktop, it is opaque.
        desk = [Rect(mg.x, max(mg.y, g.y2 + 4), mg.w, mg.y2 - max(mg.y, g.y2 + 4)),
                Rect(max(mg.x, g.x2 + 4), mg.y, mg.x2 - max(mg.x, g.x2 + 4), mg.h)]
        for d in desk:
            if d.w > 0 and d.h > 0:
                bg = img.count(BACKGROUND, rect=d)
                check(bg == 0, lambda: f"{bg} desktop pixels show through the menu in {d} "
                                       f"(saved {s.save(img, 'menu')})")
        s.vpointer("up", "left")
        released = True
    finally:
        if not released:
            try:
                s.vpointer("up", "left")
            except harness.TestFailure as e:
                log(f"(releasing the button failed too: {e})")
        s.release_modifiers(hold)

    s.wait_until(lambda: not s.x_override_redirect_windows(min_size=20), timeout=15,
                 what="the menu's X window to unmap after the button was released")

    def gone(img):
        return diff_bbox(before.crop(near), img.crop(near),
                         exclude=[Rect(e.x - near.x, e.y - near.y, e.w, e.h)
                                  for e in excl]) is None

    s.wait_screenshot(gone, timeout=15, what="the screen to show the xterm alone again after "
                                            "the menu closed")


def test(h):
    with Session(h, x11=True) as s:
        xmessage_part(s)
        menu_part(s)


harness.main(test)
