/*
 * libsmt: the drawing commands. Each checks what the compositor would
 * reject (ops, premultiplied colours, formats, sizes) and returns -EINVAL
 * instead: a bad command would cost the whole connection. Array commands
 * are split so that no command exceeds SMT_CMD_CONTROL_MAX nor half the
 * ring.
 */
#include <errno.h>
#include <string.h>

#include "clients/libsmt/smt-internal.h"

static bool colour_ok(uint32_t c)
{
	uint32_t a = c >> 24;
	return ((c >> 16) & 0xff) <= a && ((c >> 8) & 0xff) <= a && (c & 0xff) <= a;
}

static bool paint_ok(uint32_t op, uint32_t colour)
{
	return op < SMT_PAINT_COUNT && colour_ok(colour);
}

static bool format_ok(uint32_t format)
{
	return smt_format_bpp(format) != 0;
}

/* Elements of `elem` bytes that fit one command after `fixed` bytes. */
static size_t per_cmd(const struct smt_ctx *ctx, size_t fixed, size_t elem)
{
	size_t max = ctx->max_cmd < SMT_CMD_CONTROL_MAX ? ctx->max_cmd : SMT_CMD_CONTROL_MAX;
	return (max - fixed) / elem;
}

/* Reserve, encode with `enc` (a statement using p), commit. */
#define EMIT(ctx, size, enc)                         \
	do {                                         \
		void *p = smt__begin((ctx), (size)); \
		if (!p)                              \
			return -EPIPE;               \
		enc;                                 \
		int r_ = smt__end((ctx), (size));    \
		if (r_)                              \
			return r_;                   \
	} while (0)

#define FIXED(type) ((uint32_t)sizeof(struct type))

uint32_t smt_create_pixmap(struct smt_ctx *ctx, uint32_t w, uint32_t h, uint32_t format)
{
	if (!w || !h || w > SMT_MAX_DIMENSION || h > SMT_MAX_DIMENSION || !format_ok(format))
		return 0;
	uint32_t id = smt__id_get(&ctx->drawables);
	if (!id)
		return 0;
	void *p = smt__begin(ctx, FIXED(smt_cmd_create_pixmap));
	if (!p)
		return 0;
	smt_encode_create_pixmap(p, id, w, h, format);
	return smt__end(ctx, FIXED(smt_cmd_create_pixmap)) ? 0 : id;
}

int smt_free_pixmap(struct smt_ctx *ctx, uint32_t id)
{
	if (!id)
		return -EINVAL;
	EMIT(ctx, FIXED(smt_cmd_free_pixmap), smt_encode_free_pixmap(p, id));
	/* safe to hand out again: commands execute in order, so a later
	 * CREATE_PIXMAP of this id comes after the FREE_PIXMAP */
	smt__id_put(&ctx->drawables, id);
	return 0;
}

int smt_set_target(struct smt_ctx *ctx, uint32_t id)
{
	if (!id)
		return -EINVAL;
	EMIT(ctx, FIXED(smt_cmd_set_target), smt_encode_set_target(p, id));
	ctx->target = id;
	return 0;
}

int smt_set_clip(struct smt_ctx *ctx, uint32_t n, const struct smt_rect *rects)
{
	if (n && !rects)
		return -EINVAL;
	/* one command replaces the clip: it cannot be split */
	if (n > per_cmd(ctx, FIXED(smt_cmd_set_clip), sizeof(*rects)))
		return -E2BIG;
	uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_set_clip), n, sizeof(*rects));
	EMIT(ctx, size, smt_encode_set_clip(p, n, rects));
	return 0;
}

int smt_fill_rects(struct smt_ctx *ctx, uint32_t op, uint32_t colour, size_t n,
		const struct smt_rect *rects)
{
	if (!paint_ok(op, colour) || (n && !rects))
		return -EINVAL;
	size_t per = per_cmd(ctx, FIXED(smt_cmd_fill_rects), sizeof(*rects));
	while (n) {
		uint32_t k = (uint32_t)(n < per ? n : per);
		uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_fill_rects), k, sizeof(*rects));
		EMIT(ctx, size, smt_encode_fill_rects(p, op, colour, k, rects));
		rects += k;
		n -= k;
	}
	return 0;
}

int smt_fill_rect(struct smt_ctx *ctx, uint32_t op, uint32_t colour, int32_t x, int32_t y,
		uint32_t w, uint32_t h)
{
	struct smt_rect r = { x, y, w, h };
	return smt_fill_rects(ctx, op, colour, 1, &r);
}

int smt_points(struct smt_ctx *ctx, uint32_t op, uint32_t colour, size_t n,
		const struct smt_point *pts)
{
	if (!paint_ok(op, colour) || (n && !pts))
		return -EINVAL;
	size_t per = per_cmd(ctx, FIXED(smt_cmd_points), sizeof(*pts));
	while (n) {
		uint32_t k = (uint32_t)(n < per ? n : per);
		uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_points), k, sizeof(*pts));
		EMIT(ctx, size, smt_encode_points(p, op, colour, k, pts));
		pts += k;
		n -= k;
	}
	return 0;
}

int smt_segments(struct smt_ctx *ctx, uint32_t op, uint32_t colour, uint32_t line_width, size_t n,
		const struct smt_segment *segs)
{
	if (!paint_ok(op, colour) || line_width > SMT_MAX_LINE_WIDTH || (n && !segs))
		return -EINVAL;
	size_t per = per_cmd(ctx, FIXED(smt_cmd_segments), sizeof(*segs));
	while (n) {
		uint32_t k = (uint32_t)(n < per ? n : per);
		uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_segments), k, sizeof(*segs));
		EMIT(ctx, size, smt_encode_segments(p, op, colour, line_width, k, segs));
		segs += k;
		n -= k;
	}
	return 0;
}

