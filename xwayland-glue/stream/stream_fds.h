/*
 * One read of a ring connection as the X server sees it: bytes from the
 * ring (stream_reader), and the fds the client sent on the socket handed
 * over with the bytes at their stream position, as a Unix socket would.
 *
 * The fd messages stay queued in the kernel, as on a plain socket: this
 * side takes ONE message ahead of the bytes (the lookahead), and the next
 * only once the stream has reached the position of the one it holds. So a
 * connection holds at most one message's fds (SMT_STREAM_MAX_FDS) however
 * many the client has in flight, a client with more in flight waits in its
 * own sendmsg for socket room (the kernel's flow control), and a read never
 * returns a byte at or past a position whose fds are not handed over yet.
 *
 * Readiness means progress: stream_fds_has_input() is true only when the
 * next stream_fds_read() returns bytes, the end, an error or the REVERT
 * switch to the socket. An fd message whose bytes never come leaves the
 * connection idle, not readable.
 *
 * Pure: the socket is reached through struct stream_socket, so the unit
 * test and the fuzzer drive every interleaving of fd messages, REVERTs and
 * bytes without a kernel. The client is hostile (smt-ring.h): its count of
 * fd messages is a hint, never trusted to be exact.
 */
#ifndef SMT_STREAM_FDS_H
#define SMT_STREAM_FDS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "protocol/smt-ring.h"
#include "xwayland-glue/stream/stream_reader.h"

/* One fd message as taken off the socket. */
struct stream_fd_message {
	uint32_t kind; /* enum smt_stream_fd_kind */
	uint64_t position;
	int fds[SMT_STREAM_MAX_FDS];
	unsigned nfds;
};

enum stream_take {
	STREAM_TAKE_MESSAGE, /* *m holds a well-formed message */
	STREAM_TAKE_EMPTY,   /* nothing queued now */
	STREAM_TAKE_EOF,     /* the client closed its end */
	STREAM_TAKE_BAD,     /* not an fd message (*why, its fds closed) */
};

/* The socket and the X server process, for the glue (serve.c) or a test. */
struct stream_socket {
	void *ctx;
	/* Takes the next message without blocking. */
	enum stream_take (*take)(void *ctx, struct stream_fd_message *m, enum smt_error *why);
	/* The client's end is shut (called only while a message is held, when
	 * the socket was reported readable: the next message cannot be read
	 * before its position is reached, but the end must not wait for it). */
	bool (*hung_up)(void *ctx);
	void (*close_fd)(void *ctx, int fd);
	/* The ring is ended for `code`: log `why`, keep it for the statistics.
	 * Called once, before the death certificate is written. */
	void (*killed)(void *ctx, enum smt_error code, const char *why);
	/* The client waits for room that a read just made. */
	void (*wake_client)(void *ctx);
};

struct stream_fds {
	struct stream_fd_message next; /* the lookahead */
	bool have_next;
	uint64_t received;     /* fd messages taken off the socket */
	uint64_t looked_count; /* the client's count when the socket was found empty */
	bool looked;
	bool sock_readable;   /* epoll reported the socket since we last looked */
	bool sock_eof;        /* the socket is at its end: nothing queued */
	bool hung_up;         /* the client shut its end; messages may be queued */
	bool reverted;        /* REVERT reached: the socket carries the rest */
	uint64_t fds_given;   /* handed to the X server */
	uint64_t fds_dropped; /* closed: the X server's control buffer was full */
};

enum stream_read_result {
	STREAM_READ_BYTES,    /* > 0 bytes returned */
	STREAM_READ_END,      /* the client is gone: 0 bytes, end of stream */
	STREAM_READ_AGAIN,    /* nothing now */
	STREAM_READ_DEAD,     /* the ring was ended (error) */
	STREAM_READ_REVERTED, /* the rest of the stream is on the socket */
};

/* Fills msg's iovecs with ring bytes and its control (SCM_RIGHTS) with the
 * fds due, as recvmsg would; *n the byte count. The fds that do not fit in
 * msg_control are closed and MSG_CTRUNC set, as the kernel does. */
enum stream_read_result stream_fds_read(struct stream_reader *rd, struct stream_fds *q,
		const struct stream_socket *sock, struct msghdr *msg, size_t *n);

/* Would stream_fds_read() make progress now? May take one message off the
 * socket into the lookahead. */
bool stream_fds_has_input(
		struct stream_reader *rd, struct stream_fds *q, const struct stream_socket *sock);

/* Ends the ring for `code` (sock->killed first, once). */
void stream_fds_kill(struct stream_reader *rd, const struct stream_socket *sock,
		enum smt_error code, const char *why);

/* Closes the fds still held (the connection is going). */
void stream_fds_release(struct stream_fds *q, const struct stream_socket *sock);

#endif
