/* Image commands: PUT_IMAGE(_POOL), COPY_AREA, COMPOSITE, GLYPHS. */
#include <stdlib.h>
#include <string.h>

#include "compositor/exec/exec_internal.h"

/* Composite src (at sx, sy) onto the dst rectangle through the clip.
 * shaped: a zero mask leaves dst alone whatever the operator (glyphs);
 * otherwise Render's rules (COMPOSITE). */
static uint64_t blit_op(struct smt_exec_ctx *ctx, pixman_op_t op, pixman_image_t *src,
		pixman_image_t *mask, pixman_image_t *dst, int64_t sx, int64_t sy, int64_t mx,
		int64_t my, int64_t dx, int64_t dy, int64_t w, int64_t h, bool shaped)
{
	struct clip_iter it;
	pixman_box32_t b;
	uint64_t px = 0;
	if (w <= 0 || h <= 0)
		return 0;
	clip_iter_init(&it, &ctx->clip, dx, dy, dx + w, dy + h);
	while (clip_iter_next(&it, &b)) {
		assert_in_image(dst, &b);
		/* decoder limits keep every coordinate within +-2^29 */
		if (shaped && mask) {
			if (exec_composite_shaped(op, src, mask, dst, (int32_t)(sx + b.x1 - dx),
					    (int32_t)(sy + b.y1 - dy), (int32_t)(mx + b.x1 - dx),
					    (int32_t)(my + b.y1 - dy), b.x1, b.y1, b.x2 - b.x1,
					    b.y2 - b.y1))
				exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		} else {
			pixman_image_composite32(op, src, mask, dst, (int32_t)(sx + b.x1 - dx),
					(int32_t)(sy + b.y1 - dy), (int32_t)(mx + b.x1 - dx),
					(int32_t)(my + b.y1 - dy), b.x1, b.y1, b.x2 - b.x1,
					b.y2 - b.y1);
		}
		px += box_area(&b);
	}
	return px;
}

static uint64_t blit(struct smt_exec_ctx *ctx, pixman_op_t op, pixman_image_t *src,
		pixman_image_t *mask, pixman_image_t *dst, int64_t sx, int64_t sy, int64_t mx,
		int64_t my, int64_t dx, int64_t dy, int64_t w, int64_t h)
{
	return blit_op(ctx, op, src, mask, dst, sx, sy, mx, my, dx, dy, w, h, false);
}

/* blit_op of the rectangle in bands of rows (band_iter), from resume->row:
 * 0 done, EXEC_PARTIAL, -1 fault. A rectangle with nothing visible still
 * costs one unit of work. */
static int blit_banded(struct smt_exec_ctx *ctx, pixman_op_t op, pixman_image_t *src,
		pixman_image_t *mask, pixman_image_t *dst, int64_t sx, int64_t sy, int64_t mx,
		int64_t my, int64_t dx, int64_t dy, int64_t w, int64_t h, bool shaped,
		struct smt_resume *resume)
{
	struct band_iter b;
	int64_t from, to;
	if (w <= 0 || h <= 0 || !band_begin(ctx, &b, dx, dy, dx + w, dy + h, resume->row, false)) {
		exec_charge(ctx, 0);
		return 0;
	}
	while (band_next(&b, &from, &to)) {
		uint64_t px = blit_op(ctx, op, src, mask, dst, sx, sy + (from - dy), mx,
				my + (from - dy), dx, from, w, to - from, shaped);
		if (ctx->fault.code != SMT_ERROR_NONE)
			return -1;
		if (band_stop(ctx, &b, px, resume))
			return EXEC_PARTIAL;
	}
	resume->row = 0;
	return 0;
}

/* Wrap client pixels (ring or pool memory, read-only to us) for pixman.
 * pixman only reads a source image; the const is cast away for its API. */
