/*
 * The window manager's connection: its repeated PropertyNotify left out of
 * each write (docs/x11.md "The window manager's events").
 *
 * An X client setting its title in a loop made the X server write two
 * PropertyNotify per title to wlroots' window manager, which answers each
 * with a synchronous GetProperty from the compositor's main loop. The
 * compositor merges and paces them (xwayland-glue/wm/wm_event_pacer.c),
 * but it still had to read every one, and a GetProperty's reply came
 * behind all those written before it: a million events a second, and the
 * compositor waited in each round trip for as long as reading them took.
 * Here, as the X server writes to that connection, a PropertyNotify that
 * repeats one earlier in the same write is left out
 * (xwayland-glue/stream/x11_answer_coalesce.h): the X server buffers what
 * the window manager has not read yet, so the more it falls behind, the
 * more one write holds and the less of it is written. A new value is also
 * left out when one of the same window and property was written since
 * the window manager's last request: that request, not read yet, or the
 * one the event makes it send, reads the property after this change.
 * Since the compositor reads and paces the events itself, this is what
 * keeps it from reading a million a second (measured: ...).
 *
 * The connection is the socket Xwayland got as `-wm N` on its command
 * line, believed only if its peer is the compositor (SO_PEERCRED pid =
 * SMT_X11RING_KEY, which the compositor exports). Every byte the X server
 * writes to it passes through writev or sendmsg (Xtrans), so the framing
 * follows the stream; once the descriptor is closed it is forgotten.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "xwayland-glue/stream/x11_answer_coalesce.h"
#include "xwayland-glue/xserver/xconn.h"

static int wm_fd = -1;
static struct x11_answer_framer framer;
static uint8_t *in_buf, *out_buf;
static size_t buf_cap;
static uint64_t left_out, writes_coalesced;

/* `-wm N` of Xwayland's command line, or -1. */
static int wm_fd_of_cmdline(void)
{
	FILE *f = fopen("/proc/self/cmdline", "re");
	if (!f)
		return -1;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	int fd = -1;
	for (size_t i = 0; i < n;) {
		const char *arg = buf + i;
		size_t len = strlen(arg);
		if (strcmp(arg, "-wm") == 0 && i + len + 1 < n) {
			char *end;
			long v = strtol(arg + len + 1, &end, 10);
			fd = *end == '\0' && v >= 0 && v < 65536 ? (int)v : -1;
		}
		i += len + 1;
	}
	return fd;
}

void wm_events_init(void)
{
	const char *key = getenv("SMT_X11RING_KEY");
	char *end;
	long compositor = key ? strtol(key, &end, 10) : 0;
	if (!key || !*key || *end || compositor <= 0)
		return;
	int fd = wm_fd_of_cmdline();
	struct stat st;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
			getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
			cred.pid != (pid_t)compositor || cred.uid != geteuid()) {
		if (fd >= 0)
			xconn_log(NULL,
					"-wm %d is not the compositor's socket: its events are "
					"not coalesced",
					fd);
		return;
	}
	wm_fd = fd;
}

bool wm_events_is_wm(int fd)
{
	return fd >= 0 && fd == wm_fd;
}

void wm_events_closed(int fd)
{
	if (!wm_events_is_wm(fd))
		return;
	if (left_out > 0)
		xconn_log(NULL, "window manager: %llu PropertyNotify left out of %llu writes",
				(unsigned long long)left_out, (unsigned long long)writes_coalesced);
	wm_fd = -1;
	free(in_buf);
	free(out_buf);
	in_buf = out_buf = NULL;
	buf_cap = 0;
}

static size_t iov_total(const struct iovec *iov, int n)
{
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += iov[i].iov_len;
	return total;
}

/* The framer past the first `bytes` bytes of iov. */
static void feed_iov(const struct iovec *iov, int n, size_t bytes)
{
	for (int i = 0; i < n && bytes > 0; i++) {
		size_t k = iov[i].iov_len < bytes ? iov[i].iov_len : bytes;
		x11_answer_framer_feed(&framer, iov[i].iov_base, k);
		bytes -= k;
	}
}

static bool room_for(size_t total)
{
	if (total <= buf_cap)
		return true;
	uint8_t *a = malloc(total), *b = malloc(total);
	if (!a || !b) {
		free(a);
		free(b);
		return false;
	}
	free(in_buf);
	free(out_buf);
	in_buf = a;
	out_buf = b;
	buf_cap = total;
	return true;
}

ssize_t wm_events_writev(int fd, const struct iovec *iov, int n,
		ssize_t (*real_writev)(int, const struct iovec *, int))
{
	size_t total = iov_total(iov, n);
	/* A PropertyNotify at least, or there is nothing to leave out. */
	if (total < 32 || !room_for(total)) {
		ssize_t w = real_writev(fd, iov, n);
		if (w > 0)
			feed_iov(iov, n, (size_t)w);
		return w;
	}
	size_t at = 0;
	for (int i = 0; i < n; i++) {
		memcpy(in_buf + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	struct x11_coalesce_plan plan;
	size_t kept = x11_coalesce(&framer, in_buf, total, out_buf, &plan);
	struct iovec one = { .iov_base = plan.left_out ? out_buf : in_buf,
		.iov_len = plan.left_out ? kept : total };
	/* All of it left out: nothing to write, all of it taken. */
	ssize_t w = kept > 0 ? real_writev(fd, &one, 1) : 0;
	if (w < 0)
		return w;
	size_t consumed = plan.left_out ? x11_coalesce_consumed(&plan, (size_t)w) : (size_t)w;
	x11_answer_framer_feed(&framer, in_buf, consumed);
	if (plan.left_out && (size_t)w == kept) {
		left_out += plan.left_out;
		writes_coalesced++;
	}
	return (ssize_t)consumed;
}

void wm_events_read(int fd, ssize_t n)
{
	if (n > 0 && wm_events_is_wm(fd))
		x11_answer_framer_requests_read(&framer);
}

void wm_events_sent(const struct iovec *iov, int n, ssize_t written)
{
	if (written > 0)
		feed_iov(iov, n, (size_t)written);
}
