/*
 * `smt-x11run --stats`: an abstract unix socket named
 * SMT_STREAM_DISCOVERY "stats-" <key>, where <key> is the SO_PEERCRED pid of
 * the X socket (the compositor, which exports it to us as SMT_X11RING_KEY).
 * A connection gets one line per X client and is closed; no request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "xconn.h"

static int stats_fd = -1;

int xconn_stats_fd(void)
{
	return stats_fd;
}

void xconn_stats_init(void)
{
	const char *key = getenv("SMT_X11RING_KEY");
	if (!key || !*key)
		return;
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int len = snprintf(addr.sun_path + 1, sizeof(addr.sun_path) - 1, "%sstats-%s",
			   SMT_STREAM_DISCOVERY, key);
	if (len <= 0 || (size_t)len >= sizeof(addr.sun_path) - 1)
		return;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len);
	if (bind(fd, (struct sockaddr *)&addr, alen) != 0 || listen(fd, 8) != 0) {
		xconn_log(NULL, "no statistics socket: %s", strerror(errno));
		real_close(fd);
		return;
	}
	stats_fd = fd;
}

int xconn_format(char *buf, size_t n, const struct xconn *c)
{
	const struct smt_ring_header *h = c->map ? c->rd.hdr : NULL;
	const char *mode = c->state == XCONN_RING ? "ring" : "socket";
	return snprintf(buf, n,
			"fd=%d pid=%d comm=%s transport=%s requests=%llu ring_bytes=%llu "
			"socket_bytes=%llu wakeups_from_client=%llu wakeups_to_client=%llu "
			"client_wakeups_sent=%llu client_full_waits=%llu fd_messages=%llu answers=%llu "
			"reverted=%d error=%d\n",
			c->fd, (int)c->pid, c->comm[0] ? c->comm : "?", mode,
			(unsigned long long)c->rd.count.requests,
			(unsigned long long)c->rd.tail,
			(unsigned long long)c->plain_bytes,
			(unsigned long long)c->wakeups_from_client,
			(unsigned long long)c->wakeups_to_client,
			(unsigned long long)(h ? atomic_load_explicit(
				&((struct smt_ring_header *)h)->wakeups_sent, memory_order_relaxed) : 0),
			(unsigned long long)(h ? atomic_load_explicit(
				&((struct smt_ring_header *)h)->full_waits, memory_order_relaxed) : 0),
			(unsigned long long)c->fd_messages, (unsigned long long)c->answers, c->reverted, (int)c->error);
}

void xconn_stats_serve(void)
{
	for (;;) {
		int fd = real_accept4(stats_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		unsigned n;
		struct xconn **all = xconn_all(&n);
		size_t cap = 256 + (size_t)n * 320, len = 0;
		char *buf = malloc(cap);
		if (buf) {
			for (unsigned i = 0; i < n; i++) {
				int k = xconn_format(buf + len, cap - len, all[i]);
				if (k > 0 && (size_t)k < cap - len)
					len += (size_t)k;
			}
			/* Never blocks the X server: a reader too slow gets less. */
			ssize_t w = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
			(void)w;
			free(buf);
		}
		real_close(fd);
	}
}
