/*
 * Reading a RING connection: what recvmsg returns to the X server. The
 * decisions are stream_fds.c's (bytes from the ring, the fds the socket
 * carries handed over at their stream position); this file gives it the
 * socket, the log and the wake-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "xwayland-glue/xserver/xconn.h"

static const char *error_name(enum smt_error e)
{
	switch (e) {
	case SMT_ERROR_BAD_HEAD:
		return "head moved backwards or past tail + area";
	case SMT_ERROR_BAD_MESSAGE:
		return "a socket message that is no fd message";
	case SMT_ERROR_TOO_MANY_FDS:
		return "more fds in one fd message than it may carry";
	default:
		return "protocol error";
	}
}

static void killed(void *ctx, enum smt_error code, const char *why)
{
	struct xconn *c = ctx;
	c->error = code;
	xconn_log(c, "%s (at stream position %llu); closing its connection",
			why ? why : error_name(code), (unsigned long long)c->rd.tail);
}

/* One fd message off the socket, without blocking. */
static enum stream_take take(void *ctx, struct stream_fd_message *m, enum smt_error *why)
{
	struct xconn *c = ctx;
	struct smt_stream_fd_msg wire;
	union {
		char buf[CMSG_SPACE(SMT_STREAM_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &wire, .iov_len = sizeof(wire) };
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	ssize_t n = real_recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ?
				STREAM_TAKE_EMPTY :
				STREAM_TAKE_EOF;
	if (n == 0)
		return STREAM_TAKE_EOF;
	m->nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		unsigned k = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < k && m->nfds < SMT_STREAM_MAX_FDS; i++)
			memcpy(&m->fds[m->nfds++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
	}
	bool whole = n == (ssize_t)sizeof(wire) && wire.magic == SMT_STREAM_FD_MAGIC;
	if (whole && !(msg.msg_flags & MSG_CTRUNC)) {
		m->kind = wire.kind;
		m->position = wire.position;
		return STREAM_TAKE_MESSAGE;
	}
	for (unsigned i = 0; i < m->nfds; i++)
		real_close(m->fds[i]);
	*why = whole ? SMT_ERROR_TOO_MANY_FDS : SMT_ERROR_BAD_MESSAGE;
	return STREAM_TAKE_BAD;
}

/* The lookahead is full and epoll reported the socket: only the client's
 * end matters now (POLLRDHUP is set once it shut its side, whatever is
 * still queued). */
static bool hung_up(void *ctx)
{
	struct xconn *c = ctx;
	struct pollfd p = { .fd = c->fd, .events = POLLRDHUP };
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static void close_fd(void *ctx, int fd)
{
	(void)ctx;
	real_close(fd);
}

static void wake_client(void *ctx)
{
	struct xconn *c = ctx;
	/* MSG_DONTWAIT per call: a full wake socket already means "wake up". */
	if (send(c->wake_fd, "w", 1, MSG_DONTWAIT | MSG_NOSIGNAL) == 1)
		c->wakeups_to_client++;
	atomic_store_explicit(
			&c->status->wakeups_to_client, c->wakeups_to_client, memory_order_relaxed);
}

static struct stream_socket socket_of(struct xconn *c)
{
	return (struct stream_socket){
		.ctx = c,
		.take = take,
		.hung_up = hung_up,
		.close_fd = close_fd,
		.killed = killed,
		.wake_client = wake_client,
	};
}

void xconn_kill(struct xconn *c, enum smt_error code, const char *why)
{
	struct stream_socket sock = socket_of(c);
	stream_fds_kill(&c->rd, &sock, code, why);
}

void xconn_socket_reported(struct xconn *c)
{
	c->fq.sock_readable = true;
}

void xconn_drop_fds(struct xconn *c)
{
	struct stream_socket sock = socket_of(c);
	stream_fds_release(&c->fq, &sock);
}

bool xconn_has_input(struct xconn *c)
{
	struct stream_socket sock = socket_of(c);
	bool r = stream_fds_has_input(&c->rd, &c->fq, &sock);
	c->fd_messages = c->fq.received;
	return r;
}

ssize_t xconn_serve(struct xconn *c, struct msghdr *msg)
{
	struct stream_socket sock = socket_of(c);
	size_t n;
	enum stream_read_result r = stream_fds_read(&c->rd, &c->fq, &sock, msg, &n);
	c->fd_messages = c->fq.received;
	switch (r) {
	case STREAM_READ_BYTES:
		c->last_input_ns = monotonic_now_ns();
		return (ssize_t)n;
	case STREAM_READ_END:
		return 0;
	case STREAM_READ_DEAD:
		errno = ECONNRESET;
		return -1;
	case STREAM_READ_REVERTED:
		/* The client took the connection back to the socket: a fork
		 * child's first write, dup2 over its only known X fd, one
		 * copy of the X fd more than the shim names, or one of the
		 * ring's own fds closed (docs/x11.md); the parent of a fork
		 * child reads why in the death certificate. */
		xconn_log(c, "reverted to the socket by the client at position %llu",
				(unsigned long long)c->rd.tail);
		c->reverted = true;
		break;
	case STREAM_READ_AGAIN:
		break;
	}
	errno = EAGAIN;
	return -1;
}
