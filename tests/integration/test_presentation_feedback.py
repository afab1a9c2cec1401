#!/usr/bin/env python3
"""wp_presentation feedback reaches wl_shm clients: every commit that asked
for it is answered, `presented` (preceded by sync_output, at a time between
the commit and the event's receipt, in commit order) for a window that is
on screen. Until session 26 smtwc answered none on its headless output
(wlroots' tracking missed the headless present event: docs/architecture.md,
"Presentation feedback"), neither presented nor discarded.

Two clients: weston-presentation-shm (weston's own, third-party: a line per
presented commit) and smt-shm-echo (ours: counts every feedback and checks
the protocol's promises itself)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.programs import build_program  # noqa: E402

# weston-presentation-shm -f, one line per presented commit:
# "     3: f2c  0 ms, c2p 16 ms, f2p 16 ms, p2p 16215 us, t2p  16132, [____], seq 0"
PRESENTED = re.compile(r"^\s*(\d+): f2c\s+\d+ ms, c2p\s+(\d+) ms, f2p\s+\d+ ms, "
                       r"p2p\s+(-?\d+) us, t2p\s+-?\d+, \[([^\]]*)\], seq (\d+)$")
WESTON_LINES = 20
FEEDBACK = re.compile(
    r"feedback: (\d+) commits, (\d+) presented, (\d+) discarded, (\d+) unanswered; "
    r"clock (-?\d+); presented without sync_output first (\d+), "
    r"outside commit\.\.receipt (\d+), out of order (\d+)")


def weston_presentation_shm(s):
    # stdbuf: its printf to a file is block-buffered, and it is stopped by a
    # signal, not ended.
    p = s.spawn(["stdbuf", "-oL", "weston-presentation-shm", "-f"],
                name="presentation-shm")

    def lines():
        with open(p.log_path, errors="replace") as f:
            got = [m for m in map(PRESENTED.match, f.read().splitlines()) if m]
        return got if len(got) >= WESTON_LINES else None

    got = s.wait_until(lines, timeout=20,
                       what=f"{WESTON_LINES} presented commits from weston-presentation-shm "
                            f"(its output: {p.log_tail(5)!r})")
    p.terminate()
    commits = [int(m.group(1)) for m in got]
    check(all(a < b for a, b in zip(commits, commits[1:])),
          f"weston-presentation-shm's presented commits out of order: {commits}")
    # p2p: this presentation's time minus the previous one's (the first
    # line has none): never negative
    back = [m.group(0) for m in got[1:] if int(m.group(3)) < 0]
    check(not back, f"presentation times went back: {back}")
    seqs = [int(m.group(5)) for m in got]
    check(seqs == sorted(seqs), f"the refresh counter went back: {seqs}")
    # (a commit replaced before a frame showed it is discarded: its own
    # client may commit more than once a frame at the start; smt-shm-echo
    # below never does, and there none may be discarded)
    with open(p.log_path, errors="replace") as f:
        discarded = sum("discarded" in line for line in f)
    log(f"weston-presentation-shm: {len(got)} commits presented, {discarded} discarded, "
        f"c2p {sorted(int(m.group(2)) for m in got)[len(got) // 2]} ms (median), seq {seqs[-1]}")


def shm_echo(s):
    res = s.run([build_program("SMT_SHM_ECHO", "clients/smt-shm-echo"),
                 "--seconds", "1", "--warmup", "0.2"], timeout=60)
    log(res.stdout.strip())
    m = FEEDBACK.search(res.stdout)
    check(m is not None, f"no feedback line from smt-shm-echo: {res.stdout!r}")
    commits, presented, discarded, unanswered, clock, no_sync, outside, disorder = (
        int(g) for g in m.groups())
    check(commits >= 10, f"smt-shm-echo committed only {commits} frames with feedback")
    check(unanswered == 0, f"{unanswered} of {commits} commits' feedback never answered")
    # each commit waits for the previous one's frame callback, and every
    # frame that follows a commit of the topmost window shows it
    check(presented == commits and discarded == 0,
          f"{presented} of {commits} commits presented, {discarded} discarded")
    check(clock == 1, f"presentation clock {clock}, not CLOCK_MONOTONIC (1)")
    check(no_sync == 0, f"{no_sync} presented events without a sync_output before them")
    check(outside == 0, f"{outside} presentation times outside commit..receipt")
    check(disorder == 0, f"{disorder} presentation times or counters out of commit order")


def test(h):
    with Session(h) as s:
        weston_presentation_shm(s)
    # its own session: its window must be the topmost under the output's centre
    with Session(h) as s:
        shm_echo(s)


harness.main(test)
