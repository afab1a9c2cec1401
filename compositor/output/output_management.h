/*
 * wlr-output-management: lets tools such as wlr-randr and kanshi read and
 * change modes, positions, scales and transforms at run time.
 */
#ifndef SMTWC_OUTPUT_MANAGEMENT_H
#define SMTWC_OUTPUT_MANAGEMENT_H

#include "compositor/server.h"

void output_management_init(struct smtwc_server *server);
/* Tells clients the current state after any output change. */
/* server->events.output_layout_change: clients see the new layout. */
void output_management_handle_layout_change(struct wl_listener *listener, void *data);

#endif
