/*
 * A model of one ring connection's two sides for stream_fds.c (the X
 * server's reads: ring bytes, and the fds the socket carries handed over at
 * their stream position), driven by a script: shared by the fuzz target
 * fuzz_x11fds.c and the property test in unit/test_x11_stream.c.
 *
 * The client writes bytes into a fake ring, sends fd messages and REVERTs
 * on a fake socket (a queue), bumps its count of fd messages, closes its
 * end; the X server asks whether the connection has input, reads with any
 * amount of byte and control room, and epoll reports the socket. An honest
 * client follows smt-ring.h's order (fd message, count, then the bytes); a
 * hostile one does anything. Checked after every step:
 *
 *  - every fd is handed over or closed exactly once, none leaks (at the
 *    end too) and the server never holds more than one message's fds;
 *  - readiness means progress: when has_input says yes, the next read
 *    returns bytes, the end, an error or the REVERT switch; a connection
 *    waiting for bytes of an fd message is not ready;
 *  - a ring that dies for any reason but a REVERT was logged once;
 *  - honest client: bytes come out in stream order, each equal to what was
 *    written; the fds of position P come out with the read that starts at
 *    P (never before, never after a byte at or past P); a REVERT switches to
 *    the socket exactly at its position; nothing dies.
 */
#ifndef SMT_X11FDS_MODEL_H
#define SMT_X11FDS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "xwayland-glue/stream/stream_fds.h"

#define MODEL_AREA 1024u
#define MODEL_QUEUE 64u
#define MODEL_FDS 4096u /* fake fd numbers 0 .. MODEL_FDS-1 */

enum model_fd_state {
	FD_UNUSED,
	FD_IN_FLIGHT,
	FD_GIVEN,
	FD_CLOSED
};

struct model_msg {
	struct stream_fd_message m;
	bool bad; /* not an fd message at all */
};

struct model {
	_Alignas(64) uint8_t map[SMT_RING_HEADER_SIZE + MODEL_AREA];
	struct smt_ring_status status;
	struct stream_reader rd;
	struct x11_request_framer framer; /* the bytes read are random: counted, never checked */
	struct stream_fds q;
	struct stream_socket sock;
	/* the socket */
	struct model_msg queue[MODEL_QUEUE];
	unsigned qhead, qlen;
	bool eof;
	/* the client */
	bool honest;
	uint64_t head; /* published */
	uint64_t count;
	bool reverted; /* an honest client writes nothing after a REVERT */
	uint64_t revert_at;
	/* fds */
	uint8_t fd_state[MODEL_FDS];
	uint64_t fd_position[MODEL_FDS];
	unsigned next_fd;
	/* the server */
	unsigned killed;
	uint64_t read_to; /* stream bytes returned so far */
	bool switched;    /* REVERTED returned */
	const char *failure;
};

#define MODEL_CHECK(mod, cond, what)             \
	do {                                     \
		if (!(cond) && !(mod)->failure)  \
			(mod)->failure = (what); \
	} while (0)

static uint8_t model_byte(uint64_t position)
{
	return (uint8_t)(position * 131u + (position >> 8) * 7u + 1u);
}

static enum stream_take model_take(void *ctx, struct stream_fd_message *m, enum smt_error *why)
{
	struct model *mod = ctx;
	if (mod->qlen == 0)
		return mod->eof ? STREAM_TAKE_EOF : STREAM_TAKE_EMPTY;
	struct model_msg *e = &mod->queue[mod->qhead];
	mod->qhead = (mod->qhead + 1) % MODEL_QUEUE;
	mod->qlen--;
	if (e->bad) {
		for (unsigned i = 0; i < e->m.nfds; i++)
			mod->fd_state[e->m.fds[i]] = FD_CLOSED; /* the glue closes them */
		*why = SMT_ERROR_BAD_MESSAGE;
		return STREAM_TAKE_BAD;
	}
	*m = e->m;
	return STREAM_TAKE_MESSAGE;
}

