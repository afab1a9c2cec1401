/* See x11ring_endpoint.h. */
#define _GNU_SOURCE
#include "xwayland-glue/x11ring_endpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/runtime_dir.h"
#include "protocol/smt-ring.h"

bool x11ring_peer_is_us(int fd, struct ucred *cred)
{
	struct ucred c;
	socklen_t len = sizeof(c);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len) != 0 || len != sizeof(c))
		return false;
	if (cred)
		*cred = c;
	return c.uid == geteuid();
}

bool x11ring_endpoint_path(
		const char *kind, long key, char *path, size_t n, char *why, size_t why_n)
{
	const char *dir = getenv("XDG_RUNTIME_DIR");
	/* Nobody but us may create or reach a socket in it. */
	if (!runtime_dir_private(dir, why, why_n)) {
		return false;
	}
	int len = snprintf(path, n, "%s/%s%ld%s", dir, SMT_STREAM_DISCOVERY, key, kind);
	if (len < 0 || (size_t)len >= n ||
			(size_t)len >= sizeof(((struct sockaddr_un *)NULL)->sun_path)) {
		snprintf(why, why_n, "XDG_RUNTIME_DIR %s is too long for a socket name", dir);
		return false;
	}
	return true;
}

static int socket_at(const char *path, struct sockaddr_un *a)
{
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	memcpy(a->sun_path, path, strlen(path) + 1);
	return socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

int x11ring_endpoint_connect(const char *kind, long key, pid_t *peer_pid, char *why, size_t why_n)
{
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	if (!x11ring_endpoint_path(kind, key, path, sizeof(path), why, why_n))
		return -1;
	struct sockaddr_un a;
	int fd;
	/* A connect waiting for room in a busy listener's backlog ends with
	 * EINTR at any signal (a program's SIGALRM or SIGCHLD): asked again on
	 * a new socket, as an interrupted connect leaves its socket's state
	 * to the kernel. Before (session 37), such a program's X connection
	 * went to the socket without a ring ("no-hello"). */
	for (;;) {
		fd = socket_at(path, &a);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			break;
		int err = errno;
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && err == EINTR)
			continue;
		snprintf(why, why_n, "%s: %s", path, strerror(err));
		return -1;
	}
	struct ucred cred;
	if (!x11ring_peer_is_us(fd, &cred)) {
		snprintf(why, why_n, "%s is held by pid %d of uid %u, not by us", path,
				(int)cred.pid, (unsigned)cred.uid);
		close(fd);
		return -1;
	}
	if (peer_pid)
		*peer_pid = cred.pid;
	return fd;
}

int x11ring_endpoint_listen(const char *kind, long key, char *why, size_t why_n)
{
	char path[sizeof(((struct sockaddr_un *)NULL)->sun_path)];
	if (!x11ring_endpoint_path(kind, key, path, sizeof(path), why, why_n))
		return -1;
	struct sockaddr_un a;
	for (int attempt = 0; attempt < 2; attempt++) {
		int fd = socket_at(path, &a);
		if (fd < 0) {
			snprintf(why, why_n, "socket: %s", strerror(errno));
			return -1;
		}
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			if (listen(fd, 16) != 0) {
				snprintf(why, why_n, "%s: listen: %s", path, strerror(errno));
				close(fd);
				unlink(path);
				return -1;
			}
			int fl = fcntl(fd, F_GETFL);
			if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0) {
				snprintf(why, why_n, "%s: %s", path, strerror(errno));
				close(fd);
				unlink(path);
				return -1;
			}
			return fd;
		}
		int err = errno;
		close(fd);
		if (err != EADDRINUSE) {
			snprintf(why, why_n, "%s: %s", path, strerror(err));
			return -1;
		}
		/* Somebody's file: still served, or left by a dead process? */
		int probe = socket_at(path, &a);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&a, sizeof(a)) == 0) {
			struct ucred cred = { 0 };
			x11ring_peer_is_us(probe, &cred);
			snprintf(why, why_n, "%s is already served by pid %d (uid %u)", path,
					(int)cred.pid, (unsigned)cred.uid);
			close(probe);
			return -1;
		}
		if (probe >= 0)
			close(probe);
		struct stat st;
		if (lstat(path, &st) != 0 || !S_ISSOCK(st.st_mode) || unlink(path) != 0) {
			snprintf(why, why_n, "%s exists and is no stale socket", path);
			return -1;
		}
	}
	snprintf(why, why_n, "%s: taken again while being replaced", path);
	return -1;
}
