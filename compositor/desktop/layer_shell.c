/*
 * wlr-layer-shell: panels, wallpapers, launchers and lock screens. wlroots
 * 0.15 has no scene helper for them, so this module places them itself:
 * exclusive zones first, each layer shrinking the area left for windows.
 */
#include <stdlib.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "compositor/desktop/layer_shell.h"
#include "compositor/desktop/popup.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/output/output.h"

static const enum smtwc_scene_layer scene_layer_of[] = {
	[ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND] = SMTWC_LAYER_BACKGROUND,
	[ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM] = SMTWC_LAYER_BOTTOM,
	[ZWLR_LAYER_SHELL_V1_LAYER_TOP] = SMTWC_LAYER_TOP,
	[ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY] = SMTWC_LAYER_OVERLAY,
};

static struct wlr_scene_tree *scene_tree_for(
		struct smtwc_server *server, enum zwlr_layer_shell_v1_layer layer)
{
	if ((unsigned)layer > ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY) {
		layer = ZWLR_LAYER_SHELL_V1_LAYER_TOP;
	}
	return server->layers[scene_layer_of[layer]];
}

/* One axis of the placement rule: anchored to both edges stretches (or
 * centres a fixed size), to one edge sticks to it, to none centres. */
static void place_axis(int bound_start, int bound_len, bool anchor_start, bool anchor_end,
		int margin_start, int margin_end, int desired, int *pos, int *len)
{
	int size = desired;
	if (size == 0 && anchor_start && anchor_end) {
		size = bound_len - margin_start - margin_end;
	}
	if (size < 1) {
		size = 1;
	}
	if (anchor_start && !anchor_end) {
		*pos = bound_start + margin_start;
	} else if (anchor_end && !anchor_start) {
		*pos = bound_start + bound_len - size - margin_end;
	} else if (anchor_start && anchor_end && desired == 0) {
		*pos = bound_start + margin_start;
	} else {
		*pos = bound_start + (bound_len - size) / 2;
	}
	*len = size;
}

/* Removes the zone a surface reserves from the usable area. Only surfaces
 * anchored to one edge (optionally stretched along it) reserve space. */
static void apply_exclusive_zone(
		struct wlr_box *usable, const struct wlr_layer_surface_v1_state *state)
{
	int zone = state->exclusive_zone;
	if (zone <= 0) {
		return;
	}
	const uint32_t t = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP;
	const uint32_t b = ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
	const uint32_t l = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT;
	const uint32_t r = ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
	uint32_t a = state->anchor;
	if (a == t || a == (t | l | r)) {
		zone += (int)state->margin.top;
		usable->y += zone;
		usable->height -= zone;
	} else if (a == b || a == (b | l | r)) {
		usable->height -= zone + (int)state->margin.bottom;
	} else if (a == l || a == (l | t | b)) {
		zone += (int)state->margin.left;
		usable->x += zone;
		usable->width -= zone;
	} else if (a == r || a == (r | t | b)) {
		usable->width -= zone + (int)state->margin.right;
	}
	if (usable->width < 0) {
		usable->width = 0;
	}
	if (usable->height < 0) {
		usable->height = 0;
	}
}

static void arrange_one(struct smtwc_layer_surface *layer, const struct wlr_box *full,
		struct wlr_box *usable)
{
	struct wlr_layer_surface_v1 *ls = layer->layer_surface;
	const struct wlr_layer_surface_v1_state *state = &ls->current;
	const struct wlr_box *bounds = state->exclusive_zone == -1 ? full : usable;
	uint32_t a = state->anchor;
	struct wlr_box box;
	place_axis(bounds->x, bounds->width, a & ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT,
			a & ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT, (int)state->margin.left,
			(int)state->margin.right, (int)state->desired_width, &box.x, &box.width);
	place_axis(bounds->y, bounds->height, a & ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP,
			a & ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM, (int)state->margin.top,
			(int)state->margin.bottom, (int)state->desired_height, &box.y, &box.height);
	layer->box = box;
	wlr_scene_node_set_position(&layer->tree->node, box.x, box.y);
	wlr_scene_node_set_position(&layer->popup_tree->node, box.x, box.y);
	/* Reconfiguring unchanged sizes would make every client of the output
	 * redraw whenever any one of them commits new state. */
	if (!layer->configured || layer->configured_width != box.width ||
			layer->configured_height != box.height) {
		wlr_layer_surface_v1_configure(ls, (uint32_t)box.width, (uint32_t)box.height);
		layer->configured = true;
		layer->configured_width = box.width;
		layer->configured_height = box.height;
	}
	apply_exclusive_zone(usable, state);
}