static pixman_image_t *wrap_pixels(struct smt_exec_ctx *ctx, uint32_t format, uint32_t w,
		uint32_t h, const uint8_t *pixels, uint32_t stride)
{
	pixman_image_t *img = pixman_image_create_bits(smt_format_to_pixman(format), (int)w, (int)h,
			(uint32_t *)(uintptr_t)pixels, (int)stride);
	if (!img)
		exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
	return img;
}

int exec_put_image(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	const struct smt_cmd_put_image *c = &d->u.put;
	struct smt_drawable *dst;
	if (exec_target(ctx, &dst))
		return -1;
	if (c->width == 0 || c->height == 0)
		return 0;
	/* stride * height == the pixel bytes inside this command (decoder). */
	pixman_image_t *src = wrap_pixels(ctx, c->format, c->width, c->height, d->array, c->stride);
	if (!src)
		return -1;
	int rc = blit_banded(ctx, PIXMAN_OP_SRC, src, NULL, dst->image, 0, 0, 0, 0, c->dst_x,
			c->dst_y, c->width, c->height, false, resume);
	pixman_image_unref(src);
	return rc;
}

/* What a band of a pool image with pages not in the file is read into:
 * on the stack of the thread that runs the ring (main or worker), so no
 * client causes it and no two runs share it. */
#define POOL_BOUNCE_BYTES (32u << 10)

/* A band [from, to) of PUT_IMAGE_POOL read with pread into a bounce
 * buffer, as many rows (or as much of a row) at a time as it holds, only
 * the columns the clip extents can show: a hole reads as zeros and no
 * page is created in the client's file (pool_view.h). 0, or -1 (fault). */
static int put_pool_band_read(struct smt_exec_ctx *ctx, const struct smt_cmd_put_image_pool *c,
		const struct smt_pool_view *pool, struct smt_drawable *dst, int64_t from,
		int64_t to, uint64_t *px)
{
	_Alignas(8) uint8_t bounce[POOL_BOUNCE_BYTES];
	uint32_t bpp = smt_format_bpp(c->format) / 8;
	const pixman_box32_t *e = &ctx->clip.extents;
	int64_t left = c->dst_x > e->x1 ? c->dst_x : e->x1;
	int64_t right = (int64_t)c->dst_x + c->width < e->x2 ? (int64_t)c->dst_x + c->width : e->x2;
	*px = 0;
	uint32_t per_chunk = POOL_BOUNCE_BYTES / bpp; /* pixels of a row at a time */
	for (int64_t x = left; x < right; x += per_chunk) {
		uint32_t w = right - x < per_chunk ? (uint32_t)(right - x) : per_chunk;
		uint32_t row_bytes = (w * bpp + 3u) & ~3u; /* pixman's stride */
		int64_t rows_at_once = POOL_BOUNCE_BYTES / row_bytes;
		for (int64_t y = from; y < to; y += rows_at_once) {
			int64_t n = to - y < rows_at_once ? to - y : rows_at_once;
			uint64_t at = c->offset + (uint64_t)(y - c->dst_y) * c->stride +
					(uint64_t)(x - c->dst_x) * bpp;
			/* Whole rows packed in the pool: one read for all of them. */
			bool packed = (uint64_t)w * bpp == c->stride, read = true;
			if (packed)
				read = smt_pool_view_read(
						pool, at, (uint64_t)n * row_bytes, bounce);
			for (int64_t r = 0; read && !packed && r < n; r++)
				read = smt_pool_view_read(pool, at + (uint64_t)r * c->stride,
						(uint64_t)w * bpp, bounce + r * row_bytes);
			if (!read)
				return exec_fail(ctx, SMT_ERROR_BAD_POOL,
						"the pool's file could not be read", UINT32_MAX);
			pixman_image_t *src = wrap_pixels(
					ctx, c->format, w, (uint32_t)n, bounce, row_bytes);
			if (!src)
				return -1;
			*px += blit(ctx, PIXMAN_OP_SRC, src, NULL, dst->image, 0, 0, 0, 0, x, y, w,
					n);
			pixman_image_unref(src);
		}
	}
	return 0;
}

