#!/usr/bin/env python3
"""A paste from an X owner that starts an INCR transfer and stops sending
chunks ends (xwayland-glue/wm/wm_paste_pipe.c; docs/reliability.md, "X
clients' windows and selection transfers", session 31).

wlroots 0.15 waits for an INCR owner's next chunk with no time limit:
before session 31 an owner that answered INCR and never sent a chunk (or
stopped after some) kept the Wayland reader waiting and a paste slot
taken for good, bounded only by `x11-client-pastes`. Now a paste whose
owner has let wlroots wait for a chunk for 5 s is ended like a stalled
reader's: the reader keeps what came and sees the end of its pipe.

Checked, what happened, never a duration (smt-x11-wm-hostile targets
--incr K as the owner, wl-paste as the readers):
1. an owner that sends no chunk, two readers: both end with 0 bytes; the
   owner saw both requests; x11_pastes counts 2 owner_stalled, and no
   paste is charged to the owner any more;
2. an owner that sends 2 chunks of 1000 bytes, then none: its reader ends
   with exactly those 2000 bytes, after the owner said it was asked for a
   third; owner_stalled 3;
3. another X client's paste (xclip) afterwards is whole.
Without the time limit the readers of step 1 wait (the test fails on its
bound, checked).
"""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402
from harness.selections import describe, paste_text, read_bytes, selection_text  # noqa: E402
from harness.selections import xclip_owns  # noqa: E402

MIME = "application/x-smt-0"


def pastes(s):
    return s.control("stats")["x11_pastes"]


def owner_said(owner, word):
    text = (read_bytes(owner.log_path) or b"").decode(errors="replace")
    return [ln for ln in text.splitlines() if ln.startswith(word + " ")]


def start_owner(s, h, chunks):
    owner = s.spawn([wm_hostile_tool(h), "targets", "1", "0", "--once", "--incr", str(chunks)],
                    name=f"incr-owner-{chunks}")
    s.wait_until(lambda: "owner" in (read_bytes(owner.log_path) or b"").decode(), timeout=60,
                 what="the INCR owner to have its TARGETS read")
    s.wait_until(lambda: MIME in s.run(["wl-paste", "--list-types"], check_rc=False).stdout,
                 timeout=30, interval=0.2, what=f"{MIME} offered to Wayland clients")
    return owner


def readers(s, tag, n):
    out = []
    for i in range(n):
        path = os.path.join(s.tmp, f"out-{tag}-{i}")
        p = s.spawn(["sh", "-c", f"exec {shlex.join(['wl-paste', '-n', '-t', MIME])} > "
                                 f"{shlex.quote(path)}"], name=f"reader-{tag}-{i}")
        out.append((p, path))
    return out


def test(h):
    with Session(h, "paste-owner-stall", x11=True) as s:
        s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
        s.wait_x_window("--classname", "focusholder", timeout=15)
        s.wait_for_border(FOCUSED, what="the xterm to be focused")

        # 1. INCR announced, no chunk ever.
        owner = start_owner(s, h, 0)
        rs = readers(s, "none", 2)
        s.wait_until(lambda: len(owner_said(owner, "incr")) == 2, timeout=60,
                     what="the owner to answer both pastes with INCR")
        s.wait_until(lambda: all(not p.alive() for p, _ in rs), timeout=60,
                     what="the readers of an owner that sends no chunk to end")
        for _, path in rs:
            check(read_bytes(path) == b"", f"a reader of no chunk got {len(read_bytes(path))} "
                                           "bytes")
        st = pastes(s)
        check(st["owner_stalled"] == 2 and st["abandoned"] == 0,
              f"x11_pastes after 2 pastes of an owner that sent no chunk: {st}")
        s.wait_until(lambda: pastes(s)["clients"] == [], timeout=30,
                     what="no paste charged to the stalled owner")
        check("has sent no chunk of its INCR transfer" in s.stderr_text(),
              "no line about the stalled owner was logged")
        s.stop_client(owner)
        log(f"an owner that sends no chunk: 2 readers ended, empty: {pastes(s)}")

        # 2. Two chunks, then none.
        owner = start_owner(s, h, 2)
        (reader, path), = readers(s, "two", 1)
        s.wait_until(lambda: not reader.alive(), timeout=60,
                     what="the reader of an owner that stops after 2 chunks to end")
        want = b"a" * 1000 + b"b" * 1000
        check(read_bytes(path) == want,
              f"the reader of 2 chunks: {describe(read_bytes(path), want)}")
        check(len(owner_said(owner, "stalled")) >= 1,
              f"the owner was not asked for a third chunk: {owner_said(owner, 'stalled')}")
        check(pastes(s)["owner_stalled"] == 3, f"x11_pastes: {pastes(s)}")
        s.stop_client(owner)
        log("an owner that stops after 2 chunks: its reader got the 2000 bytes and the end")

        # 3. Another owner's paste is whole.
        data = selection_text("xclip", 300_000)
        xclip = xclip_owns(s, data, MIME)
        got = paste_text(s, "out-xclip")
        check(got == data, f"xclip's paste: {describe(got, data)}")
        s.stop_client(xclip)
        log("xclip's paste afterwards: whole")


harness.main(test)
