/* Solid paints: FILL_RECTS, POINTS and thin (0/1-pixel) SEGMENTS. */
#include "compositor/exec/exec_internal.h"
#include "compositor/exec/solid_rows.h"
#include "compositor/exec/u32_lanes.h"

/* colour is premultiplied 0xAARRGGBB (checked by the decoder). */
static pixman_color_t paint_color(uint32_t colour)
{
	return (pixman_color_t){
		.red = (uint16_t)(((colour >> 16) & 0xff) * 0x101),
		.green = (uint16_t)(((colour >> 8) & 0xff) * 0x101),
		.blue = (uint16_t)((colour & 0xff) * 0x101),
		.alpha = (uint16_t)((colour >> 24) * 0x101),
	};
}

/* Runs once per drawing command: only what a plain store needs is set
 * here; the pixman colour and solid image only when a paint composites.
 * Inlined into runs of FILL_RECTS, whose colour changes per command. */
static inline __attribute__((always_inline)) int paint_set(struct smt_exec_ctx *ctx,
		struct paint *p, const struct smt_drawable *dst, uint32_t op, uint32_t colour,
		bool need_solid)
{
	p->op = (pixman_op_t)op;
	p->solid = NULL;
	if (op == SMT_PAINT_CLEAR) {
		colour = 0;
		op = SMT_PAINT_SRC;
	}
	p->colour = colour;
	p->use_fill = op == SMT_PAINT_SRC || (op == SMT_PAINT_OVER && colour >> 24 == 0xff);
	p->pixel = dst->format == SMT_FORMAT_A8 ? colour >> 24 : colour;
	p->bits = dst->bits;
	p->stride = dst->stride;
	p->bpp = dst->bpp;
	p->width = dst->width;
	p->height = dst->height;
	/* SRC-like fills (the common case) never need the solid image: skip
	 * the allocation per command. */
	if (!need_solid && p->use_fill)
		return 0;
	pixman_color_t c = paint_color(colour);
	p->solid = pixman_image_create_solid_fill(&c);
	if (!p->solid)
		return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
	return 0;
}

int paint_init(struct smt_exec_ctx *ctx, struct paint *p, const struct smt_drawable *dst,
		uint32_t op, uint32_t colour, bool need_solid)
{
	return paint_set(ctx, p, dst, op, colour, need_solid);
}

void paint_fini(struct paint *p)
{
	if (p->solid)
		pixman_image_unref(p->solid);
	p->solid = NULL;
}

void paint_box_pixman(struct paint *p, const struct smt_drawable *dst, const pixman_box32_t *b)
{
	pixman_image_t *img = dst->image;
	int w = b->x2 - b->x1, h = b->y2 - b->y1;
	assert_in_image(img, b);
	if (p->use_fill && p->bpp == 32 && w >= 8 &&
			solid_rows_32(p->bits + (size_t)b->y1 * (size_t)p->stride,
					(size_t)p->stride, p->pixel, b->x1, w, h))
		return;
	if (p->use_fill &&
			pixman_fill((uint32_t *)p->bits, p->stride / 4, p->bpp, b->x1, b->y1, w, h,
					p->pixel))
		return;
	if (!p->solid) {
		pixman_color_t c = paint_color(p->colour);
		if (!(p->solid = pixman_image_create_solid_fill(&c)))
			return; /* out of memory: drop the box */
	}
	pixman_image_composite32(p->op, p->solid, NULL, img, 0, 0, 0, 0, b->x1, b->y1, w, h);
}

/* A box of 4 to PAINT_DIRECT_WIDTH pixels a row of a plain-store paint
 * into 32 bpp at `row` (its first row), x1 to x1 + w: 16-byte stores, the
 * last one overlapping back inside the row (the same pixel twice), so a
 * 10-pixel row is 3 stores, not 10. Inlined only into the loop of
 * fill_rects_one_box, whose counters are locals (inlined into paint_box
 * it slowed every loop around it). */
static inline __attribute__((always_inline)) void store_rows_32(
		uint8_t *row, size_t stride, uint32_t pixel, int32_t x1, int32_t w, int32_t h)
{
	const uint32_t four[4] = { pixel, pixel, pixel, pixel };
	for (int32_t y = 0; y < h; y++, row += stride) {
		uint32_t *px = (uint32_t *)row + x1;
		int32_t x = 0;
		for (; x + 4 <= w; x += 4)
			memcpy(px + x, four, sizeof(four));
		if (x < w)
			memcpy(px + w - 4, four, sizeof(four));
	}
}

