#!/usr/bin/env python3
"""Large pastes from X programs into Wayland clients, exact to the byte
(docs/x11.md "The clipboard between X and Wayland").

An X selection larger than the owner's chunk goes in pieces (ICCCM INCR):
the owner puts a chunk on wlroots' requestor window, wlroots' window
manager reads it, writes it to the Wayland client's pipe and deletes the
property, and the owner puts the next. xclip's chunk is about 1 MiB, Tk's
4000 bytes. wlroots 0.15 took a full pipe at the start of a chunk (EAGAIN)
for an error and ended the paste early; xclip, left half-way, then served
no other paste (the next wl-paste hung); and a client that closed its pipe
early killed the compositor (SIGPIPE). Checked, on the X ring and on the
socket, with xclip and a Tk program as the owners:

1. exact bytes (sha256): xclip 2 MB and 8 MB, Tk 40 KB and 2 MB, each
   pasted three times by wl-paste; xclip's 2 MB through the primary
   selection too;
2. a reader that waits: wl-paste into a reader that takes nothing until
   told. The pipe fills with whole Tk chunks, so a chunk comes to a full
   pipe on every run: the test waits for the compositor to report the
   chunk held (wlroots alone ends the paste there instead: the test then
   fails, saying how many bytes came), then lets the reader read: the
   paste is whole, and the compositor holds no descriptor more than
   before;
3. three pastes of Tk's 2 MB at once, each whole;
4. a reader that stops early (wl-paste | head -c 1000) with each owner:
   the compositor lives, and the same owner's next paste is whole (wlroots
   gives the transfer up half-way; the compositor takes the owner's
   remaining chunks, else xclip waits for them and serves nobody).
Nothing here waits for a duration: each step waits for the state it is
about (a process's exit, an offer, a log line), with hang bounds.
"""
import hashlib
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, ResourceBaseline, Session, check, log  # noqa: E402
from harness.selections import TEXT, describe, offered, selection_text  # noqa: E402
from harness.selections import read_bytes as read  # noqa: E402


# Owns the CLIPBOARD with a file's bytes (ASCII: UTF8_STRING is the same
# bytes), says "ready" once it does.
TK_OWNER = r"""
set f [open [lindex $argv 0] rb]
fconfigure $f -translation binary
set d [read $f]
close $f
wm withdraw .
clipboard clear
clipboard append -- $d
puts ready
flush stdout
"""

# Reads nothing from stdin until a line comes on the FIFO argv[2], then
# copies stdin to argv[1] until EOF.
WAITING_READER = r"""
import os, sys
ctl = os.open(sys.argv[2], os.O_RDONLY)
os.read(ctl, 16)
with open(sys.argv[1], "wb") as out:
    while True:
        b = os.read(0, 65536)
        if not b:
            break
        out.write(b)
"""

HELD = re.compile(r"X paste to Wayland: (\d+) X events held until the client's pipe had "
                  r"room, (\d+) waiting now")

# wlroots' own line (xwayland/selection/incoming.c) when it ends a paste
# whose reader has gone.
CLOSED_PIPE = re.compile(r"write error to target fd \d+: Broken pipe")


def held_lines(s, since):
    """(held in all, waiting now) of each of the compositor's lines about
    held pastes after line since."""
    lines = s.stderr_text().splitlines()[since:]
    return [(int(m.group(1)), int(m.group(2))) for m in map(HELD.search, lines) if m]




def wl_paste_argv(primary):
    return ["wl-paste", "-n", "-t", TEXT] + (["--primary"] if primary else [])


class Owner:
    """An X program owning a selection with data (xclip or Tk), on the ring
    or on the socket, offered to Wayland clients."""

    def __init__(self, s, kind, transport, size, selection="clipboard"):
        self.s = s
        self.kind = kind
        self.primary = selection == "primary"
        self.tag = f"{transport}-{kind}-{selection}-{size}"
        self.data = selection_text(self.tag, size)
        self.path = os.path.join(s.tmp, f"{self.tag}.txt")
        with open(self.path, "wb") as f:
            f.write(self.data)
        env = {"SMT_X11RING": "off"} if transport == "socket" else None
        clear = ["wl-copy", "--clear"] + (["--primary"] if self.primary else [])
        s.run(clear)
        s.wait_until(lambda: not self.offered(), timeout=15, interval=0.2,
                     what=f"no {selection} selection before {self.tag}")
        if kind == "xclip":
            self.p = s.spawn(["xclip", "-quiet", "-selection", selection, "-i", self.path],
                             name=f"xclip-{self.tag}", env=env)
        else:
            script = os.path.join(s.tmp, "tk-owner.tcl")
            with open(script, "w") as f:
                f.write(TK_OWNER)
            self.p = s.spawn(["wish", script, self.path], name=f"tk-{self.tag}", env=env)
        s.wait_until(self.offered, timeout=30, interval=0.2,
                     what=f"{self.tag} offered to Wayland clients as {TEXT}")

    def offered(self):
        return offered(self.s, self.primary)

    def paste(self, label):
        """wl-paste into a file; fails unless the bytes are exactly ours."""
        out = os.path.join(self.s.tmp, f"out-{self.tag}-{label}")
        argv = shlex.join(wl_paste_argv(self.primary))
        try:
            self.s.run(["sh", "-c", f"exec {argv} > {shlex.quote(out)}"], timeout=60)
        except harness.TestFailure as e:
            harness.fail(f"{self.tag}, paste {label}: {e}; it had {describe(read(out), self.data)}")
        got = read(out)
        check(got == self.data, f"{self.tag}, paste {label}: {describe(got, self.data)}")

    def stop(self):
        self.s.stop_client(self.p)



