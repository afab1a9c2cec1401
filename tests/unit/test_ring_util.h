/* Shared helpers for the test_ring_*.c unit tests (header-only). */
#ifndef TEST_RING_UTIL_H
#define TEST_RING_UTIL_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit_check.h"
#include "compositor/exec/executor.h"
#include "compositor/exec/ring_reader.h"
#include "protocol/smt-ring-client.h"
#include "compositor/ring/submit_area.h"

/* A client-side ring in private memory, written with the header's helpers. */
struct test_ring {
	uint8_t *mem;
	uint32_t area_size;
	struct smt_ring_header *hdr;
	uint8_t *area;
	struct smt_ring_status *status;
	struct smt_global_status global;
	struct smt_ring_reader reader;
	uint64_t head;
};

static inline void tr_init(struct test_ring *t, uint32_t area_size)
{
	memset(t, 0, sizeof(*t));
	t->area_size = area_size;
	t->mem = aligned_alloc(4096, SMT_RING_HEADER_SIZE + area_size);
	REQUIRE(t->mem, "alloc");
	memset(t->mem, 0xa5, SMT_RING_HEADER_SIZE + area_size); /* garbage */
	t->hdr = (struct smt_ring_header *)t->mem;
	memset(t->hdr, 0, SMT_RING_HEADER_SIZE);
	t->hdr->magic = SMT_RING_MAGIC;
	t->hdr->version = SMT_RING_VERSION;
	t->hdr->area_size = area_size;
	t->hdr->header_size = SMT_RING_HEADER_SIZE;
	t->area = t->mem + SMT_RING_HEADER_SIZE;
	t->status = aligned_alloc(4096, SMT_STATUS_MAP_SIZE);
	REQUIRE(t->status, "alloc");
	memset(t->status, 0, SMT_STATUS_MAP_SIZE);
	smt_global_init(&t->global);
	REQUIRE(smt_ring_reader_init(&t->reader, t->mem, SMT_RING_HEADER_SIZE + area_size,
				area_size, t->status) == 0,
			"reader init");
}

static inline void tr_fini(struct test_ring *t)
{
	smt_ring_reader_fini(&t->reader);
	free(t->mem);
	free(t->status);
}

/* Append one encoded command (PAD first if it would wrap) without
 * publishing. Returns 0, or -1 if the ring is full. */
static inline int tr_write(struct test_ring *t, const void *cmd, uint32_t size)
{
	uint64_t tail = atomic_load_explicit(&t->status->tail, memory_order_acquire);
	uint32_t pad = smt_ring_pad_needed(t->head, t->area_size, size);
	if (smt_ring_space(t->head, tail, t->area_size) < (uint64_t)pad + size)
		return -1;
	if (pad) {
		smt_encode_noop(smt_ring_at(t->area, t->area_size, t->head), SMT_OP_PAD, pad);
		t->head += pad;
	}
	memcpy(smt_ring_at(t->area, t->area_size, t->head), cmd, size);
	t->head += size;
	return 0;
}

static inline void tr_publish(struct test_ring *t)
{
	smt_ring_client_publish(t->hdr, &t->global, t->head);
}

static inline int tr_push(struct test_ring *t, const void *cmd, uint32_t size)
{
	int rc = tr_write(t, cmd, size);
	if (rc == 0)
		tr_publish(t);
	return rc;
}

static inline pixman_image_t *new_image(pixman_format_code_t f, int w, int h)
{
	pixman_image_t *img = pixman_image_create_bits(f, w, h, NULL, 0);
	REQUIRE(img, "image");
	return img;
}

/* Fill an image with a deterministic pattern (premultiplied for ARGB). */
static inline void pattern(pixman_image_t *img, uint32_t seed)
{
	uint8_t *bits = (uint8_t *)pixman_image_get_data(img);
	int stride = pixman_image_get_stride(img);
	int bpp = PIXMAN_FORMAT_BPP(pixman_image_get_format(img));
	int w = pixman_image_get_width(img), h = pixman_image_get_height(img);
	uint32_t s = seed * 2654435761u + 1;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			s = s * 1103515245u + 12345u;
			uint32_t v = s >> 5;
			if (bpp == 8) {
				bits[y * stride + x] = (uint8_t)v;
			} else {
				uint32_t a = (v >> 24) | 0x10, r = ((v >> 16) & 0xff) * a / 255,
					 g = ((v >> 8) & 0xff) * a / 255, b = (v & 0xff) * a / 255;
				uint32_t px = a << 24 | r << 16 | g << 8 | b;
				memcpy(bits + y * stride + x * 4, &px, 4);
			}
		}
}

