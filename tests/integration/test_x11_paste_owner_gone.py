#!/usr/bin/env python3
"""A paste from an X program into a Wayland client ends when its owner goes
half-way (xwayland-glue/wm/wm_paste_pipe.c; red team, session 29).

wlroots 0.15 takes a large X selection chunk by chunk (ICCCM INCR) and
waits for each next chunk with no time limit; when the owner's client goes
in the middle (killed, crashed, closed), wlroots keeps waiting, and so does
the Wayland client reading the paste: before, a wl-paste of a killed
xclip's selection never saw the end of its pipe. Now the compositor, which
follows every paste and hears of the owner's end (XFixes), gives wlroots
the end it waits for; the client has what came before.

Checked, what happened, never a duration:
1. xclip owns 8 MB; a Wayland reader takes its first bytes (so the
   transfer is under way: wlroots writes xclip's first chunk, about 1 MiB,
   into a pipe that is full) and then stops; xclip is killed; the reader
   is let go: it must come to the end of its pipe (hang bound: without the
   mend it waits for good) with an exact prefix of the selection, the
   compositor must say it ended a paste because its owner went, and a
   paste of a new owner's selection afterwards is whole;
2. an owner that answers TARGETS and nothing else (smt-x11-wm-hostile
   targets --silent) is asked for a paste and then ends: the paste must
   end, empty (wlroots waited for the owner's answer for good).
"""
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
from harness.selections import TEXT, offered, read_bytes, selection_text  # noqa: E402

# Copies stdin to argv[1]; once it has its first bytes it makes the file
# argv[2] and reads nothing more until a line comes on the FIFO argv[3].
READER = r"""
import os, sys
out = open(sys.argv[1], "wb")
first = os.read(0, 4096)
out.write(first)
out.flush()
open(sys.argv[2], "w").close()
ctl = os.open(sys.argv[3], os.O_RDONLY)
os.read(ctl, 16)
while True:
    b = os.read(0, 65536)
    if not b:
        break
    out.write(b)
out.close()
"""

ORPHANED = re.compile(r"X paste to Wayland: .* (\d+) pastes ended because their owner went")





def own(s, tag, size):
    """xclip owning the CLIPBOARD with size bytes, offered to Wayland."""
    data = selection_text(tag, size)
    path = os.path.join(s.tmp, f"{tag}.txt")
    with open(path, "wb") as f:
        f.write(data)
    s.run(["wl-copy", "--clear"])
    s.wait_until(lambda: not offered(s), timeout=15, interval=0.2,
                 what=f"no clipboard before {tag}")
    p = s.spawn(["xclip", "-quiet", "-selection", "clipboard", "-i", path], name=f"xclip-{tag}")
    s.wait_until(lambda: offered(s), timeout=30, interval=0.2,
                 what=f"{tag} offered to Wayland clients")
    return p, data


def orphaned(s):
    counts = [int(m.group(1)) for m in map(ORPHANED.search, s.stderr_text().splitlines()) if m]
    return counts[-1] if counts else 0


def silent_owner_part(s):
    before = orphaned(s)
    owner = s.spawn([wm_hostile_tool(s.h), "targets", "1", "0", "--once", "--silent"],
                    name="silent-owner")
    mime = "application/x-smt-0"

    def owner_says(word):
        return word in (read_bytes(owner.log_path) or b"").decode(errors="replace")
    s.wait_until(lambda: owner_says("owner"), timeout=60,
                 what="the silent owner to have its TARGETS read")
    s.wait_until(lambda: mime in s.run(["wl-paste", "--list-types"], check_rc=False).stdout,
                 timeout=30, interval=0.2, what=f"{mime} offered to Wayland clients")
    out = os.path.join(s.tmp, "out-silent")
    rp = s.spawn(["sh", "-c", f"exec {shlex.join(['wl-paste', '-n', '-t', mime])} > "
                              f"{shlex.quote(out)}"], name="silent-reader")
    s.wait_until(lambda: owner_says("unanswered"), timeout=30,
                 what="the silent owner to be asked for the paste")
    s.stop_client(owner)  # goes without answering
    try:
        s.wait_until(lambda: not rp.alive(), timeout=60, what="the paste to end")
    except harness.TestFailure as e:
        harness.fail(f"{e}: a paste asked of an owner that went before answering never ended")
    check(read_bytes(out) == b"", f"the paste of an owner that never answered has "
                                  f"{len(read_bytes(out))} bytes")
    s.wait_until(lambda: orphaned(s) > before, timeout=30,
                 what="the compositor to count the paste of the owner that went")
    s.stop_client(rp)
    log("a paste asked of an owner that went before answering ended, empty")


def test(h):
    with Session(h, "owner-gone", x11=True) as s:
        s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
        s.wait_x_window("--classname", "focusholder", timeout=15)
        # wlroots bridges an X selection only while an X window has focus.
        s.wait_for_border(FOCUSED, what="the xterm to be focused")

        owner, data = own(s, "dying", 8_000_000)
        reader = os.path.join(s.tmp, "reader.py")
        with open(reader, "w") as f:
            f.write(READER)
        out = os.path.join(s.tmp, "out-dying")
        started = out + ".started"
        fifo = out + ".go"
        os.mkfifo(fifo)
        go = os.open(fifo, os.O_RDWR)
        try:
            paste = shlex.join(["wl-paste", "-n", "-t", TEXT])
            rp = s.spawn(["sh", "-c", f"{paste} | python3 {shlex.quote(reader)} "
                                      f"{shlex.quote(out)} {shlex.quote(started)} "
                                      f"{shlex.quote(fifo)}"], name="reader")
            s.wait_until(lambda: os.path.exists(started), timeout=30,
                         what="the reader to get the paste's first bytes")
            s.stop_client(owner)  # the owner goes in the middle of its transfer
            log(f"xclip gone after the reader had {len(read_bytes(out))} bytes")
            os.write(go, b"go\n")
            try:
                s.wait_until(lambda: not rp.alive(), timeout=60,
                             what="the reader to reach the end of its pipe")
            except harness.TestFailure as e:
                harness.fail(f"{e}: the paste of a gone owner never ended; the reader has "
                             f"{len(read_bytes(out))} of {len(data)} bytes")
        finally:
            os.close(go)
        got = read_bytes(out)
        check(0 < len(got) < len(data) and got == data[:len(got)],
              f"the reader has {len(got)} bytes of {len(data)}; an exact prefix: "
              f"{got == data[:len(got)]}")
        s.wait_until(lambda: orphaned(s) >= 1, timeout=30,
                     what="the compositor to say it ended a paste whose owner went")
        s.stop_client(rp)
        log(f"the reader ended with {len(got)} bytes, an exact prefix")

        # The window manager goes on: a new owner's paste is whole.
        owner2, data2 = own(s, "after", 2_000_000)
        out2 = os.path.join(s.tmp, "out-after")
        paste = shlex.join(["wl-paste", "-n", "-t", TEXT])
        s.run(["sh", "-c", f"exec {paste} > {shlex.quote(out2)}"], timeout=60)
        check(read_bytes(out2) == data2,
              f"the next paste: {len(read_bytes(out2))} of {len(data2)} bytes")
        s.stop_client(owner2)
        log("the next owner's paste whole")

        silent_owner_part(s)


harness.main(test)
