/*
 * The struct of a layer surface, alone: popup.c hangs a layer surface's
 * popups under its popup tree, and layer_shell.c, which creates layer
 * surfaces, has popup.c keep those popups on the output; with the struct
 * in layer_shell.h the two would depend on each other.
 */
#ifndef SMTWC_LAYER_SURFACE_H
#define SMTWC_LAYER_SURFACE_H

#include <stdbool.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/util/box.h>
#include "compositor/desktop/view.h"

struct smtwc_output;

struct smtwc_layer_surface {
	enum smtwc_node_kind kind; /* SMTWC_NODE_LAYER_SURFACE; first */
	struct wl_list link;       /* smtwc_output.layer_surfaces */
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

#endif
