#!/usr/bin/env python3
"""smt-demo's frame, drawn through the shared-memory ring, reaches the screen
exactly as the same command stream executed in-process by the compositor's
executor, and that picture is the reference one (reference/ring-demo.png:
the replay alone would follow the executor into a drawing bug); through the
socket fallback the screen is identical; a client
killed while drawing leaves no mapping, fd or window behind; and a client
writing while another keeps the compositor busy needs no wakeup syscalls;
after ring commands the compositor spins before it sleeps, an idle one
never does, nor one that runs a FENCE at a time."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import FOCUSED, Image, Rect, Session, check, log  # noqa: E402

BORDER = 2


def tool(h, env, name):
    build = os.path.dirname(os.path.dirname(os.path.dirname(h.vpointer)))
    return os.environ.get(env) or os.path.join(build, name)


def start_demo(s, h, transport, dump):
    p = s.spawn([tool(h, "SMT_DEMO", "clients/smt-demo"), "--static", "--transport",
                 transport, "--dump", dump])
    info = s.wait_until(lambda: re.search(r"DEMO_READY canvas=(\d+) width=(\d+) height=(\d+) "
                                          r"pool=(\d+) pool_size=(\d+)",
                                          open(p.log_path).read()),
                        timeout=15, what=f"smt-demo ({transport}) to draw its frame")
    return p, [int(v) for v in info.groups()]


def compare_with_replay(s, h, dump, info, label):
    canvas, width, height, pool, _ = info
    ppm = os.path.join(s.tmp, f"replay-{label}.ppm")
    s.run([tool(h, "SMT_REPLAY", "tests/tools/smt-replay"), dump, canvas, width, height,
           pool, dump + ".pool" if pool else "-", ppm])
    with open(ppm, "rb") as f:
        expected = Image.from_ppm(f.read())
    excl = s.cursor_exclusion()

    def window(img):
        # The compositor's frame: its border around the title bar and the
        # window's content.
        frame = img.bbox(FOCUSED, exclude=excl)
        win = next((w for w in s.windows() if w["focused"]), None)
        if frame is None or win is None:
            return None
        title = win["title_bar"]["height"]
        if (frame.w, frame.h) != (width + 2 * BORDER, height + title + 2 * BORDER):
            return None
        return Rect(frame.x + BORDER, frame.y + BORDER + title, width, height)

    img, content = s.wait_screenshot(window, what=f"the {width}x{height} demo window")
    shown = img.crop(content)
    diff = shown.diff_count(expected)
    if diff:
        s.save(shown, f"shown-{label}")
        s.save(expected, f"expected-{label}")
    check(diff == 0, f"{diff} of {width * height} pixels differ between the screen and the "
                     f"in-process replay ({label}); saved both in the log dir")
    log(f"{label}: the screen matches the in-process executor on all {width * height} pixels")
    return img, content


def test(h):
    # Under ASan, freed blocks sit in a quarantine (still mapped); without
    # one, mappings come and go with the memory like in a normal build.
    env = {}
    if "ASAN_OPTIONS" in os.environ:
        env["ASAN_OPTIONS"] = os.environ["ASAN_OPTIONS"] + ":quarantine_size_mb=0"
    with Session(h, env=env) as s:
        pid = s.compositor.pid

        dump = os.path.join(s.tmp, "ring.dump")
        demo, info = start_demo(s, h, "ring", dump)
        img, content = compare_with_replay(s, h, dump, info, "ring")
        # Every cell of the demo: fills, points, segments, images, copies,
        # compositing and text (DejaVu Sans Mono from fonts-dejavu-core).
        s.check_reference(img, content, "ring-demo")
        # Spinning (sched/ring_loop.c): after running ring commands the
        # compositor looked at the rings before sleeping; with the ring
        # client idle, each request wakes it and it sleeps again at once,
        # without spinning (a spin only follows ring commands).
        # With worker threads (the default's, or SMT_TEST_WORKERS's) the
        # main thread runs no ring commands, so nothing arms a spin there:
        # none at all.
        before = s.server_stats()
        workers = before["worker_threads"]
        if workers:
            check(before["spins"] == 0, f"a spin with {workers} workers: {before}")
        else:
            check(before["spins"] > 0, f"no spin after the demo's ring commands: {before}")
        idle = s.server_stats()
        after = s.server_stats()
        check(after["spins"] == idle["spins"] and after["sleeps"] > idle["sleeps"],
              f"an idle ring client kept the compositor spinning: {idle} then {after}")
        log(f"spins after the demo {before['spins']}; idle: sleeps "
            f"{idle['sleeps']} -> {after['sleeps']}, no spin")
        # A client that trickles one 16-byte FENCE at a time arms no spin
        # (a spin follows 4 KiB of one ring's commands): it cannot keep the
        # compositor spinning by publishing a little, often.
        res = s.run([tool(h, "SMT_HOSTILE", "tests/tools/smt-hostile"), "echo-probe", "0.3"],
                    timeout=30)
        check("ECHO n=" in res.stdout + res.stderr, f"echo-probe: {res.stdout}{res.stderr}")
        trickled = s.server_stats()
        check(trickled["spins"] == after["spins"],
              f"FENCE round trips armed spins: {after} then {trickled}")
        log(f"FENCE trickle: {res.stdout.strip()}; no spin")
        demo.terminate()
        # (gone from the screen before the socket demo, whose window has the
        # same size and pixels: the comparison must find the new one)
        s.wait_screenshot(lambda img: s.only_background(img) or None,
                          what="the ring demo's window to disappear")

        dump2 = os.path.join(s.tmp, "socket.dump")
        demo, info2 = start_demo(s, h, "socket", dump2)
        # The fallback must give identical pixels: compare against the
        # replay of the ring client's stream.
        check(info2[1:3] == info[1:3], f"window sizes differ: {info[1:3]} vs {info2[1:3]}")
        compare_with_replay(s, h, dump, info2[:3] + info[3:], "socket")

        # Killed while drawing: an animated demo gets SIGKILL mid-stream.
        # The baseline is taken after the two demos above ended, so the
        # allocator's own one-time growth is not counted as a leak.
        demo.terminate()
        s.wait_screenshot(lambda img: s.only_background(img) or None,
                          what="the socket demo's window to disappear")
        clients = 1  # the harness's keyboard anchor
        s.wait_clients(clients)
        # (without the control connection of wait_clients' last query,
        # which the compositor closes only when it reads the EOF)
        base = harness.ResourceBaseline(pid)
        anim = s.spawn([tool(h, "SMT_DEMO", "clients/smt-demo")])
        img0, _ = s.wait_screenshot(lambda img: img.bbox(FOCUSED) is not None or None,
                                    what="the animated demo window")
        # Mid-stream: it has drawn a second, different frame.
        s.wait_screenshot(lambda img: img.diff_count(img0) > 0 or None,
                          what="the demo to animate")
        anim.signal_group(9)
        anim.wait(5)
        s.wait_screenshot(lambda img: s.only_background(img) or None,
                          what="the killed client's window to disappear")
        s.wait_clients(clients)
        base.wait_back(s, "fds and mappings back at the start after the kill")

        # Wakeups: with a client keeping the compositor busy (a ring full of
        # seconds of work at every moment), a second client publishing
        # 200000 commands never has to wake it.
        full = s.spawn([tool(h, "SMT_HOSTILE", "tests/tools/smt-hostile"), "ring-full", "60"],
                       name="ring-full")
        s.wait_until(lambda: "RING_FULL started" in open(full.log_path).read(),
                     what="the ring-full client to fill its ring")
        res = s.run([tool(h, "SMT_INFO", "clients/smt-info"), "--count", "200000", "--json"],
                    timeout=30)
        m = re.search(r'"wakeups_client_to_server":\s*(\d+)', res.stdout)
        check(m is not None, f"no wakeup counter in smt-info's output:\n{res.stdout}")
        log(f"client->server wakeups for 200000 commands while busy: {m.group(1)}")
        check(int(m.group(1)) == 0, f"{m.group(1)} wakeup syscalls while the compositor was busy")


harness.main(test)