int exec_put_image_pool(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	const struct smt_cmd_put_image_pool *c = &d->u.put_pool;
	struct smt_drawable *dst;
	if (exec_target(ctx, &dst))
		return -1;
	const struct smt_pool_view *pool = smt_pools_get(&ctx->pools, c->pool_id);
	if (!pool)
		return exec_fail(ctx, SMT_ERROR_BAD_POOL, "unknown pool id", UINT32_MAX);
	const uint8_t *pixels = smt_pool_view_range(pool, c->offset, c->stride, c->height);
	if (!pixels)
		return exec_fail(ctx, SMT_ERROR_OUT_OF_BOUNDS,
				"offset + stride * height beyond the pool", UINT32_MAX);
	/* Only the rows that can reach the clip, a band at a time: a pool
	 * image may be larger than pixman accepts (stride * height > INT_MAX)
	 * and still be fine. Zero copy: pixman reads the client's mapping. */
	struct band_iter b;
	int64_t from, to;
	if (c->width == 0 ||
			!band_begin(ctx, &b, c->dst_x, c->dst_y, (int64_t)c->dst_x + c->width,
					(int64_t)c->dst_y + c->height, resume->row, false)) {
		exec_charge(ctx, 0);
		return 0;
	}
	uint32_t bytes_per_pixel = smt_format_bpp(c->format) / 8;
	while (band_next(&b, &from, &to)) {
		uint64_t row0 = (uint64_t)(from - c->dst_y) * c->stride, px;
		if (smt_pool_view_rows_in_file(pool, c->offset + row0, c->stride,
				    (uint32_t)(to - from), c->width * bytes_per_pixel)) {
			pixman_image_t *src = wrap_pixels(ctx, c->format, c->width,
					(uint32_t)(to - from), pixels + row0, c->stride);
			if (!src)
				return -1;
			px = blit(ctx, PIXMAN_OP_SRC, src, NULL, dst->image, 0, 0, 0, 0, c->dst_x,
					from, c->width, to - from);
			pixman_image_unref(src);
		} else if (put_pool_band_read(ctx, c, pool, dst, from, to, &px) != 0) {
			return -1;
		}
		if (band_stop(ctx, &b, px, resume))
			return EXEC_PARTIAL;
	}
	resume->row = 0;
	return 0;
}

static bool same_bits(const struct smt_drawable *a, const struct smt_drawable *b)
{
	return pixman_image_get_data(a->image) == pixman_image_get_data(b->image);
}

/* A private copy of src's rectangle r, transparent outside src. Used when
 * source and destination share memory: pixman's composite is not defined
 * for overlapping images. With `outside` (COMPOSITE reads beyond the
 * source) XRGB becomes ARGB so "outside" stays transparent instead of
 * turning opaque black; COPY_AREA keeps the format so pixels copy bit-exact. */
static pixman_image_t *snapshot(struct smt_exec_ctx *ctx, const struct smt_drawable *s,
		const pixman_box32_t *r, bool outside)
{
	pixman_format_code_t f = pixman_image_get_format(s->image);
	if (outside && s->format == SMT_FORMAT_XRGB8888)
		f = PIXMAN_a8r8g8b8;
	pixman_image_t *img = pixman_image_create_bits(f, r->x2 - r->x1, r->y2 - r->y1, NULL, 0);
	if (!img) {
		exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		return NULL;
	}
	pixman_image_composite32(PIXMAN_OP_SRC, s->image, NULL, img, r->x1, r->y1, 0, 0, 0, 0,
			r->x2 - r->x1, r->y2 - r->y1);
	return img;
}

/* Same-memory copy of one box: row by row with memmove, rows in the order
 * that never overwrites a row before it was read (scrolls in any direction). */
