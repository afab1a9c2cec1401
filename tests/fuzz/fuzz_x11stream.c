/*
 * libFuzzer target: the X server's reader of a client's byte-stream ring
 * (xwayland-glue/stream), driven by a client that writes anything into the
 * shared header and area at any time.
 *
 * The input is a script of 9-byte steps: an operation byte and a 64-bit
 * value. The client side may move head anywhere (backwards, past the area,
 * wrapping), rewrite area bytes, raise WAITING with any wait_tail; the
 * server side asks what is available, takes up to some amount, or applies a
 * REVERT position. The reader must never take more than was published and
 * validated, never move its tail backwards, never read past its area, and
 * stay dead once dead. The bytes taken go through the connection's request
 * framer (watching for XInput's QueryExtension, as the server half does),
 * and again, a byte at a time, through a second framer: both must agree on
 * every count, position and finding, however the reads cut the stream.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xwayland-glue/stream/stream_reader.h"
#include "xwayland-glue/stream/x11_xi1_query.h"

#define AREA 4096u

struct fake_ring {
	_Alignas(64) uint8_t map[SMT_RING_HEADER_SIZE + AREA];
	struct smt_ring_status status;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_ring *f = calloc(1, sizeof(*f));
	uint8_t *dst = malloc(AREA);
	if (!f || !dst) {
		free(f);
		free(dst);
		return 0;
	}
	struct smt_ring_header *hdr = (struct smt_ring_header *)f->map;
	struct stream_reader r;
	struct x11_request_framer framer = { 0 }, bytewise = { 0 };
	struct x11_xi1_query xi1 = { 0 }, xi1_bytewise = { 0 };
	x11_xi1_query_watch(&xi1, &framer);
	x11_xi1_query_watch(&xi1_bytewise, &bytewise);
	stream_reader_init(&r, f->map, AREA, &f->status, &framer);
	for (size_t at = 0; at + 9 <= size; at += 9) {
		uint8_t op = data[at];
		uint64_t v;
		memcpy(&v, data + at + 1, sizeof(v));
		uint64_t tail_before = r.tail;
		bool was_dead = r.dead;
		switch (op % 6) {
		case 0: /* the client publishes any head */
			atomic_store(&hdr->head, v);
			break;
		case 1: /* the client writes area bytes */
			memset(f->map + SMT_RING_HEADER_SIZE + (v & (AREA - 1)), (int)(v >> 32),
					(size_t)((v >> 12) & 0xff) % (AREA - (v & (AREA - 1)) + 1));
			break;
		case 2: /* the client waits for room */
			atomic_store(&hdr->wait_tail, v);
			atomic_store(&hdr->flags, (uint32_t)(v & SMT_CLIENT_WAITING));
			break;
		case 3: { /* the server reads, at most v bytes */
			enum smt_error err;
			uint32_t avail = stream_reader_available(&r, &err);
			if (avail > AREA)
				abort();
			if (err != SMT_ERROR_NONE) {
				stream_reader_fail(&r, err);
				break;
			}
			bool wake;
			size_t max = (size_t)(v % (AREA + 1));
			size_t n = stream_reader_take(&r, dst, max, avail, &wake);
			if (n > max || n > avail || (was_dead && n != 0))
				abort();
			if (r.tail != tail_before + n)
				abort();
			for (size_t i = 0; i < n; i++)
				x11_request_framer_feed(&bytewise, dst + i, 1);
			if (framer.requests != bytewise.requests || framer.skip != bytewise.skip ||
					framer.have != bytewise.have ||
					framer.setup_done != bytewise.setup_done ||
					xi1.asked != xi1_bytewise.asked ||
					xi1.asked_seq != xi1_bytewise.asked_seq ||
					framer.have > sizeof(framer.head))
				abort();
			break;
		}
		case 4: /* a REVERT message at position v: refused ones end the
			  * ring (the caller's part, stream_fds.c) */
			if (!stream_reader_limit(&r, v))
				stream_reader_fail(&r, SMT_ERROR_BAD_MESSAGE);
			else if (!r.limited || r.limit != v || r.dead)
				abort();
			break;
		case 5:
			stream_reader_fail(&r, SMT_ERROR_BAD_MESSAGE);
			break;
		}
		if (r.tail < tail_before || (was_dead && !r.dead))
			abort();
		if (r.limited && r.limit < r.tail)
			abort();
	}
	free(f);
	free(dst);
	return 0;
}
