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
 */
#include "command_decode.h"

#include <string.h>

static int bad(struct smt_fault *f, const struct smt_cmd *c, uint32_t code,
	       const char *what, uint32_t index)
{
	f->code = code;
	f->opcode = c->opcode;
	f->offset = c->offset;
	f->what = what;
	f->index = index;
	return -1;
}

/* Fixed part and element size of each opcode's payload (fixed parts are
 * whole 32-bit words: smt_decode copies them word by word). */
static const struct { uint32_t fixed, elem; } layout[SMT_OP_COUNT] = {
	[SMT_OP_NOOP] = { 8, 0 },
	[SMT_OP_PAD] = { 8, 0 },
	[SMT_OP_CREATE_PIXMAP] = { sizeof(struct smt_cmd_create_pixmap), 0 },
	[SMT_OP_FREE_PIXMAP] = { sizeof(struct smt_cmd_free_pixmap), 0 },
	[SMT_OP_SET_TARGET] = { sizeof(struct smt_cmd_set_target), 0 },
	[SMT_OP_SET_CLIP] = { sizeof(struct smt_cmd_set_clip), sizeof(struct smt_rect) },
	[SMT_OP_FILL_RECTS] = { sizeof(struct smt_cmd_fill_rects), sizeof(struct smt_rect) },
	[SMT_OP_POINTS] = { sizeof(struct smt_cmd_points), sizeof(struct smt_point) },
	[SMT_OP_SEGMENTS] = { sizeof(struct smt_cmd_segments), sizeof(struct smt_segment) },
	[SMT_OP_PUT_IMAGE] = { sizeof(struct smt_cmd_put_image), 1 },
	[SMT_OP_PUT_IMAGE_POOL] = { sizeof(struct smt_cmd_put_image_pool), 0 },
	[SMT_OP_COPY_AREA] = { sizeof(struct smt_cmd_copy_area), 0 },
	[SMT_OP_COMPOSITE] = { sizeof(struct smt_cmd_composite), 0 },
	[SMT_OP_GLYPHS] = { sizeof(struct smt_cmd_glyphs), sizeof(struct smt_glyph) },
	[SMT_OP_PRESENT] = { sizeof(struct smt_cmd_present), sizeof(struct smt_rect) },
	[SMT_OP_FENCE] = { sizeof(struct smt_cmd_fence), 0 },
};

static int colour_ok(uint32_t c)
{
	uint32_t a = c >> 24;
	return ((c >> 16) & 0xff) <= a && ((c >> 8) & 0xff) <= a && (c & 0xff) <= a;
}

static int paint_ok(const struct smt_cmd *c, struct smt_fault *f, uint32_t op, uint32_t colour)
{
	if (op >= SMT_PAINT_COUNT)
		return bad(f, c, SMT_ERROR_BAD_VALUE, "unknown paint op", UINT32_MAX);
	if (!colour_ok(colour))
		return bad(f, c, SMT_ERROR_BAD_VALUE, "colour not premultiplied", UINT32_MAX);
	return 0;
}

