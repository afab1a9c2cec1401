/*
 * The process's open-file limit. Ring clients pass fds that the compositor
 * keeps, so it raises its soft limit to the hard one (ring/client_usage.c
 * budgets clients within it); programs it launches get the limit it
 * started with back, since some still use select(2) (launch.c).
 */
#ifndef SMTWC_FD_LIMIT_H
#define SMTWC_FD_LIMIT_H

#include <stdbool.h>
#include <sys/resource.h>

/* Raises the soft limit to the hard one (remembering the first one seen);
 * returns the soft limit now in force, 1024 if it cannot be read. */
rlim_t fd_limit_raise(void);
/* The soft limit the process started with (what launched programs get
 * back); 1024 if it could not be read. */
rlim_t fd_limit_started_with(void);
/* In a launched program before exec. */
void fd_limit_restore_for_child(void);

/* accept4 for a listening socket in a level-triggered event loop. At the
 * fd limit the pending connection cannot be accepted, so the socket would
 * stay readable and the loop spin: then a spare descriptor the process
 * keeps is closed, the connection accepted into it and closed, and the
 * spare taken again. Returns the new fd; -1 with errno otherwise, and
 * *dropped set when a connection was closed that way. */
int fd_limit_accept(int listen_fd, int flags, bool *dropped);

#endif