/* Places every layer surface of the output and recomputes its usable area. */
static void layer_shell_arrange(struct smtwc_output *output)
{
	struct wlr_box full = output_layout_box(output);
	struct wlr_box usable = full;
	/* Top layers claim space before lower ones; within a layer, surfaces
	 * that reserve space are placed before the ones that float. */
	for (int layer = ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY; layer >= 0; layer--) {
		for (int pass = 0; pass < 2; pass++) {
			struct smtwc_layer_surface *ls;
			wl_list_for_each (ls, &output->layer_surfaces, link) {
				const struct wlr_layer_surface_v1_state *st =
						&ls->layer_surface->current;
				if ((int)st->layer != layer ||
						(pass == 0) != (st->exclusive_zone > 0)) {
					continue;
				}
				arrange_one(ls, &full, &usable);
			}
		}
	}
	bool changed = usable.x != output->usable_area.x || usable.y != output->usable_area.y ||
			usable.width != output->usable_area.width ||
			usable.height != output->usable_area.height;
	struct wlr_box old_usable = output->usable_area, old_full = output->usable_full;
	output->usable_area = usable;
	output->usable_full = full;
	if (changed) {
		/* A panel that reserves space after windows were placed (they
		 * may map before its first commit) pushes them out from under
		 * it; an output's own change is views_handle_output_layout_change's. */
		if (old_full.x == full.x && old_full.y == full.y && old_full.width == full.width &&
				old_full.height == full.height) {
			views_leave_zones(output->server, old_usable, usable);
		}
		views_arrange(output->server);
	}
}

void layer_shell_focus(struct smtwc_layer_surface *layer)
{
	struct smtwc_server *server = layer->server;
	if (layer->layer_surface->current.keyboard_interactive ==
			ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE) {
		return;
	}
	struct wlr_keyboard *kb = wlr_seat_get_keyboard(server->seat);
	struct wlr_surface *surface = layer->layer_surface->surface;
	if (!input_inhibit_allows(server, surface)) {
		return;
	}
	if (kb != NULL) {
		wlr_seat_keyboard_notify_enter(server->seat, surface, kb->keycodes,
				kb->num_keycodes, &kb->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(server->seat, surface, NULL, 0, NULL);
	}
}

static void layer_handle_map(struct wl_listener *listener, void *data)
{
	struct smtwc_layer_surface *layer = wl_container_of(listener, layer, map);
	struct wlr_layer_surface_v1 *ls = layer->layer_surface;
	wlr_scene_node_set_enabled(&layer->tree->node, true);
	wlr_scene_node_set_enabled(&layer->popup_tree->node, true);
	/* Lock screens and launchers on the upper layers take the keyboard
	 * exclusively until they go away. */
	if (ls->current.keyboard_interactive ==
					ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE &&
			ls->current.layer >= ZWLR_LAYER_SHELL_V1_LAYER_TOP &&
			input_inhibit_allows(layer->server, ls->surface)) {
		layer->server->exclusive_layer = ls;
		layer_shell_focus(layer);
	}
}

static void layer_handle_unmap(struct wl_listener *listener, void *data)
{
	struct smtwc_layer_surface *layer = wl_container_of(listener, layer, unmap);
	struct smtwc_server *server = layer->server;
	wlr_scene_node_set_enabled(&layer->tree->node, false);
	wlr_scene_node_set_enabled(&layer->popup_tree->node, false);
	bool had_focus = server->seat->keyboard_state.focused_surface ==
			layer->layer_surface->surface;
	if (server->exclusive_layer == layer->layer_surface) {
		server->exclusive_layer = NULL;
	}
	if (had_focus) {
		wlr_seat_keyboard_notify_clear_focus(server->seat);
		struct smtwc_view *view;
		wl_list_for_each (view, &server->views, link) {
			if (view->mapped && !view->minimized) {
				view_focus(view);
				break;
			}
		}
	}
}

static void layer_handle_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_layer_surface *layer = wl_container_of(listener, layer, commit);
	struct wlr_layer_surface_v1 *ls = layer->layer_surface;
	if (layer->output == NULL) {
		return;
	}
	if (ls->current.committed != 0) {
		/* The client may have moved itself to another layer. */
		struct wlr_scene_tree *tree = scene_tree_for(layer->server, ls->current.layer);
		if (layer->tree->node.parent != &tree->node) {
			wlr_scene_node_reparent(&layer->tree->node, &tree->node);
		}
		layer_shell_arrange(layer->output);
	}
}