static int image_args_ok(uint32_t w, uint32_t h, uint32_t format, uint32_t stride)
{
	if (!w || !h || w > SMT_MAX_DIMENSION || h > SMT_MAX_DIMENSION || !format_ok(format) ||
			stride % 4 || stride < (uint64_t)w * smt_format_bpp(format) / 8)
		return -EINVAL;
	return 0;
}

uint32_t smt_max_inline_image(const struct smt_ctx *ctx)
{
	return ctx->max_cmd;
}

int smt_put_image(struct smt_ctx *ctx, int32_t x, int32_t y, uint32_t w, uint32_t h,
		uint32_t format, uint32_t stride, const void *pixels)
{
	if (image_args_ok(w, h, format, stride) || !pixels)
		return -EINVAL;
	uint32_t size = smt_cmd_put_image_size(stride, h);
	if (!size || size > ctx->max_cmd)
		return -E2BIG; /* never split silently: that is a pool's job */
	EMIT(ctx, size, smt_encode_put_image(p, x, y, w, h, format, stride, pixels));
	return 0;
}

int smt_put_image_rows(struct smt_ctx *ctx, int32_t x, int32_t y, uint32_t w, uint32_t h,
		uint32_t format, uint32_t stride, const void *pixels)
{
	if (image_args_ok(w, h, format, stride) || !pixels)
		return -EINVAL;
	uint32_t rows = (ctx->max_cmd - FIXED(smt_cmd_put_image)) / stride;
	if (!rows)
		return -E2BIG; /* not even one row fits */
	const uint8_t *px = pixels;
	for (uint32_t done = 0; done < h;) {
		uint32_t k = h - done < rows ? h - done : rows;
		int r = smt_put_image(ctx, x, y + (int32_t)done, w, k, format, stride,
				px + (size_t)done * stride);
		if (r)
			return r;
		done += k;
	}
	return 0;
}

int smt_put_image_pool(struct smt_ctx *ctx, struct smt_pool *pool, const struct smt_image *img,
		int32_t x, int32_t y)
{
	if (!pool || !img || image_args_ok(img->width, img->height, img->format, img->stride))
		return -EINVAL;
	uint64_t last_row = img->offset + (uint64_t)img->stride * (img->height - 1);
	if (last_row + (uint64_t)img->width * smt_format_bpp(img->format) / 8 > smt_pool_size(pool))
		return -EINVAL; /* the compositor would reject it */
	EMIT(ctx, FIXED(smt_cmd_put_image_pool),
			smt_encode_put_image_pool(p, smt_pool_id(pool), img->offset, img->stride,
					img->width, img->height, img->format, x, y));
	return 0;
}

int smt_copy_area(struct smt_ctx *ctx, uint32_t src, int32_t sx, int32_t sy, uint32_t w, uint32_t h,
		int32_t dx, int32_t dy)
{
	if (!src)
		return -EINVAL;
	EMIT(ctx, FIXED(smt_cmd_copy_area), smt_encode_copy_area(p, src, sx, sy, w, h, dx, dy));
	return 0;
}

int smt_composite(struct smt_ctx *ctx, uint32_t op, uint32_t src, uint32_t mask, int32_t sx,
		int32_t sy, int32_t mx, int32_t my, int32_t dx, int32_t dy, uint32_t w, uint32_t h)
{
	if (!src || op >= SMT_PAINT_COUNT)
		return -EINVAL;
	EMIT(ctx, FIXED(smt_cmd_composite),
			smt_encode_composite(p, op, src, mask, sx, sy, mx, my, dx, dy, w, h));
	return 0;
}

int smt_glyphs(struct smt_ctx *ctx, uint32_t op, uint32_t colour, uint32_t atlas, int32_t ox,
		int32_t oy, size_t n, const struct smt_glyph *g)
{
	if (!paint_ok(op, colour) || !atlas || (n && !g))
		return -EINVAL;
	size_t per = per_cmd(ctx, FIXED(smt_cmd_glyphs), sizeof(*g));
	while (n) {
		uint32_t k = (uint32_t)(n < per ? n : per);
		uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_glyphs), k, sizeof(*g));
		EMIT(ctx, size, smt_encode_glyphs(p, op, colour, atlas, ox, oy, k, g));
		g += k;
		n -= k;
	}
	return 0;
}

int smt_present(struct smt_ctx *ctx, uint32_t canvas, uint32_t serial, uint32_t n,
		const struct smt_rect *damage)
{
	if (!canvas || (n && !damage))
		return -EINVAL;
	/* a PRESENT cannot be split (that would be two frames): too much
	 * damage becomes "everything", which is always correct */
	if (n > per_cmd(ctx, FIXED(smt_cmd_present), sizeof(*damage)))
		n = 0;
	uint32_t size = smt_cmd_array_size(FIXED(smt_cmd_present), n, sizeof(*damage));
	EMIT(ctx, size, smt_encode_present(p, canvas, serial, n, damage));
	return 0;
}

int smt_noop(struct smt_ctx *ctx, uint32_t bytes)
{
	if (bytes < 8 || bytes % 8)
		return -EINVAL;
	if (bytes > ctx->max_cmd)
		return -E2BIG;
	/* zero the payload: the bytes are deterministic (taps, dumps) */
	EMIT(ctx, bytes, (memset(p, 0, bytes), smt_encode_noop(p, SMT_OP_NOOP, bytes)));
	return 0;
}
