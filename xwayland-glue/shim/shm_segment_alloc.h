/*
 * The sub-allocator of the shim's one shared segment per X connection.
 *
 * Pure logic (no X, no locking): the caller holds the connection's lock.
 *
 * Space is handed out as a ring: allocations are contiguous, never wrap (the
 * unused end of the segment is charged to the allocation that skipped it) and
 * are reclaimed oldest first, because the X server consumes requests in order.
 * An allocation starts HELD (the client is still writing it, or waits for a
 * GetImage reply to copy out). It becomes reclaimable either by commit(seq) --
 * the server is done with it once it has processed request `seq`, which the
 * caller learns from a later reply (retire) -- or by release() once the client
 * has copied a reply out. A HELD allocation blocks reclamation of everything
 * after it, which is what keeps a pending GetImage's pixels intact.
 *
 * Sequence numbers are 32-bit X request sequences compared with serial
 * arithmetic, so wrap-around is fine while fewer than 2^31 requests are in
 * flight.
 */
#ifndef SMT_X11SHIM_SHM_SEGMENT_ALLOC_H
#define SMT_X11SHIM_SHM_SEGMENT_ALLOC_H

#include <stdbool.h>
#include <stdint.h>

/* Cache-line alignment: the client and the server touch neighbouring images
 * from different CPUs; sharing a line would only cost. */
#define XSHIM_SEGMENT_ALIGN 64u

enum xshim_segment_alloc_state {
	XSHIM_SEGMENT_FREE = 0, /* reclaimable */
	XSHIM_SEGMENT_HELD,     /* owned by the client until released/committed */
	XSHIM_SEGMENT_INFLIGHT, /* reclaimable once request `seq` has completed */
};

struct xshim_segment_alloc_entry {
	uint32_t start; /* where the span begins (== tail when at the front) */
	uint32_t span;  /* bytes consumed, including skipped end-of-segment */
	uint32_t seq;
	uint8_t state;
};

struct xshim_segment_alloc {
	uint32_t size;                       /* segment bytes, a multiple of XSHIM_SEGMENT_ALIGN */
	uint32_t head;                       /* next free byte */
	uint32_t tail;                       /* first byte still in use */
	uint32_t used;                       /* bytes in use, tells full from empty */
	struct xshim_segment_alloc_entry *q; /* live allocations, oldest first (circular) */
	uint32_t qcap, qfirst, qcount;
	uint32_t first_id; /* id of the oldest live allocation */
	uint32_t inflight; /* entries waiting for a request to complete */
};

bool xshim_segment_alloc_init(struct xshim_segment_alloc *r, uint32_t size);
void xshim_segment_alloc_finish(struct xshim_segment_alloc *r);

/* Reserves len bytes (rounded up to XSHIM_SEGMENT_ALIGN) as HELD. Returns false
 * when they do not fit now (or never: len > size, or no memory for the
 * book-keeping); *off is the byte offset in the segment, *id names it. */
bool xshim_segment_alloc_reserve(
		struct xshim_segment_alloc *r, uint32_t len, uint32_t *off, uint32_t *id);

/* HELD -> INFLIGHT: reclaimable once request seq has completed. */
void xshim_segment_alloc_commit(struct xshim_segment_alloc *r, uint32_t id, uint32_t seq);

/* -> FREE now (the client copied the reply out, or gave up before sending). */
void xshim_segment_alloc_release(struct xshim_segment_alloc *r, uint32_t id);

/* The server has completed every request up to and including done: every
 * INFLIGHT allocation with seq <= done becomes FREE. Returns bytes reclaimed. */
uint32_t xshim_segment_alloc_retire(struct xshim_segment_alloc *r, uint32_t done);

/* Would waiting for the server free anything? (Not if only HELD remain.) */
static inline bool xshim_segment_alloc_waiting(const struct xshim_segment_alloc *r)
{
	return r->inflight != 0;
}

/* Is any allocation still live (HELD or INFLIGHT)? */
static inline bool xshim_segment_alloc_busy(const struct xshim_segment_alloc *r)
{
	return r->qcount != 0;
}
static inline uint32_t xshim_segment_alloc_used(const struct xshim_segment_alloc *r)
{
	return r->used;
}

/* Serial-number comparison of X sequences: a <= b. */
static inline bool xshim_seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

#endif
