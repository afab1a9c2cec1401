/* Image commands: PUT_IMAGE(_POOL), COPY_AREA, COMPOSITE, GLYPHS. */
#include <string.h>

#include "exec_internal.h"

/* Composite src (at sx, sy) onto the dst rectangle through the clip.
 * shaped: a zero mask leaves dst alone whatever the operator (glyphs);
 * otherwise Render's rules (COMPOSITE). */
static uint64_t blit_op(struct smt_exec_ctx *ctx, pixman_op_t op, pixman_image_t *src,
			pixman_image_t *mask, pixman_image_t *dst, int64_t sx, int64_t sy,
			int64_t mx, int64_t my, int64_t dx, int64_t dy, int64_t w, int64_t h,
			bool shaped)
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
						  (int32_t)(sy + b.y1 - dy),
						  (int32_t)(mx + b.x1 - dx),
						  (int32_t)(my + b.y1 - dy), b.x1, b.y1,
						  b.x2 - b.x1, b.y2 - b.y1))
				exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		} else {
			pixman_image_composite32(op, src, mask, dst,
						 (int32_t)(sx + b.x1 - dx), (int32_t)(sy + b.y1 - dy),
						 (int32_t)(mx + b.x1 - dx), (int32_t)(my + b.y1 - dy),
						 b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1);
		}
		px += box_area(&b);
	}
	return px;
}

static uint64_t blit(struct smt_exec_ctx *ctx, pixman_op_t op, pixman_image_t *src,
		     pixman_image_t *mask, pixman_image_t *dst, int64_t sx, int64_t sy,
		     int64_t mx, int64_t my, int64_t dx, int64_t dy, int64_t w, int64_t h)
{
	return blit_op(ctx, op, src, mask, dst, sx, sy, mx, my, dx, dy, w, h, false);
}

/* Wrap client pixels (ring or pool memory, read-only to us) for pixman.
 * pixman only reads a source image; the const is cast away for its API. */
static pixman_image_t *wrap_pixels(struct smt_exec_ctx *ctx, uint32_t format, uint32_t w,
				   uint32_t h, const uint8_t *pixels, uint32_t stride)
{
	pixman_image_t *img = pixman_image_create_bits(smt_format_to_pixman(format), (int)w,
						       (int)h, (uint32_t *)(uintptr_t)pixels,
						       (int)stride);
	if (!img)
		exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
	return img;
}

int exec_put_image(struct smt_exec_ctx *ctx, const struct smt_decoded *d)
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
	uint64_t px = blit(ctx, PIXMAN_OP_SRC, src, NULL, dst->image, 0, 0, 0, 0,
			   c->dst_x, c->dst_y, c->width, c->height);
	pixman_image_unref(src);
	exec_charge(ctx, px);
	return 0;
}

int exec_put_image_pool(struct smt_exec_ctx *ctx, const struct smt_decoded *d)
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
	/* Only the rows that can reach the clip: a pool image may be larger
	 * than pixman accepts (stride * height > INT_MAX) and still be fine. */
	const pixman_box32_t *e = pixman_region32_extents(&ctx->clip);
	int64_t y1 = c->dst_y > e->y1 ? c->dst_y : e->y1;
	int64_t y2 = (int64_t)c->dst_y + c->height < e->y2 ? (int64_t)c->dst_y + c->height : e->y2;
	if (c->width == 0 || y1 >= y2)
		return 0;
	/* Zero copy: pixman reads straight from the client's pool mapping. */
	pixman_image_t *src = wrap_pixels(ctx, c->format, c->width, (uint32_t)(y2 - y1),
					  pixels + (uint64_t)(y1 - c->dst_y) * c->stride, c->stride);
	if (!src)
		return -1;
	uint64_t px = blit(ctx, PIXMAN_OP_SRC, src, NULL, dst->image, 0, 0, 0, 0,
			   c->dst_x, y1, c->width, y2 - y1);
	pixman_image_unref(src);
	exec_charge(ctx, px);
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
		int32_t y = oy < 0 ? b->y2 - 1 - i : b->y1 + i;   /* moving down: bottom first */
		uint8_t *to = bits + (size_t)y * stride + (size_t)b->x1 * bpp;
		const uint8_t *from = bits + (size_t)(y + oy) * stride + (size_t)(b->x1 + ox) * bpp;
		memmove(to, from, len);
	}
}

