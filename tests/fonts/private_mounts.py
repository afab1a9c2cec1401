"""A mount namespace of this process's own, for the fonts checks that change
what the machine looks like (tests/fonts/hostile_system.py, missing.py)
without touching it: other people run tests here at the same time, and
nothing outside this process tree sees these mounts."""
import ctypes
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_void_p]
_libc.umount.argtypes = [ctypes.c_char_p]


class MountError(OSError):
    pass


def _call(name, *args, hint=""):
    if getattr(_libc, name)(*args) != 0:
        raise MountError(f"{name}{args[:2]}: {os.strerror(ctypes.get_errno())}{hint}")


def enter_private_mounts():
    """From now on this process and its children have mounts of their own.
    Root needs nothing else; another user needs a user namespace too, where
    only its own uid and gid are mapped (the tests still run as that user; a
    program that chowns to another group, as xterm does with its pty, gets
    EINVAL instead of EPERM there)."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0:
        _call("unshare", CLONE_NEWNS)
    else:
        _call("unshare", CLONE_NEWUSER | CLONE_NEWNS,
              hint=" (a user other than root needs unprivileged user namespaces: "
              "kernel.unprivileged_userns_clone=1 on Debian)")
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    # Mounts made from now on stay in this namespace.
    _call("mount", b"none", b"/", None, MS_REC | MS_PRIVATE, None)


def bind(source, target):
    """target shows source's contents (in this namespace only)."""
    _call("mount", source.encode(), target.encode(), None, MS_BIND, None)


def unbind(target):
    _call("umount", target.encode())