static inline pixman_image_t *clone_image(pixman_image_t *src)
{
	pixman_format_code_t f = pixman_image_get_format(src);
	int w = pixman_image_get_width(src), h = pixman_image_get_height(src);
	pixman_image_t *img = new_image(f, w, h);
	memcpy(pixman_image_get_data(img), pixman_image_get_data(src),
			(size_t)pixman_image_get_stride(src) * (size_t)h);
	return img;
}

/* Compare two images of the same format/size; on mismatch print the first
 * differing pixel and exit. `tol` allows per-channel differences. */
static inline void expect_same_tol(pixman_image_t *a, pixman_image_t *b, int tol, const char *what)
{
	int w = pixman_image_get_width(a), h = pixman_image_get_height(a);
	REQUIRE(w == pixman_image_get_width(b) && h == pixman_image_get_height(b), "%s: size",
			what);
	int bpp = PIXMAN_FORMAT_BPP(pixman_image_get_format(a)) / 8;
	const uint8_t *pa = (const uint8_t *)pixman_image_get_data(a);
	const uint8_t *pb = (const uint8_t *)pixman_image_get_data(b);
	int sa = pixman_image_get_stride(a), sb = pixman_image_get_stride(b);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w * bpp; x++) {
			int d = pa[y * sa + x] - pb[y * sb + x];
			if (d < -tol || d > tol) {
				uint32_t va = 0, vb = 0;
				memcpy(&va, pa + y * sa + x / bpp * bpp, (size_t)bpp);
				memcpy(&vb, pb + y * sb + x / bpp * bpp, (size_t)bpp);
				REQUIRE(0, "%s: pixel (%d,%d) got %08" PRIx32 " want %08" PRIx32,
						what, x / bpp, y, va, vb);
			}
		}
}
#define expect_same(a, b, what) expect_same_tol(a, b, 0, what)

static inline uint32_t pixel_at(pixman_image_t *img, int x, int y)
{
	const uint8_t *p = (const uint8_t *)pixman_image_get_data(img) +
			y * pixman_image_get_stride(img);
	if (PIXMAN_FORMAT_BPP(pixman_image_get_format(img)) == 8)
		return p[x];
	uint32_t v;
	memcpy(&v, p + x * 4, 4);
	return v;
}

/* Run the executor on the ring until empty (PRESENT stops are resumed);
 * returns the final stop and the accumulated result in *out. */
static inline enum smt_exec_stop tr_run_all(
		struct smt_exec_ctx *ctx, struct test_ring *t, struct smt_exec_result *out)
{
	enum smt_exec_stop s;
	while ((s = smt_exec_run(ctx, &t->reader, NULL, out)) == SMT_EXEC_PRESENT)
		;
	return s;
}

/* A command stream built with the smt_encode_* helpers. */
struct stream {
	uint8_t *buf;
	size_t len, cap;
};
static inline void st_init(struct stream *s)
{
	s->cap = 4u << 20;
	s->buf = aligned_alloc(8, s->cap);
	s->len = 0;
	REQUIRE(s->buf, "alloc");
}
static inline void st_fini(struct stream *s)
{
	free(s->buf);
}
static inline void *st_at(struct stream *s)
{
	return s->buf + s->len;
}
#define ST(s, call) ((s)->len += (call))

/* Feed a stream through a fresh ring of area_size bytes, draining when full.
 * Returns the final stop (EMPTY or ERROR); PRESENT stops are resumed. */
