/*
 * Panels, wallpapers and lock screens (wlr-layer-shell): placed per
 * output by this module, since wlroots 0.15 has no scene helper for them.
 */
#ifndef SMTWC_LAYER_SHELL_H
#define SMTWC_LAYER_SHELL_H

#include <wlr/types/wlr_layer_shell_v1.h>
#include "desktop/view.h"

struct smtwc_output;

struct smtwc_layer_surface {
	enum smtwc_node_kind kind; /* SMTWC_NODE_LAYER_SURFACE; first */
	struct wl_list link; /* smtwc_output.layer_surfaces */
	struct smtwc_server *server;
	struct smtwc_output *output;
	struct wlr_layer_surface_v1 *layer_surface;
	struct wlr_scene_tree *tree;       /* in the layer's scene tree */
	struct wlr_scene_tree *popup_tree; /* above windows, follows tree */
	struct wlr_box box;                /* layout coordinates */
	bool configured;
	int configured_width, configured_height;

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener destroy;
	struct wl_listener commit;
	struct wl_listener new_popup;
};

void layer_shell_handle_new_surface(struct wl_listener *listener, void *data);
/* Places every layer surface of the output and recomputes its usable area. */
void layer_shell_arrange(struct smtwc_output *output);
void layer_shell_output_destroyed(struct smtwc_output *output);
struct wlr_scene_node *layer_shell_popup_parent(struct wlr_layer_surface_v1 *layer_surface);
/* Gives keyboard focus to a layer surface that accepts it. */
void layer_shell_focus(struct smtwc_layer_surface *layer);

#endif
