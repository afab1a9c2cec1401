/*
 * Xwayland's own Wayland connection, held past the socket's buffer.
 *
 * Debian 12's libwayland (1.21) ends a client whose socket is full when a
 * request carries an fd: wl_connection_put_fd flushes, the flush fails
 * with EAGAIN, and Xwayland's log handler makes "request could not be
 * marshaled: can't send file descriptor" fatal. Xwayland sends an fd (a
 * wl_shm pool) for every window it shows, and the kernel hands the
 * compositor at most one fd-carrying write per read: when X clients map
 * windows faster than the compositor turns its loop (a busy machine, the
 * compositor stopped for a moment, thousands of override-redirect windows
 * at once), the buffer fills within a fraction of a second and Xwayland
 * exits with every X client.
 *
 * So the server half keeps what the kernel refuses: a sendmsg on the
 * Wayland socket that would fail with EAGAIN is copied here (its fds
 * duplicated, libwayland then closes its own) and reported sent; a thread
 * writes the backlog in order as the compositor reads. Once a backlog
 * exists every later write joins it, so the byte stream and its fds keep
 * their order (an fd leaves with the first byte of the write it came
 * with, never after its message). The backlog is bounded
 * (BACKLOG_MAX_BYTES, BACKLOG_MAX_FDS); past that, EAGAIN goes to
 * libwayland as before. Never blocking Xwayland is the point: the
 * compositor's window manager waits for Xwayland's replies, so Xwayland
 * waiting for the compositor could deadlock both.
 *
 * A write whose fds the kernel refuses with ETOOMANYREFS is held the same
 * way. The kernel counts every fd sent over a Unix socket and not yet
 * received against the sender's uid, and refuses an fd-carrying write
 * while that count is above the sender's RLIMIT_NOFILE (root is exempt):
 * an ordinary user's other processes (any of them, on sockets of their
 * own) holding that many fds unread made Xwayland give up ("failed to
 * write to Xwayland fd: Too many references") with every X client. The
 * kernel says nothing when the count falls, so the writer tries again
 * after REFS_RETRY_MIN_MS, doubling up to REFS_RETRY_MAX_MS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xwayland-glue/xserver/xconn.h"

#define BACKLOG_MAX_BYTES (64u << 20)
/* Each held fd is open in Xwayland: at most half its limit, so it can
 * still accept X clients and make pixmaps. */
#define BACKLOG_MAX_FDS 16384u
/* libwayland's own limit of fds per write (MAX_FDS_OUT). */
#define WRITE_MAX_FDS 28
/* Retries of a write refused with ETOOMANYREFS. */
#define REFS_RETRY_MIN_MS 1
#define REFS_RETRY_MAX_MS 64

struct held_write {
	struct held_write *next;
	size_t len, sent;
	int nfds; /* -1 once they went with the first bytes */
	int fds[WRITE_MAX_FDS];
	unsigned char data[];
};

static struct {
	int fd; /* the Wayland socket; -1: none seen */
	pthread_mutex_t lock;
	pthread_cond_t queued;
	struct held_write *head, *tail;
	/* Changed under the lock; also read without it from inside the X
	 * server's epoll_wait (wayland_backlog_bytes), where a sanitizer's
	 * interceptor calling our wrapper hides the lock from it. */
	_Atomic size_t bytes;
	unsigned fds;
	unsigned max_fds;
	int failed; /* an errno the socket gave the writer; later writes get it */
	/* The head's last try was refused with ETOOMANYREFS: the writer
	 * retries on a timer, not on POLLOUT (the socket has room). */
	bool refs_refused;
	bool thread_started;
	/* Statistics and log state, under lock. */
	unsigned long held_writes, refused_writes, episodes;
	unsigned long refs_refusals; /* ETOOMANYREFS seen, first tries and retries */
	uint64_t refs_said_ns;
	size_t peak_bytes;
	uint64_t said_ns;
	/* The writer's work: held writes it finished sending, their bytes
	 * and fds; when it last said it caught up. */
	unsigned long sent_writes, sent_fds;
	uint64_t sent_bytes, caught_up_said_ns;
} backlog = {
	.fd = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.queued = PTHREAD_COND_INITIALIZER,
};

