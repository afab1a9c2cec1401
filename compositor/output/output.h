/*
 * Outputs (monitors): their configuration, their place in the layout, and
 * the frame events that render them.
 */
#ifndef SMTWC_OUTPUT_H
#define SMTWC_OUTPUT_H

#include "compositor/output/output_types.h"
#include "compositor/server.h"

void output_handle_new(struct wl_listener *listener, void *data);
void output_handle_layout_change(struct wl_listener *listener, void *data);
/* Around a change of the layout made in several steps (an output
 * configuration's heads, one by one): what follows the layout (windows,
 * panels, output management's clients) sees only the result, and the
 * pointer stays where it was if an output still shows that place.
 * Holds nest. */
void output_layout_hold(struct smtwc_server *server);
void output_layout_release(struct smtwc_server *server);

/* Layout-coordinate box of the whole output. */
struct wlr_box output_layout_box(struct smtwc_output *output);
/* The output under the cursor, else the first one; NULL without outputs. */
struct smtwc_output *output_focused(struct smtwc_server *server);
struct smtwc_output *output_at(struct smtwc_server *server, double lx, double ly);
struct smtwc_output *output_from_wlr(struct wlr_output *wlr_output);
/* Whether some output committed a frame whose frame event is still to
 * come (wlr_output.frame_pending): the main thread will wake for it. */
bool outputs_frame_coming(struct smtwc_server *server);

#endif
