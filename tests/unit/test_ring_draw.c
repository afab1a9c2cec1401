/* Every drawing opcode against a direct pixman reference. */
#include <math.h>

#include "compositor/exec/drawable_table.h"
#include "tests/unit/test_ring_util.h"

#define W 64
#define H 48
#define CANVAS 1

struct scene {
	struct smt_exec_ctx *ctx;
	pixman_image_t *canvas, *ref, *orig;
	struct stream s;
};

static void scene_init(struct scene *sc, pixman_format_code_t f, uint32_t seed)
{
	sc->ctx = smt_exec_create(NULL);
	sc->canvas = new_image(f, W, H);
	pattern(sc->canvas, seed);
	sc->ref = clone_image(sc->canvas);
	sc->orig = clone_image(sc->canvas);
	REQUIRE(smt_exec_register_canvas(sc->ctx, CANVAS, sc->canvas) == 0, "register");
	st_init(&sc->s);
	ST(&sc->s, smt_encode_set_target(st_at(&sc->s), CANVAS));
}

static void scene_run_check(struct scene *sc, int tol, const char *what)
{
	struct smt_exec_result res;
	expect_ok(run_ring(sc->ctx, &sc->s, 64 * 1024, &res), &res, what);
	pixman_image_set_clip_region32(sc->ref, NULL);
	expect_same_tol(sc->canvas, sc->ref, tol, what);
	/* guard against vacuous passes: the command must have drawn something */
	size_t bytes = (size_t)pixman_image_get_stride(sc->orig) * H;
	REQUIRE(memcmp(pixman_image_get_data(sc->orig), pixman_image_get_data(sc->canvas), bytes),
			"%s: nothing was drawn", what);
}

static void scene_fini(struct scene *sc)
{
	smt_exec_destroy(sc->ctx);
	pixman_image_unref(sc->canvas);
	pixman_image_unref(sc->ref);
	pixman_image_unref(sc->orig);
	st_fini(&sc->s);
}

static void ref_clip(pixman_image_t *ref, const struct smt_rect *r, int n)
{
	pixman_region32_t reg;
	pixman_region32_init(&reg);
	for (int i = 0; i < n; i++)
		pixman_region32_union_rect(&reg, &reg, r[i].x, r[i].y, r[i].width, r[i].height);
	pixman_region32_intersect_rect(&reg, &reg, 0, 0, W, H);
	pixman_image_set_clip_region32(ref, n ? &reg : NULL);
	pixman_region32_fini(&reg);
}

/* Reference fill of one rectangle, clamped to the image first (pixman_fill
 * has no bounds checks of its own). */
static void ref_fill(pixman_image_t *ref, uint32_t op, uint32_t colour, int64_t x, int64_t y,
		int64_t w, int64_t h)
{
	pixman_box32_t b = { (int32_t)fmax(0, x), (int32_t)fmax(0, y), (int32_t)fmin(W, x + w),
		(int32_t)fmin(H, y + h) };
	pixman_color_t c = to_color(colour);
	if (b.x1 < b.x2 && b.y1 < b.y2)
		pixman_image_fill_boxes((pixman_op_t)op, ref, &c, 1, &b);
}

static const struct smt_rect clip2[2] = { { 4, 4, 20, 30 }, { 30, 10, 30, 30 } };
/* The one-rectangle clip of the point and thin-line tests (x 7..47, y 5..37). */
static const struct smt_rect one[1] = { { 7, 5, 41, 33 } };

/* A target format and a paint of the point and thin-line tests. */
struct paint_kind {
	pixman_format_code_t f;
	uint32_t op, colour;
};

static void test_fill_rects(pixman_format_code_t f)
{
	static const uint32_t ops[] = { SMT_PAINT_SRC, SMT_PAINT_OVER, SMT_PAINT_ADD,
		SMT_PAINT_CLEAR, SMT_PAINT_XOR, SMT_PAINT_IN };
	static const uint32_t colours[] = { 0xff336699, 0x80402000, 0x20101010 };
	/* Widths 1 to 16 are stored directly (16-byte stores from 4 on),
	 * wider ones go to pixman. */
	const struct smt_rect r[12] = {
		{ 2, 3, 10, 10 },
		{ 8, 8, 30, 5 },
		{ -5, -7, 12, 12 },
		{ 50, 40, 1000, 1000 },
		{ -(1 << 27), 20, 1u << 28, 2 },
		{ 0, 0, 1, 1 },
		{ W - 1, H - 2, 5, 5 },
		{ W + 3, 1, 2, 2 },
		{ 20, 30, 4, 3 },
		{ 33, 21, 5, 2 },
		{ 40, 2, 16, 4 },
		{ W - 3, 10, 9, 3 },
	};
	for (int clip = 0; clip < 2; clip++)
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			struct scene sc;
			uint32_t col = colours[o % 3];
			scene_init(&sc, f, (uint32_t)o);
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
			ST(&sc.s, smt_encode_fill_rects(st_at(&sc.s), ops[o], col, 12, r));
			ref_clip(sc.ref, clip2, clip ? 2 : 0);
			for (int i = 0; i < 12; i++)
				ref_fill(sc.ref, ops[o], col, r[i].x, r[i].y, r[i].width,
						r[i].height);
			scene_run_check(&sc, 0, "fill_rects");
			scene_fini(&sc);
		}
}

/* Wide plain-store fills (solid_rows.c: aligned 32-byte stores between
 * two unaligned ends where the CPU has them): every width from 8 to 56 at
 * every start modulo 8 pixels, rows two high so the stride is stepped. */