static bool model_hung_up(void *ctx)
{
	return ((struct model *)ctx)->eof;
}

static void model_close_fd(void *ctx, int fd)
{
	struct model *mod = ctx;
	MODEL_CHECK(mod, fd >= 0 && fd < (int)MODEL_FDS && mod->fd_state[fd] == FD_IN_FLIGHT,
			"an fd closed that the server did not hold");
	if (fd >= 0 && fd < (int)MODEL_FDS)
		mod->fd_state[fd] = FD_CLOSED;
}

static void model_killed(void *ctx, enum smt_error code, const char *why)
{
	struct model *mod = ctx;
	(void)why;
	MODEL_CHECK(mod, code != SMT_ERROR_NONE, "killed without a reason");
	mod->killed++;
}

static void model_wake(void *ctx)
{
	(void)ctx;
}

static void model_init(struct model *mod, bool honest)
{
	memset(mod, 0, sizeof(*mod));
	mod->honest = honest;
	stream_reader_init(&mod->rd, mod->map, MODEL_AREA, &mod->status, &mod->framer);
	mod->sock = (struct stream_socket){
		.ctx = mod,
		.take = model_take,
		.hung_up = model_hung_up,
		.close_fd = model_close_fd,
		.killed = model_killed,
		.wake_client = model_wake,
	};
}

static struct smt_ring_header *model_hdr(struct model *mod)
{
	return (struct smt_ring_header *)mod->map;
}

static void model_send(struct model *mod, uint32_t kind, uint64_t position, unsigned nfds, bool bad,
		bool count_it)
{
	if (mod->qlen == MODEL_QUEUE || mod->next_fd + nfds > MODEL_FDS)
		return; /* the socket is full: a client waits (or gives up) */
	struct model_msg *e = &mod->queue[(mod->qhead + mod->qlen) % MODEL_QUEUE];
	memset(e, 0, sizeof(*e));
	e->bad = bad;
	e->m.kind = kind;
	e->m.position = position;
	e->m.nfds = nfds;
	for (unsigned i = 0; i < nfds; i++) {
		int fd = (int)mod->next_fd++;
		e->m.fds[i] = fd;
		mod->fd_state[fd] = FD_IN_FLIGHT;
		mod->fd_position[fd] = position;
	}
	mod->qlen++;
	if (count_it) {
		mod->count++;
		atomic_store(&model_hdr(mod)->fd_messages, mod->count);
	}
}

static void model_publish(struct model *mod, uint64_t n)
{
	uint64_t room = MODEL_AREA - (mod->head - mod->rd.tail);
	if (n > room)
		n = room;
	for (uint64_t i = 0; i < n; i++)
		mod->map[SMT_RING_HEADER_SIZE + ((mod->head + i) & (MODEL_AREA - 1))] = model_byte(
				mod->head + i);
	mod->head += n;
	atomic_store(&model_hdr(mod)->head, mod->head);
}

