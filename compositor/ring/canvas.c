/*
 * smt_canvas_v1: how ring output reaches the screen. The front buffer is a
 * wlr_buffer over our own memory; with the pixman renderer the texture made
 * from it reads that memory directly, so a PRESENT costs one copy of the
 * damaged pixels (in bands over the ring's slices, canvas_copy.h) plus the
 * repaint of the same area.
 */
#define _GNU_SOURCE
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_buffer.h>
#include <wlr/render/pixman.h>
#include <wlr/render/wlr_texture.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/log.h>
#include "smt-ring-v1-protocol.h"
#include "compositor/desktop/view.h"
#include "compositor/output/output.h"
#include "compositor/output/render.h"
#include "compositor/server.h"
#include "compositor/ring/canvas.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/ordered_request.h"
#include "compositor/ring/present_post.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/trace/trace.h"
#include "compositor/output/buffer_opacity.h"
#include "compositor/exec/drawable_table.h"
#include "common/monotonic_clock.h"

struct smtwc_canvas_buffer {
	struct wlr_buffer base;
	void *data;
	size_t stride;
	pixman_image_t *image; /* over data, for copying into */
	/* What of it is opaque, for the renderer's culling: written by its
	 * copies (canvas_copy.h), under the render's front_lock on a worker */
	struct buffer_opacity opacity;
};

static void canvas_buffer_destroy(struct wlr_buffer *wlr_buffer)
{
	struct smtwc_canvas_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	pixman_image_unref(buffer->image);
	free(buffer->data);
	free(buffer);
}

static bool canvas_buffer_begin_access(struct wlr_buffer *wlr_buffer, uint32_t flags, void **data,
		uint32_t *format, size_t *stride)
{
	struct smtwc_canvas_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	*data = buffer->data;
	*format = DRM_FORMAT_ARGB8888;
	*stride = buffer->stride;
	return true;
}

static void canvas_buffer_end_access(struct wlr_buffer *wlr_buffer)
{
}

static const struct wlr_buffer_impl canvas_buffer_impl = {
	.destroy = canvas_buffer_destroy,
	.begin_data_ptr_access = canvas_buffer_begin_access,
	.end_data_ptr_access = canvas_buffer_end_access,
};

static struct smtwc_canvas_buffer *canvas_buffer_create(int width, int height)
{
	struct smtwc_canvas_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	buffer->stride = (size_t)width * 4;
	buffer->data = calloc((size_t)height, buffer->stride);
	if (buffer->data != NULL) {
		buffer->image = pixman_image_create_bits_no_clear(
				PIXMAN_a8r8g8b8, width, height, buffer->data, (int)buffer->stride);
	}
	if (buffer->image == NULL) {
		free(buffer->data);
		free(buffer);
		return NULL;
	}
	wlr_buffer_init(&buffer->base, &canvas_buffer_impl, width, height);
	buffer_opacity_attach(&buffer->opacity, &buffer->base);
	return buffer;
}

/* A canvas's images that nothing shows or draws into any more. */
struct canvas_images {
	pixman_image_t *back;
	struct smtwc_canvas_buffer *front;
};

static void canvas_images_drop(pixman_image_t *back, struct smtwc_canvas_buffer *front)
{
	if (back != NULL) {
		pixman_image_unref(back);
	}
	if (front != NULL) {
		wlr_buffer_drop(&front->base);
	}
}

static void canvas_images_release(void *data)
{
	struct canvas_images *images = data;
	canvas_images_drop(images->back, images->front);
	free(images);
}

/* Freed in pieces with what else is torn down (heap_reclaim.h): a canvas
 * of 256 MiB of written pixels was one munmap in a request handler. The
 * images' memory stays charged (`charged`) until it is freed. */
static void canvas_images_reclaim(struct smtwc_transport *transport,
		struct smtwc_client_usage *usage, pixman_image_t *back,
		struct smtwc_canvas_buffer *front, uint64_t charged)
{
	struct canvas_images *images = back != NULL || front != NULL ? calloc(1, sizeof(*images)) :
								       NULL;
	if (images == NULL) {
		canvas_images_drop(back, front);
		client_usage_release(usage, SMT_RES_MEMORY, charged);
		return;
	}
	*images = (struct canvas_images){ back, front };
	void *back_bits = back != NULL ? pixman_image_get_data(back) : NULL;
	size_t back_len = back != NULL ? (size_t)pixman_image_get_stride(back) *
					(size_t)pixman_image_get_height(back) :
					 0;
	heap_reclaim_add_memory(&transport->reclaims, back_bits, back_len,
			front != NULL ? front->data : NULL,
			front != NULL ? front->stride * (size_t)front->base.height : 0,
			canvas_images_release, images, usage, charged);
}

static struct smtwc_server *canvas_server(struct smtwc_canvas *canvas)
{
	return canvas->ring->transport->server;
}

static void canvas_send_presented(
		struct smtwc_canvas *canvas, uint32_t serial, uint64_t exec_ns, uint64_t display_ns)
{
	if (canvas->resource != NULL) {
		smt_canvas_v1_send_presented(canvas->resource, serial, (uint32_t)(exec_ns >> 32),
				(uint32_t)exec_ns, (uint32_t)(display_ns >> 32),
				(uint32_t)display_ns);
	}
}

static void canvas_handle_node_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_canvas *canvas = wl_container_of(listener, canvas, node_destroy);
	wl_list_remove(&canvas->node_destroy.link);
	wl_list_init(&canvas->node_destroy.link);
	canvas->node = NULL;
}

