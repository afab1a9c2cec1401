#!/usr/bin/python3
"""A FUSE filesystem whose one file, `pool`, is never read: every read
waits until the process ends (tests/integration/test_shm_pool_fuse.py).
A compositor that mapped it and touched a page would wait with it.

usage: fuse_stall.py MOUNTPOINT SIZE  (Debian's python3-fusepy; it mounts
in the foreground until killed or unmounted). Prints READ OFFSET SIZE for
each read the kernel asks for, so the test sees whether anyone tried."""
import errno
import stat
import sys
import threading

from fusepy import FUSE, FuseOSError, Operations


class Stall(Operations):
    def __init__(self, size):
        self.size = size
        self.never = threading.Event()

    def getattr(self, path, fh=None):
        if path == "/":
            return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2}
        if path == "/pool":
            return {"st_mode": stat.S_IFREG | 0o666, "st_nlink": 1, "st_size": self.size}
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", "..", "pool"]

    def open(self, path, flags):
        return 0

    def read(self, path, size, offset, fh):
        print(f"READ {offset} {size}", flush=True)
        self.never.wait()
        return bytes(size)

    def write(self, path, data, offset, fh):
        return len(data)

    def truncate(self, path, length, fh=None):
        return 0


def main():
    FUSE(Stall(int(sys.argv[2])), sys.argv[1], foreground=True, nothreads=False)


if __name__ == "__main__":
    main()