uint64_t paint_clipped_region(struct smt_exec_ctx *ctx, struct paint *p,
		const struct smt_drawable *dst, int64_t x1, int64_t y1, int64_t x2, int64_t y2)
{
	struct clip_iter it;
	pixman_box32_t b;
	uint64_t px = 0;
	if (x1 >= x2 || y1 >= y2)
		return 0;
	clip_iter_init(&it, &ctx->clip, x1, y1, x2, y2);
	while (clip_iter_next(&it, &b)) {
		paint_box(p, dst, &b);
		px += box_area(&b);
	}
	return px;
}

/* One rectangle in bands from row `done`; true if the budget ran out with
 * rows left (resume set). */
static bool fill_rect_banded(struct smt_exec_ctx *ctx, struct paint *p,
		const struct smt_drawable *dst, const struct smt_rect *r, uint32_t done,
		struct smt_resume *resume, uint32_t i)
{
	int64_t x1 = r->x, y1 = r->y;
	int64_t x2 = x1 + r->width, y2 = y1 + r->height;
	struct band_iter b;
	int64_t from, to;
	if (!band_begin(ctx, &b, x1, y1, x2, y2, done, false)) {
		exec_charge(ctx, 0); /* nothing visible: one unit of work */
		return false;
	}
	while (band_next(&b, &from, &to)) {
		uint64_t px = paint_clipped(ctx, p, dst, x1, from, x2, to);
		if (band_stop(ctx, &b, px, resume)) {
			resume->element = i;
			return true;
		}
	}
	return false;
}

/*
 * Rectangles through a clip of one rectangle: each is cut to the extents
 * here, and one of at most EXEC_BAND_PIXELS (one band: what band_begin
 * would draw in one piece, and charge the same) is painted at once; a
 * bigger one, or the one a slice stopped inside, takes the banded path.
 * Batched small rectangles spend their time here: a plain store into
 * 32 bpp of 4 to PAINT_DIRECT_WIDTH pixels a row is inlined
 * (store_rows_32), with the target and the budget's counters in locals
 * (*c, loaded by the caller and kept loaded), so that nothing is reloaded
 * per rectangle.
 */
#define SMALL_RECTS_PER_UNIT 4u

static inline __attribute__((always_inline)) int fill_rects_one_box(struct smt_exec_ctx *ctx,
		struct paint *p, const struct smt_drawable *dst, const struct smt_rect *r,
		uint32_t n, struct smt_resume *resume, struct charge_mirror *c)
{
	const pixman_box32_t e = ctx->clip.extents;
	const bool wide_rows = p->use_fill && p->bpp == 32;
	uint8_t *const bits = p->bits;
	const size_t stride = (size_t)p->stride;
	const uint32_t pixel = p->pixel;
	const int32_t width = p->width, height = p->height;
	for (uint32_t i = resume->element; i < n; i++) {
		uint32_t done = i == resume->element ? resume->row : 0;
		int64_t x1 = r[i].x, y1 = r[i].y;
		int64_t x2 = x1 + r[i].width, y2 = y1 + r[i].height;
		bool out;
		x1 = x1 > e.x1 ? x1 : e.x1;
		y1 = y1 > e.y1 ? y1 : e.y1;
		x2 = x2 < e.x2 ? x2 : e.x2;
		y2 = y2 < e.y2 ? y2 : e.y2;
		if (x1 >= x2 || y1 >= y2) {
			out = charge_mirror_add(ctx, c, 1, 0);
		} else if (done == 0 && (x2 - x1) * (y2 - y1) <= (int64_t)EXEC_BAND_PIXELS) {
			pixman_box32_t b = { (int32_t)x1, (int32_t)y1, (int32_t)x2, (int32_t)y2 };
			if (wide_rows && x2 - x1 >= 4 && x2 - x1 <= PAINT_DIRECT_WIDTH) {
				/* The last line of defence, as in paint_box. */
				assert(b.x1 >= 0 && b.y1 >= 0 && b.y1 < b.y2 && b.x2 <= width &&
						b.y2 <= height);
				store_rows_32(bits + (size_t)b.y1 * stride, stride, pixel, b.x1,
						b.x2 - b.x1, b.y2 - b.y1);
			} else {
				paint_box(p, dst, &b);
			}
			/* Pixels as ever; a unit of work per SMALL_RECTS_PER_UNIT:
			 * a tiny rectangle costs a few ns, not the tens of a unit. */
			out = charge_mirror_add(
					ctx, c, i % SMALL_RECTS_PER_UNIT == 0, box_area(&b));
		} else {
			charge_mirror_store(ctx, c);
			bool stopped = fill_rect_banded(ctx, p, dst, &r[i], done, resume, i);
			charge_mirror_load(ctx, c);
			if (stopped)
				return EXEC_PARTIAL;
			out = ctx->run.exhausted;
		}
		if (out && i + 1 < n) {
			resume->element = i + 1;
			resume->row = 0;
			return EXEC_PARTIAL;
		}
	}
	(void)width;
	(void)height;
	return 0;
}

