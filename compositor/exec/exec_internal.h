/*
 * Internals shared by executor.c and the exec_*.c drawing files.
 *
 * Drawing functions return 0 (done), EXEC_PARTIAL (budget used up: *resume
 * holds the next element; the command stays pending) or -1 (ctx->fault set
 * by exec_fail). Every box they hand to pixman has been clipped to the
 * target and the clip region here first, so pixman never sees geometry
 * outside an image (pixman_fill does no bounds checking at all).
 */
#ifndef SMT_EXEC_INTERNAL_H
#define SMT_EXEC_INTERNAL_H

#include <assert.h>
#include <pixman.h>
#include <stdbool.h>
#include <string.h>

#include "compositor/exec/command_decode.h"
#include "compositor/exec/drawable_table.h"
#include "compositor/exec/executor.h"
#include "compositor/exec/pool_view.h"

#define EXEC_PARTIAL 1
#define EXEC_BOX_BATCH 256

struct smt_exec_ctx {
	struct smt_exec_config cfg;
	struct smt_drawable_table drawables;
	struct smt_pool_table pools;

	uint32_t target_id;       /* 0: none */
	pixman_region32_t clip;   /* target bounds (n SET_CLIP rects) */
	pixman_region32_t damage; /* last PRESENT's damage */
	/* What clip's and damage's boxes are charged as memory (up to 256 KiB
	 * each, region_bound.h), held with the ring until the next SET_CLIP,
	 * SET_TARGET or PRESENT replaces them. */
	uint64_t clip_bytes, damage_bytes;

	struct { /* the current run's budget */
		const struct smt_exec_budget *budget;
		uint64_t pixels, pixels_at_check;
		uint32_t since_check;
		bool exhausted;
	} run;

	struct smt_fault fault;
	char limit_message[144]; /* fault.what of a usage refusal */
	bool dead;
	struct smt_exec_error dead_error;

	uint8_t *mask_buf; /* wide-line coverage bands */
	size_t mask_cap;
};

/* src through mask onto dst (dst box x, y, w, h), "clipped to the shape":
 * where the mask is 0 the destination keeps its pixels whatever the
 * operator, as core X wide lines and text do. Render's unbounded operators
 * (SRC, CLEAR, IN, IN_REVERSE, OUT, ATOP_REVERSE) would otherwise clear
 * the whole box around a line or a glyph. Returns -1 without memory. */
int exec_composite_shaped(pixman_op_t op, pixman_image_t *src, pixman_image_t *mask,
		pixman_image_t *dst, int32_t sx, int32_t sy, int32_t mx, int32_t my, int32_t x,
		int32_t y, int32_t w, int32_t h);

/* Set ctx->fault (code, what, element index); returns -1. */
int exec_fail(struct smt_exec_ctx *ctx, uint32_t code, const char *what, uint32_t index);
/* Read the clock every this many work units or pixels, not per command:
 * CLOCK_MONOTONIC via the vDSO is cheap, but not free. */
#define EXEC_CLOCK_EVERY 64u
#define EXEC_CLOCK_PIXELS (1u << 18)

/* The clock read of exec_charge, out of line (rare). */
bool exec_charge_clock(struct smt_exec_ctx *ctx);

/* Account pixels and `units` units of work; true once the budget is used
 * up. Inline: it runs once per element. */
static inline bool exec_charge_units(struct smt_exec_ctx *ctx, uint32_t units, uint64_t pixels)
{
	const struct smt_exec_budget *b = ctx->run.budget;
	ctx->run.pixels += pixels;
	ctx->run.since_check += units;
	if (ctx->run.exhausted)
		return true;
	if (b->max_pixels && ctx->run.pixels >= b->max_pixels)
		return ctx->run.exhausted = true;
	if (!b->deadline_ns ||
			(ctx->run.since_check < EXEC_CLOCK_EVERY &&
					ctx->run.pixels - ctx->run.pixels_at_check <
							EXEC_CLOCK_PIXELS))
		return false;
	return exec_charge_clock(ctx);
}

/* Account pixels (and one unit of work); true once the budget is used up. */
static inline bool exec_charge(struct smt_exec_ctx *ctx, uint64_t pixels)
{
	return exec_charge_units(ctx, 1, pixels);
}

