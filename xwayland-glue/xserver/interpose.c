/*
 * The libc entry points the stream half wraps inside Xwayland, and the
 * table of accepted connections. See xconn.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/xserver/xconn.h"

#define EXPORT __attribute__((visibility("default")))

ssize_t (*real_recvmsg)(int, struct msghdr *, int);
int (*real_close)(int);
int (*real_epoll_ctl)(int, int, int, struct epoll_event *);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_epoll_wait)(int, struct epoll_event *, int, int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);

/* Indexed by fd; X clients are a few hundred at most, their fds small. */
#define XCONN_MAX_FD 8192
static struct xconn *by_fd[XCONN_MAX_FD];
static struct xconn *all[XCONN_MAX_FD];
static unsigned nall;
static unsigned nring; /* RING connections: epoll_wait's fast path is 0 */

/* Xwayland runs xkbcomp through a shell: they must not get this library
 * (nor its statistics socket), nor the sanitizer's runtime that hosts it in
 * a sanitizer build (dash dies at its start under gcc's TSan runtime, and
 * neither program has code of ours). */
static bool preload_entry_ours(const char *entry, size_t len)
{
	if (memmem(entry, len, "libsmt-x11ring-server", 21))
		return true;
#ifdef SMT_SANITIZER_RUNTIME
	if (len == strlen(SMT_SANITIZER_RUNTIME) && !strncmp(entry, SMT_SANITIZER_RUNTIME, len))
		return true;
#endif
	return false;
}

static void forget_preload(void)
{
	const char *v = getenv("LD_PRELOAD");
	if (!v || !strstr(v, "libsmt-x11ring-server"))
		return;
	char *out = calloc(1, strlen(v) + 1);
	if (!out)
		return;
	for (const char *p = v; *p;) {
		size_t l = strcspn(p, ": ");
		if (l && !preload_entry_ours(p, l)) {
			if (*out)
				strcat(out, ":");
			strncat(out, p, l);
		}
		p += l;
		p += strspn(p, ": ");
	}
	setenv("LD_PRELOAD", out, 1);
	free(out);
}

__attribute__((constructor)) static void resolve_real(void)
{
	dlsym_next(&real_recvmsg, "recvmsg");
	dlsym_next(&real_read, "read");
	dlsym_next(&real_close, "close");
	dlsym_next(&real_accept, "accept");
	dlsym_next(&real_accept4, "accept4");
	dlsym_next(&real_epoll_ctl, "epoll_ctl");
	dlsym_next(&real_epoll_wait, "epoll_wait");
	dlsym_next(&real_dup2, "dup2");
	dlsym_next(&real_dup3, "dup3");
	dlsym_next(&real_writev, "writev");
	dlsym_next(&real_sendmsg, "sendmsg");
	wayland_backlog_init(real_sendmsg);
}

/* The process that registers fds with epoll is the X server. A wrapper
 * script's shell that execs Xwayland, or the shell Xwayland runs xkbcomp
 * with, loads this library too and must neither drop it from LD_PRELOAD
 * (the wrapper's Xwayland would run without it) nor take the statistics
 * socket. */
static void become_server(void)
{
	static bool done;
	if (done)
		return;
	done = true;
	forget_preload();
	xconn_stats_init();
	wm_events_init();
}

struct xconn *xconn_get(int fd)
{
	return fd >= 0 && fd < XCONN_MAX_FD ? by_fd[fd] : NULL;
}

unsigned xconn_ring_count(void)
{
	return nring;
}

struct xconn **xconn_all(unsigned *n)
{
	*n = nall;
	return all;
}

int xconn_report_held(
		int epfd, struct epoll_event *ev, int n, int max, size_t flag_offset, bool *left)
{
	*left = false;
	for (unsigned k = 0; k < nall; k++) {
		struct xconn *c = all[k];
		bool *held = (bool *)((char *)c + flag_offset);
		if (!*held || c->epfd != epfd)
			continue;
		if (n >= max) {
			*left = true;
			break;
		}
		*held = false;
		bool listed = false;
		for (int i = 0; i < n && !listed; i++)
			listed = ev[i].data.u64 == c->xdata.u64;
		if (!listed && (c->xevents & EPOLLIN)) {
			ev[n].events = EPOLLIN;
			ev[n].data = c->xdata;
			n++;
		}
	}
	return n;
}

