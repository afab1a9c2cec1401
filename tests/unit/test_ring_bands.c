/* Big elements are drawn in bands of rows, so a slice can end inside one
 * command: for every command that draws an area (FILL_RECTS, wide
 * SEGMENTS, PUT_IMAGE, PUT_IMAGE_POOL, COPY_AREA in and between drawables,
 * COMPOSITE with and without reading its own target, GLYPHS), a run that
 * stops after every band (a budget of one pixel) must leave every drawable
 * byte for byte as a run without any budget, and must really have stopped
 * inside the element. */
#include "tests/unit/test_ring_util.h"

#define W 2048
#define H 600
#define POOL_ID 4

struct side {
	struct smt_exec_ctx *ctx;
	pixman_image_t *canvas;
};

static uint8_t *pool_bytes;

/* Canvas 1 (ARGB W x H); pixmap 2 ARGB and pixmap 3 A8, both W x H, filled
 * from a patterned pool; target: the canvas. */
static void side_init(struct side *s)
{
	s->ctx = smt_exec_create(NULL);
	REQUIRE(s->ctx, "ctx");
	s->canvas = new_image(PIXMAN_a8r8g8b8, W, H);
	pattern(s->canvas, 7);
	REQUIRE(smt_exec_register_canvas(s->ctx, 1, s->canvas) == 0, "canvas");
	REQUIRE(smt_exec_register_pool(s->ctx, POOL_ID, pool_bytes, (uint64_t)W * H * 4) == 0,
			"pool");
	struct stream st;
	st_init(&st);
	ST(&st, smt_encode_create_pixmap(st_at(&st), 2, W, H, SMT_FORMAT_ARGB8888));
	ST(&st, smt_encode_set_target(st_at(&st), 2));
	ST(&st,
			smt_encode_put_image_pool(st_at(&st), POOL_ID, 0, W * 4, W, H,
					SMT_FORMAT_ARGB8888, 0, 0));
	ST(&st, smt_encode_create_pixmap(st_at(&st), 3, W, H, SMT_FORMAT_A8));
	ST(&st, smt_encode_set_target(st_at(&st), 3));
	ST(&st, smt_encode_put_image_pool(st_at(&st), POOL_ID, 0, W, W, H, SMT_FORMAT_A8, 0, 0));
	ST(&st, smt_encode_set_target(st_at(&st), 1));
	struct smt_exec_result res;
	REQUIRE(run_ring(s->ctx, &st, 65536, &res) == SMT_EXEC_EMPTY, "set-up: %s",
			res.error.message);
	st_fini(&st);
}

static void side_fini(struct side *s)
{
	smt_exec_destroy(s->ctx);
	pixman_image_unref(s->canvas);
}

/* Runs the stream on a ring; budget NULL: no limit. Returns the number of
 * BUDGET stops. */
static unsigned run_case_ring(struct side *s, const struct stream *st, uint32_t area,
		const struct smt_exec_budget *budget)
{
	struct test_ring r;
	struct smt_exec_result res;
	unsigned stops = 0;
	tr_init(&r, area);
	for (size_t off = 0; off < st->len;) {
		struct smt_cmd_header h;
		memcpy(&h, st->buf + off, sizeof(h));
		REQUIRE(tr_write(&r, st->buf + off, h.size) == 0, "the case fits its ring");
		off += h.size;
	}
	tr_publish(&r);
	enum smt_exec_stop stop;
	while ((stop = smt_exec_run(s->ctx, &r.reader, budget, &res)) != SMT_EXEC_EMPTY) {
		REQUIRE(stop != SMT_EXEC_ERROR, "run: %s", res.error.message);
		stops += stop == SMT_EXEC_BUDGET;
	}
	tr_fini(&r);
	return stops;
}

/* The stream ends with one command covering at least `bands` bands. */
static void check_case(const char *name, const struct stream *st, uint32_t area, unsigned bands)
{
	struct side whole, split;
	side_init(&whole);
	side_init(&split);
	run_case_ring(&whole, st, area, NULL);
	const struct smt_exec_budget one_pixel = { .max_pixels = 1 };
	unsigned stops = run_case_ring(&split, st, area, &one_pixel);
	/* Each command before the last stops at least once; the last one
	 * after each of its bands but the last. */
	REQUIRE(stops >= bands - 1, "%s: %u stops, expected a stop inside the element (%u bands)",
			name, stops, bands);
	expect_same(split.canvas, whole.canvas, name);
	for (uint32_t id = 2; id <= 3; id++)
		expect_same(smt_exec_drawable_image(split.ctx, id),
				smt_exec_drawable_image(whole.ctx, id), name);
	side_fini(&whole);
	side_fini(&split);
	printf("%s: %u stops, identical\n", name, stops);
}