static void move_box(const struct smt_drawable *d, const pixman_box32_t *b, int64_t ox, int64_t oy)
{
	uint8_t *bits = (uint8_t *)pixman_image_get_data(d->image);
	size_t stride = (size_t)pixman_image_get_stride(d->image);
	size_t bpp = d->format == SMT_FORMAT_A8 ? 1 : 4;
	size_t len = (size_t)(b->x2 - b->x1) * bpp;
	int32_t h = b->y2 - b->y1;
	pixman_box32_t src_box = { (int32_t)(b->x1 + ox), (int32_t)(b->y1 + oy),
		(int32_t)(b->x2 + ox), (int32_t)(b->y2 + oy) };
	assert_in_image(d->image, b);
	assert_in_image(d->image, &src_box);
	(void)src_box;
	for (int32_t i = 0; i < h; i++) {
		int32_t y = oy < 0 ? b->y2 - 1 - i : b->y1 + i; /* moving down: bottom first */
		uint8_t *to = bits + (size_t)y * stride + (size_t)b->x1 * bpp;
		const uint8_t *from = bits + (size_t)(y + oy) * stride + (size_t)(b->x1 + ox) * bpp;
		memmove(to, from, len);
	}
}

/* Same-memory copy through a clip of several boxes, rows [from, to): each
 * destination row reads its source row whole into a row buffer before any
 * box of it is written. Rows go in the direction that reads every source
 * row before it is overwritten (bottom first when moving down), so the
 * result is that of copying from a snapshot, with no snapshot. */
static int move_rows_clipped(struct smt_exec_ctx *ctx, const struct smt_drawable *d, int64_t x1,
		int64_t x2, int64_t from, int64_t to, int64_t ox, int64_t oy, uint64_t *px)
{
	uint8_t *bits = (uint8_t *)pixman_image_get_data(d->image);
	size_t stride = (size_t)pixman_image_get_stride(d->image);
	size_t bpp = d->format == SMT_FORMAT_A8 ? 1 : 4;
	size_t len = (size_t)(x2 - x1) * bpp;
	if (len > ctx->mask_cap) {
		uint8_t *buf = realloc(ctx->mask_buf, len);
		if (!buf)
			return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		ctx->mask_buf = buf;
		ctx->mask_cap = len;
	}
	for (int64_t i = 0; i < to - from; i++) {
		int64_t y = oy < 0 ? to - 1 - i : from + i;
		pixman_box32_t src_row = { (int32_t)(x1 + ox), (int32_t)(y + oy),
			(int32_t)(x2 + ox), (int32_t)(y + oy + 1) };
		assert_in_image(d->image, &src_row);
		(void)src_row;
		memcpy(ctx->mask_buf, bits + (size_t)(y + oy) * stride + (size_t)(x1 + ox) * bpp,
				len);
		struct clip_iter it;
		pixman_box32_t b;
		clip_iter_init(&it, &ctx->clip, x1, y, x2, y + 1);
		while (clip_iter_next(&it, &b)) {
			assert_in_image(d->image, &b);
			memcpy(bits + (size_t)y * stride + (size_t)b.x1 * bpp,
					ctx->mask_buf + (size_t)(b.x1 - x1) * bpp,
					(size_t)(b.x2 - b.x1) * bpp);
			*px += box_area(&b);
		}
	}
	return 0;
}

