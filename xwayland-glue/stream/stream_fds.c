/* See stream_fds.h; the memory order is smt-ring.h's "fds that ride with
 * requests": head is loaded first, then the client's count of fd messages. */
#include "xwayland-glue/stream/stream_fds.h"

#include <string.h>

static uint64_t client_count(const struct stream_reader *rd)
{
	/* The cast drops const only for the atomic load's signature. */
	return atomic_load_explicit(&((struct smt_ring_header *)rd->shared.hdr)->fd_messages,
			memory_order_relaxed);
}

void stream_fds_kill(struct stream_reader *rd, const struct stream_socket *sock,
		enum smt_error code, const char *why)
{
	if (!rd->dead && sock->killed)
		sock->killed(sock->ctx, code, why);
	stream_reader_fail(rd, code);
}

static void close_all(const struct stream_socket *sock, const int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		sock->close_fd(sock->ctx, fds[i]);
}

/* A REVERT: the ring carries the stream up to `position`, the socket the
 * rest. Nothing more is taken off the socket after it: those are X bytes. */
static void take_revert(
		struct stream_reader *rd, const struct stream_socket *sock, uint64_t position)
{
	if ((int64_t)(position - rd->tail) < 0)
		stream_fds_kill(rd, sock, SMT_ERROR_BAD_MESSAGE, "a REVERT before the tail");
	else if (!stream_reader_limit(rd, position))
		stream_fds_kill(rd, sock, SMT_ERROR_BAD_MESSAGE,
				"a REVERT past the published head");
}

/* Fills the lookahead if it is empty and the socket may hold a message:
 * the client counted one we have not taken, or epoll reported the socket.
 * With the lookahead full, a report can only mean another message or the
 * client's end: the end is looked for, the message waits in the kernel. */
static void look(struct stream_reader *rd, struct stream_fds *q, const struct stream_socket *sock,
		uint64_t count)
{
	if (rd->dead || rd->limited || q->sock_eof)
		return;
	if (q->have_next) {
		if (q->sock_readable) {
			q->sock_readable = false;
			q->hung_up = q->hung_up || sock->hung_up(sock->ctx);
		}
		return;
	}
	/* A count that lies (higher than what was sent) is looked at once. */
	bool counted = count != q->received && !(q->looked && count == q->looked_count);
	if (!counted && !q->sock_readable)
		return;
	enum smt_error why = SMT_ERROR_BAD_MESSAGE;
	struct stream_fd_message *m = &q->next;
	switch (sock->take(sock->ctx, m, &why)) {
	case STREAM_TAKE_MESSAGE:
		q->received++;
		if (m->kind == SMT_STREAM_FDS && m->nfds > 0 && m->nfds <= SMT_STREAM_MAX_FDS) {
			q->have_next = true;
		} else if (m->kind == SMT_STREAM_REVERT && m->nfds == 0) {
			take_revert(rd, sock, m->position);
		} else {
			close_all(sock, m->fds, m->nfds <= SMT_STREAM_MAX_FDS ? m->nfds : 0);
			stream_fds_kill(rd, sock, SMT_ERROR_BAD_MESSAGE, NULL);
		}
		break;
	case STREAM_TAKE_EMPTY:
		q->sock_readable = false;
		q->looked = true;
		q->looked_count = count;
		break;
	case STREAM_TAKE_EOF:
		q->sock_eof = true;
		break;
	case STREAM_TAKE_BAD:
		stream_fds_kill(rd, sock, why, NULL);
		break;
	}
}

static bool next_is_due(const struct stream_fds *q, uint64_t tail)
{
	return q->have_next && (int64_t)(q->next.position - tail) <= 0;
}

/* What one read may take of `avail`: not past a REVERT, and not into the
 * bytes of an fd message that is not due yet. */
static uint32_t bound(const struct stream_reader *rd, const struct stream_fds *q, uint32_t avail)
{
	if (rd->dead)
		return 0;
	if (rd->limited && avail > rd->limit - rd->tail)
		avail = (uint32_t)(rd->limit - rd->tail);
	if (q->have_next && !next_is_due(q, rd->tail) && avail > q->next.position - rd->tail)
		avail = (uint32_t)(q->next.position - rd->tail);
	return avail;
}

/* The X server's control buffer, filled as the kernel fills it. */
struct control_out {
	struct msghdr *msg;
	unsigned capacity; /* fds that fit */
	unsigned given;
	unsigned dropped;
	int *data;
};

/* On the X server's read path: only arithmetic until fds are due. */
static void control_init(struct control_out *o, struct msghdr *msg)
{
	*o = (struct control_out){ .msg = msg };
	size_t room = msg->msg_control ? msg->msg_controllen : 0;
	if (room < CMSG_SPACE(sizeof(int)))
		return;
	size_t cap = (room - CMSG_LEN(0)) / sizeof(int);
	while (cap > 0 && CMSG_SPACE(cap * sizeof(int)) > room)
		cap--; /* at most the alignment's worth */
	o->capacity = cap < 65536 ? (unsigned)cap : 65536u;
	/* msg_controllen is still the caller's room here. */
	o->data = (int *)(void *)CMSG_DATA(CMSG_FIRSTHDR(msg));
}

