/* See stream_reader.h; the memory order is smt-ring-server.c's. */
#include "xwayland-glue/stream/stream_reader.h"

void stream_reader_init(struct stream_reader *r, const void *ring_map, uint32_t area_size,
		struct smt_ring_status *status, struct x11_request_framer *framer)
{
	*r = (struct stream_reader){
		.area = (const uint8_t *)ring_map + SMT_RING_HEADER_SIZE,
		.area_size = area_size,
		.framer = framer,
	};
	smt_server_ring_init(&r->shared, ring_map, status);
}

static uint32_t published(const struct stream_reader *r, enum smt_error *err)
{
	uint64_t head = smt_server_load_head(&r->shared);
	uint64_t avail = smt_server_head_avail(head, r->tail, r->area_size, 1);
	if (avail == SMT_HEAD_IMPOSSIBLE) {
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

size_t stream_reader_take(
		struct stream_reader *r, void *dst, size_t max, uint32_t avail, bool *wake_client)
{
	*wake_client = false;
	uint32_t n = avail < max ? avail : (uint32_t)max;
	if (n == 0 || r->dead)
		return 0;
	smt_stream_copy_out(dst, r->area, r->area_size, r->tail, n);
	x11_request_framer_feed(r->framer, dst, n);
	r->tail += n;
	*wake_client = smt_server_publish(&r->shared, r->tail, r->framer->requests, r->tail);
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
	smt_server_end(&r->shared, code, 0xffffu, r->tail);
}
