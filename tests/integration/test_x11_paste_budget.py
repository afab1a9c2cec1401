#!/usr/bin/env python3
"""Pastes from an X program into Wayland clients are charged to the X
client that owns the selection (xwayland-glue/wm/wm_paste_pipe.c;
docs/reliability.md, "X clients' windows and selection transfers").

The window manager follows each paste in one of 64 slots until it ends. An
owner that never answers (or never finishes its INCR transfers) keeps a
slot per paste while its readers wait: before session 30 one such owner
took every slot, and the others' pastes went unguarded. Now past
`x11-client-pastes` pastes of one owner under way, a new one is refused
before the owner is asked (the reader gets an empty paste, the log names
the limit, `smtctl stats` x11_pastes counts it).

Checked, what happened, never a duration, with `x11-client-pastes = 4`:
1. an owner that answers only TARGETS (smt-x11-wm-hostile targets
   --silent) and 12 Wayland readers: the owner is asked 4 times, 8 readers
   end at once with nothing, 4 still wait; the statistics charge 4 pastes
   to one client and count 8 refused; the log names the limit;
2. meanwhile another X client (xclip) takes the clipboard: its paste is
   whole and followed (not refused, not unguarded);
3. the silent owner, no longer owning the selection, has not answered:
   its 4 readers are given the end of their pipes, empty (before: they
   waited for good).
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

LIMIT = 4
READERS = 12
CONFIG = f"[limits]\nx11-client-pastes = {LIMIT}\n"
MIME = "application/x-smt-0"


def pastes(s):
    st = s.control("stats")
    check("x11_pastes" in st, f"`smtctl stats` has no x11_pastes: {sorted(st)}")
    return st["x11_pastes"]


def test(h):
    with Session(h, "paste-budget", x11=True, config=CONFIG) as s:
        s.spawn(["xterm", "-name", "focusholder", "-geometry", "40x5+800+500"], name="xterm")
        s.wait_x_window("--classname", "focusholder", timeout=15)
        s.wait_for_border(FOCUSED, what="the xterm to be focused")

        owner = s.spawn([wm_hostile_tool(h), "targets", "1", "0", "--once", "--silent"],
                        name="silent-owner")

        def asked():
            """The requestor windows the owner was asked from (an owner that
            has not answered is asked again after a while: the same
            window)."""
            text = (read_bytes(owner.log_path) or b"").decode(errors="replace")
            return len({ln.split()[-1] for ln in text.splitlines()
                        if ln.startswith("unanswered ")})
        s.wait_until(lambda: "owner" in open(owner.log_path).read(), timeout=60,
                     what="the silent owner to have its TARGETS read")
        s.wait_until(lambda: MIME in s.run(["wl-paste", "--list-types"],
                                           check_rc=False).stdout,
                     timeout=30, interval=0.2, what=f"{MIME} offered to Wayland clients")

        readers = []
        for i in range(READERS):
            out = os.path.join(s.tmp, f"out-{i}")
            readers.append(s.spawn(
                ["sh", "-c", f"exec {shlex.join(['wl-paste', '-n', '-t', MIME])} > "
                             f"{shlex.quote(out)}"], name=f"reader-{i}"))
        refused = READERS - LIMIT
        s.wait_until(lambda: sum(not r.alive() for r in readers) == refused, timeout=60,
                     what=f"{refused} readers to end")
        s.wait_until(lambda: pastes(s)["refused"] == refused, timeout=60,
                     what=f"{refused} pastes refused")
        st = pastes(s)
        check(st["clients"] == [{"client": st["clients"][0]["client"], "pastes": LIMIT}]
              if st["clients"] else False,
              f"x11_pastes: {LIMIT} pastes charged to the silent owner: {st}")
        check(st["unguarded"] == 0 and st["client_pastes_max"] == LIMIT, f"x11_pastes: {st}")
        check(asked() == LIMIT, f"the owner was asked {asked()} times, not {LIMIT}")
        for r in readers:
            if not r.alive():
                check(read_bytes(os.path.join(s.tmp, f"out-{readers.index(r)}")) == b"",
                      "a refused paste has bytes")
        check("limit x11-client-pastes=4 reached" in s.stderr_text(),
              "no refusal naming x11-client-pastes was logged")
        log(f"{LIMIT} pastes of the silent owner followed, {refused} refused: {st}")

        # Another X client's paste is followed and whole meanwhile.
        data = selection_text("xclip", 300_000)
        xclip = xclip_owns(s, data, MIME)
        followed = pastes(s)["followed"]
        got = paste_text(s, "out-xclip")
        check(got == data, f"xclip's paste: {describe(got, data)}")
        st = pastes(s)
        check(st["followed"] == followed + 1 and st["refused"] == refused and
              st["unguarded"] == 0, f"x11_pastes after xclip's paste: {st}")
        log("another X client's paste whole and followed")

        # The silent owner, no longer owning the selection, never answers:
        # its readers are given the end of their pipes, empty.
        s.wait_until(lambda: all(not r.alive() for r in readers), timeout=60,
                     what="the silent owner's readers to end")
        for i in range(READERS):
            check(read_bytes(os.path.join(s.tmp, f"out-{i}")) == b"",
                  f"reader {i} of the silent owner has bytes")
        st = pastes(s)
        check(st["clients"] == [] and st["unanswered"] == LIMIT,
              f"x11_pastes after the silent owner's pastes ended: {st}")
        s.stop_client(owner)
        s.stop_client(xclip)
        log("the silent owner's pastes ended, empty")


harness.main(test)
