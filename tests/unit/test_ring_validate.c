/* Every validation rule rejects with the right code, opcode and offset, and
 * a rejected command leaves no pixels behind. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <sys/mman.h>

#include "compositor/exec/command_decode.h"
#include "tests/unit/test_ring_util.h"

#define CANVAS 1
#define POOL 2

struct env {
	struct smt_exec_ctx *ctx;
	pixman_image_t *canvas, *orig;
	uint8_t *pool;
	struct stream s;
	uint64_t bad_at; /* offset of the command expected to fail */
};

static void env_init(struct env *e, const struct smt_exec_config *cfg)
{
	e->ctx = smt_exec_create(cfg);
	e->canvas = new_image(PIXMAN_a8r8g8b8, 32, 32);
	pattern(e->canvas, 1);
	e->orig = clone_image(e->canvas);
	e->pool = aligned_alloc(4096, 4096);
	memset(e->pool, 0x55, 4096);
	REQUIRE(smt_exec_register_canvas(e->ctx, CANVAS, e->canvas) == 0, "canvas");
	REQUIRE(smt_exec_register_pool(e->ctx, POOL, e->pool, 4096) == 0, "pool");
	st_init(&e->s);
	ST(&e->s, smt_encode_create_pixmap(st_at(&e->s), 10, 8, 8, SMT_FORMAT_ARGB8888));
	ST(&e->s, smt_encode_create_pixmap(st_at(&e->s), 11, 8, 8, SMT_FORMAT_A8));
	ST(&e->s, smt_encode_set_target(st_at(&e->s), CANVAS));
}

static void env_fini(struct env *e)
{
	smt_exec_destroy(e->ctx);
	pixman_image_unref(e->canvas);
	pixman_image_unref(e->orig);
	free(e->pool);
	st_fini(&e->s);
}

/* Mark the next command as the one that must fail. */
static void *bad(struct env *e)
{
	e->bad_at = e->s.len;
	return st_at(&e->s);
}

static void expect(struct env *e, uint32_t code, uint16_t opcode, const char *what)
{
	struct smt_exec_result res;
	enum smt_exec_stop s = run_ring(e->ctx, &e->s, 1u << 20, &res);
	REQUIRE(s == SMT_EXEC_ERROR, "%s: no error", what);
	REQUIRE(res.error.code == code, "%s: code %s want %s (%s)", what,
			smt_error_name(res.error.code), smt_error_name(code), res.error.message);
	REQUIRE(res.error.opcode == opcode, "%s: opcode %u want %u", what, res.error.opcode,
			opcode);
	REQUIRE(res.error.offset == e->bad_at, "%s: offset %" PRIu64 " want %" PRIu64, what,
			res.error.offset, e->bad_at);
	REQUIRE(strstr(res.error.message, smt_opcode_name(opcode)), "%s: message names opcode: %s",
			what, res.error.message);
	expect_same(e->canvas, e->orig, what); /* nothing drawn */
	env_fini(e);
}

/* Encode a valid command, then let the caller break one field. */
#define PATCH(e, type, encode, field, value) \
	do {                                 \
		void *p_ = bad(e);           \
		uint32_t n_ = (encode);      \
		type c_;                     \
		memcpy(&c_, p_, sizeof(c_)); \
		c_.field = (value);          \
		memcpy(p_, &c_, sizeof(c_)); \
		(e)->s.len += n_;            \
	} while (0)

static const struct smt_rect ok_rect = { 1, 1, 4, 4 };

