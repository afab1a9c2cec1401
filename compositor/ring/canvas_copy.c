#include "compositor/ring/canvas_copy.h"
#include "common/monotonic_clock.h"

bool canvas_copy_init(struct canvas_copy *copy, const pixman_region32_t *region)
{
	copy->rect = 0;
	copy->row = 0;
	pixman_region32_init(&copy->region);
	if (!pixman_region32_copy(&copy->region, (pixman_region32_t *)region)) {
		pixman_region32_fini(&copy->region);
		return false;
	}
	return true;
}

bool canvas_copy_init_box(struct canvas_copy *copy, int width, int height)
{
	copy->rect = 0;
	copy->row = 0;
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
