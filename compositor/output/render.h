/*
 * Rendering an output's frame with occlusion culling (render.c says why
 * wlroots 0.15's own scene render is not enough). The server embeds the
 * settings and counters, so this header sits below every module.
 */
#ifndef SMTWC_OUTPUT_RENDER_H
#define SMTWC_OUTPUT_RENDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <wlr/types/wlr_scene.h>

struct smtwc_render {
	/* false: wlroots' own scene renderer paints every node under the
	 * damage. Kept to compare against (tests, tests/bench/render). */
	bool culling;
	/* Since the compositor started, over all outputs (smtctl stats). */
	uint64_t frames;
	uint64_t ns_total, ns_max; /* time spent in the renders themselves */
	uint64_t pixels_damaged;   /* what the frames had to repaint */
	uint64_t pixels_painted;   /* what culling left to paint, clears included */
	/* Nodes painted straight with pixman (shown at their own size:
	 * paint_direct.c) and through wlroots' transform (scaled, rotated) */
	uint64_t nodes_painted_direct, nodes_painted_transformed;
	/* Nodes left out: a buffer whose rows overlap past its memory
	 * (paint_direct.h, buffer_rows_fit) */
	uint64_t nodes_unreadable;
	/* The boxes handed to wlr_render_rect (each one an image the renderer
	 * makes and fills whole): the visible pieces of rectangle nodes. */
	uint64_t rect_fill_pixels;
	/* The most rectangles an output's damage (wlr_output_damage.current)
	 * held when a frame began: each damage added before it costs a union
	 * that walks them all (ring/canvas.c keeps them few). */
	uint64_t damage_rects_max;
	/* The canvases' front buffers, which ring worker threads write (a
	 * PRESENT's copy, ring/canvas.c) while a frame may read them: a frame
	 * holds it alone while it renders, a worker shared for one band of
	 * its copy (~256K pixels). Writers first, so bands of several workers
	 * cannot hold a frame off. */
	pthread_rwlock_t front_lock;
	/* Its contention: frames (and output_hide_under_opaque) that waited
	 * for a worker's band and their wait in all (main thread); bands that
	 * waited for a frame (workers) */
	uint64_t front_waits, front_wait_ns;
	atomic_uint_fast64_t front_copier_waits;
};

void output_render_init(struct smtwc_render *render);
void output_render_finish(struct smtwc_render *render);

/* Renders and commits one frame of the scene on this output, painting only
 * what of each node is damaged and not covered by opaque nodes above it.
 * Replaces wlr_scene_output_commit; returns what the commit returned. */
bool output_render_frame(struct wlr_scene_output *scene_output, struct smtwc_render *render);
/* Takes from `visible` (`output`'s buffer coordinates; (ox, oy): the
 * scene root's position there) what opaque nodes above `node` hide, as
 * the culling frame would find them. Looks at `budget` nodes at most and
 * only on outputs at scale 1 without a transform, and hides nothing under
 * wlroots' scene renderer (`render scene`): what it leaves is never less
 * than what shows. Main thread; takes the front_lock while it reads a
 * canvas's opacity, which workers rewrite. A ring canvas's damage is clipped by it
 * (ring/canvas.c), as weston clips a view's damage by the views above. */
void output_hide_under_opaque(struct smtwc_render *render, struct wlr_scene_node *node,
		struct wlr_output *output, int ox, int oy, pixman_region32_t *visible,
		size_t budget);
/* Switches renderers; every output repaints whole with the new one. */
void output_render_set_culling(struct smtwc_render *render, struct wlr_scene *scene, bool culling);

#endif
