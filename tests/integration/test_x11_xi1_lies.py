#!/usr/bin/env python3
"""A lying X client cannot choose which events the X server's half takes
for XInput 1 device events, and so input (xwayland-glue/stream/
x11_xi1_query.h, docs/x11.md "Scheduling X clients").

The server half learns XInput 1's first event once, for every client, from
the reply to some client's QueryExtension("XInputExtension"), found by its
sequence number. A raw client (no Xlib, its own bytes on the X socket, no
BIG-REQUESTS) sends that question with a length of 7 units: the X server
refuses it with BadLength and sends no reply; 65,535 NoOperations later its
QueryExtension("XFIXES") has the same 16-bit sequence number. Before the
fix, XFIXES's reply was taken for XInput's: the server half logged XFIXES's
first event + 1..5 as XInput 1's device events for the life of the X
server, and never learnt the right ones (events of other extensions the
client could cause, counted as a person's input to every client).

Checked from the server half's log and the X server's replies, never a
duration: after the lie, the same client's honest QueryExtension for
XInputExtension is what the log names (its first event + 1..5), once.
"""
import os
import re
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import Session, check, log, scaled  # noqa: E402

X_QUERY_EXTENSION = 98
X_NO_OPERATION = 127


class RawX:
    """An X connection that writes its own bytes (little-endian)."""

    def __init__(self, display, timeout):
        number = display.lstrip(":").split(".")[0]
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(f"\0/tmp/.X11-unix/X{number}")  # the abstract one
        self.seq = 0
        self.sock.sendall(struct.pack("<BxHHHHxx", ord("l"), 11, 0, 0, 0))
        head = self._read(8)
        check(head[0] == 1, f"the X server refused the connection: {head!r}")
        self._read(4 * struct.unpack_from("<H", head, 6)[0])

    def _read(self, n):
        out = b""
        while len(out) < n:
            got = self.sock.recv(n - len(out))
            check(got, "the X server closed the connection")
            out += got
        return out

    def send(self, data, requests=1):
        self.sock.sendall(data)
        self.seq += requests
        return self.seq

    def query_extension(self, name, units=None):
        body = struct.pack("<H2x", len(name)) + name.encode()
        body += b"\0" * (-len(body) % 4)
        units = units if units is not None else 1 + len(body) // 4
        body += b"\0" * (4 * units - 4 - len(body))
        return self.send(struct.pack("<BxH", X_QUERY_EXTENSION, units) + body)

    def answer(self, seq):
        """The reply or error for request seq (16 bits on the wire);
        events before it are passed over."""
        while True:
            msg = self._read(32)
            if msg[0] == 1:
                msg += self._read(4 * struct.unpack_from("<I", msg, 4)[0])
            if msg[0] in (0, 1) and struct.unpack_from("<H", msg, 2)[0] == seq & 0xffff:
                return msg


def learnt(s):
    return [(int(a), int(b)) for a, b in
            re.findall(r"XInput 1 device events are (\d+)-(\d+)", s.stderr_text())]


def test(h):
    with Session(h, "xi1", x11=True) as s:
        x = RawX(s.x_display, scaled(60))
        seq = x.query_extension("XFIXES")
        reply = x.answer(seq)
        check(reply[0] == 1 and reply[8] == 1, f"no XFIXES: {reply!r}")
        xfixes_first = reply[10]

        # The question the X server refuses (BadLength, no reply) ...
        lie = x.query_extension("XInputExtension", units=7)
        err = x.answer(lie)
        check(err[0] == 0 and err[1] == 16, f"a QueryExtension of 7 units was not BadLength: "
                                             f"{err!r}")
        # ... and another extension's reply under its sequence number.
        x.send(struct.pack("<BxH", X_NO_OPERATION, 1) * 65535, requests=65535)
        again = x.query_extension("XFIXES")
        check(again & 0xffff == lie & 0xffff, "the sequence numbers did not come round")
        check(x.answer(again)[10] == xfixes_first, "XFIXES's first event changed")

        # The honest question: its reply is what the server half learns.
        seq = x.query_extension("XInputExtension")
        reply = x.answer(seq)
        check(reply[0] == 1 and reply[8] == 1, f"no XInputExtension: {reply!r}")
        xi_first = reply[10]
        log(f"XFIXES first event {xfixes_first}, XInputExtension {xi_first}")
        got = s.wait_until(lambda: learnt(s), timeout=15,
                           what="the server half to log XInput 1's event codes")
        check(got == [(xi_first + 1, xi_first + 5)],
              f"the server half took {got} for XInput 1's device events, not "
              f"{xi_first + 1}-{xi_first + 5} (XFIXES's first event is {xfixes_first})")
        x.sock.close()


harness.main(test)