/* FILL_RECTS through any clip, with the paint p set up for dst. */
static int fill_rects_painted(struct smt_exec_ctx *ctx, struct paint *p,
		const struct smt_drawable *dst, const struct smt_decoded *d,
		struct smt_resume *resume)
{
	const struct smt_rect *r = d->array;
	uint32_t n = (uint32_t)d->array_len;

	if (ctx->clip.data == NULL) {
		struct charge_mirror c;
		charge_mirror_load(ctx, &c);
		int rc = fill_rects_one_box(ctx, p, dst, r, n, resume, &c);
		charge_mirror_store(ctx, &c);
		return rc;
	}
	for (uint32_t i = resume->element; i < n; i++) {
		uint32_t done = i == resume->element ? resume->row : 0;
		if (fill_rect_banded(ctx, p, dst, &r[i], done, resume, i))
			return EXEC_PARTIAL;
		if (ctx->run.exhausted && i + 1 < n) {
			resume->element = i + 1;
			resume->row = 0;
			return EXEC_PARTIAL;
		}
	}
	return 0;
}

int exec_fill_rects(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	struct smt_drawable *dst;
	struct paint p;
	if (exec_target(ctx, &dst) ||
			paint_init(ctx, &p, dst, d->u.fill.op, d->u.fill.colour, false))
		return -1;
	int rc = fill_rects_painted(ctx, &p, dst, d, resume);
	paint_fini(&p);
	return rc;
}

#define POINTS_CHUNK 64u
/* Points per unit of work: a stored dot costs a nanosecond or two, about
 * a NOOP, not the tens of a drawing command; charging one unit per point
 * read the clock every 64 dots, a tenth of the time spent drawing them. */
#define POINTS_PER_UNIT 16u

/* Stores of one chunk of points inside the clip's extents e (bpp 32 or 8);
 * returns the pixels stored. The extents, bits and stride are locals: the
 * stores could alias ctx or p as far as C knows, which would reload them
 * per point. The caller asserts once that e lies inside the image, so the
 * one range test per axis here is also the bounds check of each store. */
static inline __attribute__((always_inline)) uint64_t points_direct(const struct paint *p,
		pixman_box32_t e, const struct smt_point *pt, uint32_t from, uint32_t to,
		const bool wide)
{
	uint8_t *const bits = p->bits;
	const size_t stride = (size_t)p->stride;
	const uint32_t pixel = p->pixel;
	/* x in [x1, x2) iff x - x1 < x2 - x1 as uint32 (no signed overflow) */
	const uint32_t x1 = (uint32_t)e.x1, y1 = (uint32_t)e.y1;
	const uint32_t w = e.x2 > e.x1 ? (uint32_t)e.x2 - x1 : 0;
	const uint32_t h = e.y2 > e.y1 ? (uint32_t)e.y2 - y1 : 0;
	uint64_t px = 0;
	for (uint32_t k = from; k < to; k++) {
		uint32_t dx = (uint32_t)pt[k].x - x1, dy = (uint32_t)pt[k].y - y1;
		if (dx < w && dy < h) {
			uint8_t *row = bits + (size_t)(dy + y1) * stride;
			if (wide)
				((uint32_t *)row)[dx + x1] = pixel;
			else
				row[dx + x1] = (uint8_t)pixel;
			px++;
		}
	}
	return px;
}

int exec_points(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	struct smt_drawable *dst;
	struct paint p;
	const struct smt_point *pt = d->array;
	uint32_t n = (uint32_t)d->array_len;

	if (exec_target(ctx, &dst) ||
			paint_init(ctx, &p, dst, d->u.points.op, d->u.points.colour, false))
		return -1;
	if (paint_direct(ctx, &p)) {
		/* Stores inside the clip's extents, charged POINTS_CHUNK at a
		 * time: the budget is still checked every few hundred ns. */
		const pixman_box32_t e = ctx->clip.extents;
		/* The bounds check of every store below (points_direct). */
		assert(e.x1 >= e.x2 || e.y1 >= e.y2 ||
				(e.x1 >= 0 && e.y1 >= 0 && e.x2 <= p.width && e.y2 <= p.height));
		for (uint32_t i = resume->element; i < n;) {
			uint32_t end = n - i > POINTS_CHUNK ? i + POINTS_CHUNK : n;
			uint64_t px = p.bpp == 32 ? points_direct(&p, e, pt, i, end, true) :
						    points_direct(&p, e, pt, i, end, false);
			bool out = exec_charge_units(
					ctx, (end - i + POINTS_PER_UNIT - 1) / POINTS_PER_UNIT, px);
			i = end;
			if (out && i < n) {
				resume->element = i;
				return EXEC_PARTIAL;
			}
		}
		return 0;
	}
	for (uint32_t i = resume->element; i < n; i++) {
		uint64_t px = paint_clipped(ctx, &p, dst, pt[i].x, pt[i].y, (int64_t)pt[i].x + 1,
				(int64_t)pt[i].y + 1);
		if (exec_charge(ctx, px) && i + 1 < n) {
			resume->element = i + 1;
			paint_fini(&p);
			return EXEC_PARTIAL;
		}
	}
	paint_fini(&p);
	return 0;
}