static void test_fill_wide_rows(void)
{
	static const struct paint_kind kinds[] = {
		{ PIXMAN_a8r8g8b8, SMT_PAINT_SRC, 0x80402010 },
		{ PIXMAN_x8r8g8b8, SMT_PAINT_OVER, 0xff336699 },
		{ PIXMAN_a8, SMT_PAINT_SRC, 0xc0000000 },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (uint32_t w = 8; w <= 56; w++) {
			struct smt_rect r[H / 2];
			struct scene sc;
			scene_init(&sc, kinds[k].f, w);
			for (int i = 0; i < H / 2; i++)
				r[i] = (struct smt_rect){ (int32_t)((w + (uint32_t)i) % 8), 2 * i,
					w, 2 };
			ST(&sc.s,
					smt_encode_fill_rects(st_at(&sc.s), kinds[k].op,
							kinds[k].colour, H / 2, r));
			for (int i = 0; i < H / 2; i++)
				ref_fill(sc.ref, kinds[k].op, kinds[k].colour, r[i].x, r[i].y,
						r[i].width, r[i].height);
			scene_run_check(&sc, 0, "fill_rects, wide rows");
			scene_fini(&sc);
		}
}

/* Points composited (OVER) and stored (SRC into 32 and 8 bpp), through no
 * clip, one rectangle and two. */
static void test_points(void)
{
	struct smt_point p[8] = { { 0, 0 }, { 63, 47 }, { 64, 0 }, { -1, 5 }, { 10, 10 },
		{ 25, 12 }, { 7, 5 }, { 47, 37 } };
	static const struct paint_kind kinds[] = {
		{ PIXMAN_a8r8g8b8, SMT_PAINT_OVER, 0x80800000 },
		{ PIXMAN_a8r8g8b8, SMT_PAINT_SRC, 0xff00ff40 },
		{ PIXMAN_a8, SMT_PAINT_SRC, 0x7f000000 },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int clip = 0; clip < 3; clip++) {
			struct scene sc;
			char what[48];
			const struct smt_rect *cr = clip == 1 ? one : clip2;
			scene_init(&sc, kinds[k].f, 7);
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), (uint32_t)clip, cr));
			ST(&sc.s,
					smt_encode_points(st_at(&sc.s), kinds[k].op,
							kinds[k].colour, 8, p));
			ref_clip(sc.ref, cr, clip);
			for (int i = 0; i < 8; i++)
				ref_fill(sc.ref, kinds[k].op, kinds[k].colour, p[i].x, p[i].y, 1,
						1);
			snprintf(what, sizeof(what), "points, kind %zu, clip %d", k, clip);
			scene_run_check(&sc, 0, what);
			scene_fini(&sc);
		}
}

/* Independent thin-line reference: walk the whole major range pixel by
 * pixel (clamped to a window around the image), nearest minor coordinate. */
static void ref_thin(pixman_image_t *ref, uint32_t op, uint32_t colour, struct smt_segment s)
{
	int64_t x1 = s.x1, y1 = s.y1, x2 = s.x2, y2 = s.y2;
	int ymaj = llabs(y2 - y1) > llabs(x2 - x1);
	if (ymaj) {
		int64_t t = x1;
		x1 = y1;
		y1 = t;
		t = x2;
		x2 = y2;
		y2 = t;
	}
	if (x2 < x1) {
		int64_t t = x1;
		x1 = x2;
		x2 = t;
		t = y1;
		y1 = y2;
		y2 = t;
	}
	for (int64_t x = x1 < -2 ? -2 : x1; x <= x2 && x < 100; x++) {
		double m = x2 == x1 ? (double)y1 :
				      floor((double)y1 +
						      (double)(x - x1) * (double)(y2 - y1) /
								      (double)(x2 - x1) +
						      0.5);
		ref_fill(ref, op, colour, ymaj ? (int64_t)m : x, ymaj ? x : (int64_t)m, 1, 1);
	}
}

static void test_thin_segments(void)
{
	const struct smt_segment seg[] = {
		{ 1, 1, 60, 1 },
		{ 2, 2, 2, 45 },
		{ 0, 0, 63, 47 },
		{ 63, 0, 0, 47 },
		{ 5, 40, 50, 7 },
		{ 10, 10, 10, 10 },
		{ -1000, 20, 1000, 25 },
		{ 30, -(1 << 27), 33, 1 << 27 },
		{ 70, 0, 80, 40 },
		{ 40, 30, 12, 44 },
	};
	int n = (int)(sizeof(seg) / sizeof(seg[0]));
	for (int width = 0; width <= 1; width++)
		for (int clip = 0; clip < 2; clip++) {
			struct scene sc;
			scene_init(&sc, PIXMAN_a8r8g8b8, 11);
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
			ST(&sc.s,
					smt_encode_segments(st_at(&sc.s), SMT_PAINT_OVER,
							0x80000080, (uint32_t)width, (uint32_t)n,
							seg));
			ref_clip(sc.ref, clip2, clip ? 2 : 0);
			for (int i = 0; i < n; i++)
				ref_thin(sc.ref, SMT_PAINT_OVER, 0x80000080, seg[i]);
			scene_run_check(&sc, 0, "thin segments");
			scene_fini(&sc);
		}
	/* spot checks that do not depend on the reference */
	struct scene sc;
	scene_init(&sc, PIXMAN_a8, 0);
	pixman_image_t *zero = new_image(PIXMAN_a8, W, H);
	memcpy(pixman_image_get_data(sc.canvas), pixman_image_get_data(zero),
			(size_t)pixman_image_get_stride(zero) * H);
	ST(&sc.s,
			smt_encode_segments(st_at(&sc.s), SMT_PAINT_SRC, 0xff000000, 0, 1,
					&(struct smt_segment){ 3, 5, 9, 5 }));
	struct smt_exec_result res;
	expect_ok(run_ring(sc.ctx, &sc.s, 4096, &res), &res, "spot");
	for (int x = 0; x < W; x++)
		REQUIRE(pixel_at(sc.canvas, x, 5) == (x >= 3 && x <= 9 ? 0xffu : 0u), "x=%d", x);
	REQUIRE(pixel_at(sc.canvas, 3, 4) == 0 && pixel_at(sc.canvas, 3, 6) == 0, "1 pixel wide");
	pixman_image_unref(zero);
	scene_fini(&sc);
}

/* Every octant (and the axes and diagonals between them) from one centre,
 * long enough to leave the image, for SRC (plain stores and pixman_fill,
 * 32 and 8 bpp) and for OVER and ADD (composited), through no clip, a clip
 * of one rectangle and a clip of two. */