static void layer_handle_new_popup(struct wl_listener *listener, void *data)
{
	struct smtwc_layer_surface *layer = wl_container_of(listener, layer, new_popup);
	struct wlr_xdg_popup *popup = data;
	popup->base->data = wlr_scene_xdg_surface_create(&layer->popup_tree->node, popup->base);
	popup_unconstrain(layer->server, popup);
}

static void layer_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_layer_surface *layer = wl_container_of(listener, layer, destroy);
	wl_list_remove(&layer->map.link);
	wl_list_remove(&layer->unmap.link);
	wl_list_remove(&layer->destroy.link);
	wl_list_remove(&layer->commit.link);
	wl_list_remove(&layer->new_popup.link);
	wl_list_remove(&layer->link);
	wlr_scene_node_destroy(&layer->tree->node);
	wlr_scene_node_destroy(&layer->popup_tree->node);
	struct smtwc_output *output = layer->output;
	free(layer);
	if (output != NULL) {
		layer_shell_arrange(output);
	}
}

void layer_shell_handle_new_surface(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_layer_surface);
	struct wlr_layer_surface_v1 *ls = data;
	if (ls->output == NULL) {
		struct smtwc_output *focused = output_focused(server);
		if (focused == NULL) {
			/* Nowhere to show it: the protocol's answer is "closed". */
			wlr_layer_surface_v1_destroy(ls);
			return;
		}
		ls->output = focused->wlr_output;
	}
	struct smtwc_layer_surface *layer = calloc(1, sizeof(*layer));
	if (layer == NULL) {
		wlr_layer_surface_v1_destroy(ls);
		return;
	}
	layer->kind = SMTWC_NODE_LAYER_SURFACE;
	layer->server = server;
	layer->layer_surface = ls;
	layer->output = output_from_wlr(ls->output);
	ls->data = layer;

	layer->tree = wlr_scene_tree_create(&scene_tree_for(server, ls->pending.layer)->node);
	layer->tree->node.data = layer;
	wlr_scene_subsurface_tree_create(&layer->tree->node, ls->surface);
	layer->popup_tree = wlr_scene_tree_create(&server->layers[SMTWC_LAYER_POPUPS]->node);
	layer->popup_tree->node.data = layer;
	wlr_scene_node_set_enabled(&layer->tree->node, false);
	wlr_scene_node_set_enabled(&layer->popup_tree->node, false);

	layer->map.notify = layer_handle_map;
	wl_signal_add(&ls->events.map, &layer->map);
	layer->unmap.notify = layer_handle_unmap;
	wl_signal_add(&ls->events.unmap, &layer->unmap);
	layer->destroy.notify = layer_handle_destroy;
	wl_signal_add(&ls->events.destroy, &layer->destroy);
	layer->commit.notify = layer_handle_commit;
	wl_signal_add(&ls->surface->events.commit, &layer->commit);
	layer->new_popup.notify = layer_handle_new_popup;
	wl_signal_add(&ls->events.new_popup, &layer->new_popup);

	if (layer->output == NULL) {
		wl_list_init(&layer->link);
		wlr_layer_surface_v1_destroy(ls);
		return;
	}
	wl_list_insert(&layer->output->layer_surfaces, &layer->link);
	/* new_surface comes with the initial commit: send the first configure. */
	layer_shell_arrange(layer->output);
}

void layer_shell_handle_output_layout_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(
			listener, server, layer_shell_output_layout_change);
	struct smtwc_output *output;
	wl_list_for_each (output, &server->outputs, link) {
		layer_shell_arrange(output);
	}
}

void layer_shell_handle_output_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_output *output = data;
	struct smtwc_layer_surface *layer, *tmp;
	wl_list_for_each_safe (layer, tmp, &output->layer_surfaces, link) {
		layer->output = NULL;
		wl_list_remove(&layer->link);
		wl_list_init(&layer->link);
		wlr_layer_surface_v1_destroy(layer->layer_surface);
	}
}
