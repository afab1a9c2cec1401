#!/usr/bin/env python3
"""A window that sets titles as fast as its socket takes them (session 26's
red team): each title shown is laid out with Pango over its whole length
into a new title bar buffer and sent to every taskbar, so a client sending
4,000-byte titles made the compositor do that thousands of times a second.
Titles are paced per window (compositor/desktop/view.c,
VIEW_TITLE_INTERVAL_MS): a taskbar (smt-desktop-tool toplevels --watch)
is sent at most one title per interval of the flood (+2: the first at
once, the last after it), the last title always arrives, in the taskbar
and in the compositor's window list, and the taskbar stays connected;
the same when the window commits after each title (a commit redraws the
frame and updates taskbars: with the title as last shown).
(Behaviour, not speed: the bound is the pacing's, whatever the load.)"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import desktop_clients  # noqa: E402
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402

INTERVAL_MS = 50  # VIEW_TITLE_INTERVAL_MS


def flood_titles(text):
    """The distinct titles of the flood (they start with a 10-digit
    number) the taskbar printed, in order."""
    seen = []
    for line in text.splitlines():
        m = re.match(r"toplevel (\d{10}) ", line)
        if m and (not seen or seen[-1] != m.group(1)):
            seen.append(m.group(1))
    return seen


def flood_once(s, probe, desktop_tool, commit):
    taskbar = s.spawn([desktop_tool, "toplevels", "--watch"], name="taskbar")
    flood = s.spawn([probe, "--ssd", "--title", "start", "--title-flood", "3"] +
                    (["--title-commit"] if commit else []), name="title-flood")
    s.wait_until(lambda: "TITLES" in open(flood.log_path).read() or not flood.alive(),
                 timeout=60, what="the title flood to end")
    m = re.search(r"TITLES (\d+) SECONDS ([\d.]+)", open(flood.log_path).read())
    check(m is not None, f"the flood did not finish: {flood.log_tail()}")
    n, secs = int(m.group(1)), float(m.group(2))
    last = f"{n - 1:010d}"
    s.wait_until(lambda: flood_titles(open(taskbar.log_path).read())[-1:] == [last],
                 timeout=10, what=f"the taskbar to get the last title ({last})")
    s.wait_window(lambda w: w["title"].startswith(last + " "),
                  what="the compositor's window list to show the last title")
    seen = flood_titles(open(taskbar.log_path).read())
    # The first title at once, then at most one per interval; the last
    # one after the flood.
    bound = int(secs * 1000 / (INTERVAL_MS - 1)) + 2
    log(f"{n} titles sent in {secs:.2f} s; the taskbar got {len(seen)} (bound {bound})")
    check(n > bound, f"the flood sent only {n} titles: nothing to pace")
    check(len(seen) <= bound,
          f"the taskbar got {len(seen)} titles of {n} sent in {secs:.2f} s: "
          f"more than one per {INTERVAL_MS} ms")
    check(taskbar.alive(), f"the taskbar was disconnected: {taskbar.log_tail()}")
    check(s.compositor.alive(), "the compositor died")
    for p in (flood, taskbar):
        p.signal_group(9)
        p.wait(10)
        s.clients.remove(p)


def test(h):
    probe = desktop_clients.probe(h)
    desktop_tool = desktop_clients.desktop_tool(h)
    with Session(h) as s:
        flood_once(s, probe, desktop_tool, commit=False)
        # A commit after each title: the commit redraws the frame and
        # updates the taskbar, with the title as last shown.
        flood_once(s, probe, desktop_tool, commit=True)


harness.main(test)