int exec_copy_area(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	const struct smt_cmd_copy_area *c = &d->u.copy;
	struct smt_drawable *dst, *src;
	if (exec_target(ctx, &dst))
		return -1;
	if (!(src = smt_drawables_get(&ctx->drawables, c->src_id)))
		return exec_fail(
				ctx, SMT_ERROR_BAD_DRAWABLE, "unknown source drawable", UINT32_MAX);
	/* X semantics: only the part of the source inside src is copied; the
	 * rest of the destination is left alone. ox/oy: src minus dst. */
	int64_t ox = (int64_t)c->src_x - c->dst_x, oy = (int64_t)c->src_y - c->dst_y;
	int64_t x1 = c->dst_x > -ox ? c->dst_x : -ox;
	int64_t y1 = c->dst_y > -oy ? c->dst_y : -oy;
	int64_t x2 = (int64_t)c->dst_x + c->width, y2 = (int64_t)c->dst_y + c->height;
	if (x2 > src->width - ox)
		x2 = src->width - ox;
	if (y2 > src->height - oy)
		y2 = src->height - oy;
	if (x1 >= x2 || y1 >= y2) {
		exec_charge(ctx, 0);
		return 0;
	}
	if (!same_bits(src, dst))
		return blit_banded(ctx, PIXMAN_OP_SRC, src->image, NULL, dst->image, x1 + ox,
				y1 + oy, 0, 0, x1, y1, x2 - x1, y2 - y1, false, resume);

	/* One memory (scrolling): bands in the order that never overwrites a
	 * row before it was read, bottom first when moving down. */
	struct band_iter b;
	int64_t from, to;
	bool one_box = pixman_region32_n_rects(&ctx->clip) <= 1;
	if (!band_begin(ctx, &b, x1, y1, x2, y2, resume->row, oy < 0)) {
		exec_charge(ctx, 0);
		return 0;
	}
	const pixman_box32_t *e = pixman_region32_extents(&ctx->clip);
	int64_t left = x1 > e->x1 ? x1 : e->x1, right = x2 < e->x2 ? x2 : e->x2;
	while (band_next(&b, &from, &to)) {
		uint64_t px = 0;
		if (one_box) {
			struct clip_iter it;
			pixman_box32_t box;
			clip_iter_init(&it, &ctx->clip, x1, from, x2, to);
			while (clip_iter_next(&it, &box)) {
				move_box(dst, &box, ox, oy);
				px += box_area(&box);
			}
		} else if (move_rows_clipped(ctx, dst, left, right, from, to, ox, oy, &px) < 0) {
			return -1;
		}
		if (band_stop(ctx, &b, px, resume))
			return EXEC_PARTIAL;
	}
	resume->row = 0;
	return 0;
}