/* The server reads: up to `max` bytes, control room for `room_fds` fds. */
static void model_read(struct model *mod, size_t max, unsigned room_fds, bool expect_progress)
{
	uint8_t buf[MODEL_AREA + 1];
	union {
		char b[CMSG_SPACE(64 * sizeof(int))];
		struct cmsghdr align;
	} u;
	if (room_fds > 64)
		room_fds = 64;
	if (max > sizeof(buf))
		max = sizeof(buf);
	struct iovec iov[2] = { { buf, max / 2 }, { buf + max / 2, max - max / 2 } };
	struct msghdr msg = { .msg_iov = iov,
		.msg_iovlen = 2,
		.msg_control = room_fds ? u.b : NULL,
		.msg_controllen = room_fds ? CMSG_SPACE(room_fds * sizeof(int)) : 0 };
	uint64_t t0 = mod->rd.tail;
	size_t n = 0;
	enum stream_read_result r = stream_fds_read(&mod->rd, &mod->q, &mod->sock, &msg, &n);
	MODEL_CHECK(mod, !expect_progress || r != STREAM_READ_AGAIN,
			"has_input said yes, the read made no progress");
	MODEL_CHECK(mod, r == STREAM_READ_BYTES ? n > 0 && n <= max : n == 0,
			"a read's byte count does not match its result");
	MODEL_CHECK(mod, mod->rd.tail == t0 + n, "the tail moved by something else than the read");
	/* Bytes and fds that came out. */
	for (size_t i = 0; i < n; i++)
		MODEL_CHECK(mod, buf[i] == model_byte(t0 + i) || !mod->honest,
				"a byte came out different from what was written");
	unsigned given = 0;
	if (r == STREAM_READ_BYTES && msg.msg_controllen) {
		struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
		MODEL_CHECK(mod, cm && cm->cmsg_type == SCM_RIGHTS,
				"control that is no SCM_RIGHTS");
		given = cm ? (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int)) : 0;
		/* What the kernel would fit (alignment may leave room for one more). */
		unsigned fit = (unsigned)((CMSG_SPACE(room_fds * sizeof(int)) - CMSG_LEN(0)) /
				sizeof(int));
		MODEL_CHECK(mod, given <= fit, "more fds than the control room");
		for (unsigned i = 0; i < given && i <= fit; i++) {
			int fd;
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			MODEL_CHECK(mod,
					fd >= 0 && fd < (int)MODEL_FDS &&
							mod->fd_state[fd] == FD_IN_FLIGHT,
					"an fd handed over twice or never sent");
			if (fd < 0 || fd >= (int)MODEL_FDS)
				continue;
			mod->fd_state[fd] = FD_GIVEN;
			MODEL_CHECK(mod, !mod->honest || mod->fd_position[fd] == t0,
					"fds handed over away from their position");
		}
	} else {
		MODEL_CHECK(mod, msg.msg_controllen == 0 || r != STREAM_READ_BYTES,
				"control set on a read without bytes");
	}
	if (r == STREAM_READ_BYTES)
		mod->read_to = mod->rd.tail;
	if (mod->honest) {
		/* Every fd of a position before the new tail is out by now (a
		 * read with room for a message's fds). */
		for (unsigned fd = 0; fd < mod->next_fd && room_fds >= SMT_STREAM_MAX_FDS; fd++)
			MODEL_CHECK(mod,
					mod->fd_state[fd] != FD_IN_FLIGHT ||
							mod->fd_position[fd] >= mod->rd.tail ||
							n == 0,
					"a byte past an fd message's position came before its fds");
		MODEL_CHECK(mod, r != STREAM_READ_DEAD, "an honest client's ring died");
		if (r == STREAM_READ_REVERTED)
			MODEL_CHECK(mod, mod->reverted && mod->rd.tail == mod->revert_at,
					"switched to the socket away from the REVERT");
		if (mod->reverted && r == STREAM_READ_BYTES)
			MODEL_CHECK(mod, mod->rd.tail <= mod->revert_at,
					"ring bytes past a REVERT");
	}
	if (r == STREAM_READ_REVERTED)
		mod->switched = true;
	unsigned held = 0;
	for (unsigned fd = 0; fd < mod->next_fd; fd++)
		held += mod->fd_state[fd] == FD_IN_FLIGHT;
	unsigned queued = 0;
	for (unsigned i = 0; i < mod->qlen; i++)
		queued += mod->queue[(mod->qhead + i) % MODEL_QUEUE].m.nfds;
	MODEL_CHECK(mod, held - queued <= SMT_STREAM_MAX_FDS,
			"the server holds more than one message");
}