static inline enum smt_exec_stop run_ring(struct smt_exec_ctx *ctx, const struct stream *s,
		uint32_t area_size, struct smt_exec_result *res)
{
	struct test_ring t;
	enum smt_exec_stop stop = SMT_EXEC_EMPTY;
	tr_init(&t, area_size);
	for (size_t off = 0; off < s->len;) {
		struct smt_cmd_header h;
		memcpy(&h, s->buf + off, sizeof(h));
		if (tr_write(&t, s->buf + off, h.size) == 0) {
			off += h.size;
			continue;
		}
		tr_publish(&t);
		stop = tr_run_all(ctx, &t, res);
		if (stop == SMT_EXEC_ERROR)
			break;
		REQUIRE(tr_write(&t, s->buf + off, h.size) == 0,
				"command does not fit an empty ring");
		off += h.size;
	}
	if (stop != SMT_EXEC_ERROR) {
		tr_publish(&t);
		stop = tr_run_all(ctx, &t, res);
	}
	tr_fini(&t);
	return stop;
}

/* A socket ring's stream as the compositor keeps it: the server-owned
 * area its submits are written into (ring/submit_area.h) and its reader. */
struct test_socket {
	struct smt_ring_reader reader;
	struct submit_area *area;
};

static inline void ts_init(struct test_socket *t)
{
	t->area = submit_area_create(&t->reader, NULL, NULL);
	REQUIRE(t->area != NULL, "submit area");
}

static inline void ts_fini(struct test_socket *t)
{
	submit_area_destroy(t->area, &t->reader);
}

/* Whole commands written, not run (as ring.c's submit handler): ERROR
 * as the compositor fails the ring, else BUDGET while bytes wait. */
static inline enum smt_exec_stop ts_queue(struct smt_exec_ctx *ctx, struct test_socket *t,
		const void *bytes, size_t len, struct smt_exec_result *res)
{
	struct smt_fault f;
	memset(res, 0, sizeof(*res));
	if (submit_area_write(t->area, &t->reader, bytes, len, &f) < 0)
		return smt_exec_fail(ctx, &t->reader, &f, res);
	return res->stop = submit_area_pending(t->area, &t->reader) ? SMT_EXEC_BUDGET :
								      SMT_EXEC_EMPTY;
}

/* Written, then run under budget b. */
static inline enum smt_exec_stop ts_submit(struct smt_exec_ctx *ctx, struct test_socket *t,
		const void *bytes, size_t len, const struct smt_exec_budget *b,
		struct smt_exec_result *res)
{
	if (ts_queue(ctx, t, bytes, len, res) == SMT_EXEC_ERROR)
		return SMT_EXEC_ERROR;
	return smt_exec_run(ctx, &t->reader, b, res);
}

/* Feed a stream through the socket path in submits of <= max bytes (whole
 * commands; a bigger command goes alone). */
static inline enum smt_exec_stop run_submit(struct smt_exec_ctx *ctx, struct test_socket *t,
		const struct stream *s, size_t max, struct smt_exec_result *res)
{
	enum smt_exec_stop stop = SMT_EXEC_EMPTY;
	for (size_t off = 0; off < s->len;) {
		size_t len = 0;
		while (off + len < s->len) {
			struct smt_cmd_header h;
			memcpy(&h, s->buf + off + len, sizeof(h));
			if (len && len + h.size > max)
				break;
			len += h.size;
		}
		stop = ts_submit(ctx, t, s->buf + off, len, NULL, res);
		while (stop == SMT_EXEC_PRESENT || stop == SMT_EXEC_BUDGET)
			stop = smt_exec_run(ctx, &t->reader, NULL, res);
		if (stop == SMT_EXEC_ERROR)
			break;
		off += len;
	}
	return stop;
}

static inline void expect_ok(
		enum smt_exec_stop s, const struct smt_exec_result *r, const char *what)
{
	REQUIRE(s == SMT_EXEC_EMPTY, "%s: stop %d: %s", what, s, r->error.message);
}

/* Premultiplied colour -> pixman_color_t */
static inline pixman_color_t to_color(uint32_t c)
{
	pixman_color_t pc = { (uint16_t)(((c >> 16) & 0xff) * 0x101),
		(uint16_t)(((c >> 8) & 0xff) * 0x101), (uint16_t)((c & 0xff) * 0x101),
		(uint16_t)((c >> 24) * 0x101) };
	return pc;
}

#define BUF_DECL(name, size) _Alignas(8) uint8_t name[size]

#endif