int exec_copy_area(struct smt_exec_ctx *ctx, const struct smt_decoded *d)
{
	const struct smt_cmd_copy_area *c = &d->u.copy;
	struct smt_drawable *dst, *src;
	if (exec_target(ctx, &dst))
		return -1;
	if (!(src = smt_drawables_get(&ctx->drawables, c->src_id)))
		return exec_fail(ctx, SMT_ERROR_BAD_DRAWABLE, "unknown source drawable", UINT32_MAX);
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
	if (x1 >= x2 || y1 >= y2)
		return 0;

	uint64_t px = 0;
	struct clip_iter it;
	pixman_box32_t b;
	int n_clip = pixman_region32_n_rects(&ctx->clip);
	if (!same_bits(src, dst)) {
		px = blit(ctx, PIXMAN_OP_SRC, src->image, NULL, dst->image, x1 + ox, y1 + oy, 0, 0,
			  x1, y1, x2 - x1, y2 - y1);
	} else if (n_clip <= 1) {
		clip_iter_init(&it, &ctx->clip, x1, y1, x2, y2);
		while (clip_iter_next(&it, &b)) {
			move_box(dst, &b, ox, oy);
			px += box_area(&b);
		}
	} else {
		/* Several clip boxes over one memory: a box written early could
		 * be the source of a later one. Read everything first. */
		pixman_box32_t r = { (int32_t)(x1 + ox), (int32_t)(y1 + oy),
				     (int32_t)(x2 + ox), (int32_t)(y2 + oy) };
		pixman_image_t *tmp = snapshot(ctx, src, &r, false);
		if (!tmp)
			return -1;
		px = blit(ctx, PIXMAN_OP_SRC, tmp, NULL, dst->image, 0, 0, 0, 0,
			  x1, y1, x2 - x1, y2 - y1);
		pixman_image_unref(tmp);
	}
	exec_charge(ctx, px);
	return 0;
}

int exec_composite(struct smt_exec_ctx *ctx, const struct smt_decoded *d)
{
	const struct smt_cmd_composite *c = &d->u.composite;
	struct smt_drawable *dst, *src, *mask = NULL;
	if (exec_target(ctx, &dst))
		return -1;
	if (!(src = smt_drawables_get(&ctx->drawables, c->src_id)))
		return exec_fail(ctx, SMT_ERROR_BAD_DRAWABLE, "unknown source drawable", UINT32_MAX);
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
	pixman_image_t *simg = src->image, *mimg = mask ? mask->image : NULL;
	pixman_image_t *stmp = NULL, *mtmp = NULL;
	pixman_box32_t e = *pixman_region32_extents(&ctx->clip);
	int64_t x1 = c->dst_x > e.x1 ? c->dst_x : e.x1, y1 = c->dst_y > e.y1 ? c->dst_y : e.y1;
	int64_t x2 = (int64_t)c->dst_x + c->width, y2 = (int64_t)c->dst_y + c->height;
	x2 = x2 < e.x2 ? x2 : e.x2;
	y2 = y2 < e.y2 ? y2 : e.y2;
	if (x1 >= x2 || y1 >= y2)
		return 0;
	if (same_bits(src, dst)) {
		pixman_box32_t r = { (int32_t)(sx + x1 - c->dst_x), (int32_t)(sy + y1 - c->dst_y),
				     (int32_t)(sx + x2 - c->dst_x), (int32_t)(sy + y2 - c->dst_y) };
		if (!(simg = stmp = snapshot(ctx, src, &r, true)))
			return -1;
		sx = -(x1 - c->dst_x);
		sy = -(y1 - c->dst_y);
	}
	if (mask && same_bits(mask, dst)) {
		pixman_box32_t r = { (int32_t)(mx + x1 - c->dst_x), (int32_t)(my + y1 - c->dst_y),
				     (int32_t)(mx + x2 - c->dst_x), (int32_t)(my + y2 - c->dst_y) };
		if (!(mimg = mtmp = snapshot(ctx, mask, &r, true))) {
			if (stmp)
				pixman_image_unref(stmp);
			return -1;
		}
		mx = -(x1 - c->dst_x);
		my = -(y1 - c->dst_y);
	}
	uint64_t px = blit(ctx, (pixman_op_t)c->op, simg, mimg, dst->image, sx, sy, mx, my,
			   c->dst_x, c->dst_y, c->width, c->height);
	if (stmp)
		pixman_image_unref(stmp);
	if (mtmp)
		pixman_image_unref(mtmp);
	exec_charge(ctx, px);
	return 0;
}

/*
 * GLYPHS: each glyph is a rectangle of the client's A8 atlas used as the
 * mask for the paint colour. The atlas already is the glyph cache (the
 * client uploads each glyph once); pixman_glyph_cache would copy glyphs
 * and go stale when the client redraws its atlas.
 */
int exec_glyphs(struct smt_exec_ctx *ctx, const struct smt_decoded *d, uint32_t *resume)
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
	for (uint32_t i = *resume; i < n; i++)
		if ((int32_t)g[i].atlas_x + g[i].width > atlas->width ||
		    (int32_t)g[i].atlas_y + g[i].height > atlas->height)
			return exec_fail(ctx, SMT_ERROR_OUT_OF_BOUNDS, "glyph outside the atlas", i);
	if (paint_init(ctx, &p, dst, c->op, c->colour, true))
		return -1;
	for (uint32_t i = *resume; i < n; i++) {
		int64_t x = (int64_t)c->origin_x + g[i].dst_x, y = (int64_t)c->origin_y + g[i].dst_y;
		uint64_t px = blit_op(ctx, p.op, p.solid, atlas->image, dst->image, 0, 0,
				      g[i].atlas_x, g[i].atlas_y, x, y, g[i].width, g[i].height,
				      true);
		if (ctx->fault.code != SMT_ERROR_NONE) {
			paint_fini(&p);
			return -1;
		}
		if (exec_charge(ctx, px) && i + 1 < n) {
			*resume = i + 1;
			paint_fini(&p);
			return EXEC_PARTIAL;
		}
	}
	paint_fini(&p);
	return 0;
}