static void canvas_detach(struct smtwc_canvas *canvas)
{
	if (canvas->node != NULL) {
		wl_list_remove(&canvas->node_destroy.link);
		wl_list_init(&canvas->node_destroy.link);
		wlr_scene_node_destroy(&canvas->node->node);
		canvas->node = NULL;
	}
}

/* The canvas is shown in the scene tree of its surface, above the surface
 * itself; popups created later stack above it. */
static void canvas_attach(struct smtwc_canvas *canvas)
{
	if (canvas->node != NULL || canvas->surface == NULL ||
			!wlr_surface_is_xdg_surface(canvas->surface)) {
		return;
	}
	struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(canvas->surface);
	struct wlr_scene_node *parent = xdg->data;
	if (parent == NULL || !xdg->mapped) {
		return;
	}
	canvas->node = wlr_scene_buffer_create(parent, &canvas->front->base);
	if (canvas->node == NULL) {
		return;
	}
	/* The whole buffer named: wlroots 0.15's scene renderer reads an
	 * empty source box as the node's size on the output, so at output
	 * scale 2 the canvas showed at 1:1 in a quarter of its window. */
	wlr_scene_buffer_set_source_box(canvas->node,
			&(struct wlr_fbox){ 0, 0, canvas->front->base.width,
					canvas->front->base.height });
	wlr_scene_node_raise_to_top(&canvas->node->node);
	canvas->node->node.data = canvas;
	canvas->node_destroy.notify = canvas_handle_node_destroy;
	wl_signal_add(&canvas->node->node.events.destroy, &canvas->node_destroy);
}

static void canvas_handle_surface_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_canvas *canvas = wl_container_of(listener, canvas, surface_commit);
	canvas_attach(canvas);
}

static void canvas_forget_surface(struct smtwc_canvas *canvas)
{
	if (canvas->surface == NULL) {
		return;
	}
	wlr_addon_finish(&canvas->surface_addon);
	canvas_detach(canvas);
	wl_list_remove(&canvas->surface_commit.link);
	wl_list_remove(&canvas->surface_destroy.link);
	canvas->surface = NULL;
}

static void canvas_handle_surface_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_canvas *canvas = wl_container_of(listener, canvas, surface_destroy);
	canvas_forget_surface(canvas);
}

/* The surface's addons are finished after its destroy signal, when the
 * canvas has let go already (canvas_forget_surface); this is for a surface
 * that goes some other way. */
static void canvas_addon_destroy(struct wlr_addon *addon)
{
	struct smtwc_canvas *canvas = wl_container_of(addon, canvas, surface_addon);
	canvas_forget_surface(canvas);
}

static const struct wlr_addon_interface canvas_addon_impl = {
	.name = "smtwc_canvas",
	.destroy = canvas_addon_destroy,
};

/* Each rectangle added to an output's damage is a union that walks all it
 * holds: a client's PRESENTs of thousands of separate rectangles made that
 * quadratic on the main thread (red team, session 33). wlroots renders
 * the damage as its extents past max_rects (wlr_output_damage_attach_render),
 * so holding more gains nothing: past that, the extents are kept. */
static void output_damage_add_few(struct wlr_output_damage *damage, struct wlr_box *box)
{
	wlr_output_damage_add_box(damage, box);
	if (pixman_region32_n_rects(&damage->current) > damage->max_rects) {
		pixman_box32_t extents = *pixman_region32_extents(&damage->current);
		pixman_region32_reset(&damage->current, &extents);
	}
}

/* How many nodes above a canvas a PRESENT looks at for what hides its
 * damage: a desktop's windows; past that the rest of the damage stays. */
#define CANVAS_HIDE_BUDGET 256
/* A canvas's shown part kept between frames (canvas_shown_part): at most
 * that many rectangles, and what pixman allocates for them. */
#define CANVAS_SHOWN_RECTS_MAX 8
#define CANVAS_SHOWN_BYTES (16u + CANVAS_SHOWN_RECTS_MAX * sizeof(pixman_box32_t))

/* What of the canvas shows on the scene output (output coordinates):
 * found by a walk of what is above it, then kept until any frame is
 * rendered, for the PRESENTs before it. A client's thousands of small
 * PRESENTs under hundreds of windows walked 256 nodes each (red team,
 * session 36: 9-12 us of the main thread a PRESENT, 1-7 before the
 * clipping). Reusing it is safe: whatever uncovers a hidden part after
 * the walk (a window above moved, closed, turned translucent; the canvas
 * itself moved) damages that part itself, and that damage is painted at
 * the next render, from the canvas's pixels of then, before the kept
 * region is walked again. Kept as at most CANVAS_SHOWN_RECTS_MAX
 * rectangles (else their extents: more damage, never less), charged in
 * CANVAS_BOOKKEEPING. */