static int rects_ok(const struct smt_cmd *c, struct smt_fault *f,
		    const struct smt_rect *r, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (!smt_span_ok(r[i].x, r[i].y, r[i].width, r[i].height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
				   "rectangle outside the coordinate range", (uint32_t)i);
	return 0;
}

/* Stride must be 4-aligned (pixman) and hold a row of width pixels. */
static int stride_ok(const struct smt_cmd *c, struct smt_fault *f, uint32_t format,
		     uint32_t stride, uint32_t width)
{
	uint32_t bpp = smt_format_bpp(format);
	if (!bpp)
		return bad(f, c, SMT_ERROR_BAD_FORMAT, "unknown format", UINT32_MAX);
	if (stride % 4 || (uint64_t)stride * 8 < (uint64_t)width * bpp)
		return bad(f, c, SMT_ERROR_BAD_STRIDE, "stride unaligned or shorter than a row",
			   UINT32_MAX);
	return 0;
}

static int decode_arrays(const struct smt_cmd *c, struct smt_decoded *d, struct smt_fault *f)
{
	const struct smt_decoded *k = d;     /* read-only from here on */
	uint32_t n;

	switch (c->opcode) {
	case SMT_OP_SET_CLIP:
		return rects_ok(c, f, d->array, d->array_len);
	case SMT_OP_FILL_RECTS:
		if (paint_ok(c, f, k->u.fill.op, k->u.fill.colour))
			return -1;
		return rects_ok(c, f, d->array, d->array_len);
	case SMT_OP_PRESENT:
		if (k->u.present.canvas_id == 0)
			return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "canvas id 0", UINT32_MAX);
		return rects_ok(c, f, d->array, d->array_len);
	case SMT_OP_POINTS: {
		if (paint_ok(c, f, k->u.points.op, k->u.points.colour))
			return -1;
		const struct smt_point *p = d->array;
		for (n = 0; n < d->array_len; n++)
			if (!smt_coord_ok(p[n].x) || !smt_coord_ok(p[n].y))
				return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					   "point outside the coordinate range", n);
		return 0;
	}
	case SMT_OP_SEGMENTS: {
		if (paint_ok(c, f, k->u.segments.op, k->u.segments.colour))
			return -1;
		if (k->u.segments.line_width > SMT_MAX_LINE_WIDTH)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "line width too large", UINT32_MAX);
		const struct smt_segment *s = d->array;
		for (n = 0; n < d->array_len; n++)
			if (!smt_coord_ok(s[n].x1) || !smt_coord_ok(s[n].y1) ||
			    !smt_coord_ok(s[n].x2) || !smt_coord_ok(s[n].y2))
				return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					   "segment outside the coordinate range", n);
		return 0;
	}
	case SMT_OP_GLYPHS: {
		const struct smt_cmd_glyphs *g = &k->u.glyphs;
		if (paint_ok(c, f, g->op, g->colour))
			return -1;
		if (g->atlas_id == 0)
			return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "atlas id 0", UINT32_MAX);
		if (!smt_coord_ok(g->origin_x) || !smt_coord_ok(g->origin_y))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "origin out of range", UINT32_MAX);
		const struct smt_glyph *e = d->array;
		for (n = 0; n < d->array_len; n++)
			if (!smt_span_ok((int64_t)g->origin_x + e[n].dst_x,
					 (int64_t)g->origin_y + e[n].dst_y,
					 e[n].width, e[n].height))
				return bad(f, c, SMT_ERROR_BAD_GEOMETRY,
					   "glyph outside the coordinate range", n);
		return 0;
	}
	default:
		return 0;
	}
}

static int decode_fixed(const struct smt_cmd *c, struct smt_decoded *d, struct smt_fault *f)
{
	switch (c->opcode) {
	case SMT_OP_CREATE_PIXMAP: {
		const struct smt_cmd_create_pixmap *p = &d->u.create;
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
	case SMT_OP_FREE_PIXMAP:
		if (d->u.free_pixmap.reserved)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX);
		if (d->u.free_pixmap.id == 0)
			return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "id 0", UINT32_MAX);
		return 0;
	case SMT_OP_SET_TARGET:
		return d->u.set_target.reserved
			? bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX) : 0;
	case SMT_OP_PUT_IMAGE_POOL: {
		const struct smt_cmd_put_image_pool *p = &d->u.put_pool;
		if (p->reserved)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX);
		if (stride_ok(c, f, p->format, p->stride, p->width))
			return -1;
		if (p->offset % 4)
			return bad(f, c, SMT_ERROR_OUT_OF_BOUNDS, "pool offset not 4-aligned",
				   UINT32_MAX);
		if (!smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "destination out of range",
				   UINT32_MAX);
		return 0;
	}
	case SMT_OP_COPY_AREA: {
		const struct smt_cmd_copy_area *p = &d->u.copy;
		if (p->reserved)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX);
		if (p->src_id == 0)
			return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "source id 0", UINT32_MAX);
		if (!smt_span_ok(p->src_x, p->src_y, p->width, p->height) ||
		    !smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "rectangle out of range",
				   UINT32_MAX);
		return 0;
	}
	case SMT_OP_COMPOSITE: {
		const struct smt_cmd_composite *p = &d->u.composite;
		if (p->reserved)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX);
		if (p->op >= SMT_PAINT_COUNT)
			return bad(f, c, SMT_ERROR_BAD_VALUE, "unknown paint op", UINT32_MAX);
		if (p->src_id == 0)
			return bad(f, c, SMT_ERROR_BAD_DRAWABLE, "source id 0", UINT32_MAX);
		if (!smt_span_ok(p->src_x, p->src_y, p->width, p->height) ||
		    !smt_span_ok(p->mask_x, p->mask_y, p->width, p->height) ||
		    !smt_span_ok(p->dst_x, p->dst_y, p->width, p->height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "rectangle out of range",
				   UINT32_MAX);
		return 0;
	}
	case SMT_OP_SET_CLIP:
	case SMT_OP_FILL_RECTS:
	case SMT_OP_POINTS:
	case SMT_OP_PRESENT:
		/* the u32 after the count is reserved in all four */
		if ((c->opcode == SMT_OP_SET_CLIP && d->u.set_clip.reserved) ||
		    (c->opcode == SMT_OP_FILL_RECTS && d->u.fill.reserved) ||
		    (c->opcode == SMT_OP_POINTS && d->u.points.reserved) ||
		    (c->opcode == SMT_OP_PRESENT && d->u.present.reserved))
			return bad(f, c, SMT_ERROR_BAD_VALUE, "reserved field set", UINT32_MAX);
		return 0;
	default:
		return 0;
	}
}

