/* Ring sub-allocator of the shim's shared segment; see ring.h. */
#include "xwayland-glue/shim/shm_segment_alloc.h"

#include <stdlib.h>
#include <string.h>

bool xshim_segment_alloc_init(struct xshim_segment_alloc *r, uint32_t size)
{
	memset(r, 0, sizeof(*r));
	r->size = size - size % XSHIM_SEGMENT_ALIGN;
	return r->size != 0;
}

void xshim_segment_alloc_finish(struct xshim_segment_alloc *r)
{
	free(r->q);
	memset(r, 0, sizeof(*r));
}

static struct xshim_segment_alloc_entry *entry_at(struct xshim_segment_alloc *r, uint32_t i)
{
	return &r->q[(r->qfirst + i) % r->qcap];
}

static struct xshim_segment_alloc_entry *entry_by_id(struct xshim_segment_alloc *r, uint32_t id)
{
	uint32_t i = id - r->first_id;
	return i < r->qcount ? entry_at(r, i) : NULL;
}

static bool queue_grow(struct xshim_segment_alloc *r)
{
	if (r->qcount < r->qcap)
		return true;
	uint32_t cap = r->qcap ? r->qcap * 2 : 16;
	struct xshim_segment_alloc_entry *q = malloc((size_t)cap * sizeof(*q));
	if (!q)
		return false;
	/* Unroll the circle so that the oldest entry is at index 0. */
	for (uint32_t i = 0; i < r->qcount; i++)
		q[i] = *entry_at(r, i);
	free(r->q);
	r->q = q;
	r->qcap = cap;
	r->qfirst = 0;
	return true;
}

/* Frees the oldest entries that are FREE, in order; the tail follows. */
static uint32_t pop_free(struct xshim_segment_alloc *r)
{
	uint32_t freed = 0;
	while (r->qcount && entry_at(r, 0)->state == XSHIM_SEGMENT_FREE) {
		struct xshim_segment_alloc_entry *e = entry_at(r, 0);
		r->tail = e->start + e->span;
		if (r->tail >= r->size)
			r->tail -= r->size;
		r->used -= e->span;
		freed += e->span;
		r->qfirst = (r->qfirst + 1) % r->qcap;
		r->qcount--;
		r->first_id++;
	}
	if (r->used == 0) /* empty: restart at 0 for the longest contiguous run */
		r->head = r->tail = 0;
	return freed;
}

bool xshim_segment_alloc_reserve(
		struct xshim_segment_alloc *r, uint32_t len, uint32_t *off, uint32_t *id)
{
	if (len == 0)
		len = 1;
	if (len > r->size)
		return false;
	len = (len + XSHIM_SEGMENT_ALIGN - 1) & ~(XSHIM_SEGMENT_ALIGN - 1);
	if (!queue_grow(r))
		return false;

	uint32_t start = r->head, span, at;
	if (r->used == r->size) {
		return false;
	} else if (r->head >= r->tail) {
		/* Free space is [head, size) and [0, tail). */
		if (r->size - r->head >= len) {
			at = r->head;
			span = len;
		} else if (r->tail >= len) {
			at = 0; /* skip the end; that waste goes with this entry */
			span = r->size - r->head + len;
		} else {
			return false;
		}
	} else {
		if (r->tail - r->head < len)
			return false;
		at = r->head;
		span = len;
	}

	r->head = at + len;
	if (r->head == r->size)
		r->head = 0;
	r->used += span;
	struct xshim_segment_alloc_entry *e = entry_at(r, r->qcount);
	*e = (struct xshim_segment_alloc_entry){
		.start = start, .span = span, .state = XSHIM_SEGMENT_HELD
	};
	*id = r->first_id + r->qcount;
	r->qcount++;
	*off = at;
	return true;
}

void xshim_segment_alloc_commit(struct xshim_segment_alloc *r, uint32_t id, uint32_t seq)
{
	struct xshim_segment_alloc_entry *e = entry_by_id(r, id);
	if (e && e->state == XSHIM_SEGMENT_HELD) {
		e->seq = seq;
		e->state = XSHIM_SEGMENT_INFLIGHT;
		r->inflight++;
	}
}

void xshim_segment_alloc_release(struct xshim_segment_alloc *r, uint32_t id)
{
	struct xshim_segment_alloc_entry *e = entry_by_id(r, id);
	if (e) {
		if (e->state == XSHIM_SEGMENT_INFLIGHT)
			r->inflight--;
		e->state = XSHIM_SEGMENT_FREE;
		pop_free(r);
	}
}

uint32_t xshim_segment_alloc_retire(struct xshim_segment_alloc *r, uint32_t done)
{
	/* Requests may have been committed out of allocation order (two threads),
	 * so look at every entry rather than stopping at the first young one. */
	for (uint32_t i = 0; i < r->qcount; i++) {
		struct xshim_segment_alloc_entry *e = entry_at(r, i);
		if (e->state == XSHIM_SEGMENT_INFLIGHT && xshim_seq_le(e->seq, done)) {
			e->state = XSHIM_SEGMENT_FREE;
			r->inflight--;
		}
	}
	return pop_free(r);
}