static void canvas_shown_part(struct smtwc_canvas *canvas, struct wlr_scene_output *so, int lx,
		int ly, int width, int height, pixman_region32_t *visible)
{
	struct smtwc_render *render = &canvas_server(canvas)->render;
	if (canvas->shown_output == so && canvas->shown_frames == render->frames) {
		pixman_region32_copy(visible, &canvas->shown);
		return;
	}
	pixman_region32_reset(visible,
			&(pixman_box32_t){ lx - so->x, ly - so->y, lx - so->x + canvas->width,
					ly - so->y + canvas->height });
	pixman_region32_intersect_rect(visible, visible, 0, 0, (unsigned)width, (unsigned)height);
	output_hide_under_opaque(render, &canvas->node->node, so->output, -so->x, -so->y, visible,
			CANVAS_HIDE_BUDGET);
	if (pixman_region32_n_rects(visible) > CANVAS_SHOWN_RECTS_MAX) {
		pixman_region32_reset(&canvas->shown, pixman_region32_extents(visible));
	} else {
		pixman_region32_copy(&canvas->shown, visible);
	}
	canvas->shown_output = so;
	canvas->shown_frames = render->frames;
}

/* Damages each output where the rectangles (canvas coordinates) show and
 * no opaque window above the canvas hides them: repainting a hidden
 * canvas's damage only repaints what covers it, and among a dozen
 * flooders under one window that was most of a frame's render, which
 * input waits behind (benchmarks.md, session 36). An output the canvas's
 * damage reaches but where all of it is hidden still gets a frame, for
 * the PRESENT's `presented`. Returns whether the damage reaches any
 * output. */
static bool canvas_damage_outputs(struct smtwc_canvas *canvas, const pixman_box32_t *rects, int n)
{
	int lx, ly;
	if (canvas->node == NULL || !wlr_scene_node_coords(&canvas->node->node, &lx, &ly)) {
		return false;
	}
	bool shown = false;
	struct wlr_scene_output *so;
	wl_list_for_each (so, &canvas_server(canvas)->scene->outputs, link) {
		struct wlr_output *output = so->output;
		int width, height;
		wlr_output_effective_resolution(output, &width, &height);
		struct wlr_box area = { so->x, so->y, width, height };
		bool whole = output->scale != 1.0f ||
				output->transform != WL_OUTPUT_TRANSFORM_NORMAL;
		pixman_region32_t visible;
		pixman_region32_init(&visible);
		if (!whole) {
			canvas_shown_part(canvas, so, lx, ly, width, height, &visible);
		}
		bool reached = false, damaged = false;
		for (int i = 0; i < n; i++) {
			struct wlr_box box = { lx + rects[i].x1, ly + rects[i].y1,
				rects[i].x2 - rects[i].x1, rects[i].y2 - rects[i].y1 };
			struct wlr_box inter;
			if (!wlr_box_intersection(&inter, &box, &area)) {
				continue;
			}
			reached = true;
			if (whole) {
				/* Rare on the machines that use rings; exactness over speed. */
				wlr_output_damage_add_whole(so->damage);
				damaged = true;
				break;
			}
			pixman_region32_t part;
			pixman_region32_init_rect(&part, inter.x - so->x, inter.y - so->y,
					(unsigned)inter.width, (unsigned)inter.height);
			pixman_region32_intersect(&part, &part, &visible);
			int count;
			const pixman_box32_t *shows = pixman_region32_rectangles(&part, &count);
			for (int k = 0; k < count; k++) {
				struct wlr_box local = { shows[k].x1, shows[k].y1,
					shows[k].x2 - shows[k].x1, shows[k].y2 - shows[k].y1 };
				output_damage_add_few(so->damage, &local);
				damaged = true;
			}
			pixman_region32_fini(&part);
		}
		pixman_region32_fini(&visible);
		if (reached && !damaged) {
			wlr_output_schedule_frame(output);
		}
		shown |= reached;
	}
	return shown;
}

/* Renderers that copied the buffer into a texture need the new pixels
 * uploaded; pixman's texture reads our memory directly. */
static void canvas_present_band(void *data, const pixman_box32_t *band)
{
	struct smtwc_canvas *canvas = data;
	if (!wlr_renderer_is_pixman(canvas_server(canvas)->renderer) && canvas->node != NULL &&
			canvas->node->texture != NULL) {
		wlr_texture_write_pixels(canvas->node->texture, (uint32_t)canvas->front->stride,
				(uint32_t)(band->x2 - band->x1), (uint32_t)(band->y2 - band->y1),
				(uint32_t)band->x1, (uint32_t)band->y1, (uint32_t)band->x1,
				(uint32_t)band->y1, canvas->front->data);
	}
}

/* A PRESENT's damage, taken from the executor, is charged as the
 * client's memory until its copy is reported (session 42). */
static void release_present_damage(struct smtwc_ring *ring, uint64_t charged)
{
	if (charged == 0) {
		return;
	}
	atomic_fetch_sub(&ring->present_region_bytes, charged);
	client_usage_release(ring->usage, SMT_RES_MEMORY, charged);
}

void canvas_present(struct smtwc_ring *ring, uint32_t canvas_id, uint32_t serial)
{
	pixman_region32_t damage;
	uint64_t charged = smt_exec_take_damage(ring->exec, &damage);
	atomic_fetch_add(&ring->present_region_bytes, charged);
	/* The canvas the executor drew for under that id: a client may have
	 * destroyed it and made another with the same id after the PRESENT,
	 * and the new one waits for the commands before it (its id is
	 * registered when they ran), so it must not take this PRESENT.
	 * (On a worker: the list and `registered` change under the ring's
	 * exec_lock or while the ring is handed, canvas_create and
	 * ordered_request.h.) */
	struct smtwc_canvas *canvas = NULL, *it;
	wl_list_for_each (it, &ring->canvases, ring_link) {
		if (it->id == canvas_id && it->registered) {
			canvas = it;
			break;
		}
	}
	if (canvas == NULL) {
		pixman_region32_fini(&damage);
		release_present_damage(ring, charged);
		return;
	}
	canvas_copy_init_take(&canvas->present_copy, &damage);
	canvas->present_charged = charged;
	canvas->present_copy.dst_translucent = &canvas->front->opacity.translucent;
	canvas->present_serial = serial;
	canvas->present_exec_ns = monotonic_now_ns();
	trace_event(TRACE_PRESENT_EXEC, ring->pid, serial);
	ring->presenting = canvas;
}

