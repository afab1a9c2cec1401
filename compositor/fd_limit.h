/*
 * The process's open-file limit. Ring clients pass fds that the compositor
 * keeps, so it raises its soft limit to the hard one (ring/client_usage.c
 * budgets clients within it); programs it launches get the limit it
 * started with back, since some still use select(2) (launch.c).
 */
#ifndef SMTWC_FD_LIMIT_H
#define SMTWC_FD_LIMIT_H

#include <sys/resource.h>

/* Raises the soft limit to the hard one (remembering the first one seen);
 * returns the soft limit now in force, 1024 if it cannot be read. */
rlim_t fd_limit_raise(void);
/* In a launched program before exec. */
void fd_limit_restore_for_child(void);

#endif
