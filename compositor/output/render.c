/*
 * Rendering an output frame with occlusion culling.
 *
 * wlroots 0.15's wlr_scene_output_commit paints every node under the damage,
 * bottom to top. With dozens of overlapping windows that is one full
 * composite per window per frame, done in a single render that nothing can
 * interrupt, so it is what interactive latency waits for (docs/reliability.md
 * measured 10-30 ms renders with 50 clients). Here the scene is walked top
 * to bottom first: each node keeps only the part of the damage that no
 * opaque node above it covers, and only those parts are painted, bottom to
 * top. What reaches the screen is the same; the cost is bounded by the
 * damaged area, not by the number of windows stacked on it.
 *
 * The geometry (scaled boxes, the output transform, scissoring) follows the
 * scene renderer it replaces, so output scale and transform behave as before.
 * Not done here: direct scan-out of a single fullscreen buffer (no DRM here).
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/types/wlr_matrix.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/region.h>
#include "compositor/output/render.h"
#include "compositor/output/paint_direct.h"
#include "compositor/output/buffer_opacity.h"
#include "common/monotonic_clock.h"

/* One node that shows somewhere in this frame. */
struct visible_node {
	struct wlr_scene_node *node;
	struct wlr_box box;       /* output-buffer coordinates, scaled */
	pixman_region32_t region; /* what of it must be painted */
	/* What of the region its own opaque region covers: nothing under it
	 * is painted there, so its pixels must replace what the output
	 * buffer held (a client that calls translucent pixels opaque must
	 * not show an older frame through them). */
	pixman_region32_t opaque;
};

struct frame_walk {
	struct wlr_output *output;
	pixman_region32_t uncovered; /* damage that no opaque node covers yet */
	struct visible_node *nodes;  /* top first */
	size_t count, capacity;
	bool out_of_memory;
	uint64_t painted_direct, painted_transformed; /* nodes, by path */
	uint64_t unreadable;                          /* nodes left out: rows past their buffer */
	uint64_t rect_fill_pixels;                    /* what rect fills were asked to fill */
};

/* The scene renderer's rounding: both edges of a box are rounded, so boxes
 * that touch in logical coordinates still touch once scaled. */
static int scale_length(int length, int offset, float scale)
{
	return (int)(round((offset + length) * scale) - round(offset * scale));
}

static void scale_box(struct wlr_box *box, float scale)
{
	box->width = scale_length(box->width, box->x, scale);
	box->height = scale_length(box->height, box->y, scale);
	box->x = (int)round(box->x * scale);
	box->y = (int)round(box->y * scale);
}

static void node_size(struct wlr_scene_node *node, int *width, int *height)
{
	*width = *height = 0;
	switch (node->type) {
	case WLR_SCENE_NODE_ROOT:
	case WLR_SCENE_NODE_TREE:
		break;
	case WLR_SCENE_NODE_SURFACE:;
		struct wlr_surface *surface = wlr_scene_surface_from_node(node)->surface;
		*width = surface->current.width;
		*height = surface->current.height;
		break;
	case WLR_SCENE_NODE_RECT:;
		struct wlr_scene_rect *rect = (struct wlr_scene_rect *)node;
		*width = rect->width;
		*height = rect->height;
		break;
	case WLR_SCENE_NODE_BUFFER:;
		struct wlr_scene_buffer *buffer = (struct wlr_scene_buffer *)node;
		if (buffer->dst_width > 0 && buffer->dst_height > 0) {
			*width = buffer->dst_width;
			*height = buffer->dst_height;
		} else if (buffer->transform & WL_OUTPUT_TRANSFORM_90) {
			*width = buffer->buffer->height;
			*height = buffer->buffer->width;
		} else {
			*width = buffer->buffer->width;
			*height = buffer->buffer->height;
		}
		break;
	}
}

static struct wlr_texture *buffer_texture(
		struct wlr_scene_buffer *scene_buffer, struct wlr_renderer *renderer)
{
	struct wlr_client_buffer *client_buffer = wlr_client_buffer_get(scene_buffer->buffer);
	if (client_buffer != NULL) {
		return client_buffer->texture;
	}
	/* Made once and owned by the scene node, which destroys it with itself. */
	if (scene_buffer->texture == NULL) {
		scene_buffer->texture = wlr_texture_from_buffer(renderer, scene_buffer->buffer);
	}
	return scene_buffer->texture;
}

