/*
 * Xwayland's own Wayland connection to the compositor, kept flowing both
 * ways (docs/x11.md "Xwayland's Wayland connection kept flowing").
 *
 * Without glamor every X pixmap is a wl_shm pool (an fd sent at once) and a
 * wl_buffer in Xwayland, and each of their ends is a 12-byte
 * wl_display.delete_id from the compositor: an X client that creates and
 * frees pixmaps in a loop (or resizes a few override-redirect windows)
 * makes Xwayland send an fd per pixmap and the compositor answer 24 bytes.
 * Neither side of libwayland (1.21) waits for room: Xwayland dies when the
 * socket cannot take its 29th queued fd ("request could not be marshaled:
 * can't send file descriptor"), and the compositor ends Xwayland's
 * connection when the socket cannot take its events ("error in client
 * communication"), which Xwayland reports the same way. Either took every
 * X client with it after 16,000-45,000 pixmaps. Two things here:
 *
 * - Reading. Xwayland reads the compositor's events once per turn of its
 *   dispatch loop (xwl_read_events: one wl_display_read_events, one
 *   recvmsg into a 4 KiB buffer), and a turn lasts a busy client's time
 *   slice. When Xwayland itself (not libwayland-client's own round trips)
 *   calls wl_display_read_events, what the socket holds beyond that read
 *   is read too: the events read so far are dispatched (what Xwayland's
 *   next call, wl_display_dispatch_pending, would do first), a read of
 *   ours is prepared and made, while poll says more is there, at most
 *   DRAIN_READS_MAX times. No read blocks.
 * - Writing. After each of Xwayland's sends on the connection, the bytes
 *   the compositor has not read yet (SIOCOUTQ) are compared with the
 *   socket's send buffer: above a quarter, X clients' reads are refused
 *   (EAGAIN, as the input boost holds clients: xwayland_conn_holds) and
 *   epoll's reports of them left out, and the X server polls every
 *   millisecond until the compositor has read all but an eighth; then the
 *   held clients are reported again. Writes held by wayland_backlog.c
 *   count as unread (for fds refused with ETOOMANYREFS the socket is
 *   empty while they wait). X clients wait as they would for a
 *   slow X server. The window manager's connection (the compositor's) is
 *   never held: the compositor may wait for its replies.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/xserver/xconn.h"

#define EXPORT __attribute__((visibility("default")))

/* 64 x 4 KiB is more than the 208 KiB a socket holds by default. */
#define DRAIN_READS_MAX 64
/* Held above a quarter of the send buffer unread, until an eighth. */
#define HOLD_ABOVE_DIV 4
#define RELEASE_BELOW_DIV 8
#define HOLD_POLL_MS 1

struct wl_display;

static int (*real_read_events)(struct wl_display *);
static int (*real_prepare_read)(struct wl_display *);
static int (*real_dispatch_pending)(struct wl_display *);
static int (*real_get_fd)(struct wl_display *);
static struct wl_display *(*real_connect)(const char *);
static struct wl_display *(*real_connect_to_fd)(int);

static int sndbuf;
static bool backlogged, any_held;
static unsigned long holds;

__attribute__((constructor)) static void resolve_wayland(void)
{
	/* NULL in processes without libwayland-client (the shell Xwayland
	 * runs xkbcomp with): then nothing here is ever called. */
	dlsym_next(&real_read_events, "wl_display_read_events");
	dlsym_next(&real_prepare_read, "wl_display_prepare_read");
	dlsym_next(&real_dispatch_pending, "wl_display_dispatch_pending");
	dlsym_next(&real_get_fd, "wl_display_get_fd");
	dlsym_next(&real_connect, "wl_display_connect");
	dlsym_next(&real_connect_to_fd, "wl_display_connect_to_fd");
}

/* Whether the call came from outside libwayland-client: its own
 * wl_display_dispatch_queue (round trips) reads through the exported
 * function too, and must get exactly what it asked for. Xwayland calls
 * from one place (xwl_read_events), so the answer for its last caller is
 * kept: two dladdr per read were two searches of the loaded objects. */
static bool called_from_outside_libwayland(const void *caller)
{
	static const void *lib_base, *last_caller;
	static bool last_outside;
	if (caller == last_caller)
		return last_outside;
	Dl_info at;
	if (lib_base == NULL) {
		Dl_info lib;
		void *fn;
		memcpy(&fn, &real_read_events, sizeof(fn));
		if (!dladdr(fn, &lib))
			return false;
		lib_base = lib.dli_fbase;
	}
	if (!dladdr(caller, &at))
		return false;
	last_caller = caller;
	last_outside = at.dli_fbase != lib_base;
	return last_outside;
}

