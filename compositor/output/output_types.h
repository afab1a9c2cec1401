/*
 * The structs of an output, alone: frame pacing and the ring canvases read
 * an output's fields, and output.c, which creates outputs, calls frame
 * pacing; with the structs in output.h they would depend on each other.
 */
#ifndef SMTWC_OUTPUT_TYPES_H
#define SMTWC_OUTPUT_TYPES_H

#include <stdint.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_output.h>
#include <wlr/util/box.h>

struct smtwc_server;
struct presentation_feedbacks;

struct smtwc_output {
	struct wl_list link; /* smtwc_server.outputs */
	struct smtwc_server *server;
	struct wlr_output *wlr_output;
	struct wl_list layer_surfaces; /* smtwc_layer_surface.link */
	/* What layer-shell exclusive zones leave for windows, in layout
	 * coordinates. Maximized windows and new placements use it; windows a
	 * new zone covers move out of it. usable_full: the output's box it was
	 * taken from (another box: the output changed, not the zones). */
	struct wlr_box usable_area;
	struct wlr_box usable_full;
	uint64_t seen_commit_seq; /* frame_pacing */
	/* wp_presentation feedbacks of committed frames (presentation_feedback.c) */
	struct presentation_feedbacks *feedbacks;

	struct wl_listener frame;
	struct wl_listener present;
	struct wl_listener commit; /* a new scale needs the cursor theme at it */
	struct wl_listener destroy;
};

/* server->events.output_presented's data. */
struct smtwc_output_presented {
	struct smtwc_output *output;
	uint64_t when_ns; /* CLOCK_MONOTONIC */
};

#endif