static ssize_t (*send_next)(int, const struct msghdr *, int);

/* The socket cannot take the write now, but may later: hold it. */
static bool send_would_wait(int err)
{
	return err == EAGAIN || err == EWOULDBLOCK || err == ETOOMANYREFS;
}

void wayland_backlog_init(ssize_t (*real_sendmsg)(int, const struct msghdr *, int))
{
	send_next = real_sendmsg;
}

void wayland_backlog_adopt(int fd)
{
	int type;
	socklen_t len = sizeof(type);
	if (backlog.fd >= 0 || fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 ||
			type != SOCK_STREAM)
		return;
	struct rlimit lim;
	rlim_t half = getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur / 2 : 512;
	/* The writer reads the fd under the lock: it may be waiting from an
	 * earlier connection (an X server's reset connects again). */
	pthread_mutex_lock(&backlog.lock);
	backlog.max_fds = half < BACKLOG_MAX_FDS ? (unsigned)half : BACKLOG_MAX_FDS;
	backlog.fd = fd;
	backlog.failed = 0;
	pthread_mutex_unlock(&backlog.lock);
}

int wayland_backlog_fd(void)
{
	return backlog.fd;
}

bool wayland_backlog_owns(int fd)
{
	return fd >= 0 && fd == backlog.fd;
}

static void close_fds(struct held_write *w)
{
	for (int i = 0; i < w->nfds; i++)
		close(w->fds[i]);
	w->nfds = -1;
}

static void drop_all(void)
{
	for (struct held_write *w = backlog.head, *next; w; w = next) {
		next = w->next;
		close_fds(w);
		free(w);
	}
	backlog.head = backlog.tail = NULL;
	backlog.bytes = 0;
	backlog.fds = 0;
}

/* One write of the head, without blocking; false: the socket is full. */
static bool send_head(void)
{
	struct held_write *w = backlog.head;
	struct iovec iov = { .iov_base = w->data + w->sent, .iov_len = w->len - w->sent };
	union {
		char buf[CMSG_SPACE(sizeof(int) * WRITE_MAX_FDS)];
		struct cmsghdr align;
	} control;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (w->nfds > 0) {
		msg.msg_control = control.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)w->nfds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)w->nfds);
		memcpy(CMSG_DATA(c), w->fds, sizeof(int) * (size_t)w->nfds);
	}
	ssize_t n;
	do {
		n = send_next(backlog.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	} while (n < 0 && errno == EINTR);
	backlog.refs_refused = n < 0 && errno == ETOOMANYREFS;
	if (n < 0) {
		if (backlog.refs_refused)
			backlog.refs_refusals++;
		if (send_would_wait(errno))
			return false;
		backlog.failed = errno;
		drop_all();
		return true;
	}
	if (w->nfds > 0) {
		backlog.fds -= (unsigned)w->nfds;
		backlog.sent_fds += (unsigned)w->nfds;
		close_fds(w);
	}
	w->sent += (size_t)n;
	backlog.bytes -= (size_t)n;
	backlog.sent_bytes += (size_t)n;
	if (w->sent == w->len) {
		backlog.sent_writes++;
		backlog.head = w->next;
		if (!backlog.head)
			backlog.tail = NULL;
		free(w);
	}
	return true;
}

/* The writer emptied the backlog: a line saying what it sent, at most one
 * per 10 s (the first always), so that a test and a user see the held
 * writes leave. Formatted under the lock, written after it: xconn_log
 * keeps its rate limit for the main thread alone, so this thread writes
 * stderr itself. */
