/*
 * Security-critical: the second line of defence against a hostile client,
 * after ring_reader.c. It defends the executor and pixman from values no
 * honest client sends: every size is checked exactly against its element
 * count (no read past the private copy), reserved fields and flags must be
 * zero, ops/formats/colours/line widths are from the known sets, strides
 * are bounded, and every coordinate is within +-SMT_COORD_MAX so later
 * arithmetic cannot overflow int64. A command is refused whole, with an
 * error naming its opcode and offset, before any pixel is touched
 * (command_decode.h).
 *
 * One decode_<fixed>
 * function per row of the opcode table (smt-ring.h) does that opcode's
 * checks; the table gives the fixed part and element size, smt_decode the
 * order: fixed length, exact size against the count, then field checks.
 */
#include "compositor/exec/command_decode.h"
#include "compositor/exec/u32_lanes.h"

#include <stdbool.h>
#include <string.h>

static int bad(struct smt_fault *f, const struct smt_cmd *c, uint32_t code, const char *what,
		uint32_t index)
{
	f->code = code;
	f->opcode = c->opcode;
	f->offset = c->offset;
	f->what = what;
	f->index = index;
	return -1;
}

/* Every fixed part fits the decoded view (smt_decode copies it there). */
#define FITS_(name, number, fixed, element, copy)                                             \
	static_assert(sizeof(struct smt_cmd_##fixed) <= sizeof(((struct smt_decoded *)0)->u), \
			"smt_decoded.u holds struct smt_cmd_" #fixed);
SMT_OPCODES(FITS_)
#undef FITS_

static inline __attribute__((always_inline)) int colour_ok(uint32_t c)
{
	uint32_t a = c >> 24;
	return ((c >> 16) & 0xff) <= a && ((c >> 8) & 0xff) <= a && (c & 0xff) <= a;
}

static inline __attribute__((always_inline)) int paint_ok(
		const struct smt_cmd *c, struct smt_fault *f, uint32_t op, uint32_t colour)
{
	if (op >= SMT_PAINT_COUNT)
		return bad(f, c, SMT_ERROR_BAD_VALUE, "unknown paint op", UINT32_MAX);
	if (!colour_ok(colour))
		return bad(f, c, SMT_ERROR_BAD_VALUE, "colour not premultiplied", UINT32_MAX);
	return 0;
}

/*
 * Array checks in two passes: one that only says whether any element is
 * bad, then, only for a refused command, the pass that names the first
 * bad element. Both read the private copy, never the client's memory.
 * The first is straight-line vector code (GCC and clang vector
 * extensions, four lanes: SSE2 or NEON): a branch per coordinate cost as
 * much as drawing the dot. Biased by SMT_COORD_MAX, a coordinate is in
 * range iff it is at most 2 * SMT_COORD_MAX as uint32 (a negative one
 * wraps far above).
 */
#define COORD_SPAN (2u * SMT_COORD_MAX)
static_assert(2ull * COORD_SPAN < UINT32_MAX, "two in-range values sum without wrapping");

/* Whether any of n int32 coordinates lies outside +-SMT_COORD_MAX. */
static bool coords_any_bad(const void *words, uint64_t n)
{
	const uint8_t *p = words;
	const u32x4 bias = { SMT_COORD_MAX, SMT_COORD_MAX, SMT_COORD_MAX, SMT_COORD_MAX };
	const u32x4 span = { COORD_SPAN, COORD_SPAN, COORD_SPAN, COORD_SPAN };
	u32x4 any = { 0, 0, 0, 0 };
	uint64_t i = 0;
	for (; i + 4 <= n; i += 4)
		any |= (u32x4)(load_u32x4(p + 4 * i) + bias > span);
	uint32_t tail = 0;
	for (; i < n; i++) {
		uint32_t u;
		memcpy(&u, p + 4 * i, sizeof(u));
		tail |= u + SMT_COORD_MAX > COORD_SPAN;
	}
	return lanes_any(any) || tail;
}

/* Whether any rectangle fails smt_span_ok: biased x, y and width, height
 * are each at most COORD_SPAN, and so are biased x + width and y + height
 * (x + width >= -SMT_COORD_MAX holds already). The second load, 8 bytes
 * on, puts width, height under x, y; its upper lanes (the next rect) are
 * masked off, and it stays inside the array because the last rect is
 * checked on its own. Once each term is in range the sums cannot wrap;
 * if one is not, the rect is refused anyway. */
static bool rects_any_bad(const struct smt_rect *r, uint64_t n)
{
	static_assert(sizeof(struct smt_rect) == 16, "a rect is one vector");
	const uint8_t *p = (const uint8_t *)r;
	const u32x4 bias = { SMT_COORD_MAX, SMT_COORD_MAX, 0, 0 };
	const u32x4 origin = { ~0u, ~0u, 0, 0 };
	const u32x4 span = { COORD_SPAN, COORD_SPAN, COORD_SPAN, COORD_SPAN };
	u32x4 any = { 0, 0, 0, 0 };
	uint64_t i = 0;
	for (; i + 1 < n; i++) {
		u32x4 v = load_u32x4(p + 16 * i) + bias;
		u32x4 size = load_u32x4(p + 16 * i + 8);
		any |= (u32x4)(v > span) | ((u32x4)(v + size > span) & origin);
	}
	if (i < n && !smt_span_ok(r[i].x, r[i].y, r[i].width, r[i].height))
		return true;
	return lanes_any(any);
}

static int rects_ok(
		const struct smt_cmd *c, struct smt_fault *f, const struct smt_rect *r, uint64_t n)
{
	if (!rects_any_bad(r, n))
		return 0;
	for (uint64_t i = 0; i < n; i++)
		if (!smt_span_ok(r[i].x, r[i].y, r[i].width, r[i].height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					"rectangle outside the coordinate range", (uint32_t)i);
	return 0;
}

/* Stride must be 4-aligned (pixman) and hold a row of width pixels. */
static int stride_ok(const struct smt_cmd *c, struct smt_fault *f, uint32_t format, uint32_t stride,
		uint32_t width)
{
	uint32_t bpp = smt_format_bpp(format);
	if (!bpp)
		return bad(f, c, SMT_ERROR_BAD_FORMAT, "unknown format", UINT32_MAX);
	if (stride % 4 || (uint64_t)stride * 8 < (uint64_t)width * bpp)
		return bad(f, c, SMT_ERROR_BAD_STRIDE, "stride unaligned or shorter than a row",
				UINT32_MAX);
	return 0;
}

/* The command is exactly its fixed part and n elements (counts are u32
 * and elements <= 16 bytes, so n * element fits easily in 64 bits); the
 * array is then the private copy after the fixed part. */
static inline __attribute__((always_inline)) int sized(const struct smt_cmd *c,
		struct smt_decoded *d, struct smt_fault *f, uint32_t fixed, uint32_t element,
		uint64_t n)
{
	if (smt_align8(fixed + n * element) != c->size)
		return bad(f, c, SMT_ERROR_BAD_LENGTH, "size does not match the payload's count",
				UINT32_MAX);
	d->array = c->ctl + fixed;
	d->array_len = n;
	return 0;
}

static inline __attribute__((always_inline)) int reserved_zero(
		const struct smt_cmd *c, struct smt_fault *f, uint32_t reserved)
{
	return reserved ? bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX) : 0;
}

/* ---- one function per opcode: (command, view with the fixed part copied,
 * fault, fixed size, element size from the table) ----------------------- */

#define DECODE_ARGS                                                                          \
	const struct smt_cmd *c, struct smt_decoded *d, struct smt_fault *f, uint32_t fixed, \
			uint32_t element

/* NOOP, PAD: framing was all (their payload is never read). */
static int decode_header(DECODE_ARGS)
{
	(void)c;
	(void)d;
	(void)f;
	(void)fixed;
	(void)element;
	return 0;
}

static int decode_create_pixmap(DECODE_ARGS)
{
	const struct smt_cmd_create_pixmap *p = &d->u.create;
	if (sized(c, d, f, fixed, element, 0))
		return -1;
	if (p->id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "id 0", UINT32_MAX);
	if (!smt_format_bpp(p->format))
		return bad(f, c, SMT_ERROR_BAD_FORMAT, "unknown format", UINT32_MAX);
	if (p->width == 0 || p->height == 0)
		return bad(f, c, SMT_ERROR_BAD_VALUE, "empty pixmap", UINT32_MAX);
	if (p->width > SMT_MAX_DIMENSION || p->height > SMT_MAX_DIMENSION)
		return bad(f, c, SMT_ERROR_LIMIT, "pixmap too large", UINT32_MAX);
	return 0;
}

static int decode_free_pixmap(DECODE_ARGS)
{
	if (sized(c, d, f, fixed, element, 0) || reserved_zero(c, f, d->u.free_pixmap.reserved))
		return -1;
	if (d->u.free_pixmap.id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "id 0", UINT32_MAX);
	return 0;
}

static int decode_set_target(DECODE_ARGS)
{
	if (sized(c, d, f, fixed, element, 0))
		return -1;
	return reserved_zero(c, f, d->u.set_target.reserved);
}

static int decode_set_clip(DECODE_ARGS)
{
	if (sized(c, d, f, fixed, element, d->u.set_clip.n_rects) ||
			reserved_zero(c, f, d->u.set_clip.reserved))
		return -1;
	return rects_ok(c, f, d->array, d->array_len);
}

static int decode_fill_rects(DECODE_ARGS)
{
	const struct smt_cmd_fill_rects *p = &d->u.fill;
	if (sized(c, d, f, fixed, element, p->n_rects) || reserved_zero(c, f, p->reserved) ||
			paint_ok(c, f, p->op, p->colour))
		return -1;
	return rects_ok(c, f, d->array, d->array_len);
}

static int decode_points(DECODE_ARGS)
{
	const struct smt_cmd_points *p = &d->u.points;
	if (sized(c, d, f, fixed, element, p->n_points) || reserved_zero(c, f, p->reserved) ||
			paint_ok(c, f, p->op, p->colour))
		return -1;
	const struct smt_point *e = d->array;
	if (!coords_any_bad(e, 2 * d->array_len))
		return 0;
	for (uint32_t n = 0; n < d->array_len; n++)
		if (!smt_coord_ok(e[n].x) || !smt_coord_ok(e[n].y))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					"point outside the coordinate range", n);
	return 0;
}

static int decode_segments(DECODE_ARGS)
{
	const struct smt_cmd_segments *p = &d->u.segments;
	if (sized(c, d, f, fixed, element, p->n_segments) || paint_ok(c, f, p->op, p->colour))
		return -1;
	if (p->line_width > SMT_MAX_LINE_WIDTH)
		return bad(f, c, SMT_ERROR_BAD_VALUE, "line width too large", UINT32_MAX);
	const struct smt_segment *s = d->array;
	if (!coords_any_bad(s, 4 * d->array_len))
		return 0;
	for (uint32_t n = 0; n < d->array_len; n++)
		if (!smt_coord_ok(s[n].x1) || !smt_coord_ok(s[n].y1) || !smt_coord_ok(s[n].x2) ||
				!smt_coord_ok(s[n].y2))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					"segment outside the coordinate range", n);
	return 0;
}