/* floor(num / den) for den > 0. */
static int64_t floor_div(int64_t num, int64_t den)
{
	int64_t q = num / den;
	return (num % den != 0 && num < 0) ? q - 1 : q;
}

/*
 * One run of a thin segment that plain stores cannot draw: major
 * coordinates [from, to) on minor coordinate m, a row (x-major) or a
 * column (y-major). [from, to) lies inside the clip's extents along the
 * major axis; [mlo, mhi) are the extents along the minor one. One box per
 * run: pixman_fill or one composite for the whole run, not one per pixel.
 */
static uint64_t thin_run(struct smt_exec_ctx *ctx, struct paint *p, const struct smt_drawable *dst,
		bool ymajor, int64_t m, int64_t from, int64_t to, int64_t mlo, int64_t mhi)
{
	if (m < mlo || m >= mhi)
		return 0;
	if (ctx->clip.data != NULL)
		return ymajor ? paint_clipped_region(ctx, p, dst, m, from, m + 1, to) :
				paint_clipped_region(ctx, p, dst, from, m, to, m + 1);
	pixman_box32_t b = ymajor ?
			(pixman_box32_t){ (int32_t)m, (int32_t)from, (int32_t)m + 1, (int32_t)to } :
			(pixman_box32_t){ (int32_t)from, (int32_t)m, (int32_t)to, (int32_t)m + 1 };
	paint_box(p, dst, &b);
	return (uint64_t)(to - from);
}

/*
 * The walk of thin_segment from `start` to `end` along the major axis,
 * minor coordinate m and remainder rem at start. A direct paint (`direct`,
 * `wide` for 32 bpp) stores each pixel as the walk passes it (a byte offset
 * moved by one step per axis: most runs of a slanted line are a pixel or
 * two, shorter than any call); any other paint gets the runs of pixels on
 * one minor coordinate (thin_run). Always inlined with constant `direct`
 * and `wide`: one walk in the source, a tight loop for each case.
 */
static inline __attribute__((always_inline)) uint64_t thin_walk(struct smt_exec_ctx *ctx,
		struct paint *p, const struct smt_drawable *dst, bool ymajor, int64_t start,
		int64_t end, int64_t m, int64_t rem, int64_t den, int64_t step, int64_t mlo,
		int64_t mhi, const bool direct, const bool wide)
{
	/* Direct stores: [start, end] and [mlo, mhi) lie inside the clip's
	 * extents, inside the image; each store is asserted against it. */
	uint8_t *const bits = p->bits;
	const uint32_t pixel = p->pixel;
	const int64_t bytes = wide ? 4 : 1, stride = p->stride;
	const int64_t maj = ymajor ? stride : bytes, mnr = ymajor ? bytes : stride;
	const int64_t size = (int64_t)p->height * stride;
	int64_t off = ymajor ? start * stride + m * bytes : m * stride + start * bytes;
	int64_t from = start;
	uint64_t px = 0;
	for (int64_t x = start;; x++) {
		if (direct && m >= mlo && m < mhi) {
			assert(off >= 0 && off + bytes <= size);
			if (wide)
				*(uint32_t *)(bits + off) = pixel;
			else
				bits[off] = (uint8_t)pixel;
			px++;
		}
		if (x == end)
			break;
		off += maj;
		rem += step;
		if (rem >= den) {
			rem -= den;
			off += mnr;
		} else if (rem < 0) {
			rem += den;
			off -= mnr;
		} else {
			continue;
		}
		/* the minor coordinate moved: a run ended at x */
		if (!direct)
			px += thin_run(ctx, p, dst, ymajor, m, from, x + 1, mlo, mhi);
		from = x + 1;
		m += step > 0 ? 1 : -1;
	}
	if (!direct)
		px += thin_run(ctx, p, dst, ymajor, m, from, end + 1, mlo, mhi);
	(void)size;
	return px;
}

/*
 * The walk of thin_walk for a direct paint whose every pixel is known to
 * be inside the clip's extents (tested once per segment by the caller):
 * no test per pixel. The remainder is turned to count up whatever the
 * slope's sign (r' = den - 1 - rem moves by |step| and wraps at den exactly
 * when rem would go below 0), so the step is one compare, taken without a
 * branch: most runs of a slanted line are a pixel or two. Axis-parallel
 * segments are a plain loop of stores.
 */
