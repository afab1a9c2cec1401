/*
 * ring-writer — the producer side of a shared-memory command ring (pure:
 * no Wayland, no syscalls; the caller does the waiting and the eventfd
 * writes, so unit tests can drive it over an in-memory fake header/status).
 *
 * It follows the recipe in protocol/smt-ring-client.h: a command never
 * wraps, the writer pads to the end of the area with PAD instead; head is
 * private until published with store-release + full fence
 * (smt_ring_client_publish).
 */
#ifndef SMT_RING_WRITER_H
#define SMT_RING_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/smt-ring-client.h"

struct smt_ring_writer {
	struct smt_ring_header *hdr;            /* client-written page */
	const struct smt_ring_status *status;   /* server-written, read-only */
	const struct smt_global_status *global; /* server-written, read-only */
	uint8_t *area;
	uint32_t area_size; /* power of two */
	uint64_t head;      /* bytes written locally (not yet all published) */
	uint64_t published; /* last head stored to hdr->head */
	uint64_t tail_seen; /* last tail read: saves touching the server's
	                       * cache line while there is known room */
	uint64_t commands;  /* commands committed (PADs not counted) */
	uint64_t pads;
	/* smt_ring_writer_drains_slowly: when the ring was last full; the
	 * clock and the tail at the start of the rate's window; its verdict */
	uint64_t full_ns, window_ns, window_tail;
	bool slow;
};

void smt_ring_writer_init(struct smt_ring_writer *w, struct smt_ring_header *hdr,
		const struct smt_ring_status *status, const struct smt_global_status *global,
		void *area, uint32_t area_size);

/* Largest command accepted: half the area (a bigger one could need more
 * than the whole ring once padding is counted). */
static inline uint32_t smt_ring_writer_max_cmd(const struct smt_ring_writer *w)
{
	return w->area_size / 2;
}

/* Room for one command of `size` bytes (multiple of 8, <= max_cmd).
 * Returns where to encode it, after writing a PAD if the command would
 * cross the end of the area. Returns NULL if the ring is too full:
 * *need_tail is then the tail position that makes room (wait for it with
 * smt_ring_client_begin_wait, then call again). */
void *smt_ring_writer_reserve(struct smt_ring_writer *w, uint32_t size, uint64_t *need_tail);
/* The command of `size` bytes at the reserved pointer is complete. */
void smt_ring_writer_commit(struct smt_ring_writer *w, uint32_t size);
/* After a successful reserve: the bytes writable at the reserved pointer
 * without crossing the end of the area or the tail, at most `max`
 * (multiple of 8); never less than the size just reserved. The tail is
 * read again only if the last one seen leaves less than that. */
uint32_t smt_ring_writer_room(struct smt_ring_writer *w, uint32_t max);
/* `commands` commands, `size` bytes in all, are complete at the reserved
 * pointer (a batch written into smt_ring_writer_room). */
void smt_ring_writer_commit_many(struct smt_ring_writer *w, uint32_t size, uint32_t commands);
/* Publishes head if it moved: true if the server is asleep and its
 * eventfd must be written (then count it in hdr->wakeups_sent). */
bool smt_ring_writer_publish(struct smt_ring_writer *w);
/* The server's tail (acquire), clamped to what we wrote. */
uint64_t smt_ring_writer_tail(struct smt_ring_writer *w);

/* Called when the ring is full, with the clock (CLOCK_MONOTONIC ns):
 * whether the server frees half the area so slowly that a client asleep
 * until then (the half-area hysteresis) wakes long before the ring runs
 * dry, so a spin for one command's room would buy nothing but a CPU taken
 * from whoever else needs it. The rate is the tail's progress over a
 * window that starts and ends with the ring full (so the server had our
 * commands all along; a client that paused between makes it look slower,
 * and sleeps) and spans half the area or SMT_RING_SLEEP_WORTH_NS, the
 * verdict holding until the next window ends. "Slowly": half the area
 * takes at least SMT_RING_SLEEP_WORTH_NS at that rate, several times a
 * wakeup on this VM (docs/benchmarks.md, "Bimodal
 * rect10"): 1000 10x10 rectangles per command free 16 KB per ~25 us,
 * half the default ring in ~400 us; an inline 100x100 image frees 40 KB
 * per ~2.7 us, half the ring in ~17 us, and needs the spin). Before a
 * window ended (the first full ring, or the last more than
 * SMT_RING_RATE_MAX_AGE_NS ago): false. */
#define SMT_RING_SLEEP_WORTH_NS 300000u
#define SMT_RING_RATE_MAX_AGE_NS 10000000u
bool smt_ring_writer_drains_slowly(struct smt_ring_writer *w, uint64_t now_ns);

#endif
