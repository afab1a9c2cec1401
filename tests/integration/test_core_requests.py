#!/usr/bin/env python3
"""What wlroots keeps or computes for core Wayland requests is bounded and
counted (compositor/ring/core_request_limits.c, session 25). Session 24's
red team found 50,000 wl_data_source.offer of 4 KB held 149 MB uncounted
and 300,000 1x1 damage_buffer rectangles before one commit cost 64 s of
the compositor's CPU. Each flood here is either refused with
wl_display's implementation error naming the request and the limit, or
(damage, committed frame callbacks) served cheaply; meanwhile
weston-simple-shm keeps animating and another client's round trip is
answered; what was charged shows in `smtctl accounts` and is gone with
the client. Session 26: a region's copies in surfaces' states (pending,
current, every cached commit) are charged too. Session 35: a wl_shm
buffer whose stride is shorter than its pixels is refused. (Behaviour only; the latency is tests/bench/hostile/damage.py's.)"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness.hostile import hostile_tool, run_hostile_case as run_case  # noqa: E402
from harness import BACKGROUND, Session, check, log  # noqa: E402
from harness.accounts import process_account, uid_used  # noqa: E402

CONFIG = """
[limits]
client-objects = 2000
client-memory-mib = 64
"""


def hold(s, h, args, clients):
    p = s.spawn([hostile_tool(h), *args], name="-".join(args))
    s.wait_until(lambda: "HOLDING" in open(p.log_path).read() or not p.alive(),
                 what=f"{args} to hold", interval=0.05)
    check(p.alive(), f"{args}: {p.log_tail()}")
    return p


def kill(s, p, clients):
    p.signal_group(9)
    p.wait(10)
    s.wait_clients(clients)


def victim_served(s, h, what):
    """Another client's wl_display round trips are answered, and
    simple-shm still animates."""
    res = s.run([hostile_tool(h), "sync-probe", "0.3"], timeout=60, check_rc=False)
    check(res.returncode == 0 and "SYNC n=" in res.stdout,
          f"another client's round trips after {what}: {res.stdout}{res.stderr}")


def test(h):
    with Session(h, config=CONFIG) as s:
        excl = s.cursor_exclusion()
        s.spawn(["weston-simple-shm"])
        img0, win = s.wait_screenshot(
            lambda img: img.bbox_not(BACKGROUND, exclude=excl), what="simple-shm's window")
        s.wait_screenshot(lambda img: img.diff_count(img0, win) > 1000 or None,
                          what="simple-shm to animate")
        clients = s.wayland_clients()
        base_memory = uid_used(s, "memory")
        base_objects = uid_used(s, "objects")

        # MIME types: 4,000-byte types past source-mime-bytes (65536: the
        # 17th), 40-byte ones past source-mime-types (256), on each of the
        # three kinds of source.
        for kind, iface in (("data", "wl_data_source"),
                            ("primary", "zwp_primary_selection_source_v1"),
                            ("control", "zwlr_data_control_source_v1")):
            run_case(s, h, "offer-flood",
                     f"{iface}.offer: limit source-mime-bytes=65536 reached: "
                     "64000 bytes offered, 4000 more asked", kind, "50000")
            run_case(s, h, "offer-flood",
                     f"{iface}.offer: limit source-mime-types=256 reached: "
                     "256 offered, 1 more asked", kind + "-small", "50000")
            s.wait_clients(clients)
        # (given back at the connections' teardown, which the client count
        # can see before the uid's memory under load: waited for)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory, timeout=10,
                     what=f"memory back after the offer floods ({base_memory} before)")
        # What a source holds is in its client's account while it lives.
        p = hold(s, h, ["hold-offers", "data", "10"], clients)
        acc = process_account(s, p.pid)
        check(acc is not None and acc["memory"] >= 10 * 4000,
              f"10 offers of 4,000 bytes charged: {acc}")
        kill(s, p, clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory, timeout=10,
                     what=f"offers' memory back after the holder left ({base_memory} before)")

        # Damage: 300,000 disjoint 1x1 rectangles before one commit, three
        # times: served (the damage becomes its bounding box past
        # surface-damage-rects), and the compositor says so.
        out = s.run([hostile_tool(h), "damage-flood", "300000"], timeout=300, check_rc=False)
        check(out.returncode == 0 and "DAMAGE_FLOOD served: 1 rounds of 300000" in out.stdout,
              f"damage-flood: {out.stdout}{out.stderr}")
        s.wait_until(lambda: "wl_surface.damage_buffer: past surface-damage-rects=64 "
                             "rectangles before a commit" in open(s.compositor_log).read(),
                     what="the coalescing logged")
        victim_served(s, h, "the damage flood")

        # Regions are exact (input, opaque): refused past region-rects;
        # a large region's boxes are charged while it lives.
        run_case(s, h, "region-rects",
                 "wl_region.add: limit region-rects=1024 reached: 1024 rectangles, "
                 "1 more asked", "100000")
        p = hold(s, h, ["hold-region", "1000"], clients)
        acc = process_account(s, p.pid)
        check(acc is not None and acc["memory"] >= (1000 - 32) * 16,
              f"a region of 1000 rectangles charged: {acc}")
        kill(s, p, clients)

        # A region's copies in its surfaces' states (session 26's red
        # team: charged once as a region, copied for free into every
        # surface's pending, current and cached states): 8 synchronized
        # subsurfaces x 100 commits each keep both regions of 1,000 boxes.
        p = hold(s, h, ["hold-region-copies", "8", "100"], clients)
        acc = process_account(s, p.pid)
        held = 8 * 100 * 2 * 1000 * 16
        check(acc is not None and acc["memory"] >= held,
              f"8 x 100 cached commits of two 1,000-box regions ({held} bytes) charged: {acc}")
        kill(s, p, clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory, timeout=10,
                     what="the copies' memory back after the holder left")
        # 16 x 256 such commits are 128 MiB: the account (64 MiB) refuses.
        out = run_case(s, h, "region-copies", "limit client-memory-mib=64 reached", "16", "256")
        check("wl_surface." in out, f"the refusal names a wl_surface request: {out[-600:]}")
        s.wait_clients(clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory, timeout=10,
                     what="memory back after the refused flood")

        # A synchronized subsurface whose parent never commits.
        run_case(s, h, "cached-commits",
                 "wl_surface.commit: limit surface-cached-commits=256 reached: "
                 "256 commits wait for the parent's, 1 more asked", "100000")
        # Frame callbacks before a commit: refused; committed on a surface
        # nobody shows: answered past the limit, the client served.
        run_case(s, h, "frame-flood",
                 "wl_surface.frame: limit surface-frame-callbacks=64 reached: "
                 "64 asked before a commit, 1 more asked", "100000")
        out = run_case(s, h, "frame-commits", "FRAMES served: 5000 asked", "5000")
        answered = int(out.split("asked, ")[1].split()[0])
        check(answered >= 5000 - 2 * 64, f"frame callbacks answered: {answered} of 5000")

        # Idle inhibitors: each new one walked all before it.
        run_case(s, h, "inhibitor-flood",
                 "zwp_idle_inhibit_manager_v1.create_inhibitor: limit "
                 "client-idle-inhibitors=16 reached: 16 in use, 1 more asked", "100000")

        # Screencopy: every copy waiting is a copy of the whole output at
        # its next commit.
        run_case(s, h, "screencopy-flood",
                 "zwlr_screencopy_frame_v1.copy: limit client-screencopy-copies=16 reached: "
                 "16 waiting, 1 more asked", "10000")
        # Each frame with a copy asked is charged to its client until it
        # destroys it (session 28; before, only counted).
        p = hold(s, h, ["hold-screencopy", "16"], clients)
        acc = process_account(s, p.pid)
        check(acc is not None and acc["memory"] >= 16 * 300,
              f"16 screencopy frames charged: {acc}")
        kill(s, p, clients)
        s.wait_until(lambda: uid_used(s, "memory") == base_memory,
                     what="the screencopy frames' memory given back")

        # Activation tokens outlive their objects (30 s in wlroots): each
        # is an object of its client, with its memory.
        run_case(s, h, "token-flood", "limit client-objects=2000 reached", "100000")
        p = hold(s, h, ["token-flood", "500"], clients)
        acc = process_account(s, p.pid)
        check(acc is not None and acc["objects"] >= 500 and acc["memory"] >= 500 * 2000,
              f"500 tokens charged: {acc}")
        kill(s, p, clients)
        # wlroots keeps a gone client's tokens until they expire (30 s):
        # a launcher's token is for the program it started.
        s.wait_until(lambda: uid_used(s, "objects") == base_objects, timeout=60,
                     what="the tokens' objects given back when they expire")
        s.wait_until(lambda: uid_used(s, "memory") == base_memory, timeout=10,
                     what="every byte given back")

        # A wl_shm buffer whose stride is shorter than its row of pixels
        # (libwayland checks only stride >= width): its last rows were read
        # past the pool, and the compositor died of SIGSEGV (session 35).
        for fmt, stride in (("argb8888", 1000), ("argb8888", 3996), ("rgb565", 1998)):
            run_case(s, h, "shm-stride", [f"stride {stride} is less than width 1000",
                                          "shm buffer with a short stride: refused"],
                     fmt, str(stride))
        for fmt, stride in (("argb8888", 4000), ("rgb565", 2000)):
            run_case(s, h, "shm-stride", "served", fmt, str(stride))

        victim_served(s, h, "every flood")
        shot = s.screenshot()
        s.wait_screenshot(lambda img: img.diff_count(shot, win) > 1000 or None,
                          what="simple-shm to keep animating after the floods")
        log("every flood refused or served; accounts back at the start")


harness.main(test)