/* An ARGB buffer whose owner knows which of its pixels are opaque
 * (buffer_opacity.h: a ring canvas), shown at its own size: that part. */
static void buffer_opaque_part(struct wlr_scene_buffer *buffer, const struct wlr_box *box,
		struct wlr_output *output, pixman_region32_t *out)
{
	struct buffer_opacity *opacity = buffer_opacity_get(buffer->buffer);
	const struct wlr_fbox *src = &buffer->src_box;
	bool whole = wlr_fbox_empty(src) ||
			(src->x == 0 && src->y == 0 && src->width == buffer->buffer->width &&
					src->height == buffer->buffer->height);
	if (opacity == NULL || output->scale != 1.0f || !whole ||
			box->width != buffer->buffer->width ||
			box->height != buffer->buffer->height) {
		return;
	}
	pixman_region32_t opaque;
	pixman_region32_init_rect(&opaque, 0, 0, (unsigned)box->width, (unsigned)box->height);
	pixman_region32_subtract(&opaque, &opaque, &opacity->translucent);
	pixman_region32_translate(&opaque, box->x, box->y);
	pixman_region32_union(out, out, &opaque);
	pixman_region32_fini(&opaque);
}

/* Adds the part of the node that is certainly opaque (output-buffer
 * coordinates) to `out`. Translucent content adds nothing, and neither does
 * rotated content: wlroots 0.15's pixman renderer places rotated textures a
 * few pixels off their box (measured by test_render_culling), and culling
 * under such a node would leave stale pixels in the gap. */
