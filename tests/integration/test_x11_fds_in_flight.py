#!/usr/bin/env python3
"""Xwayland outlives the kernel refusing its fds for the uid's fds in
flight (xwayland-glue/xserver/wayland_backlog.c, ETOOMANYREFS).

The kernel counts every fd sent over a Unix socket and not yet received
against the sender's uid, and refuses an fd-carrying sendmsg with
ETOOMANYREFS while that count is above the sender's RLIMIT_NOFILE; root
is exempt, so only a session of an ordinary user meets it. Xwayland sends
an fd (a wl_shm pool) for every window it shows: another process of the
same user holding more fds unread than Xwayland's limit (on socketpairs of
its own: nothing the compositor can see or count) made Xwayland give up
("failed to write to Xwayland fd: Too many references: cannot splice")
with every X client. Now the server half holds the write and retries it.

The whole session runs as an ordinary uid (Session(user=...): compositor,
Xwayland, clients). Checked (what happened): while a holder of that uid
keeps past RLIMIT_NOFILE fds in flight, a new X window's write is held
(the server half says so, naming ETOOMANYREFS), Xwayland never gives up;
once the holder ends, the held window is shown, Xwayland is the same
process and an X window shown before is still there."""
import os
import resource
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check  # noqa: E402
from harness.hostile import wm_hostile_tool  # noqa: E402

# An ordinary uid with a passwd entry everywhere (Xwayland lets in the
# local user by name: a uid without one is refused). The fds in flight are
# counted per uid and other tests act as nobody too: meson runs this test
# alone (exclusive_integration_tests).
USER = 65534
HELD = "the kernel refuses to send fds (ETOOMANYREFS)"
GAVE_UP = ("Fatal server error", "failed to write to Xwayland fd")

# Raises its soft limit to the hard one (the compositor, and Xwayland it
# starts, run at the hard limit) and sends one memfd 250 times per message
# over socketpairs it never reads, until the kernel refuses; then says so
# and holds them until it is ended.
HOLDER = r"""
import array, os, resource, socket, sys, time
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fd = os.memfd_create("in-flight")
pairs, sent, refused = [], 0, False
while not refused:
    a, b = socket.socketpair()
    pairs.append((a, b))
    a.setblocking(False)
    while True:
        try:
            a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                array.array("i", [fd] * 250))])
            sent += 250
        except BlockingIOError:
            break
        except OSError as e:
            refused = True
            print(f"holding {sent} fds in flight (limit {hard}): {e}", flush=True)
            break
while True:
    time.sleep(3600)
"""


def said(s, text):
    return text in s.stderr_text()


def gave_up(s):
    return next((t for t in GAVE_UP if t in s.stderr_text()), None)


def test(h):
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    check(hard != resource.RLIM_INFINITY, "RLIMIT_NOFILE has no hard limit: nothing to pass")
    with Session(h, x11=True, user=USER) as s:
        before = s.spawn([wm_hostile_tool(h), "steal-focus", "before"], name="before")
        s.wait_window(lambda w: w["title"] == "before", timeout=60, what="an X window before")
        xw = s.xwayland_pid()
        check(xw is not None, "no Xwayland although an X client runs")
        with open(f"/proc/{xw}/status") as f:
            uid = int(next(line for line in f if line.startswith("Uid:")).split()[1])
        check(uid == USER, f"Xwayland runs as uid {uid}, not the session's {USER}")

        holder = s.spawn(["/usr/bin/python3", "-c", HOLDER], name="holder")
        s.wait_until(lambda: "holding" in holder.log_tail(5) or not holder.alive(),
                     timeout=60, what="the holder to reach the kernel's refusal")
        check(holder.alive() and "holding" in holder.log_tail(5),
              f"the holder did not reach ETOOMANYREFS:\n{holder.log_tail(10)}")

        # The X ring's shim would send its ring's fds to Xwayland (refused
        # as well, for the X client's own sends): plain socket, so only
        # Xwayland's write to the compositor meets the refusal.
        during = s.spawn([wm_hostile_tool(h), "steal-focus", "during"], name="during",
                         env={"SMT_X11RING": "off"})
        s.wait_until(lambda: said(s, HELD) or gave_up(s) or not during.alive(), timeout=60,
                     what="Xwayland's write held, or Xwayland giving up")
        text = s.stderr_text()
        check(not gave_up(s), f"Xwayland gave up on ETOOMANYREFS:\n{text[-2000:]}")
        check(said(s, HELD), f"no held write reported:\n{text[-2000:]}")
        check(s.xwayland_pid() == xw, "Xwayland is another process while fds are refused")

        s.stop_client(holder)
        s.wait_window(lambda w: w["title"] == "during", timeout=60,
                      what="the held X window once the holder ended")
        check(s.xwayland_pid() == xw, f"Xwayland was restarted: {xw} -> {s.xwayland_pid()}")
        check(any(w["title"] == "before" for w in s.windows()),
              "the X window shown before is gone")
        check(before.alive() and during.alive(), "an X client ended")
        check(not gave_up(s), f"Xwayland gave up:\n{s.stderr_text()[-2000:]}")


harness.main(test)