static void canvas_present_end(struct smtwc_canvas *canvas)
{
	canvas_copy_fini(&canvas->present_copy);
	release_present_damage(canvas->ring, canvas->present_charged);
	canvas->present_charged = 0;
	canvas->ring->presenting = NULL;
}

/* wlroots' default wlr_output_damage.max_rects: a damage of more
 * rectangles is rendered as its extents. */
#define CANVAS_DAMAGE_RECTS_MAX 20

/* A PRESENT whose copy is complete, on the main thread: the outputs that
 * show the damage are damaged (so a repaint for it shows all of it) and
 * its `presented` waits for their frame, or is sent now if none shows it. */
static void canvas_present_complete(struct smtwc_canvas *canvas, pixman_region32_t *damage,
		uint32_t serial, uint64_t exec_ns)
{
	int n = 0;
	const pixman_box32_t *rects = pixman_region32_rectangles(damage, &n);
	/* Past that many, rendered as its extents anyway
	 * (output_damage_add_few); one rectangle instead of thousands of looks
	 * at every output. */
	bool shown = n > CANVAS_DAMAGE_RECTS_MAX ?
			canvas_damage_outputs(canvas, pixman_region32_extents(damage), 1) :
			canvas_damage_outputs(canvas, rects, n);
	if (shown) {
		if (!canvas->pending) {
			wl_list_insert(canvas->ring->transport->canvases_pending.prev,
					&canvas->pending_link);
		}
		canvas->pending = true;
		canvas->pending_serial = serial;
		canvas->pending_exec_ns = exec_ns;
	} else {
		canvas_send_presented(canvas, serial, exec_ns, 0);
	}
}

/* Whether a worker may write a front buffer: with the pixman renderer the
 * frame reads our memory, under the render's front_lock; another renderer
 * keeps a texture the main thread uploads (canvas_present_band). */
static bool canvas_copies_on_workers(struct smtwc_server *server)
{
	return wlr_renderer_is_pixman(server->renderer);
}

/* On a worker: the copy under the frame's front_lock, then posted. */
static enum canvas_present_step canvas_present_resume_worker(
		struct smtwc_ring *ring, struct smtwc_canvas *canvas, uint64_t deadline_ns)
{
	struct smtwc_server *server = canvas_server(canvas);
	if (!canvas_copies_on_workers(server)) {
		return CANVAS_PRESENT_FOR_MAIN;
	}
	if (!canvas_copy_run(&canvas->present_copy, canvas->back, canvas->front->image, deadline_ns,
			    &server->render.front_lock, &server->render.front_copier_waits, NULL,
			    NULL)) {
		return CANVAS_PRESENT_COPYING;
	}
	bool was_empty = false;
	if (!present_post_put(&ring->transport->presents, &ring->outbox, canvas,
			    canvas->present_serial, canvas->present_exec_ns,
			    &canvas->present_copy.region, canvas->present_charged, &was_empty)) {
		/* The outbox is full: the main thread reports this one itself
		 * (the copy is done), after the posted ones. */
		return CANVAS_PRESENT_FOR_MAIN;
	}
	canvas->present_charged = 0; /* posted with it */
	ring->handoff.posted |= was_empty;
	canvas_present_end(canvas);
	return CANVAS_PRESENT_DONE;
}

enum canvas_present_step canvas_present_resume(
		struct smtwc_ring *ring, uint64_t deadline_ns, bool on_worker)
{
	struct smtwc_canvas *canvas = ring->presenting;
	if (canvas == NULL) {
		return CANVAS_PRESENT_DONE;
	}
	if (on_worker) {
		return canvas_present_resume_worker(ring, canvas, deadline_ns);
	}
	/* (The main thread renders: it needs no front_lock to write.) */
	if (!canvas_copy_run(&canvas->present_copy, canvas->back, canvas->front->image, deadline_ns,
			    NULL, NULL, canvas_present_band, canvas)) {
		return CANVAS_PRESENT_COPYING;
	}
	canvas_present_complete(canvas, &canvas->present_copy.region, canvas->present_serial,
			canvas->present_exec_ns);
	canvas_present_end(canvas);
	return CANVAS_PRESENT_DONE;
}

static void canvas_take_posted(void *data, const struct present_posted *posted)
{
	(void)data;
	struct smtwc_canvas *canvas = posted->canvas;
	canvas_present_complete(canvas, (pixman_region32_t *)&posted->damage, posted->serial,
			posted->exec_ns);
	release_present_damage(canvas->ring, posted->charged);
}

bool canvases_take_posted(struct smtwc_transport *transport)
{
	return present_post_take(&transport->presents, canvas_take_posted, NULL) > 0;
}