static inline __attribute__((always_inline)) uint64_t thin_walk_inside(struct paint *p, bool ymajor,
		int64_t start, int64_t end, int64_t m, int64_t rem, int64_t den, int64_t step,
		const bool wide)
{
	uint8_t *const bits = p->bits;
	const uint32_t pixel = p->pixel;
	const int64_t bytes = wide ? 4 : 1, stride = p->stride;
	const int64_t maj = ymajor ? stride : bytes;
	int64_t mnr = ymajor ? bytes : stride;
	int64_t off = ymajor ? start * stride + m * bytes : m * stride + start * bytes;
	const int64_t n = end - start + 1;
	if (step < 0) {
		rem = den - 1 - rem;
		step = -step;
		mnr = -mnr;
	}
	if (step == 0) {
		if (wide && !ymajor) {
			uint32_t *row = (uint32_t *)(bits + off);
			for (int64_t i = 0; i < n; i++)
				row[i] = pixel;
		} else {
			for (int64_t i = 0; i < n; i++, off += maj) {
				if (wide)
					*(uint32_t *)(bits + off) = pixel;
				else
					bits[off] = (uint8_t)pixel;
			}
		}
		return (uint64_t)n;
	}
	for (int64_t i = 0; i < n; i++) {
		if (wide)
			*(uint32_t *)(bits + off) = pixel;
		else
			bits[off] = (uint8_t)pixel;
		off += maj;
		rem += step;
		if (rem >= den) {
			rem -= den;
			off += mnr;
		}
	}
	return (uint64_t)n;
}

/*
 * One thin segment, both end points included. Along the major axis each
 * step picks the nearest minor coordinate (Bresenham's choice, computed
 * directly so the walk can start at the clip edge instead of at a far-away
 * end point). Coordinates are within +-2^28, so 2 * d * delta < 2^59.
 * The walk itself is thin_walk.
 */
