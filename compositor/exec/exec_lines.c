/*
 * Wide SEGMENTS (line_width > 1): each segment is a rectangle of the line
 * width centred on it (butt caps), rendered as two triangles into an A8
 * coverage mask and composited through it with the paint.
 *
 * We never hand pixman raw client geometry: pixman_composite_triangles and
 * _trapezoids size their mask from the UNCLIPPED extents (a segment from
 * -2^28 to 2^28 would ask for a terabyte), and pixman's 16.16 fixed point
 * only holds +-32767. So: the mask covers the chunk's bounding box clipped
 * to the clip extents, processed in bands of at most EXEC_MASK_BYTES; each
 * segment is clipped (Liang-Barsky) to the band grown by half the width plus
 * a margin — which keeps every part of its polygon that can touch the
 * band — and its corners are made relative to the band, so every fixed
 * point value is below ~18000.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compositor/exec/exec_internal.h"

#define EXEC_SEG_CHUNK 64
#define EXEC_MASK_BYTES (1u << 20)

/* Clip the segment to [x0,x1]x[y0,y1]; false if nothing is left. */
static bool clip_segment(double *ax, double *ay, double *bx, double *by, double x0, double y0,
		double x1, double y1)
{
	double dx = *bx - *ax, dy = *by - *ay, t0 = 0.0, t1 = 1.0;
	const double p[4] = { -dx, dx, -dy, dy };
	const double q[4] = { *ax - x0, x1 - *ax, *ay - y0, y1 - *ay };
	for (int i = 0; i < 4; i++) {
		if (p[i] == 0.0) {
			if (q[i] < 0.0)
				return false;
			continue;
		}
		double t = q[i] / p[i];
		if (p[i] < 0.0) {
			if (t > t1)
				return false;
			if (t > t0)
				t0 = t;
		} else {
			if (t < t0)
				return false;
			if (t < t1)
				t1 = t;
		}
	}
	double sx = *ax, sy = *ay;
	*ax = sx + t0 * dx;
	*ay = sy + t0 * dy;
	*bx = sx + t1 * dx;
	*by = sy + t1 * dy;
	return true;
}

static pixman_point_fixed_t fx(double x, double y)
{
	return (pixman_point_fixed_t){ pixman_double_to_fixed(x), pixman_double_to_fixed(y) };
}

/* Rasterise the segments touching band (ox, oy, w, h) into mask. */
static bool band_coverage(pixman_image_t *mask, const struct smt_segment *s, uint32_t n,
		double half, int32_t ox, int32_t oy, int32_t w, int32_t h)
{
	double m = half + 2.0;
	bool any = false;
	for (uint32_t i = 0; i < n; i++) {
		double ax = s[i].x1, ay = s[i].y1, bx = s[i].x2, by = s[i].y2;
		double len = hypot(bx - ax, by - ay);
		if (len == 0.0)
			continue; /* butt caps: nothing to draw */
		double nx = -(by - ay) / len * half, ny = (bx - ax) / len * half;
		if (!clip_segment(&ax, &ay, &bx, &by, ox - m, oy - m, ox + w + m, oy + h + m))
			continue;
		ax -= ox;
		bx -= ox;
		ay -= oy;
		by -= oy;
		pixman_triangle_t t[2] = {
			{ fx(ax + nx, ay + ny), fx(bx + nx, by + ny), fx(bx - nx, by - ny) },
			{ fx(ax + nx, ay + ny), fx(bx - nx, by - ny), fx(ax - nx, ay - ny) },
		};
		pixman_add_triangles(mask, 0, 0, 2, t);
		any = true;
	}
	return any;
}

/* Bands of the chunk's area, each rasterised on its own from the segment
 * geometry: band y always covers the same rows, so resuming at a band
 * (*row rows done) draws exactly what an unsplit run draws. */
