#!/usr/bin/env python3
"""A client in a sandbox (another mount or user namespace: flatpak, snap,
bubblewrap) does not get the globals that watch or drive the whole session:
it cannot capture the screen, read the clipboard unfocused, type or click
into other windows, list them, cover the screen or change the outputs,
not even by binding such a global's name guessed from outside, nor use
the control socket (smtctl) if it can reach it. It still
gets everything an ordinary window needs, and draws. An unconfined client
keeps them all (grim, wtype and the other tools the suite itself uses).
docs/reliability.md, "Confined clients"."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import BACKGROUND, Session, build_program, check, log  # noqa: E402

# An ordinary uid with a passwd entry (the session's owner below), and
# Debian's python, which it may run (not a python under /root).
USER = 65534
SYSTEM_PYTHON = "/usr/bin/python3"

PRIVILEGED = [
    "zwlr_screencopy_manager_v1",
    "zwlr_export_dmabuf_manager_v1",
    "zwlr_data_control_manager_v1",
    "zwp_virtual_keyboard_manager_v1",
    "zwlr_virtual_pointer_manager_v1",
    "zwp_input_method_manager_v2",
    "zwlr_foreign_toplevel_manager_v1",
    "zwlr_layer_shell_v1",
    "zwlr_input_inhibit_manager_v1",
    "zwlr_output_manager_v1",
    "zwlr_output_power_manager_v1",
    "zwlr_gamma_control_manager_v1",
    "org_kde_kwin_idle",
]

# A client below libwayland, run inside the sandbox: binds the names it is
# given and reports, per bind, whether the compositor answered the sync
# after it or posted an error (and its text).
RAW_BIND = r"""
import ctypes, os, socket, struct, sys
path, binds = sys.argv[1], sys.argv[2:]
if os.environ.get("NON_DUMPABLE"):  # as setgid programs and key agents are
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
def msg(obj, op, body):
    return struct.pack("<II", obj, ((8 + len(body)) << 16) | op) + body
def string(s):
    b = s.encode() + b"\0"
    return struct.pack("<I", len(b)) + b + b"\0" * (-len(b) % 4)
for spec in binds:
    name, iface, version = spec.split(":")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(path)
    out = msg(1, 1, struct.pack("<I", 2))  # wl_display.get_registry -> 2
    out += msg(2, 0, struct.pack("<I", int(name)) + string(iface) +
               struct.pack("<II", int(version), 3))  # wl_registry.bind -> 3
    out += msg(1, 0, struct.pack("<I", 4))  # wl_display.sync -> 4
    s.sendall(out)
    buf, result = b"", None
    while result is None:
        try:
            chunk = s.recv(65536)
        except (socket.timeout, ConnectionResetError):
            chunk = b""
        if not chunk:
            result = "closed without an error"
            break
        buf += chunk
        while len(buf) >= 8 and result is None:
            obj, word = struct.unpack_from("<II", buf)
            size, op = word >> 16, word & 0xffff
            if len(buf) < size:
                break
            body, buf = buf[8:size], buf[size:]
            if obj == 1 and op == 0:  # wl_display.error
                n = struct.unpack_from("<I", body, 8)[0]
                result = "error: " + body[12:12 + n - 1].decode()
            elif obj == 4:  # wl_callback.done
                result = "bound"
    print(f"{iface}: {result}", flush=True)
    s.close()