static void say_caught_up(void)
{
	uint64_t now = monotonic_now_ns();
	if (backlog.caught_up_said_ns && now - backlog.caught_up_said_ns < 10000000000ull)
		return;
	backlog.caught_up_said_ns = now;
	char line[256];
	snprintf(line, sizeof(line),
			"smt-x11ring: Xwayland's Wayland connection: caught up (the compositor read, the kernel took the fds); "
			"the backlog's writer sent %lu of %lu held writes in order (%llu bytes, "
			"%lu fds)\n",
			backlog.sent_writes, backlog.held_writes,
			(unsigned long long)backlog.sent_bytes, backlog.sent_fds);
	pthread_mutex_unlock(&backlog.lock);
	fputs(line, stderr);
	pthread_mutex_lock(&backlog.lock);
}

static void *write_backlog(void *arg)
{
	(void)arg;
	int refs_retry_ms = REFS_RETRY_MIN_MS;
	pthread_mutex_lock(&backlog.lock);
	for (;;) {
		while (!backlog.head)
			pthread_cond_wait(&backlog.queued, &backlog.lock);
		if (send_head()) {
			refs_retry_ms = REFS_RETRY_MIN_MS;
			if (!backlog.head && !backlog.failed)
				say_caught_up();
			continue;
		}
		/* Refused for fds in flight: no event says when the uid's
		 * count falls, so a timed wait (POLLOUT would be at once). */
		struct pollfd p = { .fd = backlog.fd, .events = POLLOUT };
		int timeout = -1;
		if (backlog.refs_refused) {
			p.events = 0;
			timeout = refs_retry_ms;
			if (refs_retry_ms < REFS_RETRY_MAX_MS)
				refs_retry_ms *= 2;
		}
		pthread_mutex_unlock(&backlog.lock);
		poll(&p, 1, timeout);
		pthread_mutex_lock(&backlog.lock);
	}
	return NULL;
}

