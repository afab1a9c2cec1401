/*
 * xdg popups of either shell: the scene node they hang under and the
 * output they are kept on. Below both shells, so that xdg_shell.c and
 * layer_shell.c use it without using each other.
 */
#ifndef SMTWC_POPUP_H
#define SMTWC_POPUP_H

#include <wlr/types/wlr_xdg_shell.h>
#include "compositor/server.h"

/* Scene tree that popups of this surface (an xdg surface or a layer
 * surface) must be parented to; NULL for other surfaces. */
struct wlr_scene_node *popup_parent(struct wlr_surface *surface);
/* Keeps a popup inside the output it opens on (flip/slide per positioner). */
void popup_unconstrain(struct smtwc_server *server, struct wlr_xdg_popup *popup);

#endif