static void track(int fd)
{
	if (fd < 0 || fd >= XCONN_MAX_FD || by_fd[fd])
		return; /* beyond the table: stays an ordinary socket */
	struct xconn *c = calloc(1, sizeof(*c));
	if (!c)
		return;
	c->fd = fd;
	c->epfd = -1;
	c->server_efd = c->wake_fd = -1;
	static uint64_t accepted;
	c->accepted = ++accepted;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		c->pid = cred.pid;
		c->other_user = cred.uid != geteuid();
		c->peer_uid = cred.uid;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)cred.pid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(c->comm, sizeof(c->comm), f))
				c->comm[strcspn(c->comm, "\n")] = '\0';
			fclose(f);
		}
	}
	by_fd[fd] = c;
	all[nall++] = c;
	input_boost_track(c);
}

static void untrack(int fd)
{
	wm_events_closed(fd);
	struct xconn *c = xconn_get(fd);
	if (!c)
		return;
	/* SMT_X11RING_LOG=1: a line per connection as it closes (tests check
	 * short-lived programs with it). */
	static int log_closes = -1;
	if (log_closes < 0) {
		const char *v = getenv("SMT_X11RING_LOG");
		log_closes = v && *v == '1';
	}
	if (log_closes && !c->other_user) {
		char line[1024];
		if (xconn_format(line, sizeof(line), c) > 0)
			fprintf(stderr, "smt-x11ring: closed: %s", line);
	}
	if (c->state == XCONN_RING)
		nring--;
	input_boost_forget(c);
	xconn_release_ring(c);
	by_fd[fd] = NULL;
	for (unsigned i = 0; i < nall; i++) {
		if (all[i] == c) {
			all[i] = all[--nall];
			break;
		}
	}
	free(c);
}

/* The ring's hello is taken only from a sender of our uid (handshake.c),
 * and the kernel records a message's sender only for a receiver with
 * SO_PASSCRED at the send, or one not yet accepted. Set on the listener,
 * a connection made after it has it from its start (the kernel copies
 * it); set on the accepted socket alone, a hello sent between the accept
 * and that setsockopt named no sender and was refused (seen under ASan,
 * session 41). Connections made before the first accept (those waiting
 * when Xwayland starts) get it at their accept: senders_named false, a
 * hello without a sender is judged by the peer's credentials alone, as
 * before. The first read's decision turns it off (xconn_handshake); a
 * socket not tracked has it off at once. */
static void ask_senders(int listener)
{
	int on = 1;
	setsockopt(listener, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
}

static void accepted(int cfd)
{
	if (cfd < 0 || other_uids_refuse(cfd))
		return;
	int on = 0;
	socklen_t len = sizeof(on);
	bool inherited = getsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &on, &len) == 0 && on;
	track(cfd);
	struct xconn *c = xconn_get(cfd);
	int want = c != NULL;
	if (c)
		c->senders_named = inherited;
	if (want != inherited)
		setsockopt(cfd, SOL_SOCKET, SO_PASSCRED, &want, sizeof(want));
}

EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	ask_senders(fd);
	int cfd = real_accept(fd, addr, len);
	accepted(cfd);
	return cfd;
}

EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	ask_senders(fd);
	int cfd = real_accept4(fd, addr, len, flags);
	accepted(cfd);
	return cfd;
}

EXPORT int close(int fd)
{
	untrack(fd);
	wayland_backlog_closed(fd);
	return real_close(fd);
}

EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd)
		untrack(newfd);
	return real_dup2(oldfd, newfd);
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	untrack(newfd);
	return real_dup3(oldfd, newfd, flags);
}

/* A connection's first read decides what it is. */
static struct xconn *ring_conn(int fd)
{
	struct xconn *c = xconn_get(fd);
	if (c && c->state == XCONN_FRESH) {
		xconn_handshake(c);
		if (c->state == XCONN_RING)
			nring++;
	}
	return c && c->state == XCONN_RING ? c : NULL;
}

