#!/usr/bin/env python3
"""x11-reconnect: an X client that connects over and over, floods a little
and leaves: the attacker of the newcomers' grants (docs/x11.md
"Newcomers", integration/x11_newcomer). Speaks the X protocol itself on
the display's socket (no Xlib, so no ring: a socket client to the X
server's half).

    x11-reconnect.py --display :N [--fork] [--burst BYTES] [--count N]

Each connection: the setup, a GC on the root window, BYTES of
PolyFillRectangle (50 rectangles each) on the root window, a round trip
(GetInputFocus: so its requests have run), and the close. --fork: each
connection from a new process (a new pid each time, so a new program to
the X server); without it, from this process, one after the other (the
same pid reconnecting). Prints "ready" after its first connection, and
"connections N" at the end (after --count connections, or on SIGTERM).
"""
import argparse
import os
import signal
import socket
import struct
import sys

RECTS = 50
stop = False


def on_term(sig, frame):
    global stop
    stop = True


def recv_exact(s, n):
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the X server closed the connection")
        data += chunk
    return data


def one(path, burst):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(struct.pack("<cxHHHHxx", b"l", 11, 0, 0, 0))
    head = recv_exact(s, 8)
    if head[0] != 1:
        raise ConnectionError(f"the X server refused the setup: {head!r}")
    data = recv_exact(s, struct.unpack_from("<H", head, 6)[0] * 4)
    base = struct.unpack_from("<I", data, 4)[0]
    vendor_len = struct.unpack_from("<H", data, 16)[0]
    nformats = data[21]
    root = struct.unpack_from("<I", data, 32 + (vendor_len + 3) // 4 * 4 + 8 * nformats)[0]
    gc = base | 1
    req = struct.pack("<BxHIII", 55, 4, gc, root, 0)  # CreateGC, no values
    fill = struct.pack("<BxHII", 70, 3 + 2 * RECTS, root, gc) + b"".join(
        struct.pack("<hhHH", (i % 10) * 40, (i // 10) * 40, 40, 40) for i in range(RECTS))
    req += fill * max(1, burst // len(fill))
    req += struct.pack("<BxH", 43, 1)  # GetInputFocus: a reply once all ran
    s.sendall(req)
    reply = recv_exact(s, 32)
    if reply[0] != 1:
        raise ConnectionError(f"an error instead of GetInputFocus's reply: {reply[:4]!r}")
    s.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--display", required=True)
    ap.add_argument("--fork", action="store_true")
    ap.add_argument("--burst", type=int, default=16384)
    ap.add_argument("--count", type=int, default=0, help="0: until SIGTERM")
    args = ap.parse_args()
    path = "/tmp/.X11-unix/X" + args.display.lstrip(":").split(".")[0]
    signal.signal(signal.SIGTERM, on_term)
    n = 0
    while not stop and (args.count == 0 or n < args.count):
        if args.fork:
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    one(path, args.burst)
                    code = 0
                finally:
                    os._exit(code)
            _, status = os.waitpid(pid, 0)
            if status != 0:
                print(f"a connection failed: status {status}", flush=True)
                return 1
        else:
            one(path, args.burst)
        n += 1
        if n == 1:
            print("ready", flush=True)
    print(f"connections {n}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
