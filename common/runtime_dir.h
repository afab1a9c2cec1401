/*
 * Whether a directory may hold our sockets: XDG_RUNTIME_DIR as the XDG
 * base directory specification defines it, owned by us and reachable by
 * nobody else (mode 0700). Where another user owns the directory, or may
 * write it, that user can unlink a socket we create and bind one of their
 * own in its place: every client started after that (a terminal with a
 * root shell among them) would take the other user for its compositor,
 * and smtctl theirs for ours. So the compositor refuses to start there,
 * and the X ring refuses to publish its discovery socket there (the X
 * program then speaks to the X socket). common/ is below every layer: the
 * compositor and the X ring's glue both include it.
 */
#ifndef SMT_RUNTIME_DIR_H
#define SMT_RUNTIME_DIR_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* On false, `why` says which rule DIR broke, naming DIR. */
static inline bool runtime_dir_private(const char *dir, char *why, size_t why_n)
{
	struct stat st;
	if (dir == NULL || dir[0] != '/') {
		snprintf(why, why_n, "XDG_RUNTIME_DIR is not set to an absolute path");
		return false;
	}
	if (stat(dir, &st) != 0) {
		snprintf(why, why_n, "XDG_RUNTIME_DIR %s: %s", dir, strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, why_n, "XDG_RUNTIME_DIR %s is no directory", dir);
		return false;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
		snprintf(why, why_n,
				"XDG_RUNTIME_DIR %s is not private (owner uid %u, mode %03o; it must be "
				"uid %u's with mode 700, or another user could replace its sockets)",
				dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
				(unsigned)geteuid());
		return false;
	}
	return true;
}

#endif