static void test_thin_octants(void)
{
	struct smt_segment seg[32];
	int n = 0;
	for (int dx = -2; dx <= 2; dx++)
		for (int dy = -2; dy <= 2; dy++)
			if (dx || dy) {
				/* slopes 0, 1/2, 1, 2 and infinite, both ways */
				seg[n++] = (struct smt_segment){ 30, 22,
					30 + 23 * dx + (dy ? 3 : 0), 22 + 19 * dy - (dx ? 2 : 0) };
			}
	seg[n++] = (struct smt_segment){ 62, 1, 1, 46 }; /* long, shallow runs */
	seg[n++] = (struct smt_segment){ -40, 47, 100, 40 };
	static const struct paint_kind kinds[] = {
		{ PIXMAN_a8r8g8b8, SMT_PAINT_SRC, 0xff204060 },
		{ PIXMAN_a8, SMT_PAINT_SRC, 0xc0000000 },
		{ PIXMAN_a8r8g8b8, SMT_PAINT_OVER, 0x80000080 },
		{ PIXMAN_a8, SMT_PAINT_ADD, 0x30000000 },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int clip = 0; clip < 3; clip++) {
			struct scene sc;
			char what[64];
			const struct smt_rect *cr = clip == 1 ? one : clip2;
			scene_init(&sc, kinds[k].f, 3 + (uint32_t)k);
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), (uint32_t)clip, cr));
			ST(&sc.s,
					smt_encode_segments(st_at(&sc.s), kinds[k].op,
							kinds[k].colour, 0, (uint32_t)n, seg));
			ref_clip(sc.ref, cr, clip);
			for (int i = 0; i < n; i++)
				ref_thin(sc.ref, kinds[k].op, kinds[k].colour, seg[i]);
			snprintf(what, sizeof(what), "thin octants, kind %zu, clip %d", k, clip);
			scene_run_check(&sc, 0, what);
			scene_fini(&sc);
		}
}

/* Segments wholly inside the clip's extents (stored without a test per
 * pixel) beside ones that leave them by one pixel on either axis (the
 * tested walk): short segments in every octant, axis-parallel ones, and
 * diagonals from corner to corner of the one-rectangle clip, for plain
 * stores into 32 and 8 bpp and a composited op, through no clip and one
 * rectangle. */
static void test_thin_inside(void)
{
	struct smt_segment seg[48];
	int n = 0;
	for (int dx = -2; dx <= 2; dx++)
		for (int dy = -2; dy <= 2; dy++)
			if (dx || dy)
				seg[n++] = (struct smt_segment){ 27, 21, 27 + 5 * dx + (dy ? 1 : 0),
					21 + 4 * dy - (dx ? 1 : 0) };
	/* the clip {7, 5, 41, 33} covers x 7..47 and y 5..37 */
	static const struct smt_segment edge[] = {
		{ 7, 5, 47, 37 },
		{ 47, 37, 7, 5 },
		{ 7, 37, 47, 5 },
		{ 47, 5, 7, 37 },
		{ 7, 5, 47, 5 },
		{ 47, 37, 7, 37 },
		{ 7, 5, 7, 37 },
		{ 47, 37, 47, 5 },
		{ 6, 5, 47, 37 },
		{ 7, 5, 48, 37 },
		{ 7, 4, 47, 37 },
		{ 7, 5, 47, 38 },
		{ 7, 36, 47, 38 },
		{ 9, 5, 11, 4 },
		{ 47, 9, 48, 30 },
		{ 6, 9, 7, 30 },
	};
	for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
		seg[n++] = edge[i];
	static const struct paint_kind kinds[] = {
		{ PIXMAN_a8r8g8b8, SMT_PAINT_SRC, 0xff204060 },
		{ PIXMAN_x8r8g8b8, SMT_PAINT_OVER, 0xff605040 },
		{ PIXMAN_a8, SMT_PAINT_SRC, 0xc0000000 },
		{ PIXMAN_a8r8g8b8, SMT_PAINT_OVER, 0x80000080 },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int clip = 0; clip < 2; clip++) {
			struct scene sc;
			char what[64];
			scene_init(&sc, kinds[k].f, 17 + (uint32_t)k);
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 1, one));
			ST(&sc.s,
					smt_encode_segments(st_at(&sc.s), kinds[k].op,
							kinds[k].colour, 0, (uint32_t)n, seg));
			ref_clip(sc.ref, one, clip);
			for (int i = 0; i < n; i++)
				ref_thin(sc.ref, kinds[k].op, kinds[k].colour, seg[i]);
			snprintf(what, sizeof(what), "thin inside, kind %zu, clip %d", k, clip);
			scene_run_check(&sc, 0, what);
			scene_fini(&sc);
		}
}

/* Segment (dx, dy) with its bounding box's corner at (x, y) (dir 1) or the
 * same one drawn from its other end, its box's far corner at (x, y)
 * (dir -1). */
static struct smt_segment placed(int dx, int dy, int x, int y, int dir)
{
	int x1 = dir > 0 ? x + (dx < 0 ? -dx : 0) : x - (dx > 0 ? dx : 0);
	int y1 = dir > 0 ? y + (dy < 0 ? -dy : 0) : y - (dy > 0 ? dy : 0);
	return dir > 0 ? (struct smt_segment){ x1, y1, x1 + dx, y1 + dy } :
			 (struct smt_segment){ x1 + dx, y1 + dy, x1, y1 };
}

/* Every short segment, major length 0 to 20 in every direction (so every
 * remainder of the walk from both ends, odd and even pixel counts), for
 * plain stores into 32 and 8 bpp: one command of two, the segment with its
 * box at the top-left corner of the extents and drawn from its other end
 * at the bottom-right one. With no clip the extents are the image's; with
 * the one-rectangle clip both lie inside it (the walk without a test per
 * segment), or the second one pixel beyond it (each segment tested: one
 * walked from both ends, one by the clipped walk). */