static int draw_chunk(struct smt_exec_ctx *ctx, const struct paint *p,
		const struct smt_drawable *dst, const struct smt_segment *s, uint32_t n,
		double half, const pixman_box32_t *area, uint32_t *row)
{
	int32_t w = area->x2 - area->x1;
	uint32_t stride = ((uint32_t)w + 3u) & ~3u;
	int32_t band = (int32_t)(EXEC_MASK_BYTES / stride);
	if (band < 1)
		band = 1;
	if (band > area->y2 - area->y1)
		band = area->y2 - area->y1;
	size_t need = (size_t)stride * (size_t)band;
	if (need > ctx->mask_cap) {
		uint8_t *buf = realloc(ctx->mask_buf, need);
		if (!buf)
			return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		ctx->mask_buf = buf;
		ctx->mask_cap = need;
	}
	for (int32_t y = area->y1 + (int32_t)*row; y < area->y2; y += band) {
		int32_t h = area->y2 - y < band ? area->y2 - y : band;
		memset(ctx->mask_buf, 0, (size_t)stride * (size_t)h);
		pixman_image_t *mask = pixman_image_create_bits(
				PIXMAN_a8, w, h, (uint32_t *)ctx->mask_buf, (int)stride);
		if (!mask)
			return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory", UINT32_MAX);
		if (band_coverage(mask, s, n, half, area->x1, y, w, h)) {
			struct clip_iter it;
			pixman_box32_t b;
			clip_iter_init(&it, &ctx->clip, area->x1, y, area->x2, y + h);
			while (clip_iter_next(&it, &b)) {
				assert_in_image(dst->image, &b);
				if (exec_composite_shaped(p->op, p->solid, mask, dst->image, 0, 0,
						    b.x1 - area->x1, b.y1 - y, b.x1, b.y1,
						    b.x2 - b.x1, b.y2 - b.y1)) {
					pixman_image_unref(mask);
					return exec_fail(ctx, SMT_ERROR_NO_MEMORY, "out of memory",
							UINT32_MAX);
				}
			}
		}
		pixman_image_unref(mask);
		if (exec_charge(ctx, (uint64_t)w * (uint64_t)h) && y + h < area->y2) {
			*row = (uint32_t)(y + h - area->y1);
			return EXEC_PARTIAL;
		}
	}
	*row = 0;
	return 0;
}

int exec_wide_segments(
		struct smt_exec_ctx *ctx, const struct smt_decoded *d, struct smt_resume *resume)
{
	struct smt_drawable *dst;
	struct paint p;
	const struct smt_segment *s = d->array;
	uint32_t n = (uint32_t)d->array_len;
	double half = d->u.segments.line_width / 2.0;

	if (exec_target(ctx, &dst) ||
			paint_init(ctx, &p, dst, d->u.segments.op, d->u.segments.colour, true))
		return -1;
	const pixman_box32_t ext = *pixman_region32_extents(&ctx->clip);
	for (uint32_t i = resume->element; i < n; i += EXEC_SEG_CHUNK) {
		uint32_t k = n - i < EXEC_SEG_CHUNK ? n - i : EXEC_SEG_CHUNK;
		double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
		for (uint32_t j = i; j < i + k; j++) {
			x0 = fmin(x0, fmin(s[j].x1, s[j].x2));
			x1 = fmax(x1, fmax(s[j].x1, s[j].x2));
			y0 = fmin(y0, fmin(s[j].y1, s[j].y2));
			y1 = fmax(y1, fmax(s[j].y1, s[j].y2));
		}
		/* Grow by half the width and a pixel of antialiasing, then clip:
		 * only the clipped box is ever allocated or rasterised. */
		pixman_box32_t area = {
			(int32_t)fmax(ext.x1, floor(x0 - half - 1.0)),
			(int32_t)fmax(ext.y1, floor(y0 - half - 1.0)),
			(int32_t)fmin(ext.x2, ceil(x1 + half + 1.0)),
			(int32_t)fmin(ext.y2, ceil(y1 + half + 1.0)),
		};
		if (area.x1 < area.x2 && area.y1 < area.y2) {
			int rc = draw_chunk(ctx, &p, dst, s + i, k, half, &area, &resume->row);
			if (rc != 0) {
				if (rc == EXEC_PARTIAL)
					resume->element = i;
				paint_fini(&p);
				return rc;
			}
		}
		/* The walk over the chunk costs even where nothing is drawn. */
		if (exec_charge(ctx, k) && i + k < n) {
			resume->element = i + k;
			resume->row = 0;
			paint_fini(&p);
			return EXEC_PARTIAL;
		}
	}
	paint_fini(&p);
	return 0;
}
