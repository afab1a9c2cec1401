"""Talking to the compositor below libwayland: a bare connection for tests
that send bytes no real client would."""

import socket
import time

from .checks import scaled


def raw_connect(session, timeout=5.0):
    """A raw Unix socket connected to the compositor (no libwayland)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(scaled(timeout))
    s.connect(session.socket_path)
    return s


def wait_closed(sock, timeout=5.0):
    """Read until the peer closes the connection. Returns (closed, bytes
    received)."""
    deadline = time.monotonic() + scaled(timeout)
    got = b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except (ConnectionResetError, BrokenPipeError):
            return True, got
        if not chunk:
            return True, got
        got += chunk
    return False, got