static void test_thin_short(void)
{
	static const struct paint_kind kinds[] = {
		{ PIXMAN_a8r8g8b8, SMT_PAINT_SRC, 0xff204060 },
		{ PIXMAN_a8, SMT_PAINT_SRC, 0xc0000000 },
	};
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int place = 0; place < 3; place++)
			for (int dx = -20; dx <= 20; dx++)
				for (int dy = -20; dy <= 20; dy++) {
					const struct smt_rect *e = place ?
							&one[0] :
							&(struct smt_rect){ 0, 0, W, H };
					int out = place == 2;
					struct smt_segment seg[2] = {
						placed(dx, dy, e->x, e->y, 1),
						placed(dx, dy, e->x + (int)e->width - 1 + out,
								e->y + (int)e->height - 1 + out,
								-1),
					};
					struct scene sc;
					char what[80];
					scene_init(&sc, kinds[k].f, 5 + (uint32_t)k);
					if (place)
						ST(&sc.s,
								smt_encode_set_clip(st_at(&sc.s), 1,
										one));
					ST(&sc.s,
							smt_encode_segments(st_at(&sc.s),
									kinds[k].op,
									kinds[k].colour, 0, 2,
									seg));
					ref_clip(sc.ref, one, place ? 1 : 0);
					for (int i = 0; i < 2; i++)
						ref_thin(sc.ref, kinds[k].op, kinds[k].colour,
								seg[i]);
					snprintf(what, sizeof(what),
							"thin short %d,%d, kind %zu, place %d", dx,
							dy, k, place);
					scene_run_check(&sc, 0, what);
					scene_fini(&sc);
				}
}

static pixman_point_fixed_t pf(double x, double y)
{
	return (pixman_point_fixed_t){ pixman_double_to_fixed(x), pixman_double_to_fixed(y) };
}

/* Wide lines: the same triangles composited by pixman directly. */
static void ref_wide(pixman_image_t *ref, uint32_t op, uint32_t colour, uint32_t width,
		const struct smt_segment *s, int n)
{
	pixman_triangle_t tris[32];
	int k = 0;
	double half = width / 2.0;
	for (int i = 0; i < n; i++) {
		double ax = s[i].x1, ay = s[i].y1, bx = s[i].x2, by = s[i].y2;
		double len = hypot(bx - ax, by - ay);
		if (len == 0)
			continue;
		double nx = -(by - ay) / len * half, ny = (bx - ax) / len * half;
		tris[k++] = (pixman_triangle_t){ pf(ax + nx, ay + ny), pf(bx + nx, by + ny),
			pf(bx - nx, by - ny) };
		tris[k++] = (pixman_triangle_t){ pf(ax + nx, ay + ny), pf(bx - nx, by - ny),
			pf(ax - nx, ay - ny) };
	}
	pixman_color_t c = to_color(colour);
	pixman_image_t *solid = pixman_image_create_solid_fill(&c);
	if (op == SMT_PAINT_SRC || op == SMT_PAINT_CLEAR || op == SMT_PAINT_IN ||
			op == SMT_PAINT_IN_REVERSE || op == SMT_PAINT_OUT ||
			op == SMT_PAINT_ATOP_REVERSE) {
		/* Lines are clipped to their shape: pixels outside keep their
		 * value even for Render's unbounded operators, i.e.
		 * dst = lerp(coverage, op(src, dst), dst). */
		int w = pixman_image_get_width(ref), h = pixman_image_get_height(ref);
		pixman_image_t *mask = pixman_image_create_bits(PIXMAN_a8, w, h, NULL, 0);
		pixman_image_t *tmp = pixman_image_create_bits(
				pixman_image_get_format(ref), w, h, NULL, 0);
		pixman_add_triangles(mask, 0, 0, k, tris);
		pixman_image_composite32(PIXMAN_OP_SRC, ref, NULL, tmp, 0, 0, 0, 0, 0, 0, w, h);
		pixman_image_composite32((pixman_op_t)op, solid, NULL, tmp, 0, 0, 0, 0, 0, 0, w, h);
		pixman_image_composite32(
				PIXMAN_OP_OUT_REVERSE, mask, NULL, ref, 0, 0, 0, 0, 0, 0, w, h);
		pixman_image_composite32(PIXMAN_OP_ADD, tmp, mask, ref, 0, 0, 0, 0, 0, 0, w, h);
		pixman_image_unref(tmp);
		pixman_image_unref(mask);
	} else {
		pixman_composite_triangles(
				(pixman_op_t)op, solid, ref, PIXMAN_a8, 0, 0, 0, 0, k, tris);
	}
	pixman_image_unref(solid);
}

static void test_wide_segments(void)
{
	const struct smt_segment seg[] = {
		{ 5, 5, 50, 10 },
		{ 10, 40, 40, 12 },
		{ 20, 5, 20, 40 },
		{ 30, 30, 30, 30 },
	};
	for (int clip = 0; clip < 2; clip++) {
		struct scene sc;
		scene_init(&sc, PIXMAN_a8r8g8b8, 5);
		if (clip)
			ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
		ST(&sc.s, smt_encode_segments(st_at(&sc.s), SMT_PAINT_OVER, 0xc0c00000, 6, 4, seg));
		ref_clip(sc.ref, clip2, clip ? 2 : 0);
		ref_wide(sc.ref, SMT_PAINT_OVER, 0xc0c00000, 6, seg, 4);
		scene_run_check(&sc, 1, "wide segments");
		scene_fini(&sc);
	}
	/* A segment reaching far outside is clipped before pixman sees it;
	 * the result matches the same line pre-clipped by hand. */
	struct scene sc;
	scene_init(&sc, PIXMAN_a8r8g8b8, 6);
	struct smt_segment far = { -(1 << 28), -(1 << 28), 1 << 28, 1 << 28 };
	struct smt_segment near = { -100, -100, 200, 200 };
	ST(&sc.s, smt_encode_segments(st_at(&sc.s), SMT_PAINT_SRC, 0xff00ff00, 9, 1, &far));
	ref_wide(sc.ref, SMT_PAINT_SRC, 0xff00ff00, 9, &near, 1);
	scene_run_check(&sc, 2, "far wide segment");
	REQUIRE(pixel_at(sc.canvas, 30, 30) == 0xff00ff00, "centre is painted");
	scene_fini(&sc);
	/* SRC paints the line, not its bounding box: a pixel inside the box
	 * but away from the line keeps what was there (core X semantics). */
	scene_init(&sc, PIXMAN_a8r8g8b8, 8);
	struct smt_segment slant = { 5, 5, 50, 10 };
	uint32_t before = pixel_at(sc.canvas, 50, 3);
	ST(&sc.s, smt_encode_segments(st_at(&sc.s), SMT_PAINT_SRC, 0xff00ff00, 5, 1, &slant));
	ref_wide(sc.ref, SMT_PAINT_SRC, 0xff00ff00, 5, &slant, 1);
	scene_run_check(&sc, 2, "SRC wide segment keeps its surroundings");
	REQUIRE(pixel_at(sc.canvas, 50, 3) == before, "SRC wide line cleared (50,3): %08x -> %08x",
			before, pixel_at(sc.canvas, 50, 3));
	scene_fini(&sc);
	/* huge width, many segments, A8 target: only must not crash */
	scene_init(&sc, PIXMAN_a8, 6);
	struct smt_segment many[100];
	for (int i = 0; i < 100; i++)
		many[i] = (struct smt_segment){ i * 7 - 300, -500, 400 - i * 3, 700 };
	ST(&sc.s, smt_encode_segments(st_at(&sc.s), SMT_PAINT_ADD, 0x10000000, 1024, 100, many));
	struct smt_exec_result res;
	expect_ok(run_ring(sc.ctx, &sc.s, 64 * 1024, &res), &res, "many wide");
	scene_fini(&sc);
}

