/*
 * fd_limit.h: raise RLIMIT_NOFILE for the compositor, give launched
 * programs the limit it started with.
 */
#include <stdbool.h>
#include <wlr/util/log.h>
#include "fd_limit.h"

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

void fd_limit_restore_for_child(void)
{
	if (raised) {
		setrlimit(RLIMIT_NOFILE, &started_with);
	}
}