static inline __attribute__((always_inline)) uint64_t thin_segment(struct smt_exec_ctx *ctx,
		struct paint *p, const struct smt_drawable *dst, const struct smt_segment *s,
		const pixman_box32_t ext, const bool direct)
{
	int64_t x1 = s->x1, y1 = s->y1, x2 = s->x2, y2 = s->y2;
	bool ymajor = (y2 > y1 ? y2 - y1 : y1 - y2) > (x2 > x1 ? x2 - x1 : x1 - x2);
	if (ymajor) { /* walk along y: swap the axes */
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
	int64_t lo = ymajor ? ext.y1 : ext.x1, hi = ymajor ? ext.y2 : ext.x2;
	int64_t mlo = ymajor ? ext.x1 : ext.y1, mhi = ymajor ? ext.x2 : ext.y2;
	int64_t dx = x2 - x1, dy = y2 - y1;
	int64_t start = x1 > lo ? x1 : lo, end = x2 < hi - 1 ? x2 : hi - 1;
	if (start > end)
		return 0;

	/* m(x) = y1 + floor((2 (x - x1) dy + dx) / 2dx), stepped: one division
	 * at the start, then the remainder moves by 2dy per x. |dy| <= dx, so
	 * one correction per step keeps it in [0, 2dx). */
	int64_t den = dx ? 2 * dx : 1, step = dx ? 2 * dy : 0;
	int64_t q = 0, rem = dx; /* at x1: floor(dx / 2dx) = 0 */
	if (start != x1) {
		int64_t num = 2 * (start - x1) * dy + dx;
		q = floor_div(num, den);
		rem = num - q * den;
	}
	int64_t m = y1 + q;
	uint64_t px;

	/* m(x) stays between y1 and y2 on [x1, x2]: when both are inside the
	 * extents' minor range, so is every pixel the walk stores. */
	int64_t mmin = y1 < y2 ? y1 : y2, mmax = y1 < y2 ? y2 : y1;
	if (direct && mmin >= mlo && mmax < mhi) {
		assert(start >= 0 && mmin >= 0 &&
				(ymajor ? mmax < p->width && end < p->height :
					  end < p->width && mmax < p->height));
		if (p->bpp == 32)
			px = thin_walk_inside(p, ymajor, start, end, m, rem, den, step, true);
		else
			px = thin_walk_inside(p, ymajor, start, end, m, rem, den, step, false);
	} else if (direct && p->bpp == 32)
		px = thin_walk(ctx, p, dst, ymajor, start, end, m, rem, den, step, mlo, mhi, true,
				true);
	else if (direct)
		px = thin_walk(ctx, p, dst, ymajor, start, end, m, rem, den, step, mlo, mhi, true,
				false);
	else
		px = thin_walk(ctx, p, dst, ymajor, start, end, m, rem, den, step, mlo, mhi, false,
				false);
	/* The walk itself costs even when nothing lands on the target. */
	return px + (uint64_t)(end - start + 1);
}

/*
 * Whether both end points of segment s lie inside the box [lo, lo + size)
 * of the clip's extents, lanes (x, y, x, y): then so does every pixel of
 * it (they are the corners of its bounding box). As points_direct, a
 * coordinate is inside iff its distance from lo is below size as uint32.
 */
static inline u32x4 segment_outside(const struct smt_segment *s, u32x4 lo, u32x4 size)
{
	static_assert(sizeof(*s) == sizeof(u32x4), "a segment is one vector");
	return (u32x4)(load_u32x4(s) - lo >= size);
}

/*
 * A segment of a direct paint whose end points lie inside the clip's
 * extents (segment_outside), so no pixel needs a test or a clamp: the
 * pixels of thin_segment, walked from both ends at once. Each end starts
 * with a remainder known without a division (walking from the high end
 * of the major axis, the remainder counts down from where the walk from
 * the low end starts; mirrored, as thin_walk_inside, to count up), and
 * the two walks are independent chains, so the serial add, compare and
 * select per pixel covers two pixels. With an odd count of pixels the
 * middle one is stored by both walks. The caller checks that every byte
 * offset in the image is below 2^32 (thin_packed_ok).
 */
static inline __attribute__((always_inline)) uint64_t thin_ends_inside(uint8_t *bits,
		int64_t stride, uint32_t pixel, const struct smt_segment *s, const bool wide)
{
	const int64_t bytes = wide ? 4 : 1;
	const int64_t dx = (int64_t)s->x2 - s->x1, dy = (int64_t)s->y2 - s->y1;
	const int64_t adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
	const bool ymajor = ady > adx;
	/* byte steps from end 1 towards end 2 along the major and minor axes */
	const int64_t sx = dx < 0 ? -bytes : bytes, sy = dy < 0 ? -stride : stride;
	const int64_t maj = ymajor ? sy : sx, mnr = ymajor ? sx : sy;
	const int64_t d = ymajor ? ady : adx, den = 2 * d, step = 2 * (ymajor ? adx : ady);
	/* As thin_segment, from the low end of the major axis the remainder
	 * starts at d, or at d - 1 mirrored when the minor coordinate falls
	 * towards the high end; from the high end at 2d - 1 minus that. So
	 * end 1 starts at d - 1 + up1: up1 when it is the low end and the
	 * minor coordinate does not fall, or the high end and it falls (rises
	 * from end 1); end 2 at d - up1. */
	const int64_t dmaj = ymajor ? dy : dx, dmin = ymajor ? dx : dy;
	const int64_t up1 = dmin + (dmaj >= 0) > 0;
	/* Each walk's remainder, biased by -den so that it reaches 0 where the
	 * walk steps on the minor axis, and its byte offset, packed in one
	 * word e * 2^32 + offset: one add moves both, and as the offset of a
	 * pixel lies in [0, 2^32) the word's sign is e's. The minor step is a
	 * select on that sign (a cmov), not a branch: where the steps fall
	 * changes with the slope from one segment to the next. */
	const uint64_t turn = (uint64_t)-den << 32;
	const uint64_t straight1 = ((uint64_t)step << 32) + (uint64_t)maj;
	const uint64_t straight2 = ((uint64_t)step << 32) - (uint64_t)maj;
	const uint64_t turn1 = turn + (uint64_t)mnr, turn2 = turn - (uint64_t)mnr;
	uint64_t v1 = ((uint64_t)(up1 - 1 - d) << 32) +
			(uint64_t)((int64_t)s->y1 * stride + (int64_t)s->x1 * bytes);
	uint64_t v2 = ((uint64_t)(-up1 - d) << 32) +
			(uint64_t)((int64_t)s->y2 * stride + (int64_t)s->x2 * bytes);
	for (int64_t k = d / 2 + 1; k > 0; k--) {
		if (wide) {
			*(uint32_t *)(bits + (uint32_t)v1) = pixel;
			*(uint32_t *)(bits + (uint32_t)v2) = pixel;
		} else {
			bits[(uint32_t)v1] = (uint8_t)pixel;
			bits[(uint32_t)v2] = (uint8_t)pixel;
		}
		const uint64_t t1 = v1 + straight1, t2 = v2 + straight2;
		v1 = (int64_t)t1 < 0 ? t1 : t1 + turn1;
		v2 = (int64_t)t2 < 0 ? t2 : t2 + turn2;
	}
	/* as thin_segment: the pixels, and the walk as much again */
	return 2 * (uint64_t)(d + 1);
}

/* Whether every byte offset of the paint's target is below 2^32, as
 * thin_ends_inside needs (any target up to 16384 x 16384 pixels with
 * rows of at most 4 * 16384 bytes). */
static bool thin_packed_ok(const struct paint *p)
{
	return (uint64_t)p->stride * (uint64_t)p->height <= (uint64_t)1 << 32;
}

/* Segments per unit of work, as SMALL_RECTS_PER_UNIT: a short segment
 * costs a few tens of ns, about a unit; one per segment read the clock
 * every 64 of them, 3% of the time of 10-pixel segments (perf, seg10 at
 * x11perf's batching). Long ones are charged their pixels as ever. */
#define SEGMENTS_PER_UNIT 4u

/*
 * The segments of a direct paint from resume->element on, each one with
 * both end points inside the extents by thin_ends_inside, any other by
 * thin_segment. Always inlined with constant `wide`.
 */
static inline __attribute__((always_inline)) int thin_segments_direct(struct smt_exec_ctx *ctx,
		struct paint *p, const struct smt_drawable *dst, const struct smt_segment *s,
		uint32_t n, struct smt_resume *resume, struct charge_mirror *c,
		const pixman_box32_t ext, const u32x4 lo, const u32x4 size, const bool wide)
{
	uint8_t *const bits = p->bits;
	const int64_t stride = p->stride;
	const uint32_t pixel = p->pixel;
	for (uint32_t i = resume->element; i < n; i++) {
		uint64_t px = !lanes_any(segment_outside(&s[i], lo, size)) ?
				thin_ends_inside(bits, stride, pixel, &s[i], wide) :
				thin_segment(ctx, p, dst, &s[i], ext, true);
		if (charge_mirror_add(ctx, c, i % SEGMENTS_PER_UNIT == 0, px) && i + 1 < n) {
			resume->element = i + 1;
			return EXEC_PARTIAL;
		}
	}
	return 0;
}

/* Segments, and pixels (walked and stored), after which
 * thin_segments_inside charges the budget: 16 segments of 10 pixels take
 * a few hundred ns, as a chunk of points (POINTS_CHUNK). */
#define SEGMENTS_CHUNK 16u
#define SEGMENTS_CHUNK_PIXELS 4096u

/*
 * The segments of a direct paint from resume->element on, all found
 * inside the extents by the caller (one pass of segment_outside over the
 * array): none is tested again, and the budget is charged once per chunk
 * (its counters out of the loop that walks, which keeps the walk's values
 * in registers). Always inlined with constant `wide`.
 */
static inline __attribute__((always_inline)) int thin_segments_inside(struct smt_exec_ctx *ctx,
		const struct paint *p, const struct smt_segment *s, uint32_t n,
		struct smt_resume *resume, struct charge_mirror *c, const bool wide)
{
	uint8_t *const bits = p->bits;
	const int64_t stride = p->stride;
	const uint32_t pixel = p->pixel;
	for (uint32_t i = resume->element; i < n;) {
		const uint32_t from = i, end = n - i > SEGMENTS_CHUNK ? i + SEGMENTS_CHUNK : n;
		uint64_t px = 0;
		while (i < end && px < SEGMENTS_CHUNK_PIXELS)
			px += thin_ends_inside(bits, stride, pixel, &s[i++], wide);
		if (charge_mirror_add(ctx, c,
				    (i - from + SEGMENTS_PER_UNIT - 1) / SEGMENTS_PER_UNIT, px) &&
				i < n) {
			resume->element = i;
			return EXEC_PARTIAL;
		}
	}
	return 0;
}

int exec_thin_segments(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	struct smt_drawable *dst;
	struct paint p;
	const struct smt_segment *s = d->array;
	uint32_t n = (uint32_t)d->array_len;

	if (exec_target(ctx, &dst) ||
			paint_init(ctx, &p, dst, d->u.segments.op, d->u.segments.colour, false))
		return -1;
	/* The clip's extents and the budget's counters (charge_mirror) are
	 * locals: the pixel stores could alias ctx as far as C knows, and
	 * would reload them per segment. Nothing in thin_segment charges the
	 * budget. */
	const pixman_box32_t ext = ctx->clip.extents;
	struct charge_mirror c;
	int rc = 0;
	charge_mirror_load(ctx, &c);
	if (paint_direct(ctx, &p) && thin_packed_ok(&p) && ext.x1 < ext.x2 && ext.y1 < ext.y2) {
		/* The bounds check of every store of thin_ends_inside: its
		 * segments lie inside the extents, the extents inside the image. */
		assert(ext.x1 >= 0 && ext.y1 >= 0 && ext.x2 <= p.width && ext.y2 <= p.height);
		const u32x4 lo = { (uint32_t)ext.x1, (uint32_t)ext.y1, (uint32_t)ext.x1,
			(uint32_t)ext.y1 };
		const u32x4 size = { (uint32_t)ext.x2 - lo[0], (uint32_t)ext.y2 - lo[1],
			(uint32_t)ext.x2 - lo[0], (uint32_t)ext.y2 - lo[1] };
		u32x4 out = { 0, 0, 0, 0 };
		for (uint32_t i = resume->element; i < n; i++)
			out |= segment_outside(&s[i], lo, size);
		if (!lanes_any(out))
			rc = p.bpp == 32 ? thin_segments_inside(ctx, &p, s, n, resume, &c, true) :
					   thin_segments_inside(ctx, &p, s, n, resume, &c, false);
		else if (p.bpp == 32)
			rc = thin_segments_direct(
					ctx, &p, dst, s, n, resume, &c, ext, lo, size, true);
		else
			rc = thin_segments_direct(
					ctx, &p, dst, s, n, resume, &c, ext, lo, size, false);
	} else {
		const bool direct = paint_direct(ctx, &p);
		for (uint32_t i = resume->element; i < n; i++) {
			uint64_t px = direct ? thin_segment(ctx, &p, dst, &s[i], ext, true) :
					       thin_segment(ctx, &p, dst, &s[i], ext, false);
			if (charge_mirror_add(ctx, &c, i % SEGMENTS_PER_UNIT == 0, px) &&
					i + 1 < n) {
				resume->element = i + 1;
				rc = EXEC_PARTIAL;
				break;
			}
		}
	}
	charge_mirror_store(ctx, &c);
	paint_fini(&p);
	return rc;
}

/*
 * The run: each command decoded from the run's private copy, then drawn
 * with the target looked up once, the paint kept while op and colour are
 * equal, and through a clip of one rectangle the budget's counters kept
 * in locals across commands (charge_mirror: the same decisions at the
 * same points as exec_charge per command); no peek, dispatch or consume
 * per command. The same faults in the same order (a bad command's own,
 * after the ones before it drew; a bad header after the run only once
 * they all ran); a budget stop after a command, or inside one, which is
 * then held pending as peek would leave it.
 */
int exec_fill_rects_run(struct smt_exec_ctx *ctx, struct smt_ring_reader *r,
		struct smt_exec_result *out, uint32_t max, uint64_t max_bytes, struct smt_fault *f)
{
	struct smt_drawable *dst;
	struct smt_cmd_run run;
	struct smt_fault frame_fault;
	if (exec_target(ctx, &dst)) /* the last command had one */
		return 0;
	smt_ring_reader_frame_run(r, SMT_OP_FILL_RECTS, max, max_bytes, &run, &frame_fault);
	if (run.count == 0 && !run.bad)
		return 0;

	const bool one_box = ctx->clip.data == NULL;
	const uint8_t *ctl = run.ctl;
	uint64_t done = 0; /* bytes of the commands run */
	uint32_t k = 0, op = 0, colour = 0;
	struct paint p = { .solid = NULL };
	bool painted = false;
	struct charge_mirror c;
	int rc = 0;
	ctx->fault.code = SMT_ERROR_NONE;
	charge_mirror_load(ctx, &c);
	for (; k < run.count; k++) {
		struct smt_cmd_header h;
		memcpy(&h, ctl + done, sizeof(h));
		const struct smt_cmd cmd = {
			.opcode = h.opcode,
			.size = h.size,
			.offset = run.offset + done,
			.ctl = ctl + done,
			.ctl_len = h.size,
		};
		struct smt_decoded d;
		if (smt_decode(&cmd, &d, f) < 0) {
			rc = -1;
			break;
		}
		if (!painted || d.u.fill.op != op || d.u.fill.colour != colour) {
			paint_fini(&p);
			op = d.u.fill.op;
			colour = d.u.fill.colour;
			painted = paint_set(ctx, &p, dst, op, colour, false) == 0;
			if (!painted) {
				*f = ctx->fault;
				f->opcode = cmd.opcode;
				f->offset = cmd.offset;
				rc = -1;
				break;
			}
		}
		struct smt_resume resume = { 0, 0 };
		int drawn;
		if (one_box) {
			drawn = fill_rects_one_box(
					ctx, &p, dst, d.array, (uint32_t)d.array_len, &resume, &c);
		} else {
			charge_mirror_store(ctx, &c);
			drawn = fill_rects_painted(ctx, &p, dst, &d, &resume);
			charge_mirror_load(ctx, &c);
		}
		if (drawn == EXEC_PARTIAL) {
			charge_mirror_store(ctx, &c);
			out->commands += k;
			out->bytes += done;
			smt_ring_reader_consume_run(r, k, done);
			smt_ring_reader_hold(r, &cmd, resume);
			paint_fini(&p);
			return EXEC_PARTIAL;
		}
		done += h.size;
		if (charge_mirror_add(ctx, &c, 1, 0)) { /* exec_charge(ctx, 0) */
			k++;
			rc = EXEC_PARTIAL;
			break;
		}
	}
	charge_mirror_store(ctx, &c);
	paint_fini(&p);
	out->commands += k;
	out->bytes += done;
	smt_ring_reader_consume_run(r, k, done);
	if (rc == 0 && run.bad) {
		*f = frame_fault;
		rc = -1;
	}
	return rc;
}