/* Before a frame is rendered: the PRESENTs it shows are in flight. */
static void canvases_output_frame(struct smtwc_output *output)
{
	/* What workers copied since the main thread's last turn is in this
	 * frame: its damage is added before the render. */
	canvases_take_posted(output->server->transport);
	struct wlr_box box = output_layout_box(output);
	struct smtwc_canvas *canvas, *tmp;
	wl_list_for_each_safe (
			canvas, tmp, &output->server->transport->canvases_pending, pending_link) {
		int lx, ly;
		if (!canvas->pending || canvas->node == NULL ||
				!wlr_scene_node_coords(&canvas->node->node, &lx, &ly)) {
			continue;
		}
		struct wlr_box cbox = { lx, ly, canvas->width, canvas->height }, inter;
		if (!wlr_box_intersection(&inter, &cbox, &box)) {
			continue;
		}
		canvas->pending = false;
		wl_list_remove(&canvas->pending_link);
		wl_list_init(&canvas->pending_link);
		if (!canvas->inflight) {
			wl_list_insert(output->server->transport->canvases_inflight.prev,
					&canvas->inflight_link);
		}
		canvas->inflight = true;
		canvas->inflight_serial = canvas->pending_serial;
		canvas->inflight_exec_ns = canvas->pending_exec_ns;
		canvas->inflight_output = output->wlr_output;
	}
}

static void canvases_output_presented(struct smtwc_output *output, uint64_t when_ns)
{
	struct smtwc_canvas *canvas, *tmp;
	wl_list_for_each_safe (
			canvas, tmp, &output->server->transport->canvases_inflight, inflight_link) {
		if (canvas->inflight && canvas->inflight_output == output->wlr_output) {
			canvas->inflight = false;
			wl_list_remove(&canvas->inflight_link);
			wl_list_init(&canvas->inflight_link);
			canvas_send_presented(canvas, canvas->inflight_serial,
					canvas->inflight_exec_ns, when_ns);
		}
	}
}

static void canvas_free(struct smtwc_canvas *canvas)
{
	if (canvas->ring->presenting == canvas) {
		canvas_present_end(canvas); /* the ring is going away */
	}
	/* (no `presented` for a canvas the client destroyed) */
	release_present_damage(canvas->ring,
			present_post_drop(&canvas->ring->transport->presents, &canvas->ring->outbox,
					canvas));
	canvas_forget_surface(canvas);
	if (canvas->registered) {
		smt_exec_unregister_canvas(canvas->ring->exec, canvas->id);
	}
	wl_list_remove(&canvas->ring_link);
	wl_list_remove(&canvas->pending_link);
	wl_list_remove(&canvas->inflight_link);
	canvas_images_reclaim(canvas->ring->transport, canvas->ring->usage, canvas->back,
			canvas->front, canvas->charged);
	client_usage_release(canvas->ring->usage, SMT_RES_CANVASES, 1);
	pixman_region32_fini(&canvas->shown);
	free(canvas);
}

/* A canvas change waiting for the commands published before it
 * (ordered_request.h). Resize carries the new images, made and checked
 * when the request arrived. */
struct canvas_request {
	struct smtwc_ordered_request base;
	struct smtwc_canvas *canvas;
	pixman_image_t *back;
	struct smtwc_canvas_buffer *front;
	uint32_t width, height;
	uint64_t charged; /* their memory, until they replace the canvas's */
	/* resize: the old pixels kept, copied over the ring's slices */
	bool copying;
	struct canvas_copy back_copy, front_copy;
};

/* What a canvas costs the compositor besides its pixels: its struct and
 * the front buffer's, two pixman images, the scene node that shows it (a
 * client with 52,000 1x1 canvases was charged 8 bytes each, issue 24),
 * and its front's translucent region at its largest (pixman's header and
 * twice the rectangles canvas_copy.h allows, while an
 * operation builds the next). The wl_surface it stands on is charged as
 * every surface is (surface_usage.h), its resource as every object is
 * (object_usage.h). */
#define CANVAS_BOOKKEEPING                                                          \
	(sizeof(struct smtwc_canvas) + sizeof(struct smtwc_canvas_buffer) +         \
			2 * SMT_PIXMAP_OVERHEAD + sizeof(struct wlr_scene_buffer) + \
			sizeof(struct canvas_request) + CANVAS_TRANSLUCENT_BYTES +  \
			CANVAS_SHOWN_BYTES)
/* A canvas's front translucent region at its largest, twice. */
#define CANVAS_TRANSLUCENT_BYTES \
	(2u * (16u + (2u * CANVAS_TRANSLUCENT_RECTS_MAX + 2u) * sizeof(pixman_box32_t)))

/* The back image and the front buffer, and the bookkeeping around them. */
static uint64_t canvas_memory(uint32_t width, uint32_t height)
{
	return 2ull * 4 * width * height + CANVAS_BOOKKEEPING;
}

static struct canvas_request *canvas_request_new(struct smtwc_canvas *canvas,
		void (*apply)(struct smtwc_ordered_request *),
		void (*discard)(struct smtwc_ordered_request *))
{
	struct canvas_request *req = calloc(1, sizeof(*req));
	if (req != NULL) {
		req->base.apply = apply;
		req->base.discard = discard;
		req->canvas = canvas;
	}
	return req;
}

static void canvas_request_end_copy(struct canvas_request *req)
{
	if (req->copying) {
		canvas_copy_fini(&req->back_copy);
		canvas_copy_fini(&req->front_copy);
		req->copying = false;
	}
}

static void canvas_request_free(struct smtwc_ordered_request *base)
{
	struct canvas_request *req = wl_container_of(base, req, base);
	canvas_request_end_copy(req);
	struct smtwc_ring *ring = req->canvas->ring;
	canvas_images_reclaim(ring->transport, ring->usage, req->back, req->front, req->charged);
	free(req);
}

