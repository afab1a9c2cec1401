/*
 * Reading a RING connection: what recvmsg returns to the X server. Bytes
 * come from the ring (copied out by stream_reader); the socket carries only
 * fd messages, which are drained first so that the fds are queued in the X
 * server before the request that takes them is parsed (smt-ring.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xconn.h"

uint64_t xconn_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *error_name(enum smt_error e)
{
	switch (e) {
	case SMT_ERROR_BAD_HEAD: return "head moved backwards or past tail + area";
	case SMT_ERROR_BAD_MESSAGE: return "a socket message that is no fd message";
	case SMT_ERROR_TOO_MANY_FDS: return "more fds than the server holds";
	default: return "protocol error";
	}
}

void xconn_kill(struct xconn *c, enum smt_error code, const char *why)
{
	if (!c->rd.dead) {
		c->error = code;
		xconn_log(c, "%s (at stream position %llu); closing its connection",
			  why ? why : error_name(code), (unsigned long long)c->rd.tail);
	}
	stream_reader_fail(&c->rd, code);
}

/* One fd message off the socket. False when there is none (or the socket
 * is at its end, or the message is bad: then the ring is dead). */
static bool take_fd_message(struct xconn *c)
{
	struct smt_stream_fd_msg m;
	union {
		char buf[CMSG_SPACE(SMT_STREAM_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	ssize_t n = real_recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			c->sock_readable = false;
		else
			c->sock_eof = true;
		return false;
	}
	if (n == 0) {
		c->sock_eof = true;
		return false;
	}
	unsigned got = 0;
	int fds[SMT_STREAM_MAX_FDS];
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		unsigned k = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < k && got < SMT_STREAM_MAX_FDS; i++)
			memcpy(&fds[got++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
	}
	bool ok = n == (ssize_t)sizeof(m) && m.magic == SMT_STREAM_FD_MAGIC &&
		  !(msg.msg_flags & MSG_CTRUNC);
	if (ok && m.kind == SMT_STREAM_FDS && got > 0 &&
	    c->nfds + got <= SMT_STREAM_MAX_FDS) {
		memcpy(c->fds + c->nfds, fds, got * sizeof(int));
		c->nfds += got;
		c->fd_messages++;
		return true;
	}
	for (unsigned i = 0; i < got; i++)
		real_close(fds[i]);
	if (ok && m.kind == SMT_STREAM_FDS && got > 0) {
		xconn_kill(c, SMT_ERROR_TOO_MANY_FDS, NULL);
	} else if (ok && m.kind == SMT_STREAM_REVERT && got == 0) {
		c->fd_messages++;
		if (stream_reader_limit(&c->rd, m.position))
			return false;  /* the rest of the socket is X bytes */
		xconn_kill(c, SMT_ERROR_BAD_MESSAGE, "a REVERT outside the published bytes");
	} else {
		xconn_kill(c, SMT_ERROR_BAD_MESSAGE, NULL);
	}
	return false;
}

static void drain_socket(struct xconn *c)
{
	while (!c->rd.dead && !c->rd.limited && !c->sock_eof && take_fd_message(c)) {
	}
}

bool xconn_has_input(struct xconn *c)
{
	enum smt_error err;
	if (c->rd.dead || c->nfds || c->rd.limited || c->sock_eof)
		return true;  /* the next read reports it */
	uint32_t avail = stream_reader_available(&c->rd, &err);
	return avail > 0 || err != SMT_ERROR_NONE;
}

/* Hands the queued fds to the X server as xtrans expects them. */
static void give_fds(struct xconn *c, struct msghdr *msg)
{
	size_t room = msg->msg_control ? msg->msg_controllen : 0;
	unsigned k = c->nfds;
	while (k > 0 && CMSG_SPACE(k * sizeof(int)) > room)
		k--;
	msg->msg_controllen = 0;
	if (k == 0)
		return;
	struct cmsghdr *cm = (struct cmsghdr *)msg->msg_control;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(k * sizeof(int));
	memcpy(CMSG_DATA(cm), c->fds, k * sizeof(int));
	msg->msg_controllen = CMSG_SPACE(k * sizeof(int));
	c->nfds -= k;
	memmove(c->fds, c->fds + k, c->nfds * sizeof(int));
}

static void wake_client(struct xconn *c)
{
	/* MSG_DONTWAIT per call: a full wake socket already means "wake up". */
	if (send(c->wake_fd, "w", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
		c->wakeups_to_client++;
	atomic_store_explicit(&c->status->wakeups_to_client, c->wakeups_to_client,
			      memory_order_relaxed);
}

ssize_t xconn_serve(struct xconn *c, struct msghdr *msg)
{
	msg->msg_flags = 0;
	/* Head first (once), then the fd count (smt-ring.h): the fds of every
	 * byte up to that head are on the socket by now. */
	enum smt_error err;
	uint32_t avail = stream_reader_available(&c->rd, &err);
	if (err != SMT_ERROR_NONE)
		xconn_kill(c, err, NULL);
	uint64_t sent = atomic_load_explicit(
		&((struct smt_ring_header *)c->rd.hdr)->fd_messages, memory_order_relaxed);
	if (!c->rd.dead && (sent != c->fd_messages || c->sock_readable))
		drain_socket(c);
	if (c->rd.dead) {
		errno = ECONNRESET;
		return -1;
	}
	/* A REVERT read just now may lower what this call may take. */
	if (c->rd.limited && avail > c->rd.limit - c->rd.tail)
		avail = (uint32_t)(c->rd.limit - c->rd.tail);

	size_t total = 0;
	bool wake = false;
	for (size_t i = 0; i < (size_t)msg->msg_iovlen && avail > 0; i++) {
		struct iovec *v = &msg->msg_iov[i];
		bool w;
		size_t n = stream_reader_take(&c->rd, v->iov_base, v->iov_len, avail, &w);
		wake |= w;
		total += n;
		avail -= (uint32_t)n;
	}
	if (wake)
		wake_client(c);
	if (total > 0) {
		c->last_input_ns = xconn_now_ns();
		give_fds(c, msg);
		return (ssize_t)total;
	}
	if (msg->msg_control)
		msg->msg_controllen = 0;
	if (c->rd.limited && c->rd.tail == c->rd.limit) {
		/* A forked child took the connection back to the socket; the
		 * parent reads why in the death certificate. */
		xconn_log(c, "reverted to the socket by a forked child at position %llu",
			  (unsigned long long)c->rd.tail);
		stream_reader_fail(&c->rd, SMT_ERROR_REVERTED);
		c->reverted = true;
		errno = EAGAIN;
		return -1;
	}
	if (c->sock_eof)
		return 0;
	errno = EAGAIN;
	return -1;
}