static void test_ids(void)
{
	struct env e;
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);

	env_init(&e, NULL);
	ST(&e.s, smt_encode_set_target(bad(&e), 99));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_SET_TARGET, "unknown target");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_set_target(bad(&e), 0xffffffffu));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_SET_TARGET, "id beyond the table");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 0, 8, 8, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_CREATE_PIXMAP, "id 0");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), cfg.max_drawable_id, 8, 8, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_CREATE_PIXMAP, "id >= max");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 10, 8, 8, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_ID_IN_USE, SMT_OP_CREATE_PIXMAP, "pixmap id in use");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), CANVAS, 8, 8, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_ID_IN_USE, SMT_OP_CREATE_PIXMAP, "canvas id in use");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_free_pixmap(bad(&e), CANVAS));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_FREE_PIXMAP, "free a canvas");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_free_pixmap(st_at(&e.s), 10));
	ST(&e.s, smt_encode_free_pixmap(bad(&e), 10));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_FREE_PIXMAP, "double free");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_present(bad(&e), 10, 1, 0, NULL));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_PRESENT, "present a pixmap");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_copy_area(bad(&e), 12, 0, 0, 4, 4, 0, 0));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_COPY_AREA, "unknown copy source");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_composite(bad(&e), SMT_PAINT_OVER, 10, 12, 0, 0, 0, 0, 0, 0, 4, 4));
	expect(&e, SMT_ERROR_BAD_DRAWABLE, SMT_OP_COMPOSITE, "unknown mask");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_composite(bad(&e), SMT_PAINT_OVER, 11, 10, 0, 0, 0, 0, 0, 0, 4, 4));
	expect(&e, SMT_ERROR_BAD_FORMAT, SMT_OP_COMPOSITE, "mask not A8");

	struct smt_glyph g[3] = { { 0, 0, 4, 4, 0, 0 }, { 4, 4, 4, 4, 5, 0 },
		{ 5, 5, 4, 4, 9, 0 } };
	env_init(&e, NULL);
	ST(&e.s, smt_encode_glyphs(bad(&e), SMT_PAINT_OVER, 0xff000000, 10, 2, 2, 2, g));
	expect(&e, SMT_ERROR_BAD_FORMAT, SMT_OP_GLYPHS, "atlas not A8");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_glyphs(bad(&e), SMT_PAINT_OVER, 0xff000000, 11, 2, 2, 3, g));
	expect(&e, SMT_ERROR_OUT_OF_BOUNDS, SMT_OP_GLYPHS, "glyph 2 outside the atlas");

	/* client A's pixmap 10 means nothing to client B, even with A's
	 * commands running first in the same process */
	env_init(&e, NULL);
	struct smt_exec_result res;
	expect_ok(run_ring(e.ctx, &e.s, 4096, &res), &res, "client A");
	struct smt_exec_ctx *b = smt_exec_create(NULL);
	pixman_image_t *bc = new_image(PIXMAN_a8r8g8b8, 8, 8);
	REQUIRE(smt_exec_register_canvas(b, CANVAS, bc) == 0, "B canvas");
	struct stream s;
	st_init(&s);
	ST(&s, smt_encode_set_target(st_at(&s), CANVAS));
	ST(&s, smt_encode_copy_area(st_at(&s), 10, 0, 0, 4, 4, 0, 0));
	REQUIRE(run_ring(b, &s, 4096, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_BAD_DRAWABLE &&
					res.error.offset == 16,
			"B cannot name A's pixmap: %s", res.error.message);
	st_fini(&s);
	smt_exec_destroy(b);
	pixman_image_unref(bc);
	env_fini(&e);
}