static void canvas_register_apply(struct smtwc_ordered_request *base)
{
	struct canvas_request *req = wl_container_of(base, req, base);
	struct smtwc_canvas *canvas = req->canvas;
	struct smtwc_ring *ring = canvas->ring;
	/* The id may have been taken by a pixmap the earlier commands made. */
	uint32_t err = smt_exec_register_canvas(ring->exec, canvas->id, canvas->back);
	const struct smt_usage_refusal *why = smt_exec_last_refusal(ring->exec);
	if (err == 0) {
		canvas->registered = true;
	} else if (!ring->dead && err == SMT_ERROR_LIMIT && why != NULL) {
		char text[128];
		smt_usage_describe(why, text, sizeof(text));
		wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_LIMIT,
				"get_canvas: drawable id %u: %s", canvas->id, text);
	} else if (!ring->dead) {
		wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_ID,
				"get_canvas: drawable id %u is 0, out of range or in use (%s)",
				canvas->id, smt_error_name(err));
	}
	free(req);
}

/* Keep what fits: the old frame stays on screen until the next PRESENT
 * instead of a flash of transparency. Copied into the new images, which
 * nobody sees or draws into yet, in bands: the old ones cannot change
 * meanwhile (the ring's commands wait for the resize, and a PRESENT's copy,
 * the only writer of the front image, finished before it). The size that
 * fits is the canvas's when the copy starts: earlier resizes have applied. */
static bool canvas_resize_prepare(struct smtwc_ordered_request *base, uint64_t deadline_ns)
{
	struct canvas_request *req = wl_container_of(base, req, base);
	struct smtwc_canvas *canvas = req->canvas;
	if (!req->copying) {
		int width = canvas->width < (int)req->width ? canvas->width : (int)req->width;
		int height = canvas->height < (int)req->height ? canvas->height : (int)req->height;
		canvas_copy_init_box(&req->back_copy, width, height);
		canvas_copy_init_box(&req->front_copy, width, height);
		req->front_copy.dst_translucent = &req->front->opacity.translucent;
		req->copying = true;
	}
	return canvas_copy_run(&req->back_copy, canvas->back, req->back, deadline_ns, NULL, NULL,
			       NULL, NULL) &&
			canvas_copy_run(&req->front_copy, canvas->front->image, req->front->image,
					deadline_ns, NULL, NULL, NULL, NULL);
}

static void canvas_resize_apply(struct smtwc_ordered_request *base)
{
	struct canvas_request *req = wl_container_of(base, req, base);
	struct smtwc_canvas *canvas = req->canvas;
	if (canvas->registered) {
		/* Replaced in place: it stays the client's target, clipped anew. */
		smt_exec_replace_canvas(canvas->ring->exec, canvas->id, req->back);
	}
	canvas_detach(canvas);
	canvas_images_reclaim(canvas->ring->transport, canvas->ring->usage, canvas->back,
			canvas->front, canvas->charged);
	canvas->back = req->back;
	canvas->front = req->front;
	canvas->width = (int)req->width;
	canvas->height = (int)req->height;
	canvas->charged = req->charged;
	canvas_attach(canvas);
	canvas_request_end_copy(req);
	free(req);
}

static void canvas_free_apply(struct smtwc_ordered_request *base)
{
	struct canvas_request *req = wl_container_of(base, req, base);
	canvas_free(req->canvas);
	free(req);
}

static void canvas_handle_resource_destroy(struct wl_resource *resource)
{
	struct smtwc_canvas *canvas = wl_resource_get_user_data(resource);
	if (canvas == NULL) {
		return;
	}
	canvas->resource = NULL;
	/* Off the screen and free for a new canvas on the same surface now;
	 * commands the client wrote before destroying it still draw into it. */
	canvas_forget_surface(canvas);
	struct canvas_request *req = canvas_request_new(
			canvas, canvas_free_apply, canvas_request_free);
	if (req == NULL) {
		/* out of memory: queued commands fail cleanly (a worker may be
		 * drawing: it is the ring's for one piece at most) */
		ring_workers_lock_ring(canvas->ring);
		canvas_free(canvas);
		ring_workers_unlock_ring(canvas->ring);
		return;
	}
	/* (canvases_ring_destroyed frees it if the ring goes first) */
	ordered_request_queue(canvas->ring, &req->base);
}

static bool canvas_size_valid(uint32_t width, uint32_t height)
{
	return width > 0 && height > 0 && width <= SMT_MAX_DIMENSION && height <= SMT_MAX_DIMENSION;
}

