/*
 * What of a buffer with an alpha channel is known to be opaque.
 *
 * A format with alpha says nothing of the pixels: a ring canvas is ARGB, and
 * most are opaque all over. The renderer culls only under what it knows is
 * opaque (render.c), so without this every window under a canvas, and the
 * canvas's own background surface, was painted and then painted over. The
 * owner of such a buffer attaches one of these and keeps it no smaller than
 * the truth as it writes the pixels, under whatever keeps the renderer from
 * reading them meanwhile (a canvas's front buffer: the render's front_lock).
 */
#ifndef SMTWC_OUTPUT_BUFFER_OPACITY_H
#define SMTWC_OUTPUT_BUFFER_OPACITY_H

#include <pixman.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/util/addon.h>

struct buffer_opacity {
	struct wlr_addon addon;
	/* Where the pixels may be translucent, buffer coordinates; at most a
	 * few rectangles (canvas_copy.c keeps it so). Starts as all of it. */
	pixman_region32_t translucent;
};

/* Attached for the buffer's life: the buffer's end finishes it. */
void buffer_opacity_attach(struct buffer_opacity *opacity, struct wlr_buffer *buffer);
/* NULL when the buffer's owner tracks nothing. */
struct buffer_opacity *buffer_opacity_get(struct wlr_buffer *buffer);

#endif