/* After a REVERT the socket carries the rest of the stream. */
static void make_plain(struct xconn *c)
{
	nring--;
	/* "requests" stays what the ring carried; the framer goes on from
	 * here over the socket */
	c->ring_requests = c->framer.requests;
	xconn_release_ring(c);
	c->socket_why = "reverted";
	c->state = XCONN_PLAIN;
}

/* The X server found nothing to read from fd's client (the read said
 * EAGAIN): it has no requests waiting, which light grants are earned by
 * (input_boost.c). errno is kept. */
static void note_drained(int fd, ssize_t n)
{
	if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
		return;
	struct xconn *c = xconn_get(fd);
	if (c)
		input_boost_drained(c);
}

static ssize_t recv_request_bytes(int fd, struct msghdr *msg, int flags)
{
	struct xconn *c = ring_conn(fd);
	if (c) {
		/* The control room is the X server's: after a REVERT the real
		 * recvmsg needs all of it, or the kernel discards the fds of the
		 * child's first request (its ShmAttachFd got BadMatch). */
		size_t room = msg->msg_controllen;
		ssize_t n = xconn_serve(c, msg);
		if (!c->reverted) {
			note_drained(fd, n);
			return n;
		}
		make_plain(c);
		msg->msg_controllen = room;
	}
	ssize_t n = real_recvmsg(fd, msg, flags);
	wm_events_read(fd, n);
	if (n > 0 && (c = xconn_get(fd)))
		c->plain_bytes += (uint64_t)n;
	note_drained(fd, n);
	return n;
}

/* A client's read while Xwayland's Wayland connection is full
 * (wayland_conn.c) or another has the input boost: refused, or cut short
 * (input_boost.c). */
static bool boost_refuses(int fd)
{
	struct xconn *c = xconn_get(fd);
	if (c && xwayland_conn_holds(c)) {
		errno = EAGAIN;
		return true;
	}
	if (c)
		input_boost_reading(c);
	if (c && input_boost_yield(c)) {
		errno = EAGAIN;
		return true;
	}
	return false;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	if (boost_refuses(fd))
		return -1;
	struct xconn *c = xconn_get(fd);
	if (!c || msg->msg_iovlen != 1) {
		size_t asked = 0;
		for (size_t i = 0; i < msg->msg_iovlen; i++)
			asked += msg->msg_iov[i].iov_len;
		ssize_t n = recv_request_bytes(fd, msg, flags);
		if (n > 0 && (c = xconn_get(fd)))
			input_boost_requests(
					c, msg->msg_iov, (int)msg->msg_iovlen, (size_t)n, asked);
		return n;
	}
	size_t full = msg->msg_iov[0].iov_len;
	size_t asked = input_boost_read_cap(c, full);
	msg->msg_iov[0].iov_len = asked;
	ssize_t n = recv_request_bytes(fd, msg, flags);
	int saved = errno;
	msg->msg_iov[0].iov_len = full;
	if (n > 0 && (c = xconn_get(fd)))
		input_boost_requests(c, msg->msg_iov, 1, (size_t)n, asked);
	errno = saved;
	return n;
}

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	if (boost_refuses(fd))
		return -1;
	struct xconn *c = xconn_get(fd);
	if (c)
		count = input_boost_read_cap(c, count);
	struct iovec iov = { .iov_base = buf, .iov_len = count };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	c = ring_conn(fd);
	ssize_t n;
	if (c) {
		n = xconn_serve(c, &msg);
		if (!c->reverted) {
			if (n > 0)
				input_boost_requests(c, &iov, 1, (size_t)n, count);
			note_drained(fd, n);
			return n;
		}
		make_plain(c);
	}
	n = real_read(fd, buf, count);
	wm_events_read(fd, n);
	note_drained(fd, n);
	if (n > 0 && (c = xconn_get(fd))) {
		int saved = errno;
		input_boost_requests(c, &iov, 1, (size_t)n, count);
		errno = saved;
	}
	return n;
}