/* One step of the script: an op byte and a value byte. */
static void model_step(struct model *mod, uint8_t op, uint8_t v)
{
	bool writes = !mod->honest || !mod->reverted;
	switch (op % 12) {
	case 0:
	case 1:
	case 2: /* bytes */
		if (writes && !mod->switched)
			model_publish(mod, (uint64_t)v * 3u + 1u);
		break;
	case 3: /* fds for the bytes from head on: message, count, later the bytes */
		if (writes && !mod->switched)
			model_send(mod, SMT_STREAM_FDS, mod->head, 1u + v % SMT_STREAM_MAX_FDS,
					false, true);
		break;
	case 4: /* a fork child's REVERT at head */
		if (writes && !mod->switched) {
			model_send(mod, SMT_STREAM_REVERT, mod->head, 0, false, true);
			mod->reverted = true;
			mod->revert_at = mod->head;
		}
		break;
	case 5: { /* the X server reads after asking whether there is input */
		bool ready = mod->switched ? false :
					     stream_fds_has_input(&mod->rd, &mod->q, &mod->sock);
		if (!mod->switched)
			model_read(mod, 1u + (size_t)v * 5u, v & 1 ? 0u : 16u + v % 8u, ready);
		break;
	}
	case 6: /* a read without asking, small room */
		if (!mod->switched)
			model_read(mod, 1u + v % 40u, v % 3u, false);
		break;
	case 7: /* epoll reports the socket (edge, maybe spurious) */
		mod->q.sock_readable = true;
		break;
	case 8: /* hostile: any head */
		if (!mod->honest)
			atomic_store(&model_hdr(mod)->head, mod->rd.tail + (uint64_t)(int8_t)v * 9);
		else if (writes && !mod->switched)
			model_publish(mod, v);
		break;
	case 9: /* hostile: an fd message anywhere, of any kind, any fd count */
		if (!mod->honest)
			model_send(mod, v % 4u, mod->rd.tail + (uint64_t)(int8_t)(v * 37u),
					(v >> 2) % (SMT_STREAM_MAX_FDS + 1u), v > 240, v & 1);
		break;
	case 10: /* hostile: the count lies */
		if (!mod->honest)
			atomic_store(&model_hdr(mod)->fd_messages, mod->count + v % 3u);
		break;
	case 11: /* the client closes its end (honest: only at the very end) */
		if (!mod->honest && v < 16)
			mod->eof = true;
		break;
	}
}

/* Runs a script; NULL when every check held, else what failed. */
static const char *model_run(const uint8_t *script, size_t n, bool honest)
{
	struct model *mod = calloc(1, sizeof(*mod));
	if (!mod)
		return NULL;
	model_init(mod, honest);
	for (size_t i = 0; i + 1 < n && !mod->failure; i += 2)
		model_step(mod, script[i], script[i + 1]);
	/* The honest client's bytes all come out, then its end. */
	if (honest && !mod->failure) {
		mod->eof = true;
		mod->q.sock_readable = true;
		for (int i = 0; i < 4 * (int)MODEL_QUEUE + 8 && !mod->switched && !mod->failure;
				i++) {
			bool ready = stream_fds_has_input(&mod->rd, &mod->q, &mod->sock);
			model_read(mod, MODEL_AREA, 64, ready);
			if (!ready)
				break;
		}
		MODEL_CHECK(mod, mod->switched || mod->rd.tail == mod->head,
				"an honest client's bytes did not all come out");
	}
	if (mod->rd.dead && !mod->switched)
		MODEL_CHECK(mod, mod->killed == 1, "a ring died without exactly one logged reason");
	/* The connection goes: whatever is held is closed; nothing leaks. */
	stream_fds_release(&mod->q, &mod->sock);
	for (unsigned i = 0; i < mod->qlen; i++) { /* the kernel's, closed with the socket */
		struct model_msg *e = &mod->queue[(mod->qhead + i) % MODEL_QUEUE];
		for (unsigned k = 0; k < e->m.nfds; k++)
			mod->fd_state[e->m.fds[k]] = FD_CLOSED;
	}
	for (unsigned fd = 0; fd < mod->next_fd; fd++)
		MODEL_CHECK(mod, mod->fd_state[fd] == FD_GIVEN || mod->fd_state[fd] == FD_CLOSED,
				"an fd leaked");
	const char *failure = mod->failure;
	free(mod);
	return failure;
}

#endif
