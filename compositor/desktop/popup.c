/*
 * Where xdg popups hang in the scene and how they are kept on an output
 * (popup.h). Both shells open popups: xdg toplevels' menus and panels'
 * (layer surfaces') menus.
 */
#include <limits.h>
#include <stdint.h>
#include <wlr/types/wlr_layer_shell_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_xdg_shell.h>
#include "compositor/desktop/layer_surface.h"
#include "compositor/desktop/popup.h"
#include "compositor/output/output.h"

struct wlr_scene_node *popup_parent(struct wlr_surface *surface)
{
	if (wlr_surface_is_xdg_surface(surface)) {
		return wlr_xdg_surface_from_wlr_surface(surface)->data;
	}
	if (wlr_surface_is_layer_surface(surface)) {
		struct smtwc_layer_surface *layer =
				wlr_layer_surface_v1_from_wlr_surface(surface)->data;
		return layer != NULL ? &layer->popup_tree->node : NULL;
	}
	return NULL;
}

/* Layout position of the surface a popup chain is rooted at (a toplevel or
 * a layer surface): positioners and wlroots' unconstraining work in that
 * surface's coordinates, whose origin lies before the window geometry by the
 * geometry's offset (client-side shadows). */
static bool popup_root_origin(struct wlr_xdg_popup *popup, int *x, int *y)
{
	struct wlr_surface *root = popup->parent;
	while (root != NULL && wlr_surface_is_xdg_surface(root)) {
		struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(root);
		if (xdg->role != WLR_XDG_SURFACE_ROLE_POPUP) {
			break;
		}
		root = xdg->popup->parent;
	}
	if (root == NULL) {
		return false;
	}
	struct wlr_scene_node *node = popup_parent(root);
	if (node == NULL || !wlr_scene_node_coords(node, x, y)) {
		return false;
	}
	if (wlr_surface_is_xdg_surface(root)) {
		struct wlr_box geo;
		wlr_xdg_surface_get_geometry(wlr_xdg_surface_from_wlr_surface(root), &geo);
		/* The geometry's offset is the client's to choose, any int32:
		 * subtracted in 64 bits, and an origin no int holds is none
		 * (signed overflow otherwise, session 38's red team). */
		int64_t ox = (int64_t)*x - geo.x, oy = (int64_t)*y - geo.y;
		if (ox < INT_MIN || ox > INT_MAX || oy < INT_MIN || oy > INT_MAX) {
			return false;
		}
		*x = (int)ox;
		*y = (int)oy;
	}
	return true;
}

/* a - b, clamped into an int: the output's box in the root's coordinates,
 * whose origin the client's geometry may put anywhere. */
static int clamped_difference(int a, int b)
{
	int64_t d = (int64_t)a - b;
	return d < INT_MIN ? INT_MIN : d > INT_MAX ? INT_MAX : (int)d;
}

void popup_unconstrain(struct smtwc_server *server, struct wlr_xdg_popup *popup)
{
	int root_x, root_y;
	if (!popup_root_origin(popup, &root_x, &root_y)) {
		return;
	}
	int popup_x, popup_y;
	wlr_xdg_popup_get_toplevel_coords(
			popup, popup->geometry.x, popup->geometry.y, &popup_x, &popup_y);
	/* (in doubles: the positioner's offset and anchor are the client's,
	 * and their sum with the root's place need not fit an int) */
	struct smtwc_output *output = output_at(
			server, (double)root_x + popup_x, (double)root_y + popup_y);
	if (output == NULL) {
		output = output_at(server, root_x, root_y);
	}
	if (output == NULL) {
		output = output_focused(server);
	}
	if (output == NULL) {
		return;
	}
	struct wlr_box box = output_layout_box(output);
	struct wlr_box root_space = {
		.x = clamped_difference(box.x, root_x),
		.y = clamped_difference(box.y, root_y),
		.width = box.width,
		.height = box.height,
	};
	/* Qt 5 allows no adjustment at all, and its menus and combo boxes then
	 * open off the screen near an edge (it cannot know where its window
	 * is). Sliding them on is what the user needs. */
	if (popup->positioner.constraint_adjustment == XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE) {
		popup->positioner.constraint_adjustment =
				XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X |
				XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y;
	}
	wlr_xdg_popup_unconstrain_from_box(popup, &root_space);
}
