#!/usr/bin/env python3
"""Virtual keyboards' keymaps are read safely, bounded and charged
(compositor/ring/keymap_limits.c, session 28). wlroots 0.15 maps a
keymap's fd at the size the client declares and compiles it with strlen:
before, a file shorter than declared killed the compositor (SIGBUS), any
size and any number of include statements was compiled on the main loop,
every keyboard held its keymap's memory and a memfd, counted nowhere,
and two keyboards typed on in turn sent a keymap fd to every client per
key (one that did not read for 16 ms was disconnected).
Each case here is either refused with wl_display's implementation error
naming what was refused, or served; the compositor lives through all of
them, another client's round trips are answered, a holder's keymaps show
in its account (memory, and one fd each, matching /proc) and leave with
it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case as run_case  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.accounts import Accounts, process_account, uid_used  # noqa: E402

REQUEST = "zwp_virtual_keyboard_v1.keymap: "


def victim_served(s, h, what):
    res = s.run([hostile_tool(h), "sync-probe", "0.3"], timeout=60, check_rc=False)
    check(res.returncode == 0 and "SYNC n=" in res.stdout,
          f"another client's round trips after {what}: {res.stdout}{res.stderr}")


# The compile time's share is tested on its own (compile_budget): here
# it must not be what refuses (a loaded machine compiles slowly).
CONFIG = """
[limits]
keymap-compile-ms = 1000
"""


def compile_budget(h):
    """One keyboard's keymap compiled again and again: each is within the
    limits, their time together is not (keymap-compile-ms, per uid: 50 ms
    a second by default). Before: all 2,000 compiled, each a few ms of the
    compositor's loop. The uid's share comes back with time."""
    with Session(h) as s:
        clients = s.wayland_clients()
        out = run_case(s, h, "keymap-reload",
                       [REQUEST + "limit keymap-compile-ms=50 reached: the uid's keymaps took",
                        "keymap-reload: refused after"], "2000")
        done = int(out.split("refused after ")[1].split()[0])
        check(done < 2000, f"keymap-reload: refused only after {done}")
        s.wait_clients(clients)
        victim_served(s, h, "the keymap reloads")
        # The share refills (50 ms a second): a keymap is compiled again.
        s.wait_until(lambda: s.run([hostile_tool(h), "keymap-unterminated"], timeout=60,
                                   check_rc=False).returncode == 0,
                     timeout=15, what="a keymap compiled again once the uid's share refilled")


XKB_ERRORS = 200
# The 3 messages of the keymap, as xkbcommon 1.5 words them.
XKB_ERROR_TEXTS = ('Identifier "SmtNoSuchModifier"', "Action SetMods definition ignored",
                   "Illegal action definition for <K1>")


def xkbcommon_errors(s):
    return [ln for ln in s.stderr_text().splitlines() if any(t in ln for t in XKB_ERROR_TEXTS)]


def xkbcommon_lines(s, h):
    """A keymap that compiles but makes xkbcommon log 3 errors, sent 200
    times by one keyboard: its messages go through the compositor's log
    limit (log_limit.c gives every xkb_context a log function). Before:
    600 lines on stderr, one per message. Counted: the lines written are
    fewer than the messages, at least one is written, and a later one says
    how many were left out before it."""
    before = len(xkbcommon_errors(s))
    run_case(s, h, "keymap-errors",
             f"keymap-errors: {XKB_ERRORS} of {XKB_ERRORS} keymaps served", str(XKB_ERRORS))
    lines = xkbcommon_errors(s)[before:]
    messages = 3 * XKB_ERRORS
    check(0 < len(lines) < messages // 2,
          f"xkbcommon's lines for {messages} messages: {len(lines)} written")
    check(all(ln.count("[xkbcommon]") == 1 for ln in lines),
          f"xkbcommon's lines not through the compositor's log: {lines[:3]}")
    # The next message once the limit's second is over says how many were
    # left out (asked again until then: no sleep).
    s.wait_until(lambda: run_case(s, h, "keymap-errors", "keymap-errors: 1 of 1", "1") and
                 "messages of xkbcommon not logged before" in s.stderr_text(),
                 timeout=60, what="a line saying how many of xkbcommon's messages were left out")
    log(f"keymap-errors {XKB_ERRORS}: {len(lines)} of {messages} xkbcommon lines written")


def test(h):
    compile_budget(h)
    with Session(h, config=CONFIG) as s:
        clients = s.wayland_clients()
        base_memory = uid_used(s, "memory")
        base_fds = uid_used(s, "fds")

        # Files that are not what they claim: each refused by name, and
        # the compositor lives (before: keymap-short was a SIGBUS).
        run_case(s, h, "keymap-short",
                 REQUEST + "the keymap's file holds 4096 bytes, 8192 declared")
        run_case(s, h, "keymap-pipe", REQUEST + "the keymap's fd is not a regular file")
        run_case(s, h, "keymap-format", REQUEST + "keymap format 0: only xkb_v1 (1) is read")
        run_case(s, h, "keymap-huge",
                 REQUEST + "limit keymap-bytes=262144 reached: 1052672 bytes declared")
        # 17 files named by include statements (each "complete" a tree of
        # the system's xkb files, 0.3 ms to read and parse).
        run_case(s, h, "keymap-includes",
                 REQUEST + "limit keymap-includes=16 reached: 17 files included", "17")
        # A keymap that fills two whole pages without a NUL is served (xkb
        # reads our copy, terminated).
        run_case(s, h, "keymap-unterminated",
                 "KEYMAP served: a keymap without a NUL in two whole pages")
        s.wait_clients(clients)
        victim_served(s, h, "the bad keymaps")
        xkbcommon_lines(s, h)

        # Two keyboards typed on in turn: each key made the seat's keyboard
        # change, and wlroots sent its keymap to every client's keyboard.
        # A client that reads nothing meanwhile (one wl_keyboard) must stay
        # connected: the attacker is refused at keyboard-switches (32 a
        # second per uid), long before the victim has 64 fds unread.
        # Before: 10,000 keys in 16 ms, the victim disconnected.
        victim = s.spawn([hostile_tool(h), "keymap-no-read", "1"], name="victim")
        s.wait_until(lambda: "KEYMAPS asked 1" in open(victim.log_path).read()
                     or not victim.alive(), what="the victim's keyboard")
        run_case(s, h, "keymap-switch",
                 ["zwp_virtual_keyboard_v1.key: limit keyboard-switches=32 reached",
                  "keymap-switch: ended after"], "10000")
        # (a round trip after it: the compositor has flushed what the
        # switches sent, or disconnected the victim for it)
        victim_served(s, h, "the keyboard switches")
        check(victim.alive() and "DISCONNECTED" not in open(victim.log_path).read(),
              f"the victim was disconnected by another client's keyboard switches: "
              f"{victim.log_tail()}")
        acc = process_account(s, victim.pid)
        # (its own keymap and at most a second's switches, plus what the
        # budget refilled while the attacker ran: below the 64 that end it)
        check(acc is not None and acc["fds_unread"] < 64,
              f"the victim's unread keymaps: {acc}")
        log(f"keyboard switches: the victim holds {acc['fds_unread']} unread keymaps")
        victim.signal_group(9)
        victim.wait(10)
        s.clients.remove(victim)
        s.wait_clients(clients)

        # Keyboards with a keymap, per connection.
        run_case(s, h, "keymap-flood",
                 [REQUEST + "limit client-keymaps=8 reached: 8 keyboards with a keymap, "
                  "1 more asked", "keymaps: refused after 8"], "100")
        s.wait_clients(clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory and
                     uid_used(s, "fds") == base_fds,
                     what="the flood's keymaps to leave the uid's account")

        # A holder's keymaps are in its account: memory, and one fd each
        # (their memfds), as /proc shows them.
        accounts = Accounts(s)
        p = s.spawn([hostile_tool(h), "hold-keymaps", "8"], name="hold-keymaps")
        s.wait_until(lambda: "HOLDING" in open(p.log_path).read() or not p.alive(),
                     what="hold-keymaps to hold", interval=0.05)
        check(p.alive(), f"hold-keymaps: {p.log_tail()}")
        acc = process_account(s, p.pid)
        # 8 keymaps of 16 KiB + 3 bytes a byte of their text (a compiled
        # "complete" keymap's text is tens of KB): at least the fixed part.
        check(acc is not None and acc["memory"] >= 8 * 16384 and acc["fds"] == 2 + 8,
              f"8 keymaps charged (memory >= 128 KiB, fds 2 + 8): {acc}")
        log(f"hold-keymaps 8: memory {acc['memory']}, fds {acc['fds']}")
        accounts.check("8 keymaps held", address=False)
        p.signal_group(9)
        p.wait(10)
        s.clients.remove(p)
        s.wait_clients(clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory and
                     uid_used(s, "fds") == base_fds,
                     what="the holder's keymaps to leave the uid's account")
        accounts.check("the holder gone", address=False)
        victim_served(s, h, "the keymaps")


if __name__ == "__main__":
    harness.main(test)
