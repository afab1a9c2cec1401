/* ring-writer: see ring-writer.h. */
#include "clients/libsmt/ring-writer.h"

void smt_ring_writer_init(struct smt_ring_writer *w, struct smt_ring_header *hdr,
		const struct smt_ring_status *status, const struct smt_global_status *global,
		void *area, uint32_t area_size)
{
	*w = (struct smt_ring_writer){
		.hdr = hdr,
		.status = status,
		.global = global,
		.area = area,
		.area_size = area_size,
	};
	/* A fresh ring starts at 0; adopt a published head (re-init) anyway. */
	w->head = w->published = w->tail_seen = atomic_load_explicit(
			&hdr->head, memory_order_relaxed);
}

uint64_t smt_ring_writer_tail(struct smt_ring_writer *w)
{
	uint64_t t = atomic_load_explicit(
			&((struct smt_ring_status *)w->status)->tail, memory_order_acquire);
	/* The server is trusted, but a tail beyond our head or behind the last
	 * one seen would corrupt the space arithmetic: clamp it. */
	if ((int64_t)(t - w->head) > 0)
		t = w->head;
	if ((int64_t)(t - w->tail_seen) < 0)
		t = w->tail_seen;
	w->tail_seen = t;
	return t;
}

void *smt_ring_writer_reserve(struct smt_ring_writer *w, uint32_t size, uint64_t *need_tail)
{
	uint32_t pad = smt_ring_pad_needed(w->head, w->area_size, size);
	uint64_t want = (uint64_t)pad + size;
	/* size <= area/2 and pad < size, so want < area: always satisfiable */
	if (smt_ring_space(w->head, w->tail_seen, w->area_size) < want &&
			smt_ring_space(w->head, smt_ring_writer_tail(w), w->area_size) < want) {
		*need_tail = w->head + want - w->area_size;
		return NULL;
	}
	if (pad) {
		smt_encode_noop(smt_ring_at(w->area, w->area_size, w->head), SMT_OP_PAD, pad);
		w->head += pad;
		w->pads++;
	}
	return smt_ring_at(w->area, w->area_size, w->head);
}

void smt_ring_writer_commit(struct smt_ring_writer *w, uint32_t size)
{
	w->head += size;
	w->commands++;
}

uint32_t smt_ring_writer_room(struct smt_ring_writer *w, uint32_t max)
{
	uint64_t to_end = w->area_size - (w->head & (w->area_size - 1));
	uint64_t limit = to_end < max ? to_end : max;
	uint64_t space = smt_ring_space(w->head, w->tail_seen, w->area_size);
	if (space < limit)
		space = smt_ring_space(w->head, smt_ring_writer_tail(w), w->area_size);
	return (uint32_t)((space < limit ? space : limit) & ~(uint64_t)7);
}

void smt_ring_writer_commit_many(struct smt_ring_writer *w, uint32_t size, uint32_t commands)
{
	w->head += size;
	w->commands += commands;
}

bool smt_ring_writer_publish(struct smt_ring_writer *w)
{
	if (w->head == w->published)
		return false;
	w->published = w->head;
	/* statistics first (relaxed): they ride on the release of head */
	atomic_store_explicit(&w->hdr->commands_written, w->commands, memory_order_relaxed);
	return smt_ring_client_publish(w->hdr, w->global, w->head);
}

bool smt_ring_writer_drains_slowly(struct smt_ring_writer *w, uint64_t now_ns)
{
	uint64_t tail = smt_ring_writer_tail(w);
	if (w->full_ns == 0 || now_ns - w->full_ns >= SMT_RING_RATE_MAX_AGE_NS) {
		w->slow = false; /* no recent full ring: start a window */
		w->window_ns = now_ns;
		w->window_tail = tail;
	} else {
		uint64_t dt = now_ns - w->window_ns, freed = tail - w->window_tail;
		/* A verdict per window of half the area (or of
		 * SMT_RING_SLEEP_WORTH_NS): one late publish does not flip it.
		 * (area / 2) / (freed / dt) >= SMT_RING_SLEEP_WORTH_NS without
		 * division, in 64 bits: area / 2 <= 2^23, dt < 2^24 while the
		 * ring keeps filling, freed far below 2^40. */
		if (freed >= w->area_size / 2 || dt >= SMT_RING_SLEEP_WORTH_NS) {
			w->slow = (uint64_t)(w->area_size / 2) * dt >=
					(uint64_t)SMT_RING_SLEEP_WORTH_NS * freed;
			w->window_ns = now_ns;
			w->window_tail = tail;
		}
	}
	w->full_ns = now_ns;
	return w->slow;
}
