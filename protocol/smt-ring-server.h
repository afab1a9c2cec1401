/*
 * smt-ring-server.h — the server's half of the ring protocol (smt-ring.h),
 * the one home of its rules for both rings: the compositor's command ring
 * (compositor/exec/ring_reader.c) and the X request ring
 * (xwayland-glue/stream/stream_reader.c, xserver/). The client's half is
 * smt-ring-client.h.
 *
 * No pixman, no wlroots, no Wayland: unit tests and fuzzers link it alone.
 * What it owns:
 *  - reading head: once, with acquire, and bounding it against the private
 *    tail (a client may write any value at any time);
 *  - publishing the tail (release, then the full fence of smt-ring.h's
 *    "server batch") and the one wake-up policy: a waiting client is woken
 *    once per wait_tail it asks for;
 *  - the death certificate written when a client is ended;
 *  - creating and sealing the pages the server writes and clients only read;
 *  - the global page: init, prepare-to-sleep, wake;
 *  - the names of errors and opcodes, generated from smt-ring.h's tables.
 * What the stream means (commands, X requests) stays with each reader.
 */
#ifndef SMT_RING_SERVER_H
#define SMT_RING_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/smt-ring.h"

/* The server's view of one ring's two shared pages, and what it remembers
 * about them: the tail it last published and the wake-up it last sent. */
struct smt_server_ring {
	const struct smt_ring_header *hdr; /* client-written, mapped read-only */
	struct smt_ring_status *status;    /* ours; the client maps it read-only */
	uint64_t published;                /* last tail stored to status */
	uint64_t woken_for;                /* wait_tail of the last client wake-up */
	bool woken_any;
};

/* Binds a ring's header page and a zeroed status page; writes the status
 * page's magic, version and tail 0. */
void smt_server_ring_init(
		struct smt_server_ring *s, const void *ring_mem, struct smt_ring_status *status);

/* The one load of head for a batch (acquire: the bytes the client wrote
 * before its release store are visible after it). */
uint64_t smt_server_load_head(const struct smt_server_ring *s);

/* The bytes head publishes past tail, or SMT_HEAD_IMPOSSIBLE when head is
 * behind tail, more than area_size ahead of it, or not a multiple of
 * align (1: byte streams; 8: command rings). */
#define SMT_HEAD_IMPOSSIBLE UINT64_MAX
uint64_t smt_server_head_avail(uint64_t head, uint64_t tail, uint64_t area_size, uint32_t align);

/* Publishes the statistics and, if it moved, the tail (release, then a full
 * fence: liburing #541). Returns true when the client waits for a tail now
 * reached that it was not yet woken for: the caller writes its eventfd.
 * The server cannot clear the client's WAITING flag (read-only mapping),
 * so it wakes once per wait_tail. */
bool smt_server_publish(
		struct smt_server_ring *s, uint64_t tail, uint64_t commands, uint64_t bytes);

/* The FENCE serial of the last FENCE executed (release). */
void smt_server_complete_fence(struct smt_server_ring *s, uint64_t serial);
/* The wake-up counters shown to the client (relaxed). */
void smt_server_count_wakeups(struct smt_server_ring *s, uint64_t to_client, uint64_t from_client);

/* Ends the ring: error code, opcode (0xffff: none) and stream position
 * first, then the DEAD flag (release), so a client that sees the flag
 * reads the reason. */
void smt_server_end(struct smt_server_ring *s, uint32_t code, uint32_t opcode, uint64_t offset);

/* A page the server writes and clients may only read: a memfd of size
 * bytes mapped read-write here, then sealed against resizing and against
 * any future writable mapping (F_SEAL_FUTURE_WRITE). Returns the fd (close
 * on exec) and *mapping, or -1 with errno set and nothing left open. */
int smt_server_page_create(const char *name, size_t size, void **mapping);

/* The global page (smt-ring.h "server sleep"). prepare_sleep sets the flag
 * with a full fence; the caller then re-checks every ring's head before it
 * blocks, calls smt_global_wake() if one has work, and after it wakes up. */
void smt_global_init(struct smt_global_status *g);
void smt_global_prepare_sleep(struct smt_global_status *g);
void smt_global_wake(struct smt_global_status *g);

/* Static names for logs: "bad_head", "FILL_RECTS"; "unknown"/"UNKNOWN"
 * outside the tables. */
const char *smt_error_name(uint32_t code);
const char *smt_opcode_name(uint32_t opcode);

#endif