static void test_geometry(void)
{
	struct env e;
	struct smt_rect r[2] = { { 1, 1, 2, 2 }, { INT32_MAX, 0, 1, 1 } };

	env_init(&e, NULL);
	ST(&e.s, smt_encode_fill_rects(bad(&e), SMT_PAINT_SRC, 0xff00ff00, 2, r));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_FILL_RECTS, "INT32_MAX + 1 (first rect valid)");

	r[1] = (struct smt_rect){ 0, 0, UINT32_MAX, 1 };
	env_init(&e, NULL);
	ST(&e.s, smt_encode_fill_rects(bad(&e), SMT_PAINT_SRC, 0xff00ff00, 2, r));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_FILL_RECTS, "width UINT32_MAX");

	r[1] = (struct smt_rect){ 0, INT32_MIN, 1, 1 };
	env_init(&e, NULL);
	ST(&e.s, smt_encode_set_clip(bad(&e), 2, r));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_SET_CLIP, "clip INT32_MIN");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_present(bad(&e), CANVAS, 1, 2, r));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_PRESENT, "damage INT32_MIN");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_points(bad(&e), SMT_PAINT_SRC, 0, 1,
					&(struct smt_point){ INT32_MIN, 0 }));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_POINTS, "point");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_segments(bad(&e), SMT_PAINT_SRC, 0, 3, 1,
					&(struct smt_segment){ 0, 0, INT32_MAX, 5 }));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_SEGMENTS, "segment");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_copy_area(bad(&e), 10, INT32_MAX - 2, 0, 4, 4, 0, 0));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_COPY_AREA, "copy source overflow");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_composite(bad(&e), SMT_PAINT_OVER, 10, 11, 0, 0, 0, INT32_MAX, 0,
					0, 4, 4));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_COMPOSITE, "mask y overflow");

	struct smt_glyph g = { 0, 0, 4, 4, INT32_MAX - 1, 0 };
	env_init(&e, NULL);
	ST(&e.s, smt_encode_glyphs(bad(&e), SMT_PAINT_OVER, 0xff000000, 11, 100, 0, 1, &g));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_GLYPHS, "origin + glyph overflow");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_put_image(bad(&e), INT32_MAX, 0, 1, 1, SMT_FORMAT_A8, 4, "abcd"));
	expect(&e, SMT_ERROR_BAD_GEOMETRY, SMT_OP_PUT_IMAGE, "put image dst overflow");
}

static void test_images_and_pools(void)
{
	struct env e;
	static const uint8_t px[4096];

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_put_image,
			smt_encode_put_image(p_, 0, 0, 2, 2, SMT_FORMAT_ARGB8888, 8, px), stride,
			6);
	expect(&e, SMT_ERROR_BAD_STRIDE, SMT_OP_PUT_IMAGE, "stride not 4-aligned");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_put_image,
			smt_encode_put_image(p_, 0, 0, 2, 2, SMT_FORMAT_ARGB8888, 8, px), width, 3);
	expect(&e, SMT_ERROR_BAD_STRIDE, SMT_OP_PUT_IMAGE, "stride shorter than a row");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_put_image,
			smt_encode_put_image(p_, 0, 0, 2, 2, SMT_FORMAT_ARGB8888, 8, px), height,
			3);
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_PUT_IMAGE, "more rows than pixel bytes");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_put_image,
			smt_encode_put_image(p_, 0, 0, 2, 2, SMT_FORMAT_ARGB8888, 8, px), height,
			0x80000001u);
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_PUT_IMAGE, "stride * height overflows 32 bits");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_put_image,
			smt_encode_put_image(p_, 0, 0, 2, 2, SMT_FORMAT_ARGB8888, 8, px), format,
			9);
	expect(&e, SMT_ERROR_BAD_FORMAT, SMT_OP_PUT_IMAGE, "unknown format");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_put_image_pool(bad(&e), 3, 0, 16, 4, 4, SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_BAD_POOL, SMT_OP_PUT_IMAGE_POOL, "unknown pool");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_put_image_pool(bad(&e), POOL, 4096 - 63, 16, 4, 4,
					SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_OUT_OF_BOUNDS, SMT_OP_PUT_IMAGE_POOL, "offset not aligned");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_put_image_pool(bad(&e), POOL, 4096 - 60, 16, 4, 4,
					SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_OUT_OF_BOUNDS, SMT_OP_PUT_IMAGE_POOL, "4 bytes past the pool");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_put_image_pool(bad(&e), POOL, UINT64_MAX - 15, 16, 4, 4,
					SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_OUT_OF_BOUNDS, SMT_OP_PUT_IMAGE_POOL, "offset + size wraps");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_put_image_pool(bad(&e), POOL, 0, 4096, 4, 1u << 20,
					SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_OUT_OF_BOUNDS, SMT_OP_PUT_IMAGE_POOL, "huge stride * height");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_put_image_pool(bad(&e), POOL, 0, 12, 4, 4, SMT_FORMAT_ARGB8888, 0, 0));
	expect(&e, SMT_ERROR_BAD_STRIDE, SMT_OP_PUT_IMAGE_POOL, "pool stride short");

	/* the exact end of the pool is fine */
	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_put_image_pool(st_at(&e.s), POOL, 4096 - 64, 16, 4, 4,
					SMT_FORMAT_ARGB8888, 0, 0));
	struct smt_exec_result res;
	expect_ok(run_ring(e.ctx, &e.s, 4096, &res), &res, "last bytes of the pool");
	REQUIRE(pixel_at(e.canvas, 3, 3) == 0x55555555, "pool pixels arrived");
	env_fini(&e);

	/* a pool image beyond pixman's INT_MAX bytes is fine: only the rows
	 * that reach the target are wrapped */
	{
		size_t big = (size_t)3 << 30;
		uint8_t *mem = mmap(NULL, big, PROT_READ,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		REQUIRE(mem != MAP_FAILED, "mmap");
		env_init(&e, NULL);
		REQUIRE(smt_exec_register_pool(e.ctx, 9, mem, big) == 0, "big pool");
		ST(&e.s,
				smt_encode_put_image_pool(st_at(&e.s), 9, 0, 4096, 8,
						(3u << 30) / 4096, SMT_FORMAT_ARGB8888, 0,
						-100000));
		ST(&e.s,
				smt_encode_put_image_pool(st_at(&e.s), 9, 0, 4096, 8,
						(3u << 30) / 4096, SMT_FORMAT_ARGB8888, 4, 0));
		expect_ok(run_ring(e.ctx, &e.s, 4096, &res), &res, "3 GiB pool image");
		REQUIRE(pixel_at(e.canvas, 5, 5) == 0, "zero pages arrived");
		env_fini(&e);
		munmap(mem, big);
	}
}

