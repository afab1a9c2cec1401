/*
 * Outputs (monitors): their configuration, their place in the layout, and
 * the frame events that render them.
 */
#ifndef SMTWC_OUTPUT_H
#define SMTWC_OUTPUT_H

#include <wlr/types/wlr_output.h>
#include "server.h"

struct smtwc_output {
	struct wl_list link; /* smtwc_server.outputs */
	struct smtwc_server *server;
	struct wlr_output *wlr_output;
	struct wl_list layer_surfaces; /* smtwc_layer_surface.link */
	/* What layer-shell exclusive zones leave for windows, in layout
	 * coordinates. Maximized windows and new placements use it. */
	struct wlr_box usable_area;
	uint64_t seen_commit_seq; /* frame_pacing */

	struct wl_listener frame;
	struct wl_listener present;
	struct wl_listener destroy;
};

/* server->events.output_presented's data. */
struct smtwc_output_presented {
	struct smtwc_output *output;
	uint64_t when_ns; /* CLOCK_MONOTONIC */
};

void output_handle_new(struct wl_listener *listener, void *data);
void output_handle_layout_change(struct wl_listener *listener, void *data);

/* Layout-coordinate box of the whole output. */
struct wlr_box output_layout_box(struct smtwc_output *output);
/* The output under the cursor, else the first one; NULL without outputs. */
struct smtwc_output *output_focused(struct smtwc_server *server);
struct smtwc_output *output_at(struct smtwc_server *server, double lx, double ly);
struct smtwc_output *output_from_wlr(struct wlr_output *wlr_output);

#endif
