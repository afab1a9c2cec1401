#!/usr/bin/env python3
"""Wayland selections sent to X clients are counted per X client and
bounded (xwayland-glue/wm/wm_selection_budget.c; docs/reliability.md,
"What a client can make the compositor hold").

For each request of an X client for a selection a Wayland client owns,
wlroots 0.15 makes a pipe, sends its write end to the Wayland source and
keeps the read end (and up to 64 KiB) until the transfer ends; it
replaces an older transfer only of the same requestor window, and never
ends one whose requestor is a child window (it cleans up only windows
with a surface). `smt-x11-wm-hostile selection-hold 80` (80 requestor
windows, nothing ever read) before: the compositor held a pipe per
request, and wl-copy, the clipboard's owner, was disconnected for the fds
it had not read yet (client-fds-unread): the clipboard was gone.

Checked (what happened, never a duration), with `x11-selection-transfers
= 12` for all X clients: the attacker gets its 8 transfers
(`x11-client-selection-transfers`), the other 72 requests are answered
refused (SelectionNotify, property None: the tool counts them), the
statistics say so, wl-copy is still connected and never disconnected; a
second X client meanwhile gets the 4 left of the 12 in all and is refused
past them, naming the total. Another Wayland client's round trips are
answered at the end.

Then both attackers go. wlroots 0.15 ends a transfer whose requestor is
destroyed only if that window had a surface: before session 31 the 12
transfers to their child windows stayed in wlroots for good (the
compositor's pipes, 11 of them with a second descriptor, wl-copy's writer
blocked, and wl-copy, which serves one paste at a time, gave nobody
anything afterwards: wl-paste hung), only no longer counted. Now the
window manager drives them to their end: the compositor holds no pipe more
than before the attack, none of wl-copy's writers is left, x11_selections
counts 12 ended for a gone requestor and none abandoned, and wl-paste
reads the 1 MiB whole (the build before: pipes held, wl-paste timed out,
checked). A third attacker, given the client bits
of one of them by the X server, first makes windows that take the ids the
gone one's requestors had, and must still get its 8 transfers: before
session 30 the compositor asked whether each requestor still existed
(GetGeometry), the reused ids answered, and the newcomer was refused for
its predecessor's transfers (0 transfers, 80 refused)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, round_trips_answered  # noqa: E402
from harness.processes import fd_targets  # noqa: E402

CLIENT = 8  # x11-client-selection-transfers' default
TOTAL = 12
HOLD = 80
CONFIG = f"[limits]\nx11-selection-transfers = {TOTAL}\n"


def said(p, text):
    with open(p.log_path) as f:
        return text in f.read()


def selections(s):
    st = s.control("stats")
    check("x11_selections" in st, f"`smtctl stats` has no x11_selections: {sorted(st)}")
    return st["x11_selections"]


def attack(s, h, name, granted=CLIENT, spare=0):
    p = s.spawn([wm_hostile_tool(h), "selection-hold", str(HOLD), "--spare", str(spare)],
                name=name)
    # Refusals are answered at once; the transfers let through wait for
    # good (the tool deletes nothing): `refused R` is final.
    s.wait_until(lambda: said(p, f"refused {HOLD - granted}\n"), timeout=90,
                 what=f"{name}: {HOLD - granted} requests answered refused")
    return p


def base_of(p):
    with open(p.log_path) as f:
        for line in f:
            if line.startswith("base "):
                return int(line.split()[1], 16)
    return None


def windows_of(s, base):
    """Top-level windows the window manager tracks for the X client `base`."""
    return sum(c["windows"] for c in s.control("stats")["x11_windows"]["clients"]
               if c["client"] == base)


def pipes(s):
    """The compositor's pipe descriptors."""
    return sorted(fd for fd, what in fd_targets(s.compositor.pid).items()
                  if what.startswith("pipe:"))


def children(p):
    """The pids of p's children (wl-copy's writers, one per transfer it
    serves)."""
    out = []
    for task in os.listdir(f"/proc/{p.pid}/task"):
        try:
            with open(f"/proc/{p.pid}/task/{task}/children") as f:
                out += f.read().split()
        except OSError:
            pass
    return out