static void test_limits_and_values(void)
{
	struct env e;
	struct smt_exec_config cfg;

	smt_exec_config_defaults(&cfg);
	cfg.max_pixmaps = 3;
	env_init(&e, &cfg);
	ST(&e.s, smt_encode_create_pixmap(st_at(&e.s), 12, 1, 1, SMT_FORMAT_A8));
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 13, 1, 1, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP, "too many pixmaps");

	smt_exec_config_defaults(&cfg);
	cfg.max_pixmap_bytes = 100000;
	env_init(&e, &cfg);
	ST(&e.s, smt_encode_create_pixmap(st_at(&e.s), 12, 100, 100, SMT_FORMAT_A8));
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 13, 150, 150, SMT_FORMAT_ARGB8888));
	expect(&e, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP, "memory limit");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 12, SMT_MAX_DIMENSION + 1, 1, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP, "dimension limit");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 12, 0, 1, SMT_FORMAT_A8));
	expect(&e, SMT_ERROR_BAD_VALUE, SMT_OP_CREATE_PIXMAP, "empty pixmap");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_create_pixmap(bad(&e), 12, 1, 1, 0));
	expect(&e, SMT_ERROR_BAD_FORMAT, SMT_OP_CREATE_PIXMAP, "format 0");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_fill_rects(bad(&e), SMT_PAINT_COUNT, 0, 1, &ok_rect));
	expect(&e, SMT_ERROR_BAD_VALUE, SMT_OP_FILL_RECTS, "unknown op");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_fill_rects(bad(&e), SMT_PAINT_OVER, 0x10ff0000, 1, &ok_rect));
	expect(&e, SMT_ERROR_BAD_VALUE, SMT_OP_FILL_RECTS, "colour not premultiplied");

	env_init(&e, NULL);
	ST(&e.s,
			smt_encode_segments(bad(&e), SMT_PAINT_OVER, 0, SMT_MAX_LINE_WIDTH + 1, 1,
					&(struct smt_segment){ 0, 0, 5, 5 }));
	expect(&e, SMT_ERROR_BAD_VALUE, SMT_OP_SEGMENTS, "line too wide");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_fill_rects,
			smt_encode_fill_rects(p_, SMT_PAINT_SRC, 0, 1, &ok_rect), reserved, 1);
	expect(&e, SMT_ERROR_BAD_VALUE, SMT_OP_FILL_RECTS, "reserved field");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_fill_rects,
			smt_encode_fill_rects(p_, SMT_PAINT_SRC, 0, 1, &ok_rect), n_rects, 2);
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_FILL_RECTS, "count larger than size");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_fill_rects,
			smt_encode_fill_rects(p_, SMT_PAINT_SRC, 0, 1, &ok_rect), n_rects, 0);
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_FILL_RECTS, "count smaller than size");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_fill_rects,
			smt_encode_fill_rects(p_, SMT_PAINT_SRC, 0, 1, &ok_rect), n_rects,
			0x40000000u);
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_FILL_RECTS, "count * 16 wraps 32 bits");

	env_init(&e, NULL);
	PATCH(&e, struct smt_cmd_header, smt_encode_fence(p_, 1), size, 8);
	e.s.len -= 8;
	expect(&e, SMT_ERROR_BAD_LENGTH, SMT_OP_FENCE, "shorter than the fixed part");

	env_init(&e, NULL);
	e.s.len = 0; /* no SET_TARGET at all */
	ST(&e.s, smt_encode_fill_rects(bad(&e), SMT_PAINT_SRC, 0, 1, &ok_rect));
	expect(&e, SMT_ERROR_NO_TARGET, SMT_OP_FILL_RECTS, "no target");

	env_init(&e, NULL);
	ST(&e.s, smt_encode_set_target(st_at(&e.s), 0));
	ST(&e.s, smt_encode_set_clip(bad(&e), 1, &ok_rect));
	expect(&e, SMT_ERROR_NO_TARGET, SMT_OP_SET_CLIP, "clip without target");

	/* control commands are limited to SMT_CMD_CONTROL_MAX */
	env_init(&e, NULL);
	{
		uint8_t *p = bad(&e);
		struct smt_cmd_fill_rects c = { { SMT_OP_FILL_RECTS, 0, 0 }, SMT_PAINT_SRC, 0, 0,
			0 };
		uint32_t n = SMT_CMD_CONTROL_MAX / 16; /* one rect too many */
		c.n_rects = n;
		c.hdr.size = (uint32_t)(sizeof(c) + n * 16);
		memcpy(p, &c, sizeof(c));
		for (uint32_t i = 0; i < n; i++)
			memcpy(p + sizeof(c) + i * 16, &ok_rect, 16);
		e.s.len += c.hdr.size;
	}
	expect(&e, SMT_ERROR_TOO_LARGE, SMT_OP_FILL_RECTS, "> SMT_CMD_CONTROL_MAX");
}