static void node_opaque_region(struct wlr_scene_node *node, const struct wlr_box *box, int lx,
		int ly, struct wlr_output *output, pixman_region32_t *out)
{
	if (output->transform != WL_OUTPUT_TRANSFORM_NORMAL) {
		return;
	}
	switch (node->type) {
	case WLR_SCENE_NODE_ROOT:
	case WLR_SCENE_NODE_TREE:
		return;
	case WLR_SCENE_NODE_RECT:
		if (((struct wlr_scene_rect *)node)->color[3] >= 1.0f) {
			pixman_region32_union_rect(out, out, box->x, box->y, (unsigned)box->width,
					(unsigned)box->height);
		}
		return;
	case WLR_SCENE_NODE_BUFFER:;
		struct wlr_scene_buffer *buffer = (struct wlr_scene_buffer *)node;
		struct wlr_texture *texture = buffer_texture(buffer, output->renderer);
		if (texture == NULL || buffer->transform != WL_OUTPUT_TRANSFORM_NORMAL) {
			return;
		}
		if (wlr_texture_is_opaque(texture)) {
			pixman_region32_union_rect(out, out, box->x, box->y, (unsigned)box->width,
					(unsigned)box->height);
			return;
		}
		buffer_opaque_part(buffer, box, output, out);
		return;
	case WLR_SCENE_NODE_SURFACE:;
		struct wlr_surface *surface = wlr_scene_surface_from_node(node)->surface;
		if (wlr_surface_get_texture(surface) == NULL ||
				surface->current.transform != WL_OUTPUT_TRANSFORM_NORMAL) {
			return;
		}
		/* Already the whole surface when its buffer has no alpha channel. */
		int count;
		pixman_box32_t *rects = pixman_region32_rectangles(&surface->opaque_region, &count);
		for (int i = 0; i < count; i++) {
			struct wlr_box r = { lx + rects[i].x1, ly + rects[i].y1,
				rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
			scale_box(&r, output->scale);
			pixman_region32_union_rect(
					out, out, r.x, r.y, (unsigned)r.width, (unsigned)r.height);
		}
		return;
	}
}

static struct visible_node *walk_add(
		struct frame_walk *walk, struct wlr_scene_node *node, const struct wlr_box *box)
{
	pixman_region32_t region;
	pixman_region32_init_rect(
			&region, box->x, box->y, (unsigned)box->width, (unsigned)box->height);
	pixman_region32_intersect(&region, &region, &walk->uncovered);
	if (!pixman_region32_not_empty(&region)) {
		pixman_region32_fini(&region);
		return NULL;
	}
	if (walk->count == walk->capacity) {
		size_t capacity = walk->capacity ? walk->capacity * 2 : 64;
		struct visible_node *nodes = realloc(walk->nodes, capacity * sizeof(*nodes));
		if (nodes == NULL) {
			pixman_region32_fini(&region);
			walk->out_of_memory = true;
			return NULL;
		}
		walk->nodes = nodes;
		walk->capacity = capacity;
	}
	walk->nodes[walk->count] = (struct visible_node){
		.node = node, .box = *box, .region = region
	};
	pixman_region32_init(&walk->nodes[walk->count].opaque);
	return &walk->nodes[walk->count++];
}

/* The buffer whose pixels a node shows: a client's buffer's source
 * (wl_shm), or a scene buffer's own. NULL: none, or the client destroyed
 * it. */
static struct wlr_buffer *node_pixels(struct wlr_scene_node *node)
{
	struct wlr_buffer *buffer = NULL;
	if (node->type == WLR_SCENE_NODE_SURFACE) {
		struct wlr_surface *surface = wlr_scene_surface_from_node(node)->surface;
		return surface->buffer != NULL ? surface->buffer->source : NULL;
	} else if (node->type == WLR_SCENE_NODE_BUFFER) {
		buffer = ((struct wlr_scene_buffer *)node)->buffer;
	}
	struct wlr_client_buffer *client_buffer = buffer != NULL ? wlr_client_buffer_get(buffer) :
								   NULL;
	return client_buffer != NULL ? client_buffer->source : buffer;
}

/* How far from an output's origin a node may be for the frame to look at
 * it. A client places its popups (a positioner's anchor and offset, any
 * int32) and its subsurfaces where it likes, and the sum of the positions
 * down the scene overflowed an int here (session 39: a menu 2^31 - 1 from
 * its window, UBSan: 96 + 2147483647). The positions are summed in 64 bits;
 * a node past the limit is on no output and hides nothing (its children,
 * placed relative to it, are still looked at). */
#define NODE_POSITION_LIMIT (1 << 30)

static bool node_placed(int64_t x, int64_t y)
{
	return x >= -NODE_POSITION_LIMIT && x <= NODE_POSITION_LIMIT && y >= -NODE_POSITION_LIMIT &&
			y <= NODE_POSITION_LIMIT;
}

/* Front to back: children last in the list are on top. (lx, ly) is the
 * parent's position relative to the output. */
static void walk_node(struct frame_walk *walk, struct wlr_scene_node *node, int64_t lx, int64_t ly)
{
	if (!node->state.enabled || walk->out_of_memory) {
		return;
	}
	lx += node->state.x;
	ly += node->state.y;
	struct wlr_scene_node *child;
	wl_list_for_each_reverse (child, &node->state.children, state.link) {
		walk_node(walk, child, lx, ly);
	}
	if (node->type == WLR_SCENE_NODE_ROOT || node->type == WLR_SCENE_NODE_TREE ||
			!node_placed(lx, ly)) {
		return;
	}

	struct wlr_output *output = walk->output;
	struct wlr_box box = { .x = (int)lx, .y = (int)ly };
	node_size(node, &box.width, &box.height);
	if (box.width <= 0 || box.height <= 0) {
		return;
	}
	struct wlr_buffer *pixels = node_pixels(node);
	if (pixels != NULL && !buffer_rows_fit(pixels)) {
		walk->unreadable++;
		return; /* not painted, and hides nothing */
	}
	scale_box(&box, output->scale);
	struct visible_node *visible = walk_add(walk, node, &box);

	pixman_region32_t opaque;
	pixman_region32_init(&opaque);
	node_opaque_region(node, &box, (int)lx, (int)ly, output, &opaque);
	if (visible != NULL) {
		pixman_region32_intersect(&visible->opaque, &visible->region, &opaque);
	}
	pixman_region32_subtract(&walk->uncovered, &walk->uncovered, &opaque);
	pixman_region32_fini(&opaque);
}

/* A box of the frame's walk (the output's pixels before its transform) in
 * the output buffer's coordinates. */
static struct wlr_box box_in_buffer(struct wlr_output *output, const pixman_box32_t *rect)
{
	struct wlr_box box = { rect->x1, rect->y1, rect->x2 - rect->x1, rect->y2 - rect->y1 };
	int width, height;
	wlr_output_transformed_resolution(output, &width, &height);
	wlr_box_transform(
			&box, &box, wlr_output_transform_invert(output->transform), width, height);
	return box;
}

static void scissor_output(struct wlr_output *output, const pixman_box32_t *rect)
{
	struct wlr_box box = box_in_buffer(output, rect);
	wlr_renderer_scissor(output->renderer, &box);
}

static void paint_texture(struct wlr_output *output, const struct visible_node *v,
		struct wlr_texture *texture, const struct wlr_fbox *source,
		enum wl_output_transform transform)
{
	float matrix[9];
	wlr_matrix_project_box(matrix, &v->box, wlr_output_transform_invert(transform), 0.0f,
			output->transform_matrix);
	/* An empty source box is the whole texture (wlroots 0.15's scene
	 * renderer took the box's size on the output: at scale 2 a buffer
	 * showed at 1:1 in a quarter of its box). */
	struct wlr_fbox whole = { 0, 0, texture->width, texture->height };
	if (wlr_fbox_empty(source)) {
		source = &whole;
	}
	if (wlr_renderer_is_pixman(output->renderer) && (source->x != 0 || source->y != 0)) {
		/* wlroots 0.15's pixman renderer scales by the source box's
		 * size but never moves to its corner ("TODO clip properly with
		 * src_x and src_y"): a viewporter crop showed the buffer's top
		 * left instead. The move, in the unit square the matrix maps. */
		wlr_matrix_translate(matrix, (float)(-source->x / source->width),
				(float)(-source->y / source->height));
	}
	int count;
	pixman_box32_t *rects = pixman_region32_rectangles((pixman_region32_t *)&v->region, &count);
	for (int i = 0; i < count; i++) {
		scissor_output(output, &rects[i]);
		wlr_render_subtexture_with_matrix(output->renderer, texture, source, matrix, 1.0f);
	}
}

/* Paints a node's texture, straight with pixman when nothing scales or
 * rotates it (paint_direct.c), else through wlroots' transform. */
static void paint_content(struct frame_walk *walk, const struct visible_node *v,
		struct wlr_texture *texture, struct wlr_buffer *buffer,
		const struct wlr_fbox *source, enum wl_output_transform transform)
{
	struct wlr_output *output = walk->output;
	if (buffer != NULL && output->transform == WL_OUTPUT_TRANSFORM_NORMAL &&
			output->scale == 1.0f && transform == WL_OUTPUT_TRANSFORM_NORMAL) {
		/* (an empty source box is the whole buffer) */
		struct wlr_fbox all = { 0, 0, buffer->width, buffer->height };
		if (paint_direct(output->renderer, buffer, wlr_fbox_empty(source) ? &all : source,
				    &v->box, &v->region, &v->opaque)) {
			walk->painted_direct++;
			return;
		}
	}
	walk->painted_transformed++;
	if (!wlr_texture_is_opaque(texture)) {
		/* Blended, so over black where nothing under it was painted:
		 * what a copy of its pixels would leave (paint_direct). */
		const float black[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
		int count;
		pixman_box32_t *rects = pixman_region32_rectangles(
				(pixman_region32_t *)&v->opaque, &count);
		for (int i = 0; i < count; i++) {
			scissor_output(output, &rects[i]);
			wlr_renderer_clear(output->renderer, black);
		}
	}
	paint_texture(output, v, texture, source, transform);
}

static void paint_node(struct frame_walk *walk, const struct visible_node *v)
{
	struct wlr_output *output = walk->output;
	struct wlr_scene_node *node = v->node;
	switch (node->type) {
	case WLR_SCENE_NODE_ROOT:
	case WLR_SCENE_NODE_TREE:
		return;
	case WLR_SCENE_NODE_SURFACE:;
		struct wlr_surface *surface = wlr_scene_surface_from_node(node)->surface;
		struct wlr_texture *texture = wlr_surface_get_texture(surface);
		if (texture != NULL) {
			struct wlr_fbox source;
			wlr_surface_get_buffer_source_box(surface, &source);
			struct wlr_buffer *pixels = surface->buffer != NULL ?
					surface->buffer->source :
					NULL;
			paint_content(walk, v, texture, pixels, &source,
					surface->current.transform);
		}
		return;
	case WLR_SCENE_NODE_RECT:;
		/* Each visible piece filled as a rectangle of its own, straight
		 * with pixman where it can (paint_direct.c: wlroots 0.15's
		 * pixman renderer misdraws rects on a rotated output); through
		 * wlroots, the whole node's box per piece cost a full-output
		 * image for each piece of a background that windows cut into
		 * hundreds (session 35: 0.2 s frames). A solid colour is the
		 * same drawn in pieces. */
		struct wlr_scene_rect *rect = (struct wlr_scene_rect *)node;
		int count;
		pixman_box32_t *rects = pixman_region32_rectangles(
				(pixman_region32_t *)&v->region, &count);
		for (int i = 0; i < count; i++) {
			struct wlr_box piece = { rects[i].x1, rects[i].y1,
				rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
			struct wlr_box in_buffer = box_in_buffer(output, &rects[i]);
			if (!fill_direct(output->renderer, &in_buffer, rect->color)) {
				wlr_renderer_scissor(output->renderer, &in_buffer);
				wlr_render_rect(output->renderer, &piece, rect->color,
						output->transform_matrix);
			}
			walk->rect_fill_pixels += (uint64_t)piece.width * (uint64_t)piece.height;
		}
		return;
	case WLR_SCENE_NODE_BUFFER:;
		struct wlr_scene_buffer *buffer = (struct wlr_scene_buffer *)node;
		struct wlr_texture *buffer_tex = buffer_texture(buffer, output->renderer);
		if (buffer_tex != NULL) {
			paint_content(walk, v, buffer_tex, node_pixels(node), &buffer->src_box,
					buffer->transform);
		}
		return;
	}
}

/* What of a node the nodes above it hide (output_hide_under_opaque). */
struct hide_walk {
	struct wlr_output *output;
	pixman_region32_t *visible;
	size_t budget;
	struct smtwc_render *render;
	bool locked; /* holds render->front_lock */
};

/* Takes the front_lock as the frame does: a ring canvas's front buffer's
 * opacity (buffer_opacity) is rewritten by ring workers' copies under it,
 * and pixman's regions are reallocated as they change. */
static void front_lock_take(struct smtwc_render *render)
{
	if (pthread_rwlock_trywrlock(&render->front_lock) != 0) {
		uint64_t start = monotonic_now_ns();
		pthread_rwlock_wrlock(&render->front_lock);
		render->front_waits++;
		render->front_wait_ns += monotonic_now_ns() - start;
	}
}

/* Takes from walk->visible what the node and its subtree hide, topmost
 * first, as the frame's walk would find it opaque; stops once nothing is
 * left to hide or the budget is spent. (lx, ly) is the parent's position. */
static void hide_under_subtree(
		struct hide_walk *walk, struct wlr_scene_node *node, int64_t lx, int64_t ly)
{
	if (!node->state.enabled || walk->budget == 0 ||
			!pixman_region32_not_empty(walk->visible)) {
		return;
	}
	walk->budget--;
	lx += node->state.x;
	ly += node->state.y;
	struct wlr_scene_node *child;
	wl_list_for_each_reverse (child, &node->state.children, state.link) {
		hide_under_subtree(walk, child, lx, ly);
	}
	if (node->type == WLR_SCENE_NODE_ROOT || node->type == WLR_SCENE_NODE_TREE ||
			!node_placed(lx, ly)) {
		return;
	}
	struct wlr_box box = { .x = (int)lx, .y = (int)ly };
	node_size(node, &box.width, &box.height);
	if (box.width <= 0 || box.height <= 0) {
		return;
	}
	const pixman_box32_t *extents = pixman_region32_extents(walk->visible);
	if (box.x >= extents->x2 || box.y >= extents->y2 || box.x + box.width <= extents->x1 ||
			box.y + box.height <= extents->y1) {
		return;
	}
	struct wlr_buffer *pixels = node_pixels(node);
	if (pixels != NULL && !buffer_rows_fit(pixels)) {
		return; /* the frame leaves it out: it hides nothing */
	}
	if (!walk->locked && node->type == WLR_SCENE_NODE_BUFFER &&
			buffer_opacity_get(((struct wlr_scene_buffer *)node)->buffer) != NULL) {
		front_lock_take(walk->render);
		walk->locked = true;
	}
	pixman_region32_t opaque;
	pixman_region32_init(&opaque);
	node_opaque_region(node, &box, (int)lx, (int)ly, walk->output, &opaque);
	pixman_region32_subtract(walk->visible, walk->visible, &opaque);
	pixman_region32_fini(&opaque);
}

/* How deep in the scene a node may be for output_hide_under_opaque to
 * look above it (a window's content is 3-4 levels down). */
#define HIDE_DEPTH_MAX 16

void output_hide_under_opaque(struct smtwc_render *render, struct wlr_scene_node *node,
		struct wlr_output *output, int ox, int oy, pixman_region32_t *visible,
		size_t budget)
{
	if (output->scale != 1.0f || output->transform != WL_OUTPUT_TRANSFORM_NORMAL) {
		return; /* (node_opaque_region's boxes would be scaled or hide nothing) */
	}
	if (!render->culling) {
		/* wlroots' scene renderer blends every node: a window whose
		 * opaque region covers translucent pixels shows what is under. */
		return;
	}
	struct wlr_scene_node *chain[HIDE_DEPTH_MAX];
	size_t depth = 0;
	struct wlr_scene_node *n = node;
	for (; n->parent != NULL && depth < HIDE_DEPTH_MAX; n = n->parent) {
		chain[depth++] = n;
	}
	if (n->parent != NULL) {
		return; /* deeper than we look: all of it stays visible */
	}
	struct hide_walk walk = {
		.output = output, .visible = visible, .budget = budget, .render = render
	};
	/* From the root down, each level's siblings above the chain, topmost
	 * first: the windows on top hide the most. */
	int64_t lx = (int64_t)ox + n->state.x, ly = (int64_t)oy + n->state.y;
	for (size_t i = depth; i-- > 0;) {
		struct wlr_scene_node *on_chain = chain[i];
		struct wl_list *siblings = &on_chain->parent->state.children;
		for (struct wl_list *link = siblings->prev; link != &on_chain->state.link;
				link = link->prev) {
			struct wlr_scene_node *above = wl_container_of(link, above, state.link);
			hide_under_subtree(&walk, above, lx, ly);
		}
		lx += on_chain->state.x;
		ly += on_chain->state.y;
	}
	if (walk.locked) {
		pthread_rwlock_unlock(&render->front_lock);
	}
}

/* Paints the damage: what no node covers is cleared to black, then the
 * visible parts of the nodes, bottom to top. */
static void paint_frame(struct wlr_output *output, struct frame_walk *walk)
{
	const float black[4] = { 0.0f, 0.0f, 0.0f, 1.0f };
	int count;
	pixman_box32_t *rects = pixman_region32_rectangles(&walk->uncovered, &count);
	for (int i = 0; i < count; i++) {
		scissor_output(output, &rects[i]);
		wlr_renderer_clear(output->renderer, black);
	}
	for (size_t i = walk->count; i-- > 0;) {
		paint_node(walk, &walk->nodes[i]);
	}
	wlr_renderer_scissor(output->renderer, NULL);
}

static void render_stats_add(
		struct smtwc_render *stats, uint64_t ns, uint64_t painted, uint64_t damaged)
{
	stats->frames++;
	stats->ns_total += ns;
	if (ns > stats->ns_max) {
		stats->ns_max = ns;
	}
	stats->pixels_painted += painted;
	stats->pixels_damaged += damaged;
}

static uint64_t region_area(pixman_region32_t *region)
{
	int count;
	pixman_box32_t *rects = pixman_region32_rectangles(region, &count);
	uint64_t area = 0;
	for (int i = 0; i < count; i++) {
		area += (uint64_t)(rects[i].x2 - rects[i].x1) *
				(uint64_t)(rects[i].y2 - rects[i].y1);
	}
	return area;
}

void output_render_set_culling(struct smtwc_render *render, struct wlr_scene *scene, bool culling)
{
	render->culling = culling;
	struct wlr_scene_output *scene_output;
	wl_list_for_each (scene_output, &scene->outputs, link) {
		wlr_output_damage_add_whole(scene_output->damage);
	}
}

/* The renderer culling replaces, timed the same way: it paints the whole
 * damage once for the clear and once per node under it. (Its pixel counts
 * are not known here.) */
static bool render_frame_with_scene(
		struct wlr_scene_output *scene_output, struct smtwc_render *stats)
{
	bool damaged = pixman_region32_not_empty(&scene_output->damage->current);
	uint64_t start = monotonic_now_ns();
	bool ok = wlr_scene_output_commit(scene_output);
	if (damaged) {
		render_stats_add(stats, monotonic_now_ns() - start, 0, 0);
	}
	return ok;
}

void output_render_init(struct smtwc_render *render)
{
	pthread_rwlockattr_t attr;
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&render->front_lock, &attr);
	pthread_rwlockattr_destroy(&attr);
}

void output_render_finish(struct smtwc_render *render)
{
	pthread_rwlock_destroy(&render->front_lock);
}

static bool output_render_frame_locked(
		struct wlr_scene_output *scene_output, struct smtwc_render *stats);

/* Every buffer it may read stays still meanwhile (render.h, front_lock). */
bool output_render_frame(struct wlr_scene_output *scene_output, struct smtwc_render *stats)
{
	if (pthread_rwlock_trywrlock(&stats->front_lock) != 0) {
		uint64_t start = monotonic_now_ns();
		pthread_rwlock_wrlock(&stats->front_lock);
		stats->front_waits++;
		stats->front_wait_ns += monotonic_now_ns() - start;
	}
	bool ok = output_render_frame_locked(scene_output, stats);
	pthread_rwlock_unlock(&stats->front_lock);
	return ok;
}

static bool output_render_frame_locked(
		struct wlr_scene_output *scene_output, struct smtwc_render *stats)
{
	uint64_t rects = (uint64_t)pixman_region32_n_rects(&scene_output->damage->current);
	if (rects > stats->damage_rects_max) {
		stats->damage_rects_max = rects;
	}
	if (!stats->culling) {
		return render_frame_with_scene(scene_output, stats);
	}
	struct wlr_output *output = scene_output->output;
	struct wlr_renderer *renderer = output->renderer;
	bool needs_frame;
	pixman_region32_t damage;
	pixman_region32_init(&damage);
	if (!wlr_output_damage_attach_render(scene_output->damage, &needs_frame, &damage)) {
		pixman_region32_fini(&damage);
		return false;
	}
	if (!needs_frame) {
		pixman_region32_fini(&damage);
		wlr_output_rollback(output);
		return true;
	}
	uint64_t start = monotonic_now_ns();

	/* Buffers added since the last frame become textures now, as the scene
	 * renderer would: the list is the scene's, and it expects it drained. */
	struct wlr_scene *scene = scene_output->scene;
	struct wlr_scene_buffer *pending, *tmp;
	wl_list_for_each_safe (pending, tmp, &scene->pending_buffers, pending_link) {
		buffer_texture(pending, renderer);
		wl_list_remove(&pending->pending_link);
		wl_list_init(&pending->pending_link);
	}

	struct frame_walk walk = { .output = output };
	pixman_region32_init(&walk.uncovered);
	pixman_region32_copy(&walk.uncovered, &damage);
	walk_node(&walk, &scene->node, -scene_output->x, -scene_output->y);
	if (walk.out_of_memory) {
		/* Cannot cull without the list: paint everything under the damage. */
		for (size_t i = 0; i < walk.count; i++) {
			pixman_region32_fini(&walk.nodes[i].region);
			pixman_region32_fini(&walk.nodes[i].opaque);
		}
		walk.count = 0;
		pixman_region32_copy(&walk.uncovered, &damage);
	}

	wlr_renderer_begin(renderer, output->width, output->height);
	uint64_t painted = region_area(&walk.uncovered);
	paint_frame(output, &walk);
	if (walk.out_of_memory) {
		wlr_scene_render_output(scene, output, scene_output->x, scene_output->y, &damage);
	}
	for (size_t i = 0; i < walk.count; i++) {
		painted += region_area(&walk.nodes[i].region);
		pixman_region32_fini(&walk.nodes[i].region);
		pixman_region32_fini(&walk.nodes[i].opaque);
	}
	free(walk.nodes);
	pixman_region32_fini(&walk.uncovered);
	wlr_output_render_software_cursors(output, &damage);
	wlr_renderer_end(renderer);
	render_stats_add(stats, monotonic_now_ns() - start, painted, region_area(&damage));
	stats->nodes_painted_direct += walk.painted_direct;
	stats->nodes_painted_transformed += walk.painted_transformed;
	stats->nodes_unreadable += walk.unreadable;
	stats->rect_fill_pixels += walk.rect_fill_pixels;
	pixman_region32_fini(&damage);

	int width, height;
	wlr_output_transformed_resolution(output, &width, &height);
	pixman_region32_t frame_damage;
	pixman_region32_init(&frame_damage);
	wlr_region_transform(&frame_damage, &scene_output->damage->current,
			wlr_output_transform_invert(output->transform), width, height);
	wlr_output_set_damage(output, &frame_damage);
	pixman_region32_fini(&frame_damage);
	return wlr_output_commit(output);
}