def exact_part(s, transport):
    for kind, size in (("xclip", 2_000_000), ("xclip", 8_000_000), ("tk", 40_000),
                       ("tk", 2_000_000)):
        o = Owner(s, kind, transport, size)
        for i in range(3):
            o.paste(str(i))
        o.stop()
        log(f"{o.tag}: 3 pastes whole ({hashlib.sha256(o.data).hexdigest()[:12]})")
    if transport == "ring":
        o = Owner(s, "xclip", transport, 2_000_000, selection="primary")
        o.paste("0")
        o.stop()
        log(f"{o.tag}: whole")


def waiting_reader_part(s, transport):
    o = Owner(s, "tk", transport, 2_000_000)
    # The baseline with no Wayland client but Xwayland and the harness's
    # keyboard anchor (the list-types probes and screenshots before are
    # gone), as it will be at the end.
    s.wait_clients(2)
    baseline = ResourceBaseline(s.compositor.pid)
    since = len(s.stderr_text().splitlines())
    reader = os.path.join(s.tmp, "waiting_reader.py")
    with open(reader, "w") as f:
        f.write(WAITING_READER)
    out = os.path.join(s.tmp, f"out-{o.tag}-waiting")
    fifo = out + ".go"
    os.mkfifo(fifo)
    # Ours open for writing too, so the reader's open never waits on us and
    # "go" waits in the FIFO should it come first.
    go = os.open(fifo, os.O_RDWR)
    try:
        rp = s.spawn(["sh", "-c", f"{shlex.join(wl_paste_argv(False))} | "
                                  f"python3 {shlex.quote(reader)} {shlex.quote(out)} "
                                  f"{shlex.quote(fifo)}"], name=f"waiting-{o.tag}")
        try:
            # Said at most once a second: with one waiting (ours: the
            # earlier pastes have all ended).
            s.wait_until(lambda: any(w > 0 for _, w in held_lines(s, since)), timeout=30,
                         what="the compositor to report a chunk held for the waiting reader's "
                              "full pipe")
        except harness.TestFailure as e:
            os.write(go, b"go\n")
            s.wait_until(lambda: not rp.alive(), timeout=30, what="the reader to finish")
            harness.fail(f"{o.tag}: {e}; once read, the paste had {describe(read(out), o.data)}")
        os.write(go, b"go\n")
        s.wait_until(lambda: not rp.alive(), timeout=60,
                     what=f"the waiting reader to read {o.tag}'s paste to its end")
    finally:
        os.close(go)
    got = read(out)
    check(got == o.data, f"{o.tag}, paste into a reader that waited: {describe(got, o.data)}")
    s.stop_client(rp)
    baseline.wait_back(s, f"{transport}: the compositor's descriptors after the held paste",
                       mappings=False)
    log(f"{o.tag}: held for a waiting reader ({held_lines(s, since)}), whole")

    # Three at once.
    outs = [os.path.join(s.tmp, f"out-{o.tag}-together-{i}") for i in range(3)]
    ps = [s.spawn(["sh", "-c", f"exec {shlex.join(wl_paste_argv(False))} > {shlex.quote(p)}"],
                  name=f"together-{i}") for i, p in enumerate(outs)]
    for p in ps:
        s.wait_until(lambda: not p.alive(), timeout=60, what="three pastes at once to end")
        s.stop_client(p)
    for i, p in enumerate(outs):
        check(read(p) == o.data, f"{o.tag}, paste {i} of three at once: "
                                 f"{describe(read(p), o.data)}")
    log(f"{o.tag}: three pastes at once whole")
    o.stop()


def early_close_part(s, transport):
    for kind in ("tk", "xclip"):
        o = Owner(s, kind, transport, 2_000_000)
        out = os.path.join(s.tmp, f"out-{o.tag}-head")
        since = len(s.stderr_text().splitlines())
        s.run(["sh", "-c", f"{shlex.join(wl_paste_argv(False))} | head -c 1000 > "
                           f"{shlex.quote(out)}"], timeout=60, check_rc=False)
        # wlroots' next write to the pipe meets the closed end (its log says
        # so): waited for, the compositor checked alive all along.
        s.wait_until(lambda: any(CLOSED_PIPE.search(ln)
                                 for ln in s.stderr_text().splitlines()[since:]),
                     timeout=30, what=f"{o.tag}: the window manager to meet the closed pipe")
        check(read(out) == o.data[:1000], f"{o.tag}: the first 1000 bytes: "
                                          f"{describe(read(out), o.data[:1000])}")
        # The owner was taken to the end of its transfer (xclip would
        # otherwise wait for it and serve nobody): the next paste is whole.
        o.paste("after-head")
        o.stop()
        log(f"{o.tag}: a paste closed early; the compositor lives, the next whole")


def test(h):
    with Session(h, "incr", x11=True) as s:
        s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
        s.wait_x_window("--classname", "focusholder", timeout=15)
        # wlroots bridges an X selection only while an X window has focus.
        s.wait_for_border(FOCUSED, what="the xterm to be focused")
        for transport in ("ring", "socket"):
            exact_part(s, transport)
            waiting_reader_part(s, transport)
            early_close_part(s, transport)


harness.main(test)
