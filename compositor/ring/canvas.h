/*
 * smt_canvas_v1: the compositor-owned image a ring client draws into for
 * one wl_surface, and how a PRESENT reaches the screen.
 */
#ifndef SMTWC_TRANSPORT_CANVAS_H
#define SMTWC_TRANSPORT_CANVAS_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/util/addon.h>
#include "compositor/ring/canvas_copy.h"

struct smtwc_ring;
struct smtwc_transport;
struct smtwc_canvas_buffer;

/*
 * A canvas is two images: the back image that ring commands draw into (the
 * executor holds it) and the front buffer on screen. PRESENT copies the
 * damaged rectangles from back to front and damages just those on the
 * outputs, so the screen never shows a frame the client is still drawing,
 * and the cost is proportional to the damage.
 */
struct smtwc_canvas {
	int kind; /* SMTWC_NODE_CANVAS: the scene node's data points here */
	struct wl_resource *resource;
	struct smtwc_ring *ring;
	struct wl_list ring_link; /* smtwc_ring.canvases */
	/* smtwc_transport.canvases_pending / canvases_inflight while it has a
	 * PRESENT waiting for / in a frame: a frame looks at those only, not
	 * at every canvas of every client. */
	struct wl_list pending_link, inflight_link;
	uint32_t id;
	int width, height;
	bool registered;  /* the executor knows the id (ordered_request.h) */
	uint64_t charged; /* memory charged to the client: both images */

	pixman_image_t *back;
	struct smtwc_canvas_buffer *front;
	struct wlr_surface *surface;
	struct wlr_scene_buffer *node; /* NULL until the surface is on screen */

	/* The last PRESENT not yet reported, and the one in the frame being
	 * shown on some output. */
	bool pending, inflight;
	uint32_t pending_serial, inflight_serial;
	uint64_t pending_exec_ns, inflight_exec_ns;
	struct wlr_output *inflight_output;

	/* What of it shows on one scene output (output coordinates), kept
	 * for the PRESENTs until the next frame renders (canvas.c,
	 * canvas_shown_part); shown_output NULL: nothing kept. */
	pixman_region32_t shown;
	struct wlr_scene_output *shown_output;
	uint64_t shown_frames; /* render.frames when it was found */

	/* A PRESENT whose copy to the front buffer runs over the ring's
	 * slices (ring->presenting points here meanwhile): the outputs are
	 * damaged and the serial reported only once it is complete. */
	struct canvas_copy present_copy;
	uint64_t present_charged; /* the client's memory present_copy's region is */
	uint32_t present_serial;
	uint64_t present_exec_ns;

	/* On the surface, owned by the transport: get_canvas finds a
	 * surface's canvas there, without walking every canvas. */
	struct wlr_addon surface_addon;
	struct wl_listener surface_commit;
	struct wl_listener surface_destroy;
	struct wl_listener node_destroy;
};

void canvas_create(struct smtwc_ring *ring, struct wl_client *client, uint32_t id,
		uint32_t canvas_id, struct wl_resource *surface, uint32_t width, uint32_t height);
/* A PRESENT the executor ran (on whichever thread runs the ring): starts
 * copying its damage (taken from the executor with its charge, released
 * when the copy is reported) to the front buffer. The copy runs in
 * canvas_present_resume, in bands under the ring's budget; the ring's later
 * commands and requests wait for it. */
void canvas_present(struct smtwc_ring *ring, uint32_t canvas_id, uint32_t serial);
enum canvas_present_step {
	CANVAS_PRESENT_DONE,     /* none left (copied, and shown or posted) */
	CANVAS_PRESENT_COPYING,  /* the deadline came first: call again */
	CANVAS_PRESENT_FOR_MAIN, /* on a worker: the main thread must go on */
};
/* Continues the ring's PRESENT, if any, while the clock is before
 * deadline_ns (0: no limit; at least one band). On the main thread the
 * complete copy damages the outputs (and `presented` follows their frame,
 * or is sent now when none shows it). On a worker (under the ring's
 * exec_lock) the copy holds the render's front_lock shared per band and
 * the complete PRESENT is posted to the main thread (present_post.h), or
 * left to it when the ring's outbox is full or the renderer is not
 * pixman's. */
enum canvas_present_step canvas_present_resume(
		struct smtwc_ring *ring, uint64_t deadline_ns, bool on_worker);
/* Main thread: damages the outputs for the PRESENTs workers posted and
 * sends or schedules their `presented`, in each ring's order; true if
 * there were any. Each turn of its loop, before a frame and before it
 * settles what runs handed back. */
bool canvases_take_posted(struct smtwc_transport *transport);
void canvases_ring_destroyed(struct smtwc_ring *ring);
uint64_t canvases_bytes(struct smtwc_ring *ring);

/* Listens to the outputs' frames (server->events: a PRESENT is reported
 * once the frame that shows it was shown) and tells the desktop which
 * surface a canvas node stands in for (server->stand_in_surface). */
void canvases_listen(struct smtwc_transport *transport);
void canvases_unlisten(struct smtwc_transport *transport);

#endif