/* The one SMT_COPY_FIXED opcode: the stride is checked before it sizes
 * the pixels, and the pixels stay in source memory (never validated: any
 * bytes are valid pixels). */
static int decode_put_image(DECODE_ARGS)
{
	const struct smt_cmd_put_image *p = &d->u.put;
	if (stride_ok(c, f, p->format, p->stride, p->width) ||
			sized(c, d, f, fixed, element, (uint64_t)p->stride * p->height))
		return -1;
	d->array = c->data + fixed;
	if (!smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
		return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "destination out of range", UINT32_MAX);
	return 0;
}

static int decode_put_image_pool(DECODE_ARGS)
{
	const struct smt_cmd_put_image_pool *p = &d->u.put_pool;
	if (sized(c, d, f, fixed, element, 0) || reserved_zero(c, f, p->reserved) ||
			stride_ok(c, f, p->format, p->stride, p->width))
		return -1;
	if (p->offset % 4)
		return bad(f, c, SMT_ERROR_OUT_OF_BOUNDS, "pool offset not 4-aligned", UINT32_MAX);
	if (!smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
		return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "destination out of range", UINT32_MAX);
	return 0;
}

static int decode_copy_area(DECODE_ARGS)
{
	const struct smt_cmd_copy_area *p = &d->u.copy;
	if (sized(c, d, f, fixed, element, 0) || reserved_zero(c, f, p->reserved))
		return -1;
	if (p->src_id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "source id 0", UINT32_MAX);
	if (!smt_span_ok(p->src_x, p->src_y, p->width, p->height) ||
			!smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
		return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "rectangle out of range", UINT32_MAX);
	return 0;
}