/*
 * exec_charge_units for a loop whose stores (pixels of the target) could
 * alias ctx as far as C knows, which would make it reload and store
 * ctx->run per element: the counters are mirrored in locals, with the
 * first values at which exec_charge_units could answer anything but
 * "not yet" (stop, since_stop). Below both the answer is false (not
 * exhausted, under max_pixels, no clock read due); at or past either,
 * the counters go back to ctx and exec_charge_units itself decides, with
 * nothing more to add: the same decision, at the same element, as a
 * call per element. charge_mirror_store before anything else charges.
 */
struct charge_mirror {
	uint64_t pixels, stop;
	uint32_t since, since_stop;
};

static inline void charge_mirror_load(const struct smt_exec_ctx *ctx, struct charge_mirror *c)
{
	const struct smt_exec_budget *b = ctx->run.budget;
	c->pixels = ctx->run.pixels;
	c->since = ctx->run.since_check;
	c->stop = ctx->run.exhausted ? 0 : UINT64_MAX;
	c->since_stop = UINT32_MAX;
	if (b->max_pixels && b->max_pixels < c->stop)
		c->stop = b->max_pixels;
	if (b->deadline_ns) {
		if (ctx->run.pixels_at_check + EXEC_CLOCK_PIXELS < c->stop)
			c->stop = ctx->run.pixels_at_check + EXEC_CLOCK_PIXELS;
		c->since_stop = EXEC_CLOCK_EVERY;
	}
}

static inline void charge_mirror_store(struct smt_exec_ctx *ctx, const struct charge_mirror *c)
{
	ctx->run.pixels = c->pixels;
	ctx->run.since_check = c->since;
}

static inline bool charge_mirror_add(
		struct smt_exec_ctx *ctx, struct charge_mirror *c, uint32_t units, uint64_t pixels)
{
	c->pixels += pixels;
	c->since += units;
	if (c->pixels < c->stop && c->since < c->since_stop)
		return false;
	charge_mirror_store(ctx, c);
	bool out = exec_charge_units(ctx, 0, 0);
	charge_mirror_load(ctx, c);
	return out;
}

int exec_no_target(struct smt_exec_ctx *ctx);
/* The target image, or -1 with NO_TARGET. Inline: once per command. */
static inline int exec_target(struct smt_exec_ctx *ctx, struct smt_drawable **out)
{
	*out = smt_drawables_get(&ctx->drawables, ctx->target_id);
	return *out ? 0 : exec_no_target(ctx);
}

/* Iterate the pieces of `box` inside the clip region (already within the
 * target). Region rectangles are y-sorted, so stop at the first band below. */
struct clip_iter {
	const pixman_box32_t *r, *end;
	pixman_box32_t box;
};
static inline void clip_iter_init(struct clip_iter *it, pixman_region32_t *clip, int64_t x1,
		int64_t y1, int64_t x2, int64_t y2)
{
	int n = 0;
	it->r = pixman_region32_rectangles(clip, &n);
	it->end = it->r + n;
	/* Inputs are within +-2^29 (decoder limits: +-2^28 plus extents),
	 * so they fit int32. */
	it->box = (pixman_box32_t){ (int32_t)x1, (int32_t)y1, (int32_t)x2, (int32_t)y2 };
}
static inline bool clip_iter_next(struct clip_iter *it, pixman_box32_t *out)
{
	while (it->r < it->end) {
		const pixman_box32_t *c = it->r++;
		if (c->y1 >= it->box.y2) {
			it->r = it->end;
			break;
		}
		pixman_box32_t b = {
			c->x1 > it->box.x1 ? c->x1 : it->box.x1,
			c->y1 > it->box.y1 ? c->y1 : it->box.y1,
			c->x2 < it->box.x2 ? c->x2 : it->box.x2,
			c->y2 < it->box.y2 ? c->y2 : it->box.y2,
		};
		if (b.x1 < b.x2 && b.y1 < b.y2) {
			*out = b;
			return true;
		}
	}
	return false;
}
/* Last line of defence: every box handed to pixman as a destination lies
 * inside the image. A failure is an executor bug, never a client error;
 * aborting beats corrupting the compositor's heap (pixman does not check). */
