/* See stream_reader.h; the memory order is smt-ring.h's "server batch". */
#include "stream_reader.h"

void stream_reader_init(struct stream_reader *r, const void *ring_map, uint32_t area_size,
			struct smt_ring_status *status)
{
	*r = (struct stream_reader){
		.hdr = ring_map,
		.area = (const uint8_t *)ring_map + SMT_RING_HEADER_SIZE,
		.area_size = area_size,
		.status = status,
	};
}

static uint32_t published(const struct stream_reader *r, enum smt_error *err)
{
	/* The cast drops const only for the atomic load's signature. */
	uint64_t head = atomic_load_explicit(
		&((struct smt_ring_header *)r->hdr)->head, memory_order_acquire);
	uint64_t avail = head - r->tail;  /* head < tail wraps to a huge value */
	if (avail > r->area_size) {
		*err = SMT_ERROR_BAD_HEAD;
		return 0;
	}
	return (uint32_t)avail;
}

uint32_t stream_reader_available(const struct stream_reader *r, enum smt_error *err)
{
	*err = SMT_ERROR_NONE;
	if (r->dead)
		return 0;
	uint32_t avail = published(r, err);
	if (r->limited && avail > r->limit - r->tail)
		avail = (uint32_t)(r->limit - r->tail);
	return avail;
}

size_t stream_reader_take(struct stream_reader *r, void *dst, size_t max, uint32_t avail,
			  bool *wake_client)
{
	*wake_client = false;
	uint32_t n = avail < max ? avail : (uint32_t)max;
	if (n == 0 || r->dead)
		return 0;
	smt_stream_copy_out(dst, r->area, r->area_size, r->tail, n);
	x11_request_count_feed(&r->count, dst, n);
	r->tail += n;
	atomic_store_explicit(&r->status->tail, r->tail, memory_order_release);
	atomic_store_explicit(&r->status->bytes_executed, r->tail, memory_order_relaxed);
	atomic_store_explicit(&r->status->commands_executed, r->count.requests,
			      memory_order_relaxed);
	/* liburing #541: the tail must be visible before we look at WAITING,
	 * or a client that set WAITING just now sleeps forever. */
	atomic_thread_fence(memory_order_seq_cst);
	struct smt_ring_header *hdr = (struct smt_ring_header *)r->hdr;
	if (atomic_load_explicit(&hdr->flags, memory_order_acquire) & SMT_CLIENT_WAITING) {
		uint64_t need = atomic_load_explicit(&hdr->wait_tail, memory_order_relaxed);
		*wake_client = (int64_t)(r->tail - need) >= 0;
	}
	return n;
}

bool stream_reader_limit(struct stream_reader *r, uint64_t position)
{
	enum smt_error err = SMT_ERROR_NONE;
	uint32_t avail = r->dead ? 0 : published(r, &err);
	if (r->dead || err != SMT_ERROR_NONE || position - r->tail > avail)
		return false;
	r->limit = position;
	r->limited = true;
	return true;
}

void stream_reader_fail(struct stream_reader *r, enum smt_error code)
{
	if (r->dead)
		return;
	r->dead = true;
	atomic_store_explicit(&r->status->error_code, code, memory_order_relaxed);
	atomic_store_explicit(&r->status->error_opcode, 0xffffu, memory_order_relaxed);
	atomic_store_explicit(&r->status->error_offset, r->tail, memory_order_relaxed);
	atomic_store_explicit(&r->status->flags, SMT_SERVER_DEAD, memory_order_release);
}