static void test_put_image(void)
{
	static const pixman_format_code_t pf[3] = { PIXMAN_a8r8g8b8, PIXMAN_x8r8g8b8, PIXMAN_a8 };
	static const uint32_t sf[3] = { SMT_FORMAT_ARGB8888, SMT_FORMAT_XRGB8888, SMT_FORMAT_A8 };
	for (int i = 0; i < 3; i++)
		for (int pool = 0; pool < 2; pool++) {
			struct scene sc;
			scene_init(&sc, PIXMAN_a8r8g8b8, 3);
			pixman_image_t *src = new_image(pf[i], 21, 13);
			pattern(src, 99 + (uint32_t)i);
			uint32_t stride = (uint32_t)pixman_image_get_stride(src);
			const uint8_t *px = (const uint8_t *)pixman_image_get_data(src);
			uint8_t *poolmem = aligned_alloc(4096, 8192);
			ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
			if (pool) {
				memset(poolmem, 0, 8192);
				memcpy(poolmem + 1000, px, stride * 13);
				REQUIRE(smt_exec_register_pool(sc.ctx, 5, poolmem, 8192) == 0,
						"pool");
				ST(&sc.s,
						smt_encode_put_image_pool(st_at(&sc.s), 5, 1000,
								stride, 21, 13, sf[i], 15, 20));
				ST(&sc.s,
						smt_encode_put_image_pool(st_at(&sc.s), 5, 1000,
								stride, 21, 13, sf[i], -10, 40));
			} else {
				ST(&sc.s,
						smt_encode_put_image(st_at(&sc.s), 15, 20, 21, 13,
								sf[i], stride, px));
				ST(&sc.s,
						smt_encode_put_image(st_at(&sc.s), -10, 40, 21, 13,
								sf[i], stride, px));
			}
			ref_clip(sc.ref, clip2, 2);
			pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, sc.ref, 0, 0, 0, 0, 15,
					20, 21, 13);
			pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, sc.ref, 0, 0, 0, 0, -10,
					40, 21, 13);
			scene_run_check(&sc, 0, pool ? "put_image_pool" : "put_image");
			pixman_image_unref(src);
			free(poolmem);
			scene_fini(&sc);
		}
}

/* Upload a pattern into a new pixmap through the ring; returns the same
 * pattern as a reference image. */
static pixman_image_t *make_pixmap(struct scene *sc, uint32_t id, uint32_t format,
		pixman_format_code_t pfmt, int w, int h, uint32_t seed)
{
	pixman_image_t *img = new_image(pfmt, w, h);
	pattern(img, seed);
	ST(&sc->s, smt_encode_create_pixmap(st_at(&sc->s), id, (uint32_t)w, (uint32_t)h, format));
	ST(&sc->s, smt_encode_set_target(st_at(&sc->s), id));
	ST(&sc->s,
			smt_encode_put_image(st_at(&sc->s), 0, 0, (uint32_t)w, (uint32_t)h, format,
					(uint32_t)pixman_image_get_stride(img),
					pixman_image_get_data(img)));
	ST(&sc->s, smt_encode_set_target(st_at(&sc->s), CANVAS));
	return img;
}

static void test_copy_area(void)
{
	struct scene sc;
	scene_init(&sc, PIXMAN_a8r8g8b8, 8);
	pixman_image_t *pm = make_pixmap(&sc, 7, SMT_FORMAT_ARGB8888, PIXMAN_a8r8g8b8, 30, 20, 4);
	pixman_image_t *a8 = make_pixmap(&sc, 8, SMT_FORMAT_A8, PIXMAN_a8, 16, 16, 5);
	ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
	/* source partly outside the pixmap: only the inside is copied */
	ST(&sc.s, smt_encode_copy_area(st_at(&sc.s), 7, -5, 10, 40, 30, 3, 2));
	ST(&sc.s, smt_encode_copy_area(st_at(&sc.s), 8, 0, 0, 16, 16, 40, 30));
	ref_clip(sc.ref, clip2, 2);
	pixman_image_composite32(PIXMAN_OP_SRC, pm, NULL, sc.ref, 0, 10, 0, 0, 8, 2, 30, 10);
	pixman_image_composite32(PIXMAN_OP_SRC, a8, NULL, sc.ref, 0, 0, 0, 0, 40, 30, 16, 16);
	scene_run_check(&sc, 0, "copy_area");
	pixman_image_unref(pm);
	pixman_image_unref(a8);
	scene_fini(&sc);
}