static inline void assert_in_image(pixman_image_t *img, const pixman_box32_t *b)
{
	assert(b->x1 >= 0 && b->y1 >= 0 && b->x1 < b->x2 && b->y1 < b->y2 &&
			b->x2 <= pixman_image_get_width(img) &&
			b->y2 <= pixman_image_get_height(img));
	(void)img;
	(void)b;
}

static inline uint64_t box_area(const pixman_box32_t *b)
{
	return (uint64_t)(b->x2 - b->x1) * (uint64_t)(b->y2 - b->y1);
}

/*
 * Bands: a big rectangle is drawn a band of rows at a time, and the budget
 * is charged after each band, so a slice can end inside one element (one
 * FILL_RECTS rectangle over a 16384x16384 target is a quarter of a billion
 * pixels). resume->row counts the rows done, in the order they are drawn;
 * every band starts and ends on whole rows of the same grid whether or not
 * the work is split, so the pixels are exactly those of an unsplit run.
 * Small rectangles are one band: no extra cost per element.
 */
#define EXEC_BAND_PIXELS (1u << 18)

struct band_iter {
	int64_t top, bottom, rows, done;
	bool reverse; /* bottom band first */
};

/* The rows [y1, y2) of the box that lie inside the clip extents; false if
 * none (or no column) does. done: rows already drawn. */
static inline bool band_begin(struct smt_exec_ctx *ctx, struct band_iter *b, int64_t x1, int64_t y1,
		int64_t x2, int64_t y2, uint32_t done, bool reverse)
{
	/* The extents field, not pixman_region32_extents(): a call per
	 * element through the PLT for a field read. */
	const pixman_box32_t *e = &ctx->clip.extents;
	int64_t left = x1 > e->x1 ? x1 : e->x1, right = x2 < e->x2 ? x2 : e->x2;
	b->top = y1 > e->y1 ? y1 : e->y1;
	b->bottom = y2 < e->y2 ? y2 : e->y2;
	if (left >= right || b->top >= b->bottom)
		return false;
	int64_t w = right - left, h = b->bottom - b->top;
	/* A box of at most EXEC_BAND_PIXELS is one band: h <= floor(B / w)
	 * iff h * w <= B, so rows = h draws exactly the same band without
	 * the 64-bit division (a third of a 1x1 rectangle's time). */
	if (h * w <= (int64_t)EXEC_BAND_PIXELS)
		b->rows = h;
	else
		b->rows = w >= EXEC_BAND_PIXELS ? 1 : EXEC_BAND_PIXELS / w;
	b->done = done;
	b->reverse = reverse;
	return true;
}

/* The next band [*from, *to); false when every row is done. */
static inline bool band_next(struct band_iter *b, int64_t *from, int64_t *to)
{
	int64_t left = b->bottom - b->top - b->done;
	if (left <= 0)
		return false;
	int64_t n = left < b->rows ? left : b->rows;
	if (b->reverse) {
		*to = b->bottom - b->done;
		*from = *to - n;
	} else {
		*from = b->top + b->done;
		*to = *from + n;
	}
	b->done += n;
	return true;
}

/* After a band of px pixels: true when the budget is used up and rows are
 * left (resume->row saved; the caller returns EXEC_PARTIAL). */
static inline bool band_stop(struct smt_exec_ctx *ctx, struct band_iter *b, uint64_t px,
		struct smt_resume *resume)
{
	if (!exec_charge(ctx, px) || b->done >= b->bottom - b->top)
		return false;
	resume->row = (uint32_t)b->done;
	return true;
}

/* A solid paint (FILL_RECTS, POINTS, SEGMENTS, GLYPHS). */
struct paint {
	pixman_op_t op;
	pixman_image_t *solid;
	bool use_fill; /* SRC-equivalent: store the pixel */
	uint32_t pixel;
	uint32_t colour; /* premultiplied ARGB (CLEAR: 0) */
	/* The destination's bits, read once per command (not per box). */
	uint8_t *bits;
	int32_t stride; /* bytes */
	int32_t bpp;
	int32_t width, height;
};
/* need_solid: the caller composites with p->solid itself (masks). */
int paint_init(struct smt_exec_ctx *ctx, struct paint *p, const struct smt_drawable *dst,
		uint32_t op, uint32_t colour, bool need_solid);