/* Element count named by the payload (PUT_IMAGE: pixel bytes). */
static uint64_t element_count(const struct smt_decoded *d)
{
	switch (d->opcode) {
	case SMT_OP_SET_CLIP: return d->u.set_clip.n_rects;
	case SMT_OP_FILL_RECTS: return d->u.fill.n_rects;
	case SMT_OP_POINTS: return d->u.points.n_points;
	case SMT_OP_SEGMENTS: return d->u.segments.n_segments;
	case SMT_OP_GLYPHS: return d->u.glyphs.n_glyphs;
	case SMT_OP_PRESENT: return d->u.present.n_rects;
	case SMT_OP_PUT_IMAGE: return (uint64_t)d->u.put.stride * d->u.put.height;
	default: return 0;
	}
}

int smt_decode(const struct smt_cmd *c, struct smt_decoded *d, struct smt_fault *f)
{
	/* No memset of the whole view: each opcode reads only its own struct,
	 * which the memcpy below fills completely (fixed == its size). */
	d->opcode = c->opcode;
	d->array = NULL;
	d->array_len = 0;
	if (c->opcode == SMT_OP_NOOP || c->opcode == SMT_OP_PAD)
		return 0;

	uint32_t fixed = layout[c->opcode].fixed;
	if (c->size < fixed || c->ctl_len < fixed)
		return bad(f, c, SMT_ERROR_BAD_LENGTH, "shorter than the fixed payload",
			   UINT32_MAX);
	/* Word by word: fixed parts are a few words, a libc call costs more. */
	for (uint32_t i = 0; i < fixed; i += 4)
		memcpy((uint8_t *)&d->u + i, c->ctl + i, 4);

	if (c->opcode == SMT_OP_PUT_IMAGE &&
	    stride_ok(c, f, d->u.put.format, d->u.put.stride, d->u.put.width))
		return -1;

	/* Exact size: counts are u32 and elements <= 16 bytes, so n * elem and
	 * stride * height fit easily in 64 bits. */
	uint64_t n = element_count(d);
	uint64_t want = smt_align8(fixed + n * layout[c->opcode].elem);
	if (want != c->size)
		return bad(f, c, SMT_ERROR_BAD_LENGTH, "size does not match the payload's count",
			   UINT32_MAX);
	d->array_len = n;
	if (c->opcode == SMT_OP_PUT_IMAGE) {
		d->array = c->data + fixed;         /* pixels stay in place */
		if (!smt_span_ok(d->u.put.dst_x, d->u.put.dst_y, d->u.put.width,
				 d->u.put.height))
			return bad(f, c, SMT_ERROR_BAD_GEOMETRY, "destination out of range",
				   UINT32_MAX);
		return 0;
	}
	/* Everything else was copied whole (size <= SMT_CMD_CONTROL_MAX). */
	d->array = c->ctl + fixed;
	if (decode_fixed(c, d, f) || decode_arrays(c, d, f))
		return -1;
	return 0;
}