static void test_composite(void)
{
	static const uint32_t ops[] = { SMT_PAINT_OVER, SMT_PAINT_IN, SMT_PAINT_ADD, SMT_PAINT_SRC,
		SMT_PAINT_ATOP_REVERSE };
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
		for (int m = 0; m < 2; m++) {
			struct scene sc;
			scene_init(&sc, PIXMAN_a8r8g8b8, 9);
			pixman_image_t *src = make_pixmap(
					&sc, 3, SMT_FORMAT_ARGB8888, PIXMAN_a8r8g8b8, 25, 25, 12);
			pixman_image_t *mask = make_pixmap(
					&sc, 4, SMT_FORMAT_A8, PIXMAN_a8, 20, 30, 13);
			ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), 2, clip2));
			ST(&sc.s,
					smt_encode_composite(st_at(&sc.s), ops[o], 3, m ? 4 : 0, -3,
							2, 1, -4, 10, 8, 40, 30));
			ref_clip(sc.ref, clip2, 2);
			pixman_image_composite32((pixman_op_t)ops[o], src, m ? mask : NULL, sc.ref,
					-3, 2, 1, -4, 10, 8, 40, 30);
			scene_run_check(&sc, 0, "composite");
			pixman_image_unref(src);
			pixman_image_unref(mask);
			scene_fini(&sc);
		}
	/* composite of the canvas onto itself (overlapping) equals compositing
	 * from a snapshot */
	struct scene sc;
	scene_init(&sc, PIXMAN_a8r8g8b8, 10);
	ST(&sc.s,
			smt_encode_composite(st_at(&sc.s), SMT_PAINT_OVER, CANVAS, 0, 0, 0, 0, 0, 5,
					3, 50, 40));
	pixman_image_t *snap = clone_image(sc.ref);
	pixman_image_composite32(PIXMAN_OP_OVER, snap, NULL, sc.ref, 0, 0, 0, 0, 5, 3, 50, 40);
	scene_run_check(&sc, 0, "self composite");
	pixman_image_unref(snap);
	scene_fini(&sc);
	/* an A8 canvas used as its own mask */
	scene_init(&sc, PIXMAN_a8, 11);
	pixman_image_t *src = make_pixmap(&sc, 3, SMT_FORMAT_ARGB8888, PIXMAN_a8r8g8b8, 25, 25, 12);
	ST(&sc.s,
			smt_encode_composite(st_at(&sc.s), SMT_PAINT_OVER, 3, CANVAS, 0, 0, 2, 1, 4,
					3, 40, 30));
	snap = clone_image(sc.ref);
	pixman_image_composite32(PIXMAN_OP_OVER, src, snap, sc.ref, 0, 0, 2, 1, 4, 3, 40, 30);
	scene_run_check(&sc, 0, "canvas as its own mask");
	pixman_image_unref(snap);
	pixman_image_unref(src);
	scene_fini(&sc);
}

static void test_glyphs(void)
{
	struct scene sc;
	scene_init(&sc, PIXMAN_x8r8g8b8, 14);
	/* a tiny 8x8 atlas with an "L" and a box glyph */
	pixman_image_t *atlas = new_image(PIXMAN_a8, 16, 8);
	uint8_t *ab = (uint8_t *)pixman_image_get_data(atlas);
	int as = pixman_image_get_stride(atlas);
	for (int y = 0; y < 8; y++) {
		ab[y * as + 1] = 0xff; /* L: vertical bar */
		ab[y * as + 9] = 0x80; /* box: left edge */
		ab[y * as + 14] = 0x80;
	}
	for (int x = 1; x < 7; x++)
		ab[7 * as + x] = 0xff; /* L: foot */
	for (int x = 9; x < 15; x++)
		ab[x] = ab[7 * as + x] = 0x80;
	ST(&sc.s, smt_encode_create_pixmap(st_at(&sc.s), 20, 16, 8, SMT_FORMAT_A8));
	ST(&sc.s, smt_encode_set_target(st_at(&sc.s), 20));
	ST(&sc.s, smt_encode_put_image(st_at(&sc.s), 0, 0, 16, 8, SMT_FORMAT_A8, (uint32_t)as, ab));
	ST(&sc.s, smt_encode_set_target(st_at(&sc.s), CANVAS));
	struct smt_glyph g[4] = {
		{ 0, 0, 8, 8, 0, 0 },
		{ 8, 0, 8, 8, 9, 0 },
		{ 0, 0, 8, 8, 18, 2 },
		{ 8, 0, 8, 8, 60, 44 },
	};
	ST(&sc.s, smt_encode_glyphs(st_at(&sc.s), SMT_PAINT_OVER, 0xff101010, 20, 10, 12, 4, g));
	pixman_color_t c = to_color(0xff101010);
	pixman_image_t *solid = pixman_image_create_solid_fill(&c);
	for (int i = 0; i < 4; i++)
		pixman_image_composite32(PIXMAN_OP_OVER, solid, atlas, sc.ref, 0, 0, g[i].atlas_x,
				g[i].atlas_y, 10 + g[i].dst_x, 12 + g[i].dst_y, g[i].width,
				g[i].height);
	scene_run_check(&sc, 0, "glyphs");
	REQUIRE((pixel_at(sc.canvas, 11, 15) & 0xffffff) == 0x101010, "L stem is dark");
	pixman_image_unref(solid);
	pixman_image_unref(atlas);
	scene_fini(&sc);
}

/* Glyphs up to 8 pixels wide (text), whose rows are read a word at a
 * time: every width 1..8, ink at every column, masks of 0, 255 and in
 * between, glyphs at the atlas's right edge (where a word would leave the
 * row, so the pixel loop draws them), cut by the clip on either side;
 * opaque and translucent colours. pixman is the reference, exactly. */
