/*
 * What a selection (clipboard or primary) may offer before the seat shows
 * it to Wayland clients, whoever made it.
 *
 * A Wayland client's data source is held to [limits] source-mime-types and
 * source-mime-bytes while it offers (ring/core_request_limits.c), and none
 * of its MIME types can be longer than the one message that carried it.
 * wlroots' X window manager makes sources too, from an X client's TARGETS:
 * up to 4096 atoms, each name up to 65,535 bytes, checked by nobody. A MIME
 * type that does not fit one Wayland message cannot be sent: libwayland
 * fails the wl_data_offer.offer event ("Data too big for buffer") and
 * disconnects the client it was for, so such a selection ended every
 * Wayland client that got the keyboard focus, and every clipboard
 * manager, for as long as it stayed (red team, session 28).
 *
 * Pure: no wlroots; the seat (seat.c) asks before it sets a selection.
 */
#ifndef SMTWC_SELECTION_LIMITS_H
#define SMTWC_SELECTION_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <wayland-util.h>

#include "compositor/config/config.h"

/* mime_types: a wl_array of char * (wlroots' sources). True when every
 * type fits one offer event (desktop/wayland_string.h) and they are within
 * the limits; otherwise false, with the first bound broken written into
 * why ("a MIME type of more than 4083 bytes (more than one Wayland message
 * carries)"). */
bool selection_mime_types_allowed(const struct wl_array *mime_types,
		const struct smtwc_limits_config *limits, char *why, size_t why_size);

#endif