static int decode_composite(DECODE_ARGS)
{
	const struct smt_cmd_composite *p = &d->u.composite;
	if (sized(c, d, f, fixed, element, 0) || reserved_zero(c, f, p->reserved))
		return -1;
	if (p->op >= SMT_PAINT_COUNT)
		return bad(f, c, SMT_ERROR_BAD_VALUE, "unknown paint op", UINT32_MAX);
	if (p->src_id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "source id 0", UINT32_MAX);
	if (!smt_span_ok(p->src_x, p->src_y, p->width, p->height) ||
			!smt_span_ok(p->mask_x, p->mask_y, p->width, p->height) ||
			!smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
		return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "rectangle out of range", UINT32_MAX);
	return 0;
}

static int decode_glyphs(DECODE_ARGS)
{
	const struct smt_cmd_glyphs *g = &d->u.glyphs;
	if (sized(c, d, f, fixed, element, g->n_glyphs) || paint_ok(c, f, g->op, g->colour))
		return -1;
	if (g->atlas_id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "atlas id 0", UINT32_MAX);
	if (!smt_coord_ok(g->origin_x) || !smt_coord_ok(g->origin_y))
		return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "origin out of range", UINT32_MAX);
	const struct smt_glyph *e = d->array;
	for (uint32_t n = 0; n < d->array_len; n++)
		if (!smt_span_ok((int64_t)g->origin_x + e[n].dst_x,
				    (int64_t)g->origin_y + e[n].dst_y, e[n].width, e[n].height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					"glyph outside the coordinate range", n);
	return 0;
}