/* The X server answers a client (replies, events, errors) with writev, or
 * sendmsg when fds go along: counted for the statistics, since a client
 * waiting for answers is a round trip the ring cannot shorten, and read
 * for input events by the input boost. */
static void note_answer(int fd, const struct iovec *iov, int n, ssize_t written)
{
	struct xconn *c = xconn_get(fd);
	if (!c)
		return;
	c->answers++;
	if (written > 0)
		input_boost_answered(c, iov, n, (size_t)written);
}

EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
	if (wm_events_is_wm(fd))
		return wm_events_writev(fd, iov, n, real_writev);
	ssize_t w = real_writev(fd, iov, n);
	int saved = errno;
	note_answer(fd, iov, n, w);
	errno = saved;
	return w;
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	if (wayland_backlog_owns(fd)) {
		/* Xwayland's own Wayland connection: what the socket refuses
		 * is held (wayland_backlog.c), and X clients wait while the
		 * compositor has much of it unread (wayland_conn.c). */
		ssize_t w = wayland_backlog_sendmsg(fd, msg, flags);
		int saved = errno;
		xwayland_conn_sent(fd);
		errno = saved;
		return w;
	}
	ssize_t w = real_sendmsg(fd, msg, flags);
	int saved = errno;
	if (wm_events_is_wm(fd))
		wm_events_sent(msg->msg_iov, (int)msg->msg_iovlen, w);
	note_answer(fd, msg->msg_iov, (int)msg->msg_iovlen, w);
	errno = saved;
	return w;
}

EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	become_server();
	struct xconn *c = xconn_get(fd);
	/* Each time a ring client's read finds nothing, the X server re-arms
	 * its edge-triggered socket: a syscall that buys nothing here, since
	 * the ring and the socket's fd messages are looked at on every read. */
	if (c && c->state == XCONN_RING && op == EPOLL_CTL_MOD && ev && epfd == c->epfd &&
			ev->events == c->xevents && ev->data.u64 == c->xdata.u64)
		return 0;
	int r = real_epoll_ctl(epfd, op, fd, ev);
	if (r == 0 && c) {
		if (op == EPOLL_CTL_DEL) {
			c->epfd = -1;
			c->xevents = 0;
		} else if (ev) {
			c->epfd = epfd;
			c->xevents = ev->events;
			c->xdata = ev->data;
		}
		/* The X server's main epoll set: our statistics socket joins it. */
		static bool stats_added;
		if (!stats_added && op == EPOLL_CTL_ADD && xconn_stats_fd() >= 0) {
			struct epoll_event sev = { .events = EPOLLIN, .data.u64 = XCONN_TAG_STATS };
			stats_added = real_epoll_ctl(epfd, EPOLL_CTL_ADD, xconn_stats_fd(), &sev) ==
					0;
		}
	}
	return r;
}

static bool any_ring_input(void)
{
	for (unsigned i = 0; i < nall; i++) {
		struct xconn *c = all[i];
		if (c->state == XCONN_RING && (c->xevents & EPOLLIN) && xconn_has_input(c))
			return true;
	}
	return false;
}

/* Our own events out, ring connections with bytes in. */
static int rewrite_events(int epfd, struct epoll_event *ev, int n, int max)
{
	int out = 0;
	for (int i = 0; i < n; i++) {
		uint64_t tag = ev[i].data.u64;
		if ((tag & XCONN_TAG) == XCONN_TAG) {
			if ((tag & ~0xffffffffull) == XCONN_TAG_STATS) {
				xconn_stats_serve();
			} else {
				struct xconn *c = xconn_get((int)(uint32_t)tag);
				if (c)
					c->wakeups_from_client++;
			}
			continue;
		}
		ev[out++] = ev[i];
	}
	if (nring == 0)
		return out;
	/* Sockets epoll reported may hold fd messages or EOF; they are in the
	 * list already. */
	static uint64_t batch;
	batch++;
	for (int i = 0; i < out; i++) {
		for (unsigned k = 0; k < nall; k++) {
			struct xconn *c = all[k];
			if (c->state == XCONN_RING && c->epfd == epfd &&
					c->xdata.u64 == ev[i].data.u64) {
				xconn_socket_reported(c);
				c->reported = batch;
				break;
			}
		}
	}
	for (unsigned k = 0; k < nall && out < max; k++) {
		struct xconn *c = all[k];
		if (c->state != XCONN_RING || c->epfd != epfd || !(c->xevents & EPOLLIN) ||
				c->reported == batch || !xconn_has_input(c))
			continue;
		ev[out].events = EPOLLIN;
		ev[out].data = c->xdata;
		out++;
	}
	return out;
}