static bool more_to_read(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Xwayland's connection is known from the moment it is made, before its
 * first request: the backlog (wayland_backlog.c) takes its writes from
 * then on. Learnt at Xwayland's first read of events instead, a compositor
 * that never sent any (stopped from the start) left both mends off: 1,472
 * pixmaps ended an Xwayland started with WAYLAND_DISPLAY. */
static void learn_fd(struct wl_display *display)
{
	if (display == NULL || !real_get_fd)
		return;
	wayland_backlog_adopt(real_get_fd(display));
	int fd = wayland_backlog_fd();
	socklen_t len = sizeof(sndbuf);
	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0 || sndbuf <= 0)
		sndbuf = 212992; /* net.core.wmem_default's default */
}

/* libwayland's wl_display_connect (WAYLAND_SOCKET or WAYLAND_DISPLAY)
 * calls wl_display_connect_to_fd within the library; an outside call of
 * either is Xwayland's. */
EXPORT struct wl_display *wl_display_connect(const char *name)
{
	if (!real_connect)
		return NULL;
	struct wl_display *display = real_connect(name);
	learn_fd(display);
	return display;
}

EXPORT struct wl_display *wl_display_connect_to_fd(int fd)
{
	if (!real_connect_to_fd)
		return NULL;
	struct wl_display *display = real_connect_to_fd(fd);
	learn_fd(display);
	return display;
}

EXPORT int wl_display_read_events(struct wl_display *display)
{
	if (!real_read_events)
		return -1;
	int ret = real_read_events(display);
	if (ret < 0 || !real_prepare_read || !real_dispatch_pending || !real_get_fd ||
			!called_from_outside_libwayland(__builtin_return_address(0)))
		return ret;
	for (int i = 0; i < DRAIN_READS_MAX && wayland_backlog_fd() >= 0 &&
			more_to_read(wayland_backlog_fd());
			i++) {
		/* Errors stay on the display: Xwayland's own
		 * dispatch_pending next sees them and gives up as it would. */
		if (real_dispatch_pending(display) < 0)
			break;
		if (real_prepare_read(display) != 0)
			break;
		if (real_read_events(display) < 0)
			return -1;
	}
	return ret;
}

/* Bytes Xwayland sent the compositor that it has not read yet: in the
 * socket, and held before it (a write the kernel refused for the uid's
 * fds in flight holds bytes while the socket is empty). */
static int unread(void)
{
	int n = 0;
	size_t held = wayland_backlog_bytes();
	if (ioctl(wayland_backlog_fd(), SIOCOUTQ, &n) != 0)
		n = 0;
	return held > (size_t)(INT_MAX - n) ? INT_MAX : n + (int)held;
}

void xwayland_conn_sent(int fd)
{
	if (!wayland_backlog_owns(fd) || backlogged)
		return;
	int n = unread();
	if (n <= sndbuf / HOLD_ABOVE_DIV)
		return;
	backlogged = true;
	holds++;
	xconn_log(NULL,
			"Xwayland's Wayland connection: the compositor has %d bytes "
			"unread; X clients wait until it reads them (%lu times so far)",
			n, holds);
}

bool xwayland_conn_holds(struct xconn *c)
{
	/* Only a client epoll can report again (the X server's sets are
	 * edge-triggered: a refused read's bytes are not reported anew). */
	if (!backlogged || c->epfd < 0 || !(c->xevents & EPOLLIN))
		return false;
	c->wayland_held = true;
	c->wayland_waits++;
	any_held = true;
	return true;
}

/* Still backlogged? Checked where the X server waits. */
static bool still_backlogged(void)
{
	if (backlogged && unread() < sndbuf / RELEASE_BELOW_DIV)
		backlogged = false;
	return backlogged;
}

int xwayland_conn_timeout(int timeout)
{
	if (!still_backlogged())
		return any_held ? 0 : timeout;
	return timeout < 0 || timeout > HOLD_POLL_MS ? HOLD_POLL_MS : timeout;
}

int xwayland_conn_filter(int epfd, struct epoll_event *ev, int n, int max)
{
	if (!any_held && !backlogged)
		return n;
	unsigned nall;
	struct xconn **all = xconn_all(&nall);
	if (still_backlogged()) {
		int out = 0;
		for (int i = 0; i < n; i++) {
			struct xconn *c = NULL;
			for (unsigned k = 0; k < nall && !c; k++)
				if (all[k]->epfd == epfd && all[k]->xdata.u64 == ev[i].data.u64)
					c = all[k];
			if (c && (ev[i].events & EPOLLIN) &&
					!(ev[i].events & (EPOLLHUP | EPOLLERR))) {
				c->wayland_held = true;
				c->wayland_waits++;
				any_held = true;
				continue;
			}
			ev[out++] = ev[i];
		}
		return out;
	}
	/* Read: every held client is reported once more. */
	return xconn_report_held(epfd, ev, n, max, offsetof(struct xconn, wayland_held), &any_held);
}
