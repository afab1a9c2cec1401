/*
 * `smt-x11run --stats`: the statistics endpoint (x11ring_endpoint.h,
 * $XDG_RUNTIME_DIR/smtwc-x11ring-<key>.stats), where <key> is the
 * SO_PEERCRED pid of the X socket (the compositor, which exports it to us as
 * SMT_X11RING_KEY). A connection gets one line per X client and is closed;
 * no request. Only our own uid gets anything: the lines name every X client
 * and their counters move with each keystroke.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "xwayland-glue/x11ring_endpoint.h"
#include "xwayland-glue/xserver/xconn.h"

static int stats_fd = -1;
static char stats_path[108];
static pid_t stats_owner; /* a forked child that exits leaves it alone */

/* Connections answered per wake-up: a reader flooding the socket delays
 * the X server by at most this many answers before it serves its clients
 * again (epoll reports the rest next time round). */
#define STATS_ACCEPTS_PER_WAKEUP 4
/* Room for one connection's line: every counter at 20 digits makes about
 * 1,250 bytes. Until session 28 it was 768, which typical 7-digit
 * counters (760 bytes) nearly filled, so with many clients the last
 * lines were left out. */
#define STATS_LINE_MAX 1536

static void remove_stats_socket(void)
{
	if (stats_path[0] && getpid() == stats_owner)
		unlink(stats_path);
}

int xconn_stats_fd(void)
{
	return stats_fd;
}

void xconn_stats_init(void)
{
	const char *key = getenv("SMT_X11RING_KEY");
	char *end;
	long k = key ? strtol(key, &end, 10) : 0;
	if (!key || !*key || *end || k <= 0)
		return;
	char why[256];
	int fd = x11ring_endpoint_listen(X11RING_ENDPOINT_STATS, k, why, sizeof(why));
	if (fd < 0) {
		/* Taken by a process of ours we do not know, or no private
		 * runtime directory: said loudly, and then nothing is served. */
		xconn_log(NULL,
				"no statistics socket: %s; smt-x11run --stats will not show "
				"this X server's connections",
				why);
		return;
	}
	stats_fd = fd;
	if (x11ring_endpoint_path(X11RING_ENDPOINT_STATS, k, stats_path, sizeof(stats_path), why,
			    sizeof(why))) {
		stats_owner = getpid();
		atexit(remove_stats_socket);
	}
}

int xconn_format(char *buf, size_t n, const struct xconn *c)
{
	const struct smt_ring_header *h = c->map ? c->rd.shared.hdr : NULL;
	const char *mode = c->state == XCONN_RING ? "ring" : "socket";
	char comm[16];
	xconn_printable_comm(c, comm);
	return snprintf(buf, n,
			"fd=%d pid=%d comm=%s transport=%s requests=%llu ring_bytes=%llu "
			"socket_bytes=%llu wakeups_from_client=%llu wakeups_to_client=%llu "
			"client_wakeups_sent=%llu client_full_waits=%llu fd_messages=%llu answers=%llu "
			"reverted=%d error=%d input_events=%llu boosts=%llu boosted_us=%llu boost_served=%llu "
			"boost_lapsed=%llu yields=%llu spin_found=%llu spin_missed=%llu "
			"spin_preempted=%llu spin_skipped=%llu "
			"light_grants=%llu xtime_us=%llu light_early=%llu light_ahead=%llu "
			"light_clear=%llu light_served=%llu light_gave_way=%llu input_held=%llu "
			"light_unearned=%llu light_no_share=%llu light_heavy=%llu "
			"light_no_slot=%llu light_share_kept=%llu idle_us=%llu wayland_waits=%llu "
			"light_new=%llu why=%s\n",
			c->fd, (int)c->pid, comm, mode,
			(unsigned long long)(c->state == XCONN_RING ? c->framer.requests :
								      c->ring_requests),
			(unsigned long long)c->rd.tail, (unsigned long long)c->plain_bytes,
			(unsigned long long)c->wakeups_from_client,
			(unsigned long long)c->wakeups_to_client,
			(unsigned long long)(h ? atomic_load_explicit(
								 &((struct smt_ring_header *)h)
										  ->wakeups_sent,
								 memory_order_relaxed) :
						 0),
			(unsigned long long)(h ? atomic_load_explicit(&((struct smt_ring_header *)h)
										       ->full_waits,
								 memory_order_relaxed) :
						 0),
			(unsigned long long)c->fd_messages, (unsigned long long)c->answers,
			c->reverted, (int)c->error, (unsigned long long)c->input_events,
			(unsigned long long)c->boost.grants,
			(unsigned long long)(c->boost.favoured_ns / 1000),
			(unsigned long long)c->boost.served, (unsigned long long)c->boost.lapsed,
			(unsigned long long)c->yields, (unsigned long long)c->spin_found,
			(unsigned long long)c->spin_missed, (unsigned long long)c->spin_preempted,
			(unsigned long long)c->spin_skipped,
			(unsigned long long)c->boost.light_grants,
			(unsigned long long)(c->usage.total_ns / 1000),
			(unsigned long long)c->light_early, (unsigned long long)c->light_ahead,
			(unsigned long long)c->light_clear,
			(unsigned long long)c->boost.light_served,
			(unsigned long long)c->light_gave_way, (unsigned long long)c->input_held,
			(unsigned long long)c->light_unearned,
			(unsigned long long)c->light_no_share, (unsigned long long)c->light_heavy,
			(unsigned long long)c->light_no_slot,
			(unsigned long long)c->light_share_kept,
			(unsigned long long)(c->usage.idle_total_ns / 1000),
			(unsigned long long)c->wayland_waits, (unsigned long long)c->light_new,
			c->other_user                           ? "other-uid" :
					c->state == XCONN_RING  ? "ring" :
					c->state == XCONN_FRESH ? "fresh" :
					c->socket_why           ? c->socket_why :
								  "no-hello");
}

void xconn_stats_serve(void)
{
	for (int i = 0; i < STATS_ACCEPTS_PER_WAKEUP; i++) {
		int fd = real_accept4(stats_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		if (!x11ring_peer_is_us(fd, NULL)) {
			real_close(fd); /* another uid: not a byte */
			continue;
		}
		unsigned n;
		struct xconn **all = xconn_all(&n);
		size_t cap = 256 + (size_t)n * STATS_LINE_MAX, len = 0;
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