def reused_ids(s, h, a, b, owner, pipes_before, data):
    """After both attackers have gone, their transfers end; then a third
    with the client bits of one of them, its spare windows taking that
    one's requestor ids."""
    bases = {base_of(a), base_of(b)}
    check(None not in bases and len(bases) == 2, f"the attackers' bases: {bases}")
    s.stop_client(b)
    s.stop_client(a)
    # Gone for the X server (their top-level windows destroyed), so that
    # the next client is given the lower of their client bits.
    s.wait_until(lambda: all(windows_of(s, base) == 0 for base in bases), timeout=60,
                 what="the attackers' windows to go")
    try:
        s.wait_until(lambda: pipes(s) == pipes_before, timeout=60,
                     what=f"the compositor's pipes to be those before the attack {pipes_before}")
    except harness.TestFailure as e:
        harness.fail(f"{e}: it has {pipes(s)}; x11_selections {selections(s)}")
    s.wait_until(lambda: children(owner) == [], timeout=30,
                 what="wl-copy's writers to the gone requestors to end")
    s.wait_until(lambda: selections(s).get("ended_for_gone_requestor") == TOTAL, timeout=30,
                 what=f"x11_selections to count {TOTAL} transfers ended for a gone requestor")
    st = selections(s)
    check(st["transfers"] == 0 and st["abandoned"] == 0,
          f"x11_selections after the attackers went: {st}")
    got = s.run(["wl-paste", "--no-newline"], timeout=60, check_rc=False)
    check(got.returncode == 0 and got.stdout == data,
          f"wl-paste after the attackers went: rc {got.returncode}, {len(got.stdout)} of "
          f"{len(data)} bytes")
    log(f"the gone attackers' {TOTAL} transfers ended: no pipe left, wl-copy serves again")
    refused_before = st["refused"]
    c = attack(s, h, "attacker-c", spare=2 * HOLD)
    check(base_of(c) in bases,
          f"the third attacker's base {base_of(c):#x} is not a gone one's {bases}")
    st = selections(s)
    check(st["transfers"] == CLIENT and st["refused"] - refused_before == HOLD - CLIENT,
          f"x11_selections after attacker-c (the ids of a gone client's requestors "
          f"reused): {st}")
    log(f"attacker-c (base {base_of(c):#x}, a gone attacker's) got its {CLIENT} transfers")
    s.stop_client(c)


def test(h):
    with Session(h, x11=True, config=CONFIG) as s:
        data = os.path.join(s.tmp, "clipboard.txt")
        text = "smt " * (1 << 18)  # 1 MiB: an INCR transfer
        with open(data, "w") as f:
            f.write(text)
        owner = s.spawn(["sh", "-c", f"exec wl-copy --foreground < '{data}'"], name="wl-copy")
        s.wait_until(lambda: "text/plain" in s.run(["wl-paste", "--list-types"],
                                                   check_rc=False).stdout,
                     timeout=30, what="wl-copy's selection")
        pipes_before = pipes(s)

        a = attack(s, h, "attacker-a")
        st = selections(s)
        check(st["transfers"] == CLIENT and st["refused"] == HOLD - CLIENT and
              st["refused_client_limit"] == HOLD - CLIENT and st["abandoned"] == 0,
              f"x11_selections after attacker-a: {st}")
        check(owner.alive(), "wl-copy ended")
        gone = [ln for ln in s.stderr_text().splitlines()
                if f"client pid {owner.pid} disconnected" in ln]
        check(not gone, f"wl-copy was disconnected: {gone}")

        # A second X client, while the first holds its 8: what is left of
        # the 12 in all, then refused naming the total.
        b = attack(s, h, "attacker-b", TOTAL - CLIENT)
        st = selections(s)
        check(st["transfers"] == TOTAL and st["refused_client_limit"] == HOLD - CLIENT and
              st["refused_total_limit"] == HOLD - (TOTAL - CLIENT),
              f"x11_selections after attacker-b: {st}")
        check(owner.alive(), "wl-copy ended")
        gone = [ln for ln in s.stderr_text().splitlines()
                if f"client pid {owner.pid} disconnected" in ln]
        check(not gone, f"wl-copy was disconnected: {gone}")
        # (Logged through the log rate limit: attacker-a's may have used
        # up the second's lines.)
        refusals = [ln for ln in s.stderr_text().splitlines()
                    if "limit x11-client-selection-transfers=8 reached" in ln]
        check(refusals, "no refusal was logged")

        round_trips_answered(s, h, "the attack", "0.2")
        log(f"x11_selections after two attackers: {st}")
        reused_ids(s, h, a, b, owner, pipes_before, text)
        check(owner.alive(), "wl-copy ended")
        s.stop_client(owner)


harness.main(test)
