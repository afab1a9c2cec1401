#!/usr/bin/env python3
"""An X client changing its title in a loop (session 26's red team: Tk's
`wm title . $i`) must not stall the compositor in wlroots' window manager
(docs/x11.md "The window manager's events",
xwayland-glue/wm/wm_event_pacer.c). wlroots answers each PropertyNotify
with a synchronous GetProperty from the compositor's main loop and reads
events until there are none, so before the pacer the compositor answered
nobody for as long as the flood went on.

What is checked is what happened, never a duration. On the ring and on
the socket, x11-titleflood floods until it is told to stop; while it
floods:
- the compositor reports PropertyNotify held for their interval and
  repeated ones merged (without the pacer neither happens: the test fails
  waiting for it), and the window manager's GetProperty answered by the
  one the pacer sent before it handed the event out (wm_property_fetch.c:
  the compositor does not wait in it);
- another Wayland client's round trips are answered (smt-hostile
  sync-probe), and the control socket answers (stats), with the
  flooder still flooding;
then it stops with the title "final N", and the compositor's window list
shows exactly that title: merging loses no change, and a value read
ahead is the value. Again on the ring with
new values of 5,000 properties the window manager does not read (no two
alike in a row, nothing to merge): the compositor reports them ignored
(never fetched), and answers meanwhile.
"""
import os
import re
import signal
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "bench", "x11"))
import harness  # noqa: E402
from harness import Session, check, log  # noqa: E402
from harness.hostile import wm_hostile_tool, round_trips_answered  # noqa: E402
import interactive as bench  # noqa: E402  (program(), wait_line(), transport_env())

PACER_LINE = re.compile(r"X window manager under load: (\d+) PropertyNotify merged, "
                        r"\d+ turns ended at the budget, (\d+) PropertyNotify held for their "
                        r"interval, (\d+) of properties it does not read, .*, "
                        r"\d+ GetProperty sent ahead \((\d+) taken by it\)")


def pacer_lines(s, since):
    """(merged, held, ignored, taken) of each of the pacer's lines after line
    since; taken: the window manager's GetProperty answered by the pacer's
    own, sent before the event was handed out."""
    out = []
    for ln in s.stderr_text().splitlines()[since:]:
        m = PACER_LINE.search(ln)
        if m:
            out.append(tuple(int(g) for g in m.groups()))
    return out


def flood(s, h, transport, atoms=0):
    since = len(s.stderr_text().splitlines())
    more = ["--atoms", str(atoms)] if atoms else []
    p = s.spawn([bench.program("x11-titleflood"), "--start-on-usr1", "--until-usr2"] + more,
                name=f"x11-titleflood-{transport}", env=bench.transport_env(transport))
    bench.wait_line(s, p, "ready", 30, "x11-titleflood to map its window")
    p.signal_group(signal.SIGUSR1)  # the flood begins

    # Cumulative counts: what this flood added shows as growth over the
    # last line before it.
    before = (pacer_lines(s, 0) or [(0, 0, 0, 0)])[-1]

    def paced():
        for merged, held, ignored, taken in pacer_lines(s, since):
            if atoms and ignored > before[2]:
                return (merged, held, ignored, taken)
            if not atoms and merged > before[0] and held > before[1] and taken > before[3]:
                return (merged, held, ignored, taken)
        return None
    merged, held, ignored, taken = s.wait_until(
        paced, timeout=90,
        what="the window manager's PropertyNotify of properties it does not read ignored"
             if atoms else "the window manager's PropertyNotify held for their interval "
                           "and merged, and its GetProperty answered ahead, during the flood")
    check(p.alive() and not bench_said(p, "TITLES"),
          f"{transport}: the flood ended before the check (it floods until told)")
    # Served while the flood goes on.
    answered = round_trips_answered(s, h, f"the {transport} flood")
    stats = s.control("stats", timeout=60)
    check("server" in stats, f"{transport}: the control socket during the flood: {stats}")
    check(p.alive() and not bench_said(p, "TITLES"),
          f"{transport}: the flood ended before the probes were answered")

    p.signal_group(signal.SIGUSR2)  # the flood ends with the title "final N"
    line = bench.wait_line(s, p, "TITLES", 150, "the title flood to end")[0]
    n = int(line.split()[1])
    s.wait_window(lambda w: w["title"] == f"final {n}", timeout=60,
                  what=f"the compositor's window list to show the last title (final {n})")
    log(f"{transport}{' (atoms)' if atoms else ''}: {n} changes; the pacer said {merged} "
        f"merged, {held} held, {ignored} ignored, {taken} read ahead "
        f"(cumulative); probe: {answered}")
    check(s.compositor.alive(), "the compositor died")
    s.stop_client(p)


def bench_said(p, prefix):
    with open(p.log_path) as f:
        return any(ln.startswith(prefix) for ln in f.read().splitlines())


FETCH_LINE = re.compile(r"X window manager under load: .*, (\d+) GetProperty sent ahead "
                        r"\((\d+) taken by it\), (\d+) waited for in")


def fetch_counts(s):
    """(sent ahead, waited for) of the pacer's last line, or (0, 0)."""
    found = FETCH_LINE.findall(s.stderr_text())
    return tuple(int(x) for x in found[-1][::2]) if found else (0, 0)


def set_delete_flood(s, h):
    """A title set and deleted in turn (session 29's red team): wlroots reads
    the property at a deletion as at a new value. Before session 29 the pacer
    read ahead only for new values, and the main loop stood in wlroots'
    synchronous GetProperty once per deletion (about one per event handed
    out); now deletions are read ahead too, so the reads the compositor
    waited for stay a small part of those sent ahead."""
    sent0, waited0 = fetch_counts(s)
    p = s.spawn([wm_hostile_tool(h), "title-delete-loop", "4"], name="x11-title-delete-loop")

    def read_ahead():
        sent, waited = fetch_counts(s)
        return (sent, waited) if sent - sent0 >= 1000 else None
    s.wait_until(read_ahead, timeout=120,
                 what="1,000 GetProperty of a set/delete title loop read ahead")
    check(p.wait(120) == 0, f"title-delete-loop exited with {p.returncode}:\n{p.log_tail()}")
    s.clients.remove(p)
    sent, waited = fetch_counts(s)
    log(f"set/delete loop: {sent - sent0} GetProperty read ahead, {waited - waited0} waited for")
    check((waited - waited0) * 10 < sent - sent0,
          f"set/delete loop: the compositor waited for {waited - waited0} GetProperty replies "
          f"against {sent - sent0} read ahead")
    check(s.compositor.alive(), "the compositor died")


def test(h):
    with Session(h, x11=True) as s:
        for transport in ("ring", "socket"):
            flood(s, h, transport)
        flood(s, h, "ring", atoms=5000)
        set_delete_flood(s, h)


harness.main(test)