static void canvas_handle_resize(struct wl_client *client, struct wl_resource *resource,
		uint32_t width, uint32_t height)
{
	struct smtwc_canvas *canvas = wl_resource_get_user_data(resource);
	if (canvas == NULL) {
		return;
	}
	if (!canvas_size_valid(width, height)) {
		wl_resource_post_error(resource, SMT_CANVAS_V1_ERROR_BAD_SIZE,
				"canvas %u: size %ux%u outside 1..%u", canvas->id, width, height,
				SMT_MAX_DIMENSION);
		return;
	}
	if (!ordered_request_room(canvas->ring, resource, SMT_CANVAS_V1_ERROR_LIMIT,
			    "smt_canvas_v1.resize")) {
		return;
	}
	/* Both sizes are held until the commands before the resize ran. */
	uint64_t bytes = canvas_memory(width, height);
	if (!client_usage_charge(canvas->ring->usage, SMT_RES_MEMORY, bytes, resource,
			    SMT_CANVAS_V1_ERROR_LIMIT, "smt_canvas_v1.resize")) {
		return;
	}
	struct canvas_request *req = canvas_request_new(
			canvas, canvas_resize_apply, canvas_request_free);
	if (req == NULL) {
		client_usage_release(canvas->ring->usage, SMT_RES_MEMORY, bytes);
		wl_client_post_no_memory(client);
		return;
	}
	req->base.prepare = canvas_resize_prepare;
	req->charged = bytes;
	req->width = width;
	req->height = height;
	req->back = pixman_image_create_bits(PIXMAN_a8r8g8b8, (int)width, (int)height, NULL, 0);
	req->front = canvas_buffer_create((int)width, (int)height);
	if (req->back == NULL || req->front == NULL) {
		canvas_request_free(&req->base);
		wl_client_post_no_memory(client);
		return;
	}
	ordered_request_queue(canvas->ring, &req->base);
}

static void canvas_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct smt_canvas_v1_interface canvas_impl = {
	.resize = canvas_handle_resize,
	.destroy = canvas_handle_destroy,
};