/* A deadline far away: the loops that keep the budget's counters in
 * locals (charge_mirror) hand them back for each clock read (every 64
 * units or 2^18 pixels) and take them again; nothing may stop or differ.
 * (A deadline already past runs nothing at all: smt_exec_run.) */
static void check_case_deadline(const char *name, const struct stream *st, uint32_t area)
{
	struct side whole, split;
	side_init(&whole);
	side_init(&split);
	run_case_ring(&whole, st, area, NULL);
	const struct smt_exec_budget far = { .deadline_ns = UINT64_MAX / 2 };
	unsigned stops = run_case_ring(&split, st, area, &far);
	REQUIRE(stops == 0, "%s: %u stops before a deadline far away", name, stops);
	expect_same(split.canvas, whole.canvas, name);
	side_fini(&whole);
	side_fini(&split);
	printf("%s, far deadline: no stop, identical\n", name);
}

static const struct smt_rect three_boxes[3] = {
	{ 0, 0, W, 100 },
	{ 100, 150, 900, 300 },
	{ 1200, 140, 700, 460 },
};

static void set_clip(struct stream *st, bool boxes)
{
	ST(st, smt_encode_set_clip(st_at(st), boxes ? 3 : 0, three_boxes));
}

int main(void)
{
	pool_bytes = aligned_alloc(64, (size_t)W * H * 4);
	REQUIRE(pool_bytes, "pool");
	pixman_image_t *pat = pixman_image_create_bits(
			PIXMAN_a8r8g8b8, W, H, (uint32_t *)pool_bytes, W * 4);
	pattern(pat, 3);
	pixman_image_unref(pat);
	/* Rows per band for a W-wide area: EXEC_BAND_PIXELS / W = 128. */
	const unsigned full = H / 128;
	struct stream st;

	for (int boxes = 0; boxes < 2; boxes++) {
		const char *suffix = boxes ? " (3 clip boxes)" : "";
		char name[96];

		st_init(&st);
		set_clip(&st, boxes);
		struct smt_rect rects[2] = { { -100, -100, W + 200, H + 200 }, { 5, 5, 10, 10 } };
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_OVER, 0x80402010u, 2, rects));
		snprintf(name, sizeof(name), "fill OVER one huge rect%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff00ff00u, 1, rects));
		snprintf(name, sizeof(name), "fill SRC one huge rect%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);

		/* Many small rects and dots (the one-band and the direct paths),
		 * some cut by the edges or outside: a stop after every one. */
		st_init(&st);
		set_clip(&st, boxes);
		struct smt_rect small[200];
		struct smt_point dots[300];
		for (int i = 0; i < 200; i++)
			small[i] = (struct smt_rect){ (i * 97) % (W + 40) - 20,
				(i * 53) % (H + 40) - 20, (uint32_t)(i % 19),
				(uint32_t)(i % 23) + 1 };
		for (int i = 0; i < 300; i++)
			dots[i] = (struct smt_point){ (i * 89) % (W + 10) - 5,
				(i * 31) % (H + 10) - 5 };
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff204080u, 200, small));
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_OVER, 0x80102030u, 200, small));
		ST(&st, smt_encode_points(st_at(&st), SMT_PAINT_SRC, 0xff0000ffu, 300, dots));
		snprintf(name, sizeof(name), "small rects and dots%s", suffix);
		check_case(name, &st, 65536, 200);
		st_fini(&st);

		/* Many thin segments, every direction, some cut by the edges or
		 * outside (the walk inside the extents and the clipped one), then
		 * as many all inside (no clip: walked from both ends without a
		 * test per segment); and many small rects: a stop after every
		 * one, and runs reading the clock of a deadline far away. */
		st_init(&st);
		set_clip(&st, boxes);
		static struct smt_segment thin[1000], inside[1000];
		static struct smt_rect many[1000];
		for (int i = 0; i < 1000; i++) {
			int32_t x = (i * 97) % (W + 40) - 20, y = (i * 53) % (H + 40) - 20;
			thin[i] = (struct smt_segment){ x, y, x + (i % 21) - 10,
				y + (i * 7 % 23) - 11 };
			many[i] = (struct smt_rect){ x, y, (uint32_t)(i % 17),
				(uint32_t)(i % 13) + 1 };
			x = (i * 97) % (W - 40) + 20;
			y = (i * 53) % (H - 40) + 20;
			inside[i] = (struct smt_segment){ x, y, x + (i % 41) - 20,
				y + (i * 7 % 39) - 19 };
		}
		ST(&st, smt_encode_segments(st_at(&st), SMT_PAINT_SRC, 0xff30c050u, 0, 1000, thin));
		ST(&st,
				smt_encode_segments(st_at(&st), SMT_PAINT_SRC, 0xff5020a0u, 0, 1000,
						inside));
		ST(&st,
				smt_encode_segments(st_at(&st), SMT_PAINT_OVER, 0x80403020u, 1,
						1000, thin));
		snprintf(name, sizeof(name), "thin segments%s", suffix);
		check_case(name, &st, 65536, 1000);
		check_case_deadline(name, &st, 65536);
		st_fini(&st);
		st_init(&st);
		set_clip(&st, boxes);
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff204080u, 1000, many));
		snprintf(name, sizeof(name), "1000 small rects%s", suffix);
		check_case_deadline(name, &st, 65536);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		struct smt_segment seg[2] = { { 0, 0, W, H }, { W, 0, 0, H } };
		ST(&st, smt_encode_segments(st_at(&st), SMT_PAINT_OVER, 0xc0204080u, 301, 2, seg));
		snprintf(name, sizeof(name), "wide segments%s", suffix);
		check_case(name, &st, 65536, 2);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		ST(&st,
				smt_encode_put_image_pool(st_at(&st), POOL_ID, 0, W * 4, W, H,
						SMT_FORMAT_ARGB8888, 3, -7));
		snprintf(name, sizeof(name), "put_image_pool%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		ST(&st,
				smt_encode_put_image(st_at(&st), 11, 13, W, 300,
						SMT_FORMAT_ARGB8888, W * 4, pool_bytes));
		snprintf(name, sizeof(name), "put_image inline%s", suffix);
		check_case(name, &st, 8u << 20, 2);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		ST(&st, smt_encode_copy_area(st_at(&st), 2, 5, 9, W, H, 0, 0));
		snprintf(name, sizeof(name), "copy_area between drawables%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);

		/* Scrolling inside pixmap 2, every direction. */
		static const int moves[4][2] = { { 0, 50 }, { 0, -50 }, { 30, 0 }, { -17, 23 } };
		for (int m = 0; m < 4; m++) {
			st_init(&st);
			ST(&st, smt_encode_set_target(st_at(&st), 2));
			set_clip(&st, boxes);
			int dx = moves[m][0], dy = moves[m][1];
			ST(&st, smt_encode_copy_area(st_at(&st), 2, 0, 0, W, H, dx, dy));
			snprintf(name, sizeof(name), "scroll by %d,%d%s", dx, dy, suffix);
			check_case(name, &st, 65536, full - 1);
			st_fini(&st);
		}

		st_init(&st);
		set_clip(&st, boxes);
		ST(&st,
				smt_encode_composite(st_at(&st), SMT_PAINT_OVER, 2, 3, 4, 6, -3, 2,
						1, 1, W, H));
		snprintf(name, sizeof(name), "composite with a mask%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);

		/* COMPOSITE reading its own target, both directions; and an A8
		 * target that is its own source and mask (moving apart: one band). */
		for (int dir = -1; dir <= 1; dir += 2) {
			st_init(&st);
			ST(&st, smt_encode_set_target(st_at(&st), 2));
			set_clip(&st, boxes);
			ST(&st,
					smt_encode_composite(st_at(&st), SMT_PAINT_OVER, 2, 3, 0, 0,
							0, 0, 9, 40 * dir, W, H));
			snprintf(name, sizeof(name), "composite onto itself, dy %d%s", 40 * dir,
					suffix);
			check_case(name, &st, 65536, full - 1);
			st_fini(&st);
		}
		st_init(&st);
		ST(&st, smt_encode_set_target(st_at(&st), 3));
		set_clip(&st, boxes);
		ST(&st,
				smt_encode_composite(st_at(&st), SMT_PAINT_ADD, 3, 3, 0, 30, 0, -30,
						0, 0, W, H));
		snprintf(name, sizeof(name), "A8 composite, self as source and mask%s", suffix);
		check_case(name, &st, 65536, 1);
		st_fini(&st);

		st_init(&st);
		set_clip(&st, boxes);
		struct smt_glyph g[2] = { { 0, 0, W, H, 0, 0 }, { 10, 10, 20, 20, 40, 40 } };
		ST(&st, smt_encode_glyphs(st_at(&st), SMT_PAINT_SRC, 0xff102030u, 3, 2, 3, 2, g));
		snprintf(name, sizeof(name), "one glyph as big as the target%s", suffix);
		check_case(name, &st, 65536, full);
		st_fini(&st);
	}
	free(pool_bytes);
	printf("test_ring_bands: ok\n");
	return 0;
}