/* Decode one encoded command straight from a private buffer. */
static int decode_buf(const uint8_t *buf, uint32_t size, struct smt_fault *f)
{
	struct smt_cmd c = { .opcode = (uint16_t)(buf[0] | buf[1] << 8),
		.size = size,
		.offset = 0,
		.ctl = buf,
		.ctl_len = size,
		.data = buf };
	struct smt_decoded d;
	return smt_decode(&c, &d, f);
}

/* The array checks (vector code in command_decode.c) against the scalar
 * rules smt_coord_ok and smt_span_ok, for values on and around every
 * limit, at every position of short and longer arrays (vector body, the
 * last element, the tail): the same verdict and the same element named. */
static const int64_t edge_coords[] = {
	INT32_MIN,
	-(int64_t)SMT_COORD_MAX - 1,
	-(int64_t)SMT_COORD_MAX,
	-(int64_t)SMT_COORD_MAX + 1,
	-1,
	0,
	1,
	SMT_COORD_MAX - 1,
	SMT_COORD_MAX,
	(int64_t)SMT_COORD_MAX + 1,
	INT32_MAX,
};
static const uint64_t edge_sizes[] = {
	0,
	1,
	SMT_COORD_MAX,
	2ull * SMT_COORD_MAX - 1,
	2ull * SMT_COORD_MAX,
	2ull * SMT_COORD_MAX + 1,
	(uint64_t)INT32_MAX + 1,
	UINT32_MAX,
};
#define N_EDGE_COORDS (sizeof(edge_coords) / sizeof(edge_coords[0]))
#define N_EDGE_SIZES (sizeof(edge_sizes) / sizeof(edge_sizes[0]))

