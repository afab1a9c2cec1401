/*
 * fd_limit.h: raise RLIMIT_NOFILE for the compositor, give launched
 * programs the limit it started with, accept at the limit without a busy
 * loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/fd_limit.h"

/* The soft limit the compositor started with: what launched programs get
 * back (fd_limit_restore_for_child), since some still use select(2). */
static struct rlimit started_with;
static bool raised;

rlim_t fd_limit_raise(void)
{
	struct rlimit lim;
	if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
		return 1024;
	}
	if (!raised) {
		started_with = lim;
		raised = true;
	}
	if (lim.rlim_cur < lim.rlim_max) {
		struct rlimit up = { lim.rlim_max, lim.rlim_max };
		if (setrlimit(RLIMIT_NOFILE, &up) == 0) {
			lim = up;
		} else {
			wlr_log_errno(WLR_ERROR, "cannot raise RLIMIT_NOFILE to %llu",
					(unsigned long long)lim.rlim_max);
		}
	}
	return lim.rlim_cur;
}

rlim_t fd_limit_started_with(void)
{
	return raised ? started_with.rlim_cur : 1024;
}

void fd_limit_restore_for_child(void)
{
	if (raised) {
		setrlimit(RLIMIT_NOFILE, &started_with);
	}
}

/* Opened on first use, while descriptors are still free. */
static int spare_fd = -1;

static void take_spare(void)
{
	if (spare_fd < 0) {
		spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
}

int fd_limit_accept(int listen_fd, int flags, bool *dropped)
{
	*dropped = false;
	take_spare();
	int fd = accept4(listen_fd, NULL, NULL, flags);
	if (fd >= 0 || (errno != EMFILE && errno != ENFILE)) {
		return fd;
	}
	if (spare_fd >= 0) {
		close(spare_fd);
		spare_fd = -1;
	}
	/* (accept fails with EMFILE before it looks for a connection: with
	 * a free slot it says whether one was pending) */
	int pending = accept4(listen_fd, NULL, NULL, flags);
	if (pending >= 0) {
		close(pending);
		*dropped = true;
	}
	take_spare();
	errno = EMFILE;
	return -1;
}