int exec_composite(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	const struct smt_cmd_composite *c = &d->u.composite;
	struct smt_drawable *dst, *src, *mask = NULL;
	if (exec_target(ctx, &dst))
		return -1;
	if (!(src = smt_drawables_get(&ctx->drawables, c->src_id)))
		return exec_fail(
				ctx, SMT_ERROR_BAD_DRAWABLE, "unknown source drawable", UINT32_MAX);
	if (c->mask_id) {
		if (!(mask = smt_drawables_get(&ctx->drawables, c->mask_id)))
			return exec_fail(ctx, SMT_ERROR_BAD_DRAWABLE, "unknown mask drawable",
					UINT32_MAX);
		if (mask->format != SMT_FORMAT_A8)
			return exec_fail(ctx, SMT_ERROR_BAD_FORMAT, "mask must be A8", UINT32_MAX);
	}
	/* Render semantics: source/mask outside their image are transparent
	 * (pixman REPEAT_NONE), so only the destination needs clipping. */
	int64_t sx = c->src_x, sy = c->src_y, mx = c->mask_x, my = c->mask_y;
	bool src_same = same_bits(src, dst), mask_same = mask && same_bits(mask, dst);
	if (!src_same && !mask_same)
		return blit_banded(ctx, (pixman_op_t)c->op, src->image, mask ? mask->image : NULL,
				dst->image, sx, sy, mx, my, c->dst_x, c->dst_y, c->width, c->height,
				false, resume);

	/* Reading the memory it writes: each band's source (and mask) rows are
	 * copied first (pixman's composite is not defined for overlapping
	 * images), and bands go in the order that reads rows before they are
	 * overwritten. A source and a mask in the target memory that move in
	 * opposite directions have no such order: then one band does it all. */
	int64_t src_dy = sy - c->dst_y, mask_dy = my - c->dst_y;
	bool reverse = src_same ? src_dy < 0 : mask_dy < 0;
	bool conflict = src_same && mask_same &&
			((src_dy < 0 && mask_dy > 0) || (src_dy > 0 && mask_dy < 0));
	struct band_iter b;
	int64_t from, to;
	if (!band_begin(ctx, &b, c->dst_x, c->dst_y, (int64_t)c->dst_x + c->width,
			    (int64_t)c->dst_y + c->height, resume->row, reverse)) {
		exec_charge(ctx, 0);
		return 0;
	}
	if (conflict)
		b.rows = b.bottom - b.top;
	const pixman_box32_t *e = pixman_region32_extents(&ctx->clip);
	int64_t x1 = c->dst_x > e->x1 ? c->dst_x : e->x1;
	int64_t x2 = (int64_t)c->dst_x + c->width < e->x2 ? (int64_t)c->dst_x + c->width : e->x2;
	while (band_next(&b, &from, &to)) {
		pixman_image_t *simg = src->image, *mimg = mask ? mask->image : NULL;
		pixman_image_t *stmp = NULL, *mtmp = NULL;
		int64_t bsx = sx + (x1 - c->dst_x), bsy = sy + (from - c->dst_y);
		int64_t bmx = mx + (x1 - c->dst_x), bmy = my + (from - c->dst_y);
		if (src_same) {
			pixman_box32_t r = { (int32_t)bsx, (int32_t)bsy, (int32_t)(bsx + x2 - x1),
				(int32_t)(bsy + to - from) };
			if (!(simg = stmp = snapshot(ctx, src, &r, true)))
				return -1;
			bsx = bsy = 0;
		}
		if (mask_same) {
			pixman_box32_t r = { (int32_t)bmx, (int32_t)bmy, (int32_t)(bmx + x2 - x1),
				(int32_t)(bmy + to - from) };
			if (!(mimg = mtmp = snapshot(ctx, mask, &r, true))) {
				if (stmp)
					pixman_image_unref(stmp);
				return -1;
			}
			bmx = bmy = 0;
		}
		uint64_t px = blit(ctx, (pixman_op_t)c->op, simg, mimg, dst->image, bsx, bsy, bmx,
				bmy, x1, from, x2 - x1, to - from);
		if (stmp)
			pixman_image_unref(stmp);
		if (mtmp)
			pixman_image_unref(mtmp);
		if (band_stop(ctx, &b, px, resume))
			return EXEC_PARTIAL;
	}
	resume->row = 0;
	return 0;
}

/* pixman's MUL_UN8 on each of the four bytes of x: x * a / 255, rounded
 * as pixman rounds (pixman-combine32.h). */
static inline uint32_t un8x4_mul_un8(uint32_t x, uint32_t a)
{
	uint32_t rb = (x & 0xff00ffu) * a + 0x800080u;
	uint32_t ag = ((x >> 8) & 0xff00ffu) * a + 0x800080u;
	rb = ((rb + ((rb >> 8) & 0xff00ffu)) >> 8) & 0xff00ffu;
	ag = ((ag + ((ag >> 8) & 0xff00ffu)) >> 8) & 0xff00ffu;
	return rb | ag << 8;
}

/* Bytewise saturating x + y. */
static inline uint32_t un8x4_add_sat(uint32_t x, uint32_t y)
{
	uint32_t rb = (x & 0xff00ffu) + (y & 0xff00ffu);
	uint32_t ag = ((x >> 8) & 0xff00ffu) + ((y >> 8) & 0xff00ffu);
	rb |= 0x1000100u - ((rb >> 8) & 0xff00ffu);
	ag |= 0x1000100u - ((ag >> 8) & 0xff00ffu);
	return (rb & 0xff00ffu) | (ag & 0xff00ffu) << 8;
}