static int decode_present(DECODE_ARGS)
{
	const struct smt_cmd_present *p = &d->u.present;
	if (sized(c, d, f, fixed, element, p->n_rects) || reserved_zero(c, f, p->reserved))
		return -1;
	if (p->canvas_id == 0)
		return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "canvas id 0", UINT32_MAX);
	return rects_ok(c, f, d->array, d->array_len);
}

static int decode_fence(DECODE_ARGS)
{
	return sized(c, d, f, fixed, element, 0);
}

int smt_decode(const struct smt_cmd *c, struct smt_decoded *d, struct smt_fault *f)
{
	/* No memset of the whole view: each opcode reads only its own struct,
	 * which the copy below fills completely. */
	d->opcode = c->opcode;
	d->array = NULL;
	d->array_len = 0;

	switch (c->opcode) {
#define DECODE_(name, number, fixed_part, element, copy)                                         \
	case SMT_OP_##name: {                                                                    \
		const uint32_t fixed = sizeof(struct smt_cmd_##fixed_part);                      \
		if (copy == SMT_COPY_HEADER)                                                     \
			return 0;                                                                \
		if (c->size < fixed || c->ctl_len < fixed)                                       \
			return bad(f, c, SMT_ERROR_BAD_LENGTH, "shorter than the fixed payload", \
					UINT32_MAX);                                             \
		/* Constant sizes: copied inline, no call; the header and the rest    \
		 * apart, as the reader stored them (ring_reader.c, peek). */          \
		memcpy(&d->u.hdr, c->ctl, sizeof(d->u.hdr));                                     \
		memcpy((uint8_t *)&d->u + sizeof(d->u.hdr), c->ctl + sizeof(d->u.hdr),           \
				fixed - sizeof(d->u.hdr));                                       \
		return decode_##fixed_part(c, d, f, fixed, element);                             \
	}
		SMT_OPCODES(DECODE_)
#undef DECODE_
	default: /* the reader's framing refuses these first */
		return bad(f, c, SMT_ERROR_BAD_OPCODE, "unknown opcode", UINT32_MAX);
	}
}
