/*
 * Whether a client's fd is a file whose reads can wait on another process
 * or the network (FUSE, NFS, SMB, 9p, Ceph, AFS, Coda). The compositor
 * reads or maps some fds clients hand it (keymaps, wl_shm pools) on its
 * main loop: a page of such a file is a request to whoever serves it,
 * who may never answer, and the whole session would wait.
 */
#ifndef SMTWC_WAITING_FILESYSTEM_H
#define SMTWC_WAITING_FILESYSTEM_H

#include <stdbool.h>

/* True for such a file, and when fstatfs cannot tell; *type is the
 * filesystem's magic number (0 when unknown), for the error text. */
bool fd_on_waiting_filesystem(int fd, long *type);

#endif
