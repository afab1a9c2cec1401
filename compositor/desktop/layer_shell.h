/*
 * Panels, wallpapers and lock screens (wlr-layer-shell): placed per
 * output by this module, since wlroots 0.15 has no scene helper for them.
 */
#ifndef SMTWC_LAYER_SHELL_H
#define SMTWC_LAYER_SHELL_H

#include "compositor/desktop/layer_surface.h"

void layer_shell_handle_new_surface(struct wl_listener *listener, void *data);
/* server->events.output_layout_change: every output's surfaces are placed
 * again. */
void layer_shell_handle_output_layout_change(struct wl_listener *listener, void *data);
/* server->events.output_destroy: the output's surfaces are closed. */
void layer_shell_handle_output_destroy(struct wl_listener *listener, void *data);
/* Gives keyboard focus to a layer surface that accepts it. */
void layer_shell_focus(struct smtwc_layer_surface *layer);

#endif
