/*
 * Painting a buffer shown at its own size straight with pixman (paint_direct.c
 * says why).
 */
#ifndef SMTWC_OUTPUT_PAINT_DIRECT_H
#define SMTWC_OUTPUT_PAINT_DIRECT_H

#include <pixman.h>
#include <stdbool.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/box.h>

/* Paints `region` (output-buffer coordinates, inside `box`) of `buffer`'s
 * `source` box, shown at `box` untransformed: the caller has checked that
 * the output and the content are neither scaled nor rotated. A 1x1 source
 * may be stretched over any box (it is one colour). `opaque`: the part of
 * the region under which nothing was painted (the node's own opaque
 * region): copied there, as blending an honest client's pixels would
 * leave them and a lying one's over black, never over an older frame;
 * the rest blended. Returns false, having
 * painted nothing, when it cannot: another renderer, a source that is not
 * whole pixels or not the box's size, a buffer without CPU access or in a
 * format it does not know; the caller then paints through wlroots. */
bool paint_direct(struct wlr_renderer *renderer, struct wlr_buffer *buffer,
		const struct wlr_fbox *source, const struct wlr_box *box,
		const pixman_region32_t *region, const pixman_region32_t *opaque);

/* Fills `box` (output-buffer coordinates: after the output's scale and
 * transform) with a premultiplied colour, blended unless opaque, as a scene
 * rect is drawn. false, having filled nothing, with another renderer. */
bool fill_direct(struct wlr_renderer *renderer, const struct wlr_box *box,
		const float color[static 4]);

/* Whether every row of the buffer lies within its memory: false for a
 * wl_shm buffer whose stride is shorter than its row of pixels (rows
 * overlap and the last runs past the pool). Xwayland makes such buffers
 * (every other client is refused them, ring/core_request_limits.c); the
 * frame leaves them out, as if they were not there. true for a buffer
 * without CPU access (nothing of ours reads it). Looked at once per
 * buffer (a few bytes kept on it until its end; a client's buffers are
 * Wayland objects, counted), so a frame's walk opens no data access. */
bool buffer_rows_fit(struct wlr_buffer *buffer);

#endif