static void expect_verdict(const uint8_t *buf, uint32_t size, bool ok, uint32_t index,
		const char *what, uint64_t a, uint64_t b)
{
	struct smt_fault f;
	int rc = decode_buf(buf, size, &f);
	REQUIRE((rc == 0) == ok, "%s %" PRIx64 " %" PRIx64 ": decode %d want ok=%d", what, a, b, rc,
			ok);
	if (!ok)
		REQUIRE(f.code == SMT_ERROR_BAD_GEOMETRY && f.index == index,
				"%s %" PRIx64 " %" PRIx64 ": code %u index %u want %u", what, a, b,
				f.code, f.index, index);
}

static void test_geometry_edges(void)
{
	static uint8_t buf[4096];
	const uint32_t lens[] = { 1, 2, 3, 4, 5, 8, 9, 17 };
	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
		uint32_t n = lens[li];
		for (uint32_t at = 0; at < n; at++) {
			/* rects: (x, width) and (y, height) from the edges, at `at` */
			for (size_t xi = 0; xi < N_EDGE_COORDS; xi++)
				for (size_t wi = 0; wi < N_EDGE_SIZES; wi++)
					for (int axis = 0; axis < 2; axis++) {
						struct smt_rect r[17];
						for (uint32_t i = 0; i < n; i++)
							r[i] = (struct smt_rect){ 1, 2, 3, 4 };
						int64_t v = edge_coords[xi];
						uint64_t w = edge_sizes[wi];
						if (axis == 0) {
							r[at].x = (int32_t)v;
							r[at].width = (uint32_t)w;
						} else {
							r[at].y = (int32_t)v;
							r[at].height = (uint32_t)w;
						}
						bool ok = smt_span_ok(r[at].x, r[at].y, r[at].width,
								r[at].height);
						uint32_t size = smt_encode_fill_rects(buf,
								SMT_PAINT_SRC, 0xff000000, n, r);
						expect_verdict(buf, size, ok, at, "rect",
								(uint64_t)v, w);
						size = smt_encode_set_clip(buf, n, r);
						expect_verdict(buf, size, ok, at, "clip",
								(uint64_t)v, w);
					}
			/* points and segments: one coordinate from the edges */
			for (size_t vi = 0; vi < N_EDGE_COORDS; vi++) {
				int64_t v = edge_coords[vi];
				bool ok = smt_coord_ok(v);
				for (int lane = 0; lane < 2; lane++) {
					struct smt_point pt[17];
					for (uint32_t i = 0; i < n; i++)
						pt[i] = (struct smt_point){ 5, 6 };
					if (lane == 0)
						pt[at].x = (int32_t)v;
					else
						pt[at].y = (int32_t)v;
					uint32_t size = smt_encode_points(
							buf, SMT_PAINT_SRC, 0xff000000, n, pt);
					expect_verdict(buf, size, ok, at, "point", (uint64_t)v,
							lane);
				}
				for (int lane = 0; lane < 4; lane++) {
					struct smt_segment sg[17];
					for (uint32_t i = 0; i < n; i++)
						sg[i] = (struct smt_segment){ 1, 2, 3, 4 };
					int32_t *c[4] = { &sg[at].x1, &sg[at].y1, &sg[at].x2,
						&sg[at].y2 };
					*c[lane] = (int32_t)v;
					uint32_t size = smt_encode_segments(
							buf, SMT_PAINT_SRC, 0xff000000, 1, n, sg);
					expect_verdict(buf, size, ok, at, "segment", (uint64_t)v,
							lane);
				}
			}
		}
	}
	/* Two bad elements: the first is named. */
	struct smt_rect r[9];
	for (int i = 0; i < 9; i++)
		r[i] = (struct smt_rect){ 1, 2, 3, 4 };
	r[6].x = INT32_MIN;
	r[2].width = UINT32_MAX;
	expect_verdict(buf, smt_encode_fill_rects(buf, SMT_PAINT_SRC, 0xff000000, 9, r), false, 2,
			"two bad rects", 2, 6);
}

int main(void)
{
	test_ids();
	test_geometry();
	test_geometry_edges();
	test_images_and_pools();
	test_limits_and_values();
	printf("test_ring_validate: ok\n");
	return 0;
}
