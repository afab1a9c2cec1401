/*
 * Painting a buffer shown at its own size straight with pixman.
 *
 * wlroots 0.15's pixman renderer paints every texture through a projective
 * transform, even when the matrix is only a translation: pixman then takes
 * its "scaled nearest" paths, which fetch each source pixel by itself, and a
 * ring window's 1x1 background stretched by wp_viewporter wraps a coordinate
 * per pixel. That was two thirds of the main thread's CPU among 12 flooding
 * ring windows (perf, session 35), and while a frame renders no input is
 * dispatched. Most of what a desktop shows is a window's buffer at its own
 * size, so here the buffer's pixels are composited at an offset, which pixman
 * does with its blit and SIMD paths, and a 1x1 source becomes a solid fill
 * (pixman sees a repeating 1x1 image as one colour). Same pixels as wlroots'
 * OVER (a copy where the caller knows the pixels opaque, which blending
 * would leave as they are): test_render_culling compares the frames.
 *
 * Scene rects (the background, window borders) are filled here too, at every
 * output transform: wlroots 0.15's pixman renderer makes an image of the
 * rect's size from its matrix without the output's turn, so on an output
 * rotated 90 or 270 degrees a window's side border became a few pixels at
 * its top (session 37: a focused border's box 660x4 where it is 1220x710
 * unrotated), and how much showed depended on how the damage cut the rect
 * into pieces, so a partial repaint could leave a border's row that a full
 * one does not have. A rect stays a rect under an output's turn.
 *
 * The buffer is read between begin and end of its data access, as wlroots
 * does: for a client's wl_shm buffer that is what turns a pool truncated
 * under us into zeros rather than SIGBUS.
 */
#define _GNU_SOURCE
#include <drm_fourcc.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <wlr/render/pixman.h>
#include "compositor/output/paint_direct.h"
#include "compositor/output/pixel_format.h"

static pixman_format_code_t pixman_format_of(uint32_t drm_format)
{
	switch (drm_format) {
	case DRM_FORMAT_ARGB8888:
		return PIXMAN_a8r8g8b8;
	case DRM_FORMAT_XRGB8888:
		return PIXMAN_x8r8g8b8;
	case DRM_FORMAT_ABGR8888:
		return PIXMAN_a8b8g8r8;
	case DRM_FORMAT_XBGR8888:
		return PIXMAN_x8b8g8r8;
	default:
		return 0;
	}
}

/* A buffer's width, format and stride never change, so its rows are looked
 * at once in its life and the verdict kept on it: a frame's walk asks for
 * every node it passes, and a look is a data access of its own (for a
 * client's wl_shm buffer, libwayland's SIGBUS guard), beside the one the
 * paint opens to read the pixels. */
struct rows_verdict {
	struct wlr_addon addon;
	bool fit;
};

static void rows_verdict_destroy(struct wlr_addon *addon)
{
	struct rows_verdict *verdict = wl_container_of(addon, verdict, addon);
	wlr_addon_finish(addon);
	free(verdict);
}

static const struct wlr_addon_interface rows_verdict_impl = {
	.name = "smtwc_rows_verdict",
	.destroy = rows_verdict_destroy,
};

static bool rows_fit_now(struct wlr_buffer *buffer)
{
	void *data;
	uint32_t drm_format;
	size_t stride;
	if (!wlr_buffer_begin_data_ptr_access(
			    buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &drm_format, &stride)) {
		return true;
	}
	wlr_buffer_end_data_ptr_access(buffer);
	return stride >= (size_t)buffer->width * (size_t)drm_format_bytes_per_pixel(drm_format);
}

bool buffer_rows_fit(struct wlr_buffer *buffer)
{
	struct wlr_addon *addon = wlr_addon_find(&buffer->addons, buffer, &rows_verdict_impl);
	if (addon != NULL) {
		struct rows_verdict *verdict = wl_container_of(addon, verdict, addon);
		return verdict->fit;
	}
	bool fit = rows_fit_now(buffer);
	struct rows_verdict *verdict = calloc(1, sizeof(*verdict));
	if (verdict != NULL) { /* else looked at again next frame */
		verdict->fit = fit;
		wlr_addon_init(&verdict->addon, &buffer->addons, buffer, &rows_verdict_impl);
	}
	return fit;
}