/* How long the server looks at busy rings before it sleeps, and whether
 * it does at all (stream/x11_spin.h): a client that flushes again within
 * this time costs neither side a syscall (measured in docs/x11.md). Only
 * right after ring bytes were served, so an idle server never spins, and
 * not after spins that found nothing or lost the CPU (backoff). */
static const struct x11_spin_config *spin_config(void)
{
	static struct x11_spin_config cfg = { .preempt_gap_ns = X11_SPIN_PREEMPT_GAP_NS };
	static bool read;
	if (!read) {
		read = true;
		const char *v = getenv("SMT_X11RING_SPIN_US");
		long long us = v && *v ? strtoll(v, NULL, 10) : XCONN_SPIN_US_DEFAULT;
		cfg.budget_ns = us > 0 && us <= XCONN_SPIN_US_MAX ? (uint64_t)us * 1000u : 0;
	}
	return &cfg;
}

static struct x11_spin spin;

/* The ring client that sent requests last, if within the budget: its next
 * bytes probably come soon. The spin's outcome is counted on it. */
static struct xconn *streaming_client(uint64_t now, uint64_t budget)
{
	struct xconn *last = NULL;
	for (unsigned i = 0; i < nall; i++) {
		struct xconn *c = all[i];
		if (c->state == XCONN_RING && now - c->last_input_ns <= budget &&
				(!last || c->last_input_ns > last->last_input_ns))
			last = c;
	}
	return last;
}

static bool spin_for_ring_input(void)
{
	const struct x11_spin_config *cfg = spin_config();
	uint64_t now = monotonic_now_ns();
	struct xconn *armer = cfg->budget_ns ? streaming_client(now, cfg->budget_ns) : NULL;
	uint64_t skipped = spin.skipped;
	if (!x11_spin_begin(&spin, cfg, now, armer != NULL)) {
		if (armer)
			armer->spin_skipped += spin.skipped - skipped;
		return false;
	}
	for (unsigned i = 0;; i++) {
		bool input = any_ring_input();
		/* The clock every 16 looks, and at once when there is input. */
		enum x11_spin_step step = input || (i & 15) == 15 ?
				x11_spin_look(&spin, cfg, monotonic_now_ns(), input) :
				X11_SPIN_GO_ON;
		switch (step) {
		case X11_SPIN_GO_ON:
			cpu_relax();
			continue;
		case X11_SPIN_FOUND:
			armer->spin_found++;
			return true;
		case X11_SPIN_MISSED:
			armer->spin_missed++;
			return false;
		case X11_SPIN_PREEMPTED:
			armer->spin_preempted++;
			return false;
		}
	}
}

EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	struct smt_global_status *g = nring ? xconn_global() : NULL;
	bool slept = false;
	input_boost_polling(false);
	timeout = xwayland_conn_timeout(input_boost_timeout(timeout));
	if (g && timeout != 0 && spin_for_ring_input())
		timeout = 0;
	if (g && timeout != 0) {
		/* smt-ring.h "server sleep": announce, then look once more, so a
		 * client that published before seeing the flag is not missed. */
		smt_global_prepare_sleep(g);
		if (any_ring_input())
			timeout = 0;
		else
			slept = true;
		if (!slept)
			smt_global_wake(g);
	}
	int n = real_epoll_wait(epfd, ev, max, timeout);
	int saved = errno;
	input_boost_polling(true);
	if (slept)
		smt_global_wake(g);
	if (n < 0) {
		errno = saved;
		return n;
	}
	n = input_boost_filter(epfd, ev, rewrite_events(epfd, ev, n, max), max);
	return xwayland_conn_filter(epfd, ev, n, max);
}
