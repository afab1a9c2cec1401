#include "compositor/ring/canvas_copy.h"
#include "common/monotonic_clock.h"

void canvas_copy_init_take(struct canvas_copy *copy, pixman_region32_t *region)
{
	copy->rect = 0;
	copy->row = 0;
	copy->dst_translucent = NULL;
	copy->region = *region; /* its rectangles move with it */
	pixman_region32_init(region);
}

bool canvas_copy_init_box(struct canvas_copy *copy, int width, int height)
{
	copy->rect = 0;
	copy->row = 0;
	copy->dst_translucent = NULL;
	pixman_region32_init_rect(&copy->region, 0, 0, (unsigned)width, (unsigned)height);
	return true;
}

void canvas_copy_fini(struct canvas_copy *copy)
{
	pixman_region32_fini(&copy->region);
}

bool canvas_copy_done(const struct canvas_copy *copy)
{
	return copy->rect >= pixman_region32_n_rects((pixman_region32_t *)&copy->region);
}

/* Whether every pixel of the box has alpha 0xff (the ARGB the canvases
 * are; another format counts as translucent). Stops at the first row that
 * has a translucent pixel. */
static bool box_opaque(pixman_image_t *image, const pixman_box32_t *box)
{
	if (pixman_image_get_format(image) != PIXMAN_a8r8g8b8) {
		return false;
	}
	const uint8_t *base = (const uint8_t *)pixman_image_get_data(image);
	size_t stride = (size_t)pixman_image_get_stride(image);
	uint32_t all = 0xffffffffu;
	for (int y = box->y1; y < box->y2 && all >= 0xff000000u; y++) {
		const uint32_t *row = (const uint32_t *)(base + (size_t)y * stride) + box->x1;
		for (int x = 0; x < box->x2 - box->x1; x++) {
			all &= row[x];
		}
	}
	return all >= 0xff000000u;
}

static void note_box_opacity(
		pixman_region32_t *translucent, pixman_image_t *dst, const pixman_box32_t *box)
{
	pixman_region32_t band;
	pixman_region32_init_rect(&band, box->x1, box->y1, (unsigned)(box->x2 - box->x1),
			(unsigned)(box->y2 - box->y1));
	if (box_opaque(dst, box)) {
		pixman_region32_subtract(translucent, translucent, &band);
	} else {
		pixman_region32_union(translucent, translucent, &band);
	}
	pixman_region32_fini(&band);
	if (pixman_region32_n_rects(translucent) > CANVAS_TRANSLUCENT_RECTS_MAX) {
		pixman_box32_t extents = *pixman_region32_extents(translucent);
		pixman_region32_fini(translucent);
		pixman_region32_init_with_extents(translucent, &extents);
	}
}

/* Rows looked at together: a band is up to CANVAS_COPY_BAND_PIXELS, and
 * one translucent pixel should not cost the culling a whole band. */
#define OPACITY_ROWS 16

static void note_opacity(
		pixman_region32_t *translucent, pixman_image_t *dst, const pixman_box32_t *band)
{
	for (int y = band->y1; y < band->y2; y += OPACITY_ROWS) {
		pixman_box32_t rows = { band->x1, y, band->x2,
			band->y2 - y < OPACITY_ROWS ? band->y2 : y + OPACITY_ROWS };
		note_box_opacity(translucent, dst, &rows);
	}
}

bool canvas_copy_run(struct canvas_copy *copy, pixman_image_t *src, pixman_image_t *dst,
		uint64_t deadline_ns, pthread_rwlock_t *dst_shared, atomic_uint_fast64_t *dst_waits,
		canvas_copy_band_fn band_done, void *data)
{
	int n = 0;
	const pixman_box32_t *rects = pixman_region32_rectangles(&copy->region, &n);
	while (copy->rect < n) {
		const pixman_box32_t *r = &rects[copy->rect];
		int width = r->x2 - r->x1, height = r->y2 - r->y1;
		int band = width > 0 && CANVAS_COPY_BAND_PIXELS / width > 0 ?
				CANVAS_COPY_BAND_PIXELS / width :
				1;
		int rows = height - copy->row < band ? height - copy->row : band;
		pixman_box32_t done = { r->x1, r->y1 + copy->row, r->x2, r->y1 + copy->row + rows };
		if (dst_shared != NULL && pthread_rwlock_tryrdlock(dst_shared) != 0) {
			if (dst_waits != NULL) {
				atomic_fetch_add_explicit(dst_waits, 1, memory_order_relaxed);
			}
			pthread_rwlock_rdlock(dst_shared);
		}
		pixman_image_composite32(PIXMAN_OP_SRC, src, NULL, dst, done.x1, done.y1, 0, 0,
				done.x1, done.y1, width, rows);
		if (copy->dst_translucent != NULL) {
			note_opacity(copy->dst_translucent, dst, &done);
		}
		if (dst_shared != NULL) {
			pthread_rwlock_unlock(dst_shared);
		}
		copy->row += rows;
		if (copy->row >= height) {
			copy->rect++;
			copy->row = 0;
		}
		if (band_done != NULL) {
			band_done(data, &done);
		}
		if (deadline_ns != 0 && monotonic_now_ns() >= deadline_ns) {
			break;
		}
	}
	return copy->rect >= n;
}
