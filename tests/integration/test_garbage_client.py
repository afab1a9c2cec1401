#!/usr/bin/env python3
"""Connections that write garbage are closed by the server; the compositor and
its other clients carry on."""
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, check, fail, log, raw_connect, wait_closed  # noqa: E402

SIZE = 250


def header(obj, opcode, size):
    return struct.pack("=II", obj, (size << 16) | opcode)


def describe_error(data):
    """Find a wl_display.error event among what the server sent."""
    off = 0
    events = 0
    while off + 8 <= len(data):
        obj, word = struct.unpack_from("=II", data, off)
        size, opcode = word >> 16, word & 0xFFFF
        if size < 8:
            break
        if obj == 1 and opcode == 0 and size >= 20 and off + size <= len(data):
            eobj, code, slen = struct.unpack_from("=III", data, off + 8)
            msg = data[off + 20:off + 20 + max(0, min(slen - 1, size - 20))]
            return (f"wl_display.error(object {eobj}, code {code}, "
                    f"{msg.decode('utf-8', 'replace')!r}) after {events} other events")
        events += 1
        off += size
    return f"{len(data)} bytes ({events} events) before close, no wl_display.error"


def send_garbage(s, label, payload, timeout=15.0):
    sock = raw_connect(s)
    try:
        try:
            sock.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            log(f"{label}: server closed the connection while we were still writing")
            return
        except socket.timeout:
            pass  # the server stopped reading; it must still close us
        closed, got = wait_closed(sock, timeout)
        check(closed, f"{label}: the server did not close the connection within "
                      f"{timeout:.0f} s ({len(got)} bytes received)")
        log(f"{label}: closed; {describe_error(got)}")
    finally:
        sock.close()
    s.check_alive()


def test(h):
    rng = harness.seeded_random("garbage")
    with Session(h) as s:
        s.spawn(["weston-simple-shm"])
        excl = s.cursor_exclusion()

        def window(img):
            r = img.bbox_not(BACKGROUND, exclude=excl)
            return r if r is not None and r.w == SIZE and r.h == SIZE else None

        img0, r = s.wait_screenshot(window, timeout=10, what="weston-simple-shm's window")
        log(f"simple-shm at {r}")

        cases = [
            ("random bytes", rng.randbytes(16384)),
            ("bad opcode on wl_display", header(1, 99, 8)),
            ("unknown object id", header(4242, 0, 8)),
            ("message shorter than its arguments", header(1, 0, 4) + b"\0\0\0\0"),
            ("zero-size message", header(1, 1, 0) + rng.randbytes(64)),
            ("huge declared size", header(1, 0, 0xFFF8) + rng.randbytes(16384)),
            # More than libwayland's 4096-byte buffer: a random header may
            # declare a message longer than what was sent, and the server
            # may rightly wait for the rest until its buffer overflows.
            ("valid get_registry then garbage",
             header(1, 1, 12) + struct.pack("=I", 2) + rng.randbytes(16384)),
        ]
        for label, payload in cases:
            send_garbage(s, label, payload)

        # Many at once.
        socks = []
        try:
            for i in range(16):
                sock = raw_connect(s)
                socks.append(sock)
                try:
                    sock.sendall(rng.randbytes(rng.randrange(4200, 16384)))
                except (BrokenPipeError, ConnectionResetError, socket.timeout):
                    pass
            for i, sock in enumerate(socks):
                closed, got = wait_closed(sock, 15.0)
                if not closed:
                    fail(f"concurrent garbage connection {i} was not closed within 15 s")
        finally:
            for sock in socks:
                sock.close()
        log("16 concurrent garbage connections closed")

        s.check_alive()
        check(s.clients and s.clients[0].alive(),
              "weston-simple-shm died while other clients sent garbage:\n"
              + s.clients[0].log_tail())
        img1 = s.screenshot()

        def animating(img):
            if window(img) != r:
                return None
            d = img.diff_count(img1, r.inset(20))
            return d if d > 1000 else None

        s.wait_screenshot(animating, timeout=15,
                          what="simple-shm to keep animating after the garbage clients")
        res = s.run(["wayland-info"], timeout=10)
        check("wl_compositor" in res.stdout, "wayland-info after the garbage lists no wl_compositor")
        log("new client works")


harness.main(test)
