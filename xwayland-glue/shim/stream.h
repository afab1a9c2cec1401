/*
 * The client half of X requests through the ring (smt-ring.h, "byte-stream
 * mode"): once a connection is attached, every byte libxcb writes to the X
 * socket (writev, or sendmsg when fds go along) goes into the connection's
 * ring instead; replies and events keep coming from the socket.
 *
 * libxcb serialises its writes per connection (its iolock), so one ring has
 * one writer at a time; the table of attached connections is read without
 * a lock and changed under one.
 */
#ifndef SMT_X11SHIM_STREAM_H
#define SMT_X11SHIM_STREAM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Which open file an fd number named when a ring was attached, to tell
 * whether the number still names it in a fork child that may have closed
 * it behind our back (a raw close syscall) and reused the number. */
struct xstream_file_id {
	dev_t dev;
	ino_t ino;
};

#include "protocol/smt-ring-client.h"

/* Other numbers a connection's socket goes by in this process: copies the
 * program made with dup, fcntl F_DUPFD(_CLOEXEC), dup2 or dup3
 * (stream_fd_copies.c). One more copy than this reverts the connection
 * to the socket. */
#define XSTREAM_MAX_ALIASES 7

struct xstream {
	_Atomic int fd; /* -1: slot free, -2: claimed or closing; else a number of the socket */
	_Atomic int alias[XSTREAM_MAX_ALIASES]; /* -1: none; looked at while fd >= 0 */
	void *map;
	size_t map_len;
	struct smt_ring_header *hdr;
	uint8_t *area;
	uint32_t area_size;
	const struct smt_ring_status *status;
	const struct smt_global_status *global;
	int server_efd; /* we write it when the server sleeps */
	int wake_fd;    /* the server sends a byte on it */
	uint64_t head;  /* private; published to hdr->head */
	uint64_t wakeups_sent, full_waits, fd_messages;
	bool forked; /* we are a fork child of the attacher */
	/* The REVERT was sent (xstream_revert, whatever its cause): every
	 * write goes to the socket; the slot is freed when its last name is
	 * closed. */
	_Atomic bool handed_off;
	/* Asked for by a signal handler inside this ring's write on its own
	 * thread: sent at the end of that write. */
	_Atomic bool revert_pending;
	/* Held across a write into the ring and across a REVERT, so the
	 * REVERT's position is where a whole write ended: another thread may
	 * revert while libxcb writes. outer_writing: the holder's mark to
	 * put back at the unlock (stream.c, writing_here). */
	pthread_mutex_t write_lock;
	struct xstream *outer_writing;
	struct xstream_file_id sock_id, server_efd_id, wake_id; /* at attach */
};

/* stream_attach.c: offers a ring to the X server behind fd, a connected
 * socket no byte has been written to. Leaves fd plain when the server has
 * no stream half or refuses; true when attached. */
bool xstream_attach(int fd);

/* stream.c */
struct xstream *xstream_claim_slot(void);
/* A new X connection is attached on fd: slots still named fd, whose
 * socket the program closed with a raw syscall, let go of that name. */
void xstream_forget_stale(int fd);
void xstream_publish_slot(struct xstream *s, int fd);
void xstream_free_slot(struct xstream *s);
/* Unmaps and closes a slot's resources (not the X socket). */
void xstream_unmap(struct xstream *s);
/* Is fd an attached connection (statistics, tests)? */
bool xstream_is_attached(int fd);

#endif