static bool start_writer(void)
{
	if (backlog.thread_started)
		return true;
	/* The X server's signals (SIGCHLD for xkbcomp, SIGUSR1, SIGIO) stay
	 * with its main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	int err = pthread_create(&t, NULL, write_backlog, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return false;
	pthread_detach(t);
	backlog.thread_started = true;
	return true;
}

static size_t msg_bytes(const struct msghdr *msg)
{
	size_t n = 0;
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		n += msg->msg_iov[i].iov_len;
	return n;
}

/* The write copied to the backlog's tail, its fds duplicated; false when
 * over the bounds or out of memory or fds (nothing kept then). */
static bool hold(const struct msghdr *msg, size_t len)
{
	int in_fds[WRITE_MAX_FDS];
	int nfds = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR((struct msghdr *)msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			return false;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (n > (size_t)(WRITE_MAX_FDS - nfds))
			return false;
		memcpy(in_fds + nfds, CMSG_DATA(c), n * sizeof(int));
		nfds += (int)n;
	}
	if (backlog.bytes + len > BACKLOG_MAX_BYTES ||
			backlog.fds + (unsigned)nfds > backlog.max_fds || !start_writer())
		return false;
	struct held_write *w = malloc(sizeof(*w) + len);
	if (!w)
		return false;
	w->next = NULL;
	w->len = len;
	w->sent = 0;
	w->nfds = 0;
	for (int i = 0; i < nfds; i++) {
		int d = fcntl(in_fds[i], F_DUPFD_CLOEXEC, 0);
		if (d < 0) {
			close_fds(w);
			free(w);
			return false;
		}
		w->fds[w->nfds++] = d;
	}
	size_t off = 0;
	for (size_t i = 0; i < msg->msg_iovlen; i++) {
		memcpy(w->data + off, msg->msg_iov[i].iov_base, msg->msg_iov[i].iov_len);
		off += msg->msg_iov[i].iov_len;
	}
	if (backlog.tail)
		backlog.tail->next = w;
	else
		backlog.head = w;
	backlog.tail = w;
	backlog.bytes += len;
	backlog.fds += (unsigned)nfds;
	if (backlog.bytes > backlog.peak_bytes)
		backlog.peak_bytes = backlog.bytes;
	backlog.held_writes++;
	pthread_cond_signal(&backlog.queued);
	return true;
}

/* A line when the compositor starts reading behind, at most one per
 * 10 s (it happens in bursts under load); how often since, said in it.
 * Refused for fds in flight, its own line (the user's to act on). */
static void say_episode(size_t bytes, unsigned fds, bool refs, unsigned long refs_refusals)
{
	uint64_t now = monotonic_now_ns();
	backlog.episodes++;
	if (refs) {
		if (backlog.refs_said_ns && now - backlog.refs_said_ns < 10000000000ull)
			return;
		backlog.refs_said_ns = now;
		struct rlimit lim = { 0, 0 };
		getrlimit(RLIMIT_NOFILE, &lim);
		xconn_log(NULL,
				"Xwayland's Wayland connection: the kernel refuses to send fds "
				"(ETOOMANYREFS): this user's processes hold more fds unread in Unix "
				"sockets than Xwayland's RLIMIT_NOFILE (%llu); requests held in order "
				"until it takes fds again (%zu bytes, %u fds now; %lu refusals so far)",
				(unsigned long long)lim.rlim_cur, bytes, fds, refs_refusals);
		return;
	}
	if (backlog.said_ns && now - backlog.said_ns < 10000000000ull)
		return;
	backlog.said_ns = now;
	xconn_log(NULL,
			"Xwayland's Wayland connection: the compositor reads behind; requests "
			"held in order until it catches up (%zu bytes, %u fds now; %lu times so "
			"far, %lu writes held, the most %zu bytes)",
			bytes, fds, backlog.episodes, backlog.held_writes, backlog.peak_bytes);
}

ssize_t wayland_backlog_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	pthread_mutex_lock(&backlog.lock);
	if (backlog.failed) {
		int e = backlog.failed;
		pthread_mutex_unlock(&backlog.lock);
		errno = e;
		return -1;
	}
	bool refs = false;
	if (!backlog.head) {
		ssize_t n = send_next(fd, msg, flags);
		if (n >= 0 || !send_would_wait(errno)) {
			int e = errno;
			pthread_mutex_unlock(&backlog.lock);
			errno = e;
			return n;
		}
		refs = errno == ETOOMANYREFS;
		if (refs) {
			backlog.refs_refused = true;
			backlog.refs_refusals++;
		}
	}
	size_t len = msg_bytes(msg);
	bool was_empty = !backlog.head;
	bool held = hold(msg, len);
	unsigned long refused = held ? 0 : ++backlog.refused_writes;
	size_t bytes = backlog.bytes;
	unsigned fds = backlog.fds;
	unsigned long refs_refusals = backlog.refs_refusals;
	pthread_mutex_unlock(&backlog.lock);
	if (!held) {
		if (refused == 1)
			xconn_log(NULL,
					"Xwayland's Wayland connection: the compositor is %zu bytes and %u fds "
					"behind, the most held for it (%u MiB, %u fds); libwayland gets EAGAIN",
					bytes, fds, BACKLOG_MAX_BYTES >> 20, backlog.max_fds);
		errno = EAGAIN;
		return -1;
	}
	if (was_empty)
		say_episode(bytes, fds, refs, refs_refusals);
	return (ssize_t)len;
}

size_t wayland_backlog_bytes(void)
{
	return backlog.bytes; /* (one atomic load: a count, no other state) */
}

void wayland_backlog_closed(int fd)
{
	if (!wayland_backlog_owns(fd))
		return;
	/* What is held goes with the connection, and the fd's number, free
	 * now, is no longer Xwayland's Wayland socket: an X server reset's
	 * new connection is adopted when it is made (on the same number, a
	 * writer's errno kept from the old one made it fail at once). */
	pthread_mutex_lock(&backlog.lock);
	drop_all();
	backlog.fd = -1;
	backlog.failed = 0;
	pthread_mutex_unlock(&backlog.lock);
}