/* Glyphs of at most this many pixels are drawn by glyph_over_direct. */
#define GLYPH_DIRECT_PIXELS 4096

/*
 * A small glyph, OVER in a solid colour, into a 32 bpp target through a
 * clip of one rectangle: pixman's over_n_8_8888 per pixel, the same
 * arithmetic and rounding (src IN mask, then OVER), without pixman's set-up
 * for a call per glyph, which costs more than the glyph's ~80 pixels.
 * Returns the pixels painted; every store is inside the clip's extents.
 */
static uint64_t glyph_over_direct(const struct smt_exec_ctx *ctx, const struct paint *p,
		const struct smt_drawable *atlas, const struct smt_glyph *g, int64_t x, int64_t y)
{
	const pixman_box32_t *e = &ctx->clip.extents;
	int64_t x1 = x > e->x1 ? x : e->x1, y1 = y > e->y1 ? y : e->y1;
	int64_t x2 = x + g->width < e->x2 ? x + g->width : e->x2;
	int64_t y2 = y + g->height < e->y2 ? y + g->height : e->y2;
	if (x1 >= x2 || y1 >= y2)
		return 0;
	assert(x1 >= 0 && y1 >= 0 && x2 <= p->width && y2 <= p->height);
	const uint32_t src = p->pixel, srca = src >> 24;
	const int64_t w = x2 - x1;
	const uint8_t *mrow = atlas->bits +
			(size_t)(g->atlas_y + (y1 - y)) * (size_t)atlas->stride +
			(size_t)(g->atlas_x + (x1 - x));
	uint8_t *drow = p->bits + (size_t)y1 * (size_t)p->stride + (size_t)x1 * 4;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Up to 8 pixels a row (text) whose 8-byte load stays inside the
	 * atlas's row: the row's mask in one word, and only its non-zero
	 * bytes visited (a glyph's ink moves from glyph to glyph, so a branch
	 * per pixel is one the predictor cannot learn). */
	if (w <= 8 && g->atlas_x + (x1 - x) + 8 <= (int64_t)atlas->stride) {
		const uint64_t keep = w == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * w)) - 1;
		for (int64_t r = y1; r < y2; r++, mrow += atlas->stride, drow += p->stride) {
			uint32_t *d = (uint32_t *)drow;
			uint64_t m8;
			memcpy(&m8, mrow, sizeof(m8));
			for (m8 &= keep; m8 != 0;) {
				unsigned k = (unsigned)__builtin_ctzll(m8) / 8;
				uint32_t m = (uint32_t)(m8 >> (8 * k)) & 0xff, s;
				m8 &= ~(UINT64_C(0xff) << (8 * k));
				if (m == 0xff && srca == 0xff) {
					d[k] = src;
					continue;
				}
				s = m == 0xff ? src : un8x4_mul_un8(src, m);
				d[k] = un8x4_add_sat(un8x4_mul_un8(d[k], ~s >> 24), s);
			}
		}
		return (uint64_t)w * (uint64_t)(y2 - y1);
	}
#endif
	if (srca == 0xff) {
		/* An opaque colour: a mask byte of 0 keeps the pixel, 0xff stores
		 * the colour (what the arithmetic below gives for both), chosen
		 * without a branch: masks of bitmap fonts are nothing else, and
		 * a branch on each byte was mispredicted at every edge. */
		for (int64_t r = y1; r < y2; r++, mrow += atlas->stride, drow += p->stride) {
			uint32_t *d = (uint32_t *)drow;
			for (int64_t i = 0; i < w; i++) {
				uint32_t m = mrow[i], keep = d[i];
				if (m - 1 < 0xfe) {
					uint32_t s = un8x4_mul_un8(src, m);
					d[i] = un8x4_add_sat(un8x4_mul_un8(keep, ~s >> 24), s);
				} else {
					d[i] = m ? src : keep;
				}
			}
		}
		return (uint64_t)w * (uint64_t)(y2 - y1);
	}
	for (int64_t r = y1; r < y2; r++, mrow += atlas->stride, drow += p->stride) {
		uint32_t *d = (uint32_t *)drow;
		for (int64_t i = 0; i < w; i++) {
			uint32_t m = mrow[i], s;
			if (m == 0)
				continue;
			if (m == 0xff) {
				if (srca == 0xff) {
					d[i] = src;
					continue;
				}
				s = src;
			} else {
				s = un8x4_mul_un8(src, m);
			}
			d[i] = un8x4_add_sat(un8x4_mul_un8(d[i], ~s >> 24), s);
		}
	}
	return (uint64_t)w * (uint64_t)(y2 - y1);
}