void canvas_create(struct smtwc_ring *ring, struct wl_client *client, uint32_t id,
		uint32_t canvas_id, struct wl_resource *surface_resource, uint32_t width,
		uint32_t height)
{
	struct wl_resource *resource = wl_resource_create(client, &smt_canvas_v1_interface,
			wl_resource_get_version(ring->resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(
			resource, &canvas_impl, NULL, canvas_handle_resource_destroy);
	if (!canvas_size_valid(width, height)) {
		wl_resource_post_error(resource, SMT_CANVAS_V1_ERROR_BAD_SIZE,
				"canvas %u: size %ux%u outside 1..%u", canvas_id, width, height,
				SMT_MAX_DIMENSION);
		return;
	}
	/* Counted with the other requests that wait for earlier commands. */
	if (!ordered_request_room(ring, ring->resource, SMT_RING_V1_ERROR_LIMIT, "get_canvas")) {
		return;
	}
	struct wlr_surface *surface = wlr_surface_from_resource(surface_resource);
	struct wlr_addon *addon = wlr_addon_find(
			&surface->addons, ring->transport, &canvas_addon_impl);
	if (addon != NULL) {
		struct smtwc_canvas *other = wl_container_of(addon, other, surface_addon);
		wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_SURFACE,
				"get_canvas: the surface already has canvas %u", other->id);
		return;
	}
	/* Counted as well as charged: a disconnect destroys all of a client's
	 * surfaces in one go inside libwayland (about 1 us each, 52 ms for
	 * 52,000), which no budget can split. */
	if (!client_usage_charge(ring->usage, SMT_RES_CANVASES, 1, ring->resource,
			    SMT_RING_V1_ERROR_LIMIT, "get_canvas")) {
		return;
	}
	uint64_t bytes = canvas_memory(width, height);
	if (!client_usage_charge(ring->usage, SMT_RES_MEMORY, bytes, ring->resource,
			    SMT_RING_V1_ERROR_LIMIT, "get_canvas")) {
		client_usage_release(ring->usage, SMT_RES_CANVASES, 1);
		return;
	}
	struct smtwc_canvas *canvas = calloc(1, sizeof(*canvas));
	if (canvas == NULL) {
		client_usage_release(ring->usage, SMT_RES_MEMORY, bytes);
		client_usage_release(ring->usage, SMT_RES_CANVASES, 1);
		wl_client_post_no_memory(client);
		return;
	}
	canvas->charged = bytes;
	canvas->back = pixman_image_create_bits(PIXMAN_a8r8g8b8, (int)width, (int)height, NULL, 0);
	canvas->front = canvas_buffer_create((int)width, (int)height);
	if (canvas->back == NULL || canvas->front == NULL) {
		if (canvas->back != NULL) {
			pixman_image_unref(canvas->back);
		}
		if (canvas->front != NULL) {
			wlr_buffer_drop(&canvas->front->base);
		}
		free(canvas);
		client_usage_release(ring->usage, SMT_RES_MEMORY, bytes);
		client_usage_release(ring->usage, SMT_RES_CANVASES, 1);
		wl_client_post_no_memory(client);
		return;
	}
	struct canvas_request *req = canvas_request_new(
			canvas, canvas_register_apply, canvas_request_free);
	if (req == NULL) {
		pixman_image_unref(canvas->back);
		wlr_buffer_drop(&canvas->front->base);
		free(canvas);
		client_usage_release(ring->usage, SMT_RES_MEMORY, bytes);
		client_usage_release(ring->usage, SMT_RES_CANVASES, 1);
		wl_client_post_no_memory(client);
		return;
	}
	canvas->kind = SMTWC_NODE_CANVAS;
	canvas->resource = resource;
	canvas->ring = ring;
	canvas->id = canvas_id;
	canvas->width = (int)width;
	canvas->height = (int)height;
	canvas->surface = surface;
	wl_list_init(&canvas->node_destroy.link);
	canvas->surface_commit.notify = canvas_handle_surface_commit;
	wl_signal_add(&surface->events.commit, &canvas->surface_commit);
	canvas->surface_destroy.notify = canvas_handle_surface_destroy;
	wl_signal_add(&surface->events.destroy, &canvas->surface_destroy);
	/* A worker looks PRESENTs' canvases up in the list (canvas_present). */
	ring_workers_lock_ring(ring);
	wl_list_insert(&ring->canvases, &canvas->ring_link);
	ring_workers_unlock_ring(ring);
	pixman_region32_init(&canvas->shown);
	wl_list_init(&canvas->pending_link);
	wl_list_init(&canvas->inflight_link);
	wlr_addon_init(&canvas->surface_addon, &surface->addons, ring->transport,
			&canvas_addon_impl);
	wl_resource_set_user_data(resource, canvas);
	canvas_attach(canvas);
	/* Drawable ids are the executor's: commands published before this
	 * request may still create or free the pixmap with this id. */
	ordered_request_queue(ring, &req->base);
}

/* A gone ring's canvases, off the screen and their surfaces already,
 * freed in pieces (heap_reclaim.h): a client with 52,000 canvases took
 * 25 ms of the disconnect to free them. */
struct gone_canvases {
	struct wl_list canvases; /* smtwc_canvas.ring_link */
	struct smtwc_transport *transport;
	struct smtwc_client_usage *usage;
};

static bool gone_canvases_some(void *data, uint64_t deadline_ns)
{
	struct gone_canvases *gone = data;
	unsigned n = 0;
	while (!wl_list_empty(&gone->canvases)) {
		struct smtwc_canvas *canvas = wl_container_of(
				gone->canvases.next, canvas, ring_link);
		wl_list_remove(&canvas->ring_link);
		canvas_images_reclaim(gone->transport, gone->usage, canvas->back, canvas->front,
				canvas->charged);
		client_usage_release(gone->usage, SMT_RES_CANVASES, 1);
		pixman_region32_fini(&canvas->shown);
		free(canvas);
		if (deadline_ns != 0 && ++n % 64 == 0 && monotonic_now_ns() >= deadline_ns) {
			return false;
		}
	}
	client_usage_unref(gone->usage);
	free(gone);
	return true;
}

void canvases_ring_destroyed(struct smtwc_ring *ring)
{
	/* (no worker runs it any more: ring_workers_forget) */
	release_present_damage(
			ring, present_post_drop(&ring->transport->presents, &ring->outbox, NULL));
	if (wl_list_empty(&ring->canvases)) {
		return;
	}
	struct gone_canvases *gone = calloc(1, sizeof(*gone));
	struct smtwc_canvas *canvas, *tmp;
	if (gone == NULL) { /* out of memory: all at once */
		wl_list_for_each_safe (canvas, tmp, &ring->canvases, ring_link) {
			if (canvas->resource != NULL) {
				wl_resource_set_user_data(canvas->resource, NULL);
			}
			canvas_free(canvas);
		}
		return;
	}
	wl_list_init(&gone->canvases);
	gone->transport = ring->transport;
	gone->usage = client_usage_hold(ring->usage);
	/* What the screen, the surfaces, the frames and the client's
	 * resources know of them goes now; the executor (its entries) is
	 * torn down in pieces too. */
	wl_list_for_each_safe (canvas, tmp, &ring->canvases, ring_link) {
		if (canvas->resource != NULL) {
			wl_resource_set_user_data(canvas->resource, NULL);
		}
		if (ring->presenting == canvas) {
			canvas_present_end(canvas);
		}
		canvas_forget_surface(canvas);
		wl_list_remove(&canvas->pending_link);
		wl_list_remove(&canvas->inflight_link);
		wl_list_remove(&canvas->ring_link);
		canvas->ring = NULL;
		wl_list_insert(gone->canvases.prev, &canvas->ring_link);
	}
	heap_reclaim_add_work(&gone->transport->reclaims, gone_canvases_some, gone);
}

uint64_t canvases_bytes(struct smtwc_ring *ring)
{
	uint64_t total = 0;
	struct smtwc_canvas *canvas;
	wl_list_for_each (canvas, &ring->canvases, ring_link) {
		total += canvas->charged;
	}
	return total;
}

/* The surface whose content a canvas scene node shows (input goes there). */
static struct wlr_surface *canvas_node_surface(struct wlr_scene_node *node)
{
	if (node == NULL || node->type != WLR_SCENE_NODE_BUFFER || node->data == NULL) {
		return NULL;
	}
	struct smtwc_canvas *canvas = node->data;
	return canvas->kind == SMTWC_NODE_CANVAS ? canvas->surface : NULL;
}

static void canvases_handle_output_frame(struct wl_listener *listener, void *data)
{
	canvases_output_frame(data);
}

static void canvases_handle_output_presented(struct wl_listener *listener, void *data)
{
	const struct smtwc_output_presented *event = data;
	canvases_output_presented(event->output, event->when_ns);
}

void canvases_listen(struct smtwc_transport *transport)
{
	struct smtwc_server *server = transport->server;
	transport->output_frame.notify = canvases_handle_output_frame;
	wl_signal_add(&server->events.output_frame, &transport->output_frame);
	transport->output_presented.notify = canvases_handle_output_presented;
	wl_signal_add(&server->events.output_presented, &transport->output_presented);
	server->stand_in_surface = canvas_node_surface;
}

void canvases_unlisten(struct smtwc_transport *transport)
{
	wl_list_remove(&transport->output_frame.link);
	wl_list_remove(&transport->output_presented.link);
	transport->server->stand_in_surface = NULL;
}