static void control_add(
		struct control_out *o, const struct stream_socket *sock, const int *fds, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (o->given < o->capacity) {
			memcpy(o->data + o->given, &fds[i], sizeof(int));
			o->given++;
		} else {
			sock->close_fd(sock->ctx, fds[i]);
			o->dropped++;
		}
	}
}

/* No bytes go with them after all: they go nowhere. */
static void control_abandon(struct control_out *o, const struct stream_socket *sock)
{
	for (unsigned i = 0; i < o->given; i++) {
		int fd;
		memcpy(&fd, o->data + i, sizeof(int));
		sock->close_fd(sock->ctx, fd);
	}
	o->dropped += o->given;
	o->given = 0;
}

static void control_finish(struct control_out *o, struct stream_fds *q)
{
	struct msghdr *msg = o->msg;
	q->fds_given += o->given;
	q->fds_dropped += o->dropped;
	if (o->dropped)
		msg->msg_flags |= MSG_CTRUNC;
	if (!o->given) {
		msg->msg_controllen = 0;
		return;
	}
	struct cmsghdr *cm = CMSG_FIRSTHDR(msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(o->given * sizeof(int));
	msg->msg_controllen = CMSG_SPACE(o->given * sizeof(int));
}

enum stream_read_result stream_fds_read(struct stream_reader *rd, struct stream_fds *q,
		const struct stream_socket *sock, struct msghdr *msg, size_t *n)
{
	*n = 0;
	msg->msg_flags = 0;
	if (rd->dead)
		return STREAM_READ_DEAD;
	enum smt_error err;
	uint32_t published = stream_reader_available(rd, &err);
	if (err != SMT_ERROR_NONE) {
		stream_fds_kill(rd, sock, err, NULL);
		return STREAM_READ_DEAD;
	}
	uint64_t count = client_count(rd); /* after head: smt-ring.h */
	look(rd, q, sock, count);
	uint32_t avail = bound(rd, q, published);

	/* The fds due at our tail go with the bytes from it, never without
	 * bytes: a read of 0 bytes means the end to the X server. */
	struct control_out out;
	control_init(&out, msg);
	while (avail > 0 && next_is_due(q, rd->tail)) {
		control_add(&out, sock, q->next.fds, q->next.nfds);
		q->have_next = false;
		look(rd, q, sock, count);
		avail = bound(rd, q, published);
	}

	size_t total = 0;
	bool wake = false;
	for (size_t i = 0; i < (size_t)msg->msg_iovlen && avail > 0; i++) {
		struct iovec *v = &msg->msg_iov[i];
		bool w;
		size_t k = stream_reader_take(rd, v->iov_base, v->iov_len, avail, &w);
		wake |= w;
		total += k;
		avail -= (uint32_t)k;
	}
	if (wake)
		sock->wake_client(sock->ctx);
	if (total == 0)
		control_abandon(&out, sock);
	control_finish(&out, q);
	if (total > 0) {
		*n = total;
		return STREAM_READ_BYTES;
	}
	msg->msg_flags &= ~MSG_CTRUNC; /* nothing was returned */
	if (rd->dead)
		return STREAM_READ_DEAD;
	if (rd->limited && rd->tail == rd->limit) {
		/* The death certificate tells a parent that writes again why. */
		stream_reader_fail(rd, SMT_ERROR_REVERTED);
		q->reverted = true;
		return STREAM_READ_REVERTED;
	}
	/* Hung up: the bytes before the held message's position were all
	 * there are (its own never come). */
	return q->sock_eof || q->hung_up ? STREAM_READ_END : STREAM_READ_AGAIN;
}

static bool progress_possible(const struct stream_reader *rd, const struct stream_fds *q)
{
	if (rd->dead || q->sock_eof || q->hung_up || (rd->limited && rd->tail == rd->limit))
		return true;
	enum smt_error err;
	uint32_t avail = stream_reader_available(rd, &err);
	/* Bytes before the next fd message's position, or bytes from a due
	 * message's position on: either way a read returns some. */
	return err != SMT_ERROR_NONE || bound(rd, q, avail) > 0;
}

bool stream_fds_has_input(
		struct stream_reader *rd, struct stream_fds *q, const struct stream_socket *sock)
{
	if (progress_possible(rd, q))
		return true;
	look(rd, q, sock, client_count(rd));
	return progress_possible(rd, q);
}

void stream_fds_release(struct stream_fds *q, const struct stream_socket *sock)
{
	if (q->have_next)
		close_all(sock, q->next.fds, q->next.nfds);
	q->have_next = false;
}