"""


def globals_of(res):
    return {m.group(1): int(m.group(2)) for m in re.finditer(
        r"interface: '([A-Za-z0-9_]+)',\s+version:\s+\d+,\s+name:\s+(\d+)", res.stdout)}


def test(h):
    check(os.geteuid() == 0, "this test needs root: it makes mount namespaces (unshare -m)")
    with Session(h) as s:
        outside = globals_of(s.run(["wayland-info"], timeout=10))
        missing = [g for g in PRIVILEGED if g not in outside]
        check(not missing, f"unconfined wayland-info lacks {missing}: {sorted(outside)}")
        ordinary = sorted(g for g in outside if g not in PRIVILEGED)
        log(f"unconfined: {len(outside)} globals, {len(PRIVILEGED)} of them privileged")

        for sandbox in (["unshare", "-m"], ["unshare", "-U"], ["unshare", "-m", "-U"]):
            inside = globals_of(s.run(sandbox + ["wayland-info"], timeout=10))
            shown = [g for g in PRIVILEGED if g in inside]
            check(not shown, f"{' '.join(sandbox)}: privileged globals shown: {shown}")
            lost = [g for g in ordinary if g not in inside]
            check(not lost, f"{' '.join(sandbox)}: ordinary globals hidden too: {lost}")
            log(f"{' '.join(sandbox)}: {len(inside)} globals, none privileged")

        # The names guessed from outside, bound by a raw client inside:
        # refused with libwayland's error; an ordinary one still binds.
        specs = [f"{outside[g]}:{g}:1" for g in PRIVILEGED]
        specs.append(f"{outside['wl_compositor']}:wl_compositor:4")
        res = s.run(["unshare", "-m", SYSTEM_PYTHON, "-c", RAW_BIND, s.socket_path] + specs,
                    timeout=30)
        answers = dict(line.split(": ", 1) for line in res.stdout.splitlines())
        for g in PRIVILEGED:
            check(answers.get(g, "").startswith("error: invalid global " + g),
                  f"a confined bind of {g} (name {outside[g]}): {answers.get(g)!r}")
        check(answers.get("wl_compositor") == "bound",
              f"a confined bind of wl_compositor: {answers.get('wl_compositor')!r}")
        log(f"binds by name from inside: {len(PRIVILEGED)} refused, wl_compositor bound")

        # grim inside cannot capture; outside it can.
        res = s.run(["unshare", "-m", "grim", os.path.join(s.tmp, "confined.png")],
                    timeout=15, check_rc=False)
        check(res.returncode != 0 and "screencopy" in res.stderr,
              f"grim in a sandbox: rc {res.returncode}, stderr {res.stderr!r}")

        # The control socket (settings, every client's statistics, input
        # injection) answers outside, not inside.
        smtctl = build_program("SMTCTL", "clients/smtctl")
        s.run([smtctl, "stats"], timeout=10)
        res = s.run(["unshare", "-m", smtctl, "stats"],
                    timeout=10, check_rc=False)
        check(res.returncode != 0 and '"clients"' not in res.stdout,
              f"smtctl in a sandbox: rc {res.returncode}, stdout {res.stdout[:200]!r}")

        # A confined program still makes a window and draws in it.
        s.spawn(["unshare", "-m", "weston-simple-shm"], name="confined-simple-shm")
        excl = s.cursor_exclusion()

        def window(img):
            r = img.bbox_not(BACKGROUND, exclude=excl)
            return r if r is not None and r.w == 250 and r.h == 250 else None

        s.wait_screenshot(window, timeout=15, what="the confined weston-simple-shm's window")
        s.check_alive()
        check(re.search(r"runs confined \(another mount namespace or root\): privileged globals hidden",
                        s.stderr_text()),
              "the compositor's log does not name a confined client")
        check(re.search(r"control: pid \d+ runs confined \(another mount namespace or root\): refused",
                        s.stderr_text()),
              "the compositor's log does not name the confined smtctl")


    # An ordinary user's session: its clients' /proc/PID/ns are not the
    # compositor's to read when they are not dumpable (setgid programs,
    # key agents) or root's; they are not confined for it. (The first
    # version judged by ns/: the X test of fds in flight, whose harness
    # connects as the session's uid from a root process, was refused.)
    with Session(h, "user", user=USER) as s:
        outside = globals_of(s.run(["wayland-info"], timeout=10))
        spec = f"{outside['zwlr_screencopy_manager_v1']}:zwlr_screencopy_manager_v1:1"
        res = s.run([SYSTEM_PYTHON, "-c", RAW_BIND, s.socket_path, spec], timeout=30,
                    env={"NON_DUMPABLE": "1"})
        check(res.stdout.strip() == "zwlr_screencopy_manager_v1: bound",
              f"a non-dumpable client of the session's uid: {res.stdout!r}")
        res = subprocess.run([SYSTEM_PYTHON, "-c", RAW_BIND, s.socket_path, spec],
                             capture_output=True, text=True, timeout=30)
        check(res.stdout.strip() == "zwlr_screencopy_manager_v1: bound",
              f"root's client in uid {USER}'s session: {res.stdout!r} {res.stderr[-300:]!r}")
        log(f"uid {USER}'s session: a non-dumpable client and root's keep screencopy")


harness.main(test)