void paint_fini(struct paint *p);
/* A box too wide for paint_box's own stores, or not a plain store. */
void paint_box_pixman(struct paint *p, const struct smt_drawable *dst, const pixman_box32_t *b);

/* Narrow boxes (dots, thin lines, small rectangles) are stored here
 * directly: pixman_fill's dispatch costs more than the pixels. */
#define PAINT_DIRECT_WIDTH 16

/* Paint one box already inside the clip. */
static inline void paint_box(
		struct paint *p, const struct smt_drawable *dst, const pixman_box32_t *b)
{
	/* The last line of defence, as assert_in_image, against the size
	 * read at paint_init from the same image. */
	assert(b->x1 >= 0 && b->y1 >= 0 && b->x1 < b->x2 && b->y1 < b->y2 && b->x2 <= p->width &&
			b->y2 <= p->height);
	int32_t w = b->x2 - b->x1;
	if (!p->use_fill || w > PAINT_DIRECT_WIDTH || (p->bpp != 32 && p->bpp != 8)) {
		paint_box_pixman(p, dst, b);
		return;
	}
	/* Locals: the stores below could alias *p as far as C knows. */
	const uint32_t pixel = p->pixel;
	const size_t stride = (size_t)p->stride;
	uint8_t *row = p->bits + (size_t)b->y1 * stride;
	if (p->bpp == 32) {
		for (int32_t y = b->y1; y < b->y2; y++, row += stride) {
			uint32_t *px = (uint32_t *)row + b->x1;
			for (int32_t x = 0; x < w; x++)
				px[x] = pixel;
		}
	} else {
		for (int32_t y = b->y1; y < b->y2; y++, row += stride)
			memset(row + b->x1, (int)(uint8_t)pixel, (size_t)w);
	}
}

/* Plain stores are enough: an SRC-like paint into an 8 or 32 bpp image
 * through a clip of one rectangle (its extents). */
static inline bool paint_direct(const struct smt_exec_ctx *ctx, const struct paint *p)
{
	return p->use_fill && (p->bpp == 32 || p->bpp == 8) && ctx->clip.data == NULL;
}

uint64_t paint_clipped_region(struct smt_exec_ctx *ctx, struct paint *p,
		const struct smt_drawable *dst, int64_t x1, int64_t y1, int64_t x2, int64_t y2);

/* Paint a box through the clip; returns pixels painted. A clip of one
 * rectangle (no SET_CLIP, or a rectangular one) is just its extents. */
static inline uint64_t paint_clipped(struct smt_exec_ctx *ctx, struct paint *p,
		const struct smt_drawable *dst, int64_t x1, int64_t y1, int64_t x2, int64_t y2)
{
	if (ctx->clip.data != NULL)
		return paint_clipped_region(ctx, p, dst, x1, y1, x2, y2);
	const pixman_box32_t *e = &ctx->clip.extents;
	pixman_box32_t b = {
		(int32_t)(x1 > e->x1 ? x1 : e->x1),
		(int32_t)(y1 > e->y1 ? y1 : e->y1),
		(int32_t)(x2 < e->x2 ? x2 : e->x2),
		(int32_t)(y2 < e->y2 ? y2 : e->y2),
	};
	if (b.x1 >= b.x2 || b.y1 >= b.y2)
		return 0;
	paint_box(p, dst, &b);
	return box_area(&b);
}

/* exec_fill.c */
int exec_fill_rects(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
/* After a FILL_RECTS ran: the small FILL_RECTS right after it, at most max
 * of them and none starting max_bytes or more past the tail, framed in one
 * reader call and run from that copy. Stops, faults and resumes exactly
 * where one command at a time would. Returns 0 (carry on), EXEC_PARTIAL
 * (budget used up; maybe a command left pending) or -1 with *f. */
int exec_fill_rects_run(struct smt_exec_ctx *ctx, struct smt_ring_reader *r,
		struct smt_exec_result *out, uint32_t max, uint64_t max_bytes, struct smt_fault *f);
int exec_points(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
int exec_thin_segments(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
/* exec_lines.c */
int exec_wide_segments(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
/* exec_image.c */
int exec_put_image(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
int exec_put_image_pool(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
int exec_copy_area(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
int exec_composite(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);
int exec_glyphs(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume);

#endif