/*
 * GLYPHS: each glyph is a rectangle of the client's A8 atlas used as the
 * mask for the paint colour. The atlas already is the glyph cache (the
 * client uploads each glyph once); pixman_glyph_cache would copy glyphs
 * and go stale when the client redraws its atlas.
 */
int exec_glyphs(struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	const struct smt_cmd_glyphs *c = &d->u.glyphs;
	const struct smt_glyph *g = d->array;
	uint32_t n = (uint32_t)d->array_len;
	struct smt_drawable *dst, *atlas;
	struct paint p;

	if (exec_target(ctx, &dst))
		return -1;
	if (!(atlas = smt_drawables_get(&ctx->drawables, c->atlas_id)))
		return exec_fail(ctx, SMT_ERROR_BAD_DRAWABLE, "unknown atlas drawable", UINT32_MAX);
	if (atlas->format != SMT_FORMAT_A8)
		return exec_fail(ctx, SMT_ERROR_BAD_FORMAT, "atlas must be A8", UINT32_MAX);
	/* Check all before drawing any, so a bad command is rejected whole.
	 * Resumed runs check again: socket commands may have run in between
	 * and replaced the atlas. */
	for (uint32_t i = resume->element; i < n; i++)
		if ((int32_t)g[i].atlas_x + g[i].width > atlas->width ||
				(int32_t)g[i].atlas_y + g[i].height > atlas->height)
			return exec_fail(
					ctx, SMT_ERROR_OUT_OF_BOUNDS, "glyph outside the atlas", i);
	/* OVER into 32 bpp through one rectangle (text's common case) is
	 * drawn here; anything else, and glyphs too big for one band, by
	 * pixman. */
	bool direct = c->op == SMT_PAINT_OVER && dst->bpp == 32 && ctx->clip.data == NULL;
	if (paint_init(ctx, &p, dst, c->op, c->colour, true))
		return -1;
	for (uint32_t i = resume->element; i < n; i++) {
		int64_t x = (int64_t)c->origin_x + g[i].dst_x,
			y = (int64_t)c->origin_y + g[i].dst_y;
		if (i != resume->element)
			resume->row = 0;
		if (direct && (uint32_t)g[i].width * g[i].height <= GLYPH_DIRECT_PIXELS) {
			uint64_t px = glyph_over_direct(ctx, &p, atlas, &g[i], x, y);
			if (exec_charge(ctx, px) && i + 1 < n) {
				resume->element = i + 1;
				resume->row = 0;
				paint_fini(&p);
				return EXEC_PARTIAL;
			}
			continue;
		}
		/* A glyph may be as large as its atlas: bands, like any image. */
		int rc = blit_banded(ctx, p.op, p.solid, atlas->image, dst->image, 0, 0,
				g[i].atlas_x, g[i].atlas_y, x, y, g[i].width, g[i].height, true,
				resume);
		if (rc == EXEC_PARTIAL)
			resume->element = i;
		if (rc == 0 && ctx->run.exhausted && i + 1 < n) {
			resume->element = i + 1;
			resume->row = 0;
			rc = EXEC_PARTIAL;
		}
		if (rc != 0) {
			paint_fini(&p);
			return rc;
		}
	}
	paint_fini(&p);
	return 0;
}