/* The source box in whole pixels inside the buffer, or false. */
static bool whole_pixels(
		const struct wlr_fbox *source, const struct wlr_buffer *buffer, struct wlr_box *out)
{
	if (source->x != floor(source->x) || source->y != floor(source->y) ||
			source->width != floor(source->width) ||
			source->height != floor(source->height)) {
		return false;
	}
	if (source->x < 0 || source->y < 0 || source->width < 1 || source->height < 1 ||
			source->x + source->width > buffer->width ||
			source->y + source->height > buffer->height) {
		return false;
	}
	*out = (struct wlr_box){ (int)source->x, (int)source->y, (int)source->width,
		(int)source->height };
	return true;
}

bool paint_direct(struct wlr_renderer *renderer, struct wlr_buffer *buffer,
		const struct wlr_fbox *source, const struct wlr_box *box,
		const pixman_region32_t *region, const pixman_region32_t *opaque)
{
	struct wlr_box src;
	if (!wlr_renderer_is_pixman(renderer) || !whole_pixels(source, buffer, &src)) {
		return false;
	}
	bool solid = src.width == 1 && src.height == 1;
	if (!solid && (src.width != box->width || src.height != box->height)) {
		return false;
	}
	void *data;
	uint32_t drm_format;
	size_t stride;
	if (!wlr_buffer_begin_data_ptr_access(
			    buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &drm_format, &stride)) {
		return false;
	}
	pixman_format_code_t format = pixman_format_of(drm_format);
	pixman_image_t *image = NULL;
	if (format != 0 && stride <= INT_MAX) {
		if (solid) {
			uint8_t *pixel = (uint8_t *)data + (size_t)src.y * stride +
					(size_t)src.x * 4;
			image = pixman_image_create_bits_no_clear(
					format, 1, 1, (uint32_t *)pixel, 4);
		} else {
			image = pixman_image_create_bits_no_clear(
					format, buffer->width, buffer->height, data, (int)stride);
		}
	}
	if (image == NULL) {
		wlr_buffer_end_data_ptr_access(buffer);
		return false;
	}
	if (solid) {
		pixman_image_set_repeat(image, PIXMAN_REPEAT_NORMAL);
	}
	pixman_image_t *target = wlr_pixman_renderer_get_current_image(renderer);
	/* The region is the clip; the renderer's scissor must not cut it. */
	wlr_renderer_scissor(renderer, NULL);
	pixman_region32_t blended;
	pixman_region32_init(&blended);
	pixman_region32_subtract(
			&blended, (pixman_region32_t *)region, (pixman_region32_t *)opaque);
	const pixman_region32_t *parts[] = { opaque, &blended };
	for (int p = 0; p < 2; p++) {
		int count;
		const pixman_box32_t *rects = pixman_region32_rectangles(
				(pixman_region32_t *)parts[p], &count);
		for (int i = 0; i < count; i++) {
			const pixman_box32_t *r = &rects[i];
			int sx = solid ? 0 : r->x1 - box->x + src.x;
			int sy = solid ? 0 : r->y1 - box->y + src.y;
			pixman_image_composite32(p == 0 ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, image,
					NULL, target, sx, sy, 0, 0, r->x1, r->y1, r->x2 - r->x1,
					r->y2 - r->y1);
		}
	}
	pixman_region32_fini(&blended);
	pixman_image_unref(image);
	wlr_buffer_end_data_ptr_access(buffer);
	return true;
}

static uint16_t colour_channel(float value)
{
	if (!(value > 0.0f)) { /* NaN too */
		return 0;
	}
	return value >= 1.0f ? 0xffff : (uint16_t)lroundf(value * 65535.0f);
}

bool fill_direct(struct wlr_renderer *renderer, const struct wlr_box *box,
		const float color[static 4])
{
	if (!wlr_renderer_is_pixman(renderer)) {
		return false;
	}
	if (box->width <= 0 || box->height <= 0 || !(color[3] > 0.0f)) {
		return true; /* nothing to paint */
	}
	const pixman_color_t colour = { colour_channel(color[0]), colour_channel(color[1]),
		colour_channel(color[2]), colour_channel(color[3]) };
	pixman_image_t *fill = pixman_image_create_solid_fill(&colour);
	if (fill == NULL) {
		return false;
	}
	pixman_image_t *target = wlr_pixman_renderer_get_current_image(renderer);
	wlr_renderer_scissor(renderer, NULL); /* the box is the clip */
	pixman_image_composite32(colour.alpha == 0xffff ? PIXMAN_OP_SRC : PIXMAN_OP_OVER, fill,
			NULL, target, 0, 0, 0, 0, box->x, box->y, box->width, box->height);
	pixman_image_unref(fill);
	return true;
}