static void test_glyphs_narrow(void)
{
	enum {
		AW = 40,
		AH = 12
	};
	pixman_image_t *atlas = new_image(PIXMAN_a8, AW, AH);
	uint8_t *ab = (uint8_t *)pixman_image_get_data(atlas);
	int as = pixman_image_get_stride(atlas);
	static const uint8_t values[] = { 0, 0, 0xff, 0, 0x80, 0xff, 0xff, 0, 0x01, 0xfe, 0, 0 };
	for (int y = 0; y < AH; y++)
		for (int x = 0; x < AW; x++)
			ab[y * as + x] = values[(size_t)(x * 5 + y * 3) % sizeof(values)];
	struct smt_glyph g[24];
	uint32_t n = 0;
	for (uint16_t w = 1; w <= 8; w++) {
		/* left, middle and flush with the right edge of the atlas */
		const uint16_t ax[3] = { (uint16_t)(w - 1), 13, (uint16_t)(AW - w) };
		for (int k = 0; k < 3; k++, n++)
			g[n] = (struct smt_glyph){ ax[k], (uint16_t)k, w, (uint16_t)(AH - 2 * k),
				(int32_t)(n * 9) - 6, (int32_t)(k * 13) - 2 };
	}
	static const uint32_t colours[] = { 0xff204080, 0x80402010 };
	/* clip 0: none, 1: one rectangle cutting glyphs' columns, 2: two */
	static const struct smt_rect cut[1] = { { 7, 3, 150, 30 } };
	for (size_t c = 0; c < 2; c++)
		for (int clip = 0; clip < 3; clip++) {
			struct scene sc;
			char what[80];
			const struct smt_rect *cr = clip == 1 ? cut : clip2;
			scene_init(&sc, PIXMAN_a8r8g8b8, 40 + (uint32_t)c);
			ST(&sc.s,
					smt_encode_create_pixmap(
							st_at(&sc.s), 20, AW, AH, SMT_FORMAT_A8));
			ST(&sc.s, smt_encode_set_target(st_at(&sc.s), 20));
			ST(&sc.s,
					smt_encode_put_image(st_at(&sc.s), 0, 0, AW, AH,
							SMT_FORMAT_A8, (uint32_t)as, ab));
			ST(&sc.s, smt_encode_set_target(st_at(&sc.s), CANVAS));
			if (clip)
				ST(&sc.s, smt_encode_set_clip(st_at(&sc.s), (uint32_t)clip, cr));
			ST(&sc.s,
					smt_encode_glyphs(st_at(&sc.s), SMT_PAINT_OVER, colours[c],
							20, 2, 3, n, g));
			ref_clip(sc.ref, cr, clip);
			pixman_color_t pc = to_color(colours[c]);
			pixman_image_t *solid = pixman_image_create_solid_fill(&pc);
			for (uint32_t i = 0; i < n; i++)
				pixman_image_composite32(PIXMAN_OP_OVER, solid, atlas, sc.ref, 0, 0,
						g[i].atlas_x, g[i].atlas_y, 2 + g[i].dst_x,
						3 + g[i].dst_y, g[i].width, g[i].height);
			pixman_image_unref(solid);
			snprintf(what, sizeof(what), "narrow glyphs: colour %zu clip %d", c, clip);
			scene_run_check(&sc, 0, what);
			scene_fini(&sc);
		}
	pixman_image_unref(atlas);
}

/* Glyphs with every mask value, in opaque, translucent and zero colours,
 * over patterned 32 bpp targets, partly outside the image, through no
 * clip, one rectangle (both drawn without pixman) and two; ADD for the
 * pixman path beside them. pixman itself is the reference, exactly. */
static void test_glyphs_masks(void)
{
	pixman_image_t *atlas = new_image(PIXMAN_a8, 16, 16);
	uint8_t *ab = (uint8_t *)pixman_image_get_data(atlas);
	int as = pixman_image_get_stride(atlas);
	for (int y = 0; y < 16; y++)
		for (int x = 0; x < 16; x++)
			ab[y * as + x] = (uint8_t)(y * 16 + x);
	const struct smt_glyph g[5] = {
		{ 0, 0, 16, 16, 0, 0 },
		{ 4, 2, 9, 13, 20, 3 },
		{ 0, 0, 16, 16, -8, 30 },
		{ 3, 3, 13, 13, 55, 40 },
		{ 0, 8, 16, 8, 8, 8 },
	};
	static const pixman_format_code_t fmts[] = { PIXMAN_a8r8g8b8, PIXMAN_x8r8g8b8 };
	static const uint32_t colours[] = { 0xff204080, 0x80402010, 0x00000000, 0x01010101 };
	static const uint32_t ops[] = { SMT_PAINT_OVER, SMT_PAINT_ADD };
	static const struct smt_rect cut[1] = { { 3, 2, 50, 40 } };
	for (size_t f = 0; f < 2; f++)
		for (size_t c = 0; c < 4; c++)
			for (size_t o = 0; o < 2; o++)
				for (int clip = 0; clip < 3; clip++) {
					struct scene sc;
					char what[80];
					const struct smt_rect *cr = clip == 1 ? cut : clip2;
					scene_init(&sc, fmts[f], 20 + (uint32_t)c);
					ST(&sc.s,
							smt_encode_create_pixmap(st_at(&sc.s), 20,
									16, 16, SMT_FORMAT_A8));
					ST(&sc.s, smt_encode_set_target(st_at(&sc.s), 20));
					ST(&sc.s,
							smt_encode_put_image(st_at(&sc.s), 0, 0, 16,
									16, SMT_FORMAT_A8,
									(uint32_t)as, ab));
					ST(&sc.s, smt_encode_set_target(st_at(&sc.s), CANVAS));
					if (clip)
						ST(&sc.s,
								smt_encode_set_clip(st_at(&sc.s),
										(uint32_t)clip,
										cr));
					ST(&sc.s,
							smt_encode_glyphs(st_at(&sc.s), ops[o],
									colours[c], 20, 2, 1, 5,
									g));
					ref_clip(sc.ref, cr, clip);
					pixman_color_t pc = to_color(colours[c]);
					pixman_image_t *solid = pixman_image_create_solid_fill(&pc);
					for (int i = 0; i < 5; i++)
						pixman_image_composite32((pixman_op_t)ops[o], solid,
								atlas, sc.ref, 0, 0, g[i].atlas_x,
								g[i].atlas_y, 2 + g[i].dst_x,
								1 + g[i].dst_y, g[i].width,
								g[i].height);
					pixman_image_unref(solid);
					snprintf(what, sizeof(what),
							"glyph masks: fmt %zu colour %zu op %zu clip %d",
							f, c, o, clip);
					if (colours[c] == 0) {
						/* draws nothing: compare without the "drew" guard */
						struct smt_exec_result res;
						expect_ok(run_ring(sc.ctx, &sc.s, 64 * 1024, &res),
								&res, what);
						pixman_image_set_clip_region32(sc.ref, NULL);
						expect_same_tol(sc.canvas, sc.ref, 0, what);
					} else {
						scene_run_check(&sc, 0, what);
					}
					scene_fini(&sc);
				}
	pixman_image_unref(atlas);
}

