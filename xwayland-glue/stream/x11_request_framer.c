/* The request framer of x11_request_framer.h: a small state machine that
 * collects just enough of each element's first bytes to learn its length
 * (and, for a watched request, the fields its watcher asked for). */
#include "xwayland-glue/stream/x11_request_framer.h"

#include <string.h>

#include "xwayland-glue/stream/x11_card.h"

enum {
	SETUP_HEADER = 12,
	REQUEST_HEADER = 4,
	BIG_REQUEST_HEADER = 8,
	/* above every opcode: the fast path's "nothing watched" */
	NO_OPCODE = 256,
	/* the longest request the 16-bit length holds, in 4-byte units */
	ORDINARY_MAX_UNITS = 65535,
};

static uint32_t card16(const struct x11_request_framer *f, const uint8_t *b)
{
	return x11_card16(f->msb_first, b);
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* The current request's header size; its first 4 bytes are in. */
static size_t header_size(const struct x11_request_framer *f)
{
	return card16(f, f->head + 2) == 0 ? BIG_REQUEST_HEADER : REQUEST_HEADER;
}

/* The current request's length in bytes; its header is in. A BIG-REQUESTS
 * length shorter than its own header is a lie the X server ends the client
 * for: framed as the header alone. */
static uint64_t request_len(const struct x11_request_framer *f)
{
	uint64_t len = 4 * (uint64_t)card16(f, f->head + 2);
	if (len == 0) {
		len = 4 * (uint64_t)x11_card32(f->msb_first, f->head + 4);
		if (len < BIG_REQUEST_HEADER)
			len = BIG_REQUEST_HEADER;
	}
	return len;
}

/* A request the watcher is handed: its opcode, or any of length 0 (the
 * header's first 4 bytes are in). */
static bool watched(const struct x11_request_framer *f)
{
	return f->watcher != NULL && (f->head[0] == f->watch_opcode || card16(f, f->head + 2) == 0);
}

/* How many of the current element's first bytes are needed: the setup's
 * header; a request's header; a watched request's fields too, as many as
 * the watch asks for and the request has. Grows as bytes come in, then
 * stays (unless the watch changes meanwhile: then it may be below `have`). */
static size_t wanted(const struct x11_request_framer *f)
{
	if (!f->setup_done)
		return SETUP_HEADER;
	if (f->have < REQUEST_HEADER)
		return REQUEST_HEADER;
	size_t header = header_size(f);
	if (f->have < header || !watched(f))
		return header;
	uint64_t len = request_len(f), want = header + (uint64_t)f->watch_fields;
	return (size_t)(want < len ? want : len);
}

/* The current element's first bytes are in: count it, hand it to the
 * watcher if it is watched, and pass the rest of it. */
static void element_done(struct x11_request_framer *f)
{
	size_t have = f->have;
	f->have = 0;
	if (!f->setup_done) {
		f->setup_done = 1;
		f->skip = pad4(card16(f, f->head + 6)) + pad4(card16(f, f->head + 8));
		return;
	}
	uint64_t len = request_len(f);
	size_t header = header_size(f);
	f->requests++;
	f->skip = len > have ? len - have : 0;
	f->odd_big = header == BIG_REQUEST_HEADER && len <= 4 * (uint64_t)ORDINARY_MAX_UNITS;
	if (!watched(f))
		return;
	struct x11_request_view r = {
		.opcode = f->head[0],
		.data = f->head[1],
		.fields = f->head + header,
		.fields_have = have > header ? have - header : 0,
		.len = len,
		.seq = f->requests,
		.msb_first = f->msb_first,
		.big = header == BIG_REQUEST_HEADER,
	};
	f->watcher(f->watcher_ctx, f, &r);
}

/* The fast path, on the X server's read path: whole ordinary requests in
 * view, counted in locals (p may alias *f). Written once per byte order so
 * that the length is two loads at fixed offsets the compiler merges: with
 * the byte order a run-time index, the loop cost 2.3 ns a request, 1.75
 * with it fixed (a 16 KiB buffer of 4-byte requests fed over and over,
 * thread CPU time, 2.6 GHz Xeon); for x11perf -noop through the ring this
 * loop was a fifth of Xwayland's samples (perf). A watched opcode costs
 * one compare a request (`watch` is NO_OPCODE when nothing is watched).
 * Returns the bytes not consumed (0 when it ended inside a request, whose
 * rest is left in f->skip). */
static inline __attribute__((always_inline)) size_t frame_whole(struct x11_request_framer *f,
		const uint8_t *p, size_t n, const bool msb_first, const unsigned watch)
{
	uint64_t requests = f->requests;
	while (n >= REQUEST_HEADER) {
		size_t units = msb_first ? (size_t)p[2] << 8 | p[3] : (size_t)p[3] << 8 | p[2];
		size_t len = units * 4;
		if (len == 0 || (unsigned)p[0] == watch)
			break; /* BIG-REQUESTS or watched: the slow path reads on */
		requests++;
		if (len >= n) {
			f->requests = requests;
			f->skip = len - n;
			f->odd_big = 0;
			return 0;
		}
		p += len;
		n -= len;
	}
	f->requests = requests;
	return n;
}

void x11_request_framer_feed(struct x11_request_framer *f, const uint8_t *p, size_t n)
{
	while (n > 0) {
		if (f->skip > 0) {
			size_t step = f->skip < n ? (size_t)f->skip : n;
			f->skip -= step;
			p += step;
			n -= step;
			continue;
		}
		if (f->setup_done && f->have == 0 && n >= REQUEST_HEADER) {
			unsigned watch = f->watcher != NULL ? f->watch_opcode : NO_OPCODE;
			size_t left = f->msb_first ? frame_whole(f, p, n, true, watch) :
						     frame_whole(f, p, n, false, watch);
			p += n - left;
			n = left;
			if (n == 0)
				return;
		}
		if (!f->setup_done && f->have == 0)
			f->msb_first = p[0] == 'B';
		size_t want = wanted(f);
		if (f->have < want) {
			size_t step = want - f->have < n ? want - f->have : n;
			memcpy(f->head + f->have, p, step);
			f->have += (uint8_t)step;
			p += step;
			n -= step;
		}
		if (f->have >= wanted(f))
			element_done(f);
	}
}

void x11_request_framer_watch(struct x11_request_framer *f, uint8_t opcode, uint8_t fields,
		x11_request_watcher *watcher, void *ctx)
{
	f->watch_opcode = opcode;
	f->watch_fields = fields < X11_REQUEST_WATCH_MAX ? fields : X11_REQUEST_WATCH_MAX;
	f->watcher = watcher;
	f->watcher_ctx = ctx;
}

void x11_request_framer_unwatch(struct x11_request_framer *f)
{
	f->watcher = NULL;
	f->watcher_ctx = NULL;
}

size_t x11_request_framer_cut(const struct x11_request_framer *f, size_t count, size_t extra)
{
	if (!f->setup_done)
		return count;
	/* Inside an element's first bytes (skip is 0 then): their rest, and
	 * `extra` past them. Not uncut: a client whose request sizes put each
	 * cut inside the next header would keep whole buffers. */
	uint64_t head = f->have == 0 ? 0 : wanted(f) - f->have;
	/* the rest of the request under way, where the X server frames it so
	 * too (x11_request_framer.h) */
	uint64_t rest = f->odd_big || f->skip > count ? 0 : f->skip;
	uint64_t cap = rest + head + extra; /* rest <= count, extra a read's size */
	return cap < count ? (size_t)cap : count;
}