static void test_present_and_pixmaps(void)
{
	struct scene sc;
	struct smt_exec_result res;
	struct test_ring t;
	scene_init(&sc, PIXMAN_a8r8g8b8, 1);
	tr_init(&t, 4096);
	struct smt_rect dmg[2] = { { -5, -5, 10, 10 }, { 60, 40, 100, 100 } };
	BUF_DECL(b, 256);
	REQUIRE(tr_push(&t, b, smt_encode_present(b, CANVAS, 41, 0, NULL)) == 0, "push");
	REQUIRE(tr_push(&t, b, smt_encode_present(b, CANVAS, 42, 2, dmg)) == 0, "push");
	REQUIRE(tr_push(&t, b, smt_encode_fence(b, 9)) == 0, "push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_PRESENT, "stop at present");
	REQUIRE(res.present.canvas_id == CANVAS && res.present.serial == 41 && res.commands == 1,
			"first present");
	pixman_box32_t *e = pixman_region32_extents((pixman_region32_t *)res.present.damage);
	REQUIRE(e->x1 == 0 && e->y1 == 0 && e->x2 == W && e->y2 == H, "n=0: whole canvas");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_PRESENT, "second");
	REQUIRE(res.present.serial == 42, "serial");
	int n;
	pixman_region32_rectangles((pixman_region32_t *)res.present.damage, &n);
	REQUIRE(n == 2 &&
					pixman_region32_contains_point(
							(pixman_region32_t *)res.present.damage, 4,
							4, NULL) &&
					pixman_region32_contains_point(
							(pixman_region32_t *)res.present.damage, 63,
							47, NULL) &&
					!pixman_region32_contains_point(
							(pixman_region32_t *)res.present.damage, 5,
							5, NULL),
			"damage clipped to the canvas");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY && res.fences == 1 &&
					res.last_fence == 9,
			"fence after present");
	/* pixmaps: create, count, draw, free; target freed -> no target */
	REQUIRE(tr_push(&t, b, smt_encode_create_pixmap(b, 100, 10, 10, SMT_FORMAT_ARGB8888)) == 0,
			"push");
	REQUIRE(tr_push(&t, b, smt_encode_create_pixmap(b, 101, 10, 10, SMT_FORMAT_A8)) == 0,
			"push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "%s",
			res.error.message);
	REQUIRE(smt_exec_pixmap_count(sc.ctx) == 2, "count");
	REQUIRE(smt_exec_pixmap_bytes(sc.ctx) == 400 + 120 + 2 * SMT_PIXMAP_OVERHEAD,
			"bytes %" PRIu64, smt_exec_pixmap_bytes(sc.ctx));
	REQUIRE(tr_push(&t, b, smt_encode_set_target(b, 100)) == 0, "push");
	REQUIRE(tr_push(&t, b, smt_encode_free_pixmap(b, 100)) == 0, "push");
	REQUIRE(tr_push(&t, b, smt_encode_free_pixmap(b, 101)) == 0, "push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "%s",
			res.error.message);
	REQUIRE(smt_exec_pixmap_count(sc.ctx) == 0 && smt_exec_pixmap_bytes(sc.ctx) == 0, "freed");
	struct smt_rect r = { 0, 0, 1, 1 };
	REQUIRE(tr_push(&t, b, smt_encode_fill_rects(b, SMT_PAINT_SRC, 0, 1, &r)) == 0, "push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_NO_TARGET,
			"freed target is gone");
	tr_fini(&t);
	scene_fini(&sc);
}

/* Canvas resize keeps the target; unregistering it does not. */
static void test_canvas_replace(void)
{
	struct scene sc;
	struct smt_exec_result res;
	struct test_ring t;
	BUF_DECL(b, 64);
	struct smt_rect all = { 0, 0, 1000, 1000 };
	scene_init(&sc, PIXMAN_a8r8g8b8, 2);
	tr_init(&t, 4096);
	REQUIRE(tr_push(&t, b, smt_encode_set_target(b, CANVAS)) == 0, "push");
	REQUIRE(tr_push(&t, b, smt_encode_set_clip(b, 1, &(struct smt_rect){ 0, 0, 5, 5 })) == 0,
			"push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "setup");
	pixman_image_t *bigger = new_image(PIXMAN_a8r8g8b8, W * 2, H * 2);
	REQUIRE(smt_exec_replace_canvas(sc.ctx, CANVAS, bigger) == 0, "replace");
	REQUIRE(smt_exec_replace_canvas(sc.ctx, 77, bigger) == SMT_ERROR_BAD_DRAWABLE, "unknown");
	REQUIRE(tr_push(&t, b, smt_encode_fill_rects(b, SMT_PAINT_SRC, 0xff0000ff, 1, &all)) == 0,
			"push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "%s",
			res.error.message);
	REQUIRE(pixel_at(bigger, W * 2 - 1, H * 2 - 1) == 0xff0000ff, "drawn, clip reset");
	expect_same(sc.canvas, sc.orig, "old image untouched");
	REQUIRE(smt_exec_unregister_canvas(sc.ctx, CANVAS) == 0, "unregister");
	REQUIRE(tr_push(&t, b, smt_encode_fill_rects(b, SMT_PAINT_SRC, 0xff0000ff, 1, &all)) == 0,
			"push");
	REQUIRE(smt_exec_run(sc.ctx, &t.reader, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_NO_TARGET,
			"unregistered target is gone");
	pixman_image_unref(bigger);
	tr_fini(&t);
	scene_fini(&sc);
}

int main(void)
{
	test_fill_rects(PIXMAN_a8r8g8b8);
	test_fill_rects(PIXMAN_x8r8g8b8);
	test_fill_rects(PIXMAN_a8);
	test_fill_wide_rows();
	test_points();
	test_thin_segments();
	test_thin_octants();
	test_thin_inside();
	test_thin_short();
	test_wide_segments();
	test_put_image();
	test_copy_area();
	test_composite();
	test_glyphs();
	test_glyphs_masks();
	test_glyphs_narrow();
	test_present_and_pixmaps();
	test_canvas_replace();
	printf("test_ring_draw: ok\n");
	return 0;
}
