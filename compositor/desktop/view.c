/*
 * Window management common to every kind of window: placement, stacking,
 * focus, borders, maximize/fullscreen/minimize.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include "compositor/desktop/title_bar.h"
#include "compositor/desktop/wayland_string.h"
#include "compositor/desktop/view.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/output/output.h"

enum {
	CASCADE_STEP = 32,
	CASCADE_STEPS = 8
};

/* The focused window is the one the user last chose, even while one of its
 * menus (an X override-redirect window) or a layer surface has the keys. */
static bool view_is_focused(struct smtwc_view *view)
{
	return view->server->focused_view == view;
}

static int title_height(struct smtwc_server *server)
{
	return server->title_bar_height;
}

/* A maximized or fullscreen window has the whole area: no frame. */
static bool view_framed(struct smtwc_view *view)
{
	return view->server_side_decoration && !view->fullscreen && !view->maximized;
}

struct smtwc_frame_insets view_frame_insets(struct smtwc_view *view)
{
	if (!view_framed(view)) {
		return (struct smtwc_frame_insets){ 0 };
	}
	int bw = view->server->config.border_width;
	return (struct smtwc_frame_insets){
		.top = bw + title_height(view->server),
		.bottom = bw,
		.left = bw,
		.right = bw,
	};
}

struct wlr_box view_title_bar_box(struct smtwc_view *view)
{
	if (!view_framed(view)) {
		return (struct wlr_box){ 0 };
	}
	struct wlr_box geo = view->impl->geometry(view);
	int th = title_height(view->server);
	return (struct wlr_box){ view->x, view->y - th, geo.width, th };
}

/* The window's client is charged what its frame holds (a title bar as
 * wide as a 16384-pixel window is 1.6 MiB): said to the layers above. */
static void view_frame_memory_changed(struct smtwc_view *view, uint64_t bytes)
{
	if (bytes != view->frame_bytes) {
		view->frame_bytes = bytes;
		wl_signal_emit(&view->server->events.view_frame_memory, view);
	}
}

static int clamp_coord(int v, int lo)
{
	return v < lo ? lo : v > VIEW_COORD_LIMIT ? VIEW_COORD_LIMIT : v;
}

struct wlr_box view_clamp_geometry(struct wlr_box box)
{
	return (struct wlr_box){
		.x = clamp_coord(box.x, -VIEW_COORD_LIMIT),
		.y = clamp_coord(box.y, -VIEW_COORD_LIMIT),
		.width = clamp_coord(box.width, 0),
		.height = clamp_coord(box.height, 0),
	};
}

/* The border goes around the title bar and the window geometry; both sit
 * outside the geometry so the client's content keeps the size it was
 * configured to. */
static void view_update_borders(struct smtwc_view *view)
{
	const struct smtwc_config *cfg = &view->server->config;
	bool framed = view_framed(view);
	bool shown = framed && cfg->border_width > 0;
	struct wlr_box geo = view->impl->geometry(view);
	int bw = cfg->border_width;
	int th = framed ? title_height(view->server) : 0;
	bool focused = view_is_focused(view);
	float color[4];
	smtwc_color_to_rgba(focused ? cfg->focused_border : cfg->unfocused_border, color);
	const struct wlr_box sides[4] = {
		{ -bw, -th - bw, geo.width + 2 * bw, bw },
		{ -bw, geo.height, geo.width + 2 * bw, bw },
		{ -bw, -th, bw, geo.height + th },
		{ geo.width, -th, bw, geo.height + th },
	};
	for (int i = 0; i < 4; i++) {
		struct wlr_scene_rect *rect = view->border[i];
		wlr_scene_node_set_enabled(&rect->node, shown);
		wlr_scene_node_set_position(&rect->node, sides[i].x, sides[i].y);
		wlr_scene_rect_set_size(rect, sides[i].width, sides[i].height);
		wlr_scene_rect_set_color(rect, color);
	}
	if (framed) {
		title_bar_show(view->title_bar, cfg, 0, -th, geo.width, th, view->shown_title,
				focused);
	} else {
		title_bar_hide(view->title_bar);
	}
	view_frame_memory_changed(view, title_bar_bytes(view->title_bar));
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Replaces *shown with a copy of now (kept on out of memory), cut to what
 * one Wayland event carries: taskbars get it as one (an X window's title
 * or class can be 8 KB). */
static void copy_name(char **shown, const char *now)
{
	if (now == NULL) {
		free(*shown);
		*shown = NULL;
		return;
	}
	size_t len = wayland_string_fit(now);
	if (*shown == NULL || strlen(*shown) != len || strncmp(*shown, now, len) != 0) {
		char *copy = strndup(now, len);
		if (copy != NULL) {
			free(*shown);
			*shown = copy;
		}
	}
}

static void view_copy_names(struct smtwc_view *view)
{
	copy_name(&view->shown_title, view->impl->title(view));
	copy_name(&view->shown_app_id, view->impl->app_id(view));
}

static void view_show_title(struct smtwc_view *view)
{
	view->title_shown_ms = monotonic_ms();
	view->title_waiting = false;
	view_copy_names(view);
	view_update_borders(view);
	wl_signal_emit(&view->server->events.view_change, view);
}

const char *view_shown_title(const struct smtwc_view *view)
{
	return view->shown_title;
}

const char *view_shown_app_id(const struct smtwc_view *view)
{
	return view->shown_app_id;
}

static void arm_title_timer(struct smtwc_server *server, int64_t due, int64_t now)
{
	server->title_timer_due_ms = due;
	/* +1: the timer's milliseconds must not end before the interval */
	wl_event_source_timer_update(server->title_timer, (int)(due - now) + 1);
}

/* Every window whose interval is over shows its newest title; the timer
 * is armed again for the earliest still waiting. */
static int handle_title_timer(void *data)
{
	struct smtwc_server *server = data;
	int64_t now = monotonic_ms(), next = 0;
	server->title_timer_due_ms = 0;
	struct smtwc_view *view, *tmp;
	wl_list_for_each_safe (view, tmp, &server->views, link) {
		if (!view->title_waiting) {
			continue;
		}
		int64_t due = view->title_shown_ms + VIEW_TITLE_INTERVAL_MS;
		if (due <= now) {
			view_show_title(view);
		} else if (next == 0 || due < next) {
			next = due;
		}
	}
	if (next != 0) {
		arm_title_timer(server, next, now);
	}
	return 0;
}

/* Each title shown is laid out with Pango over its whole length (up to a
 * 4 KB message) into a new title bar buffer and sent to every taskbar:
 * a client setting titles as fast as its socket takes them made the
 * compositor do that thousands of times a second (session 26's red
 * team). Paced per window: the first change at once, the ones after it
 * merged until the interval is over; the last title always shows. */
void view_update_title(struct smtwc_view *view)
{
	int64_t now = monotonic_ms();
	if (!view->title_waiting && now - view->title_shown_ms >= VIEW_TITLE_INTERVAL_MS) {
		view_show_title(view);
		return;
	}
	if (view->title_waiting) {
		return; /* the timer is armed for it */
	}
	struct smtwc_server *server = view->server;
	if (server->title_timer == NULL) {
		server->title_timer = wl_event_loop_add_timer(
				server->event_loop, handle_title_timer, server);
		if (server->title_timer == NULL) {
			view_show_title(view); /* out of memory: unpaced */
			return;
		}
	}
	view->title_waiting = true;
	int64_t due = view->title_shown_ms + VIEW_TITLE_INTERVAL_MS;
	if (server->title_timer_due_ms == 0 || due < server->title_timer_due_ms) {
		arm_title_timer(server, due, now);
	}
}

void view_init(struct smtwc_view *view, struct smtwc_server *server,
		const struct smtwc_view_impl *impl)
{
	view->kind = SMTWC_NODE_VIEW;
	view->server = server;
	view->impl = impl;
	view->tree = wlr_scene_tree_create(&server->layers[SMTWC_LAYER_WINDOWS]->node);
	view->tree->node.data = view;
	const float transparent[4] = { 0 };
	for (int i = 0; i < 4; i++) {
		view->border[i] = wlr_scene_rect_create(&view->tree->node, 0, 0, transparent);
		wlr_scene_node_set_enabled(&view->border[i]->node, false);
	}
	/* Below the content, which view_set_content adds later, so a popup
	 * reaching over the title bar stays visible. */
	view->title_bar = title_bar_create(&view->tree->node);
	wlr_scene_node_set_enabled(&view->tree->node, false);
	wl_list_insert(server->views.prev, &view->link);
}

void view_destroy(struct smtwc_view *view)
{
	struct smtwc_server *server = view->server;
	if (server->grabbed_view == view) {
		server->grabbed_view = NULL;
		server->cursor_mode = SMTWC_CURSOR_PASSTHROUGH;
	}
	if (server->focused_view == view) {
		server->focused_view = NULL;
	}
	wl_list_remove(&view->link);
	free(view->shown_title);
	free(view->shown_app_id);
	view_frame_memory_changed(view, 0);
	title_bar_destroy(view->title_bar);
	wlr_scene_node_destroy(&view->tree->node);
}

void view_set_content(struct smtwc_view *view, struct wlr_scene_node *content)
{
	view->content = content;
}

struct smtwc_view *view_from_surface(struct smtwc_server *server, struct wlr_surface *surface)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		if (surface != NULL && view->impl->surface(view) == surface) {
			return view;
		}
	}
	return NULL;
}

struct wlr_box view_box(struct smtwc_view *view)
{
	struct wlr_box geo = view->impl->geometry(view);
	return (struct wlr_box){ view->x, view->y, geo.width, geo.height };
}

void view_move(struct smtwc_view *view, int x, int y)
{
	view->x = x;
	view->y = y;
	wlr_scene_node_set_position(&view->tree->node, x, y);
	if (view->impl->moved != NULL) {
		view->impl->moved(view);
	}
}

void view_update_geometry(struct smtwc_view *view)
{
	struct wlr_box geo = view->impl->geometry(view);
	if (view->anchor_edges & (WLR_EDGE_LEFT | WLR_EDGE_TOP)) {
		int x = view->x, y = view->y;
		if (view->anchor_edges & WLR_EDGE_LEFT) {
			x = view->anchor_box.x + view->anchor_box.width - geo.width;
		}
		if (view->anchor_edges & WLR_EDGE_TOP) {
			y = view->anchor_box.y + view->anchor_box.height - geo.height;
		}
		if (x != view->x || y != view->y) {
			view_move(view, x, y);
		}
	}
	view_update_borders(view);
	wl_signal_emit(&view->server->events.view_change, view);
}

static struct wlr_box usable_area_for(struct smtwc_view *view)
{
	struct smtwc_output *output = output_at(view->server, view->x + 1, view->y + 1);
	if (output == NULL) {
		output = output_focused(view->server);
	}
	return output != NULL ? output->usable_area : (struct wlr_box){ 0, 0, 800, 600 };
}

/* Moves one axis of a window (frame included) inside the area; one larger
 * than the area starts at its start, so the title bar and the window's
 * top-left controls stay reachable. */
static int clamp_axis(int pos, int len, int area_pos, int area_len)
{
	if (pos + len > area_pos + area_len) {
		pos = area_pos + area_len - len;
	}
	return pos < area_pos ? area_pos : pos;
}

void view_keep_frame_top_left(struct smtwc_view *view, int *x, int *y)
{
	struct smtwc_output *output = output_at(view->server, *x + 1, *y + 1);
	if (output == NULL) {
		return; /* off every output: the client's own business */
	}
	struct wlr_box area = output->usable_area;
	struct smtwc_frame_insets f = view_frame_insets(view);
	if (*x >= area.x && *x - f.left < area.x) {
		*x = area.x + f.left;
	}
	if (*y >= area.y && *y - f.top < area.y) {
		*y = area.y + f.top;
	}
}

/* Where a window opens: client-chosen positions are kept, others cascade
 * from the top-left of the usable area so windows opened in a row never
 * hide one another exactly; either way the window is moved inside the area
 * (panels' exclusive zones excluded). */
static void view_place(struct smtwc_view *view, struct wlr_box area, int width, int height)
{
	struct smtwc_frame_insets f = view_frame_insets(view);
	int x = view->x, y = view->y;
	if (!view->keep_position) {
		int step = view->server->placement_counter++ % CASCADE_STEPS;
		x = area.x + CASCADE_STEP + step * CASCADE_STEP;
		y = area.y + CASCADE_STEP + step * CASCADE_STEP;
		if (x + width + f.right > area.x + area.width) {
			x = area.x + (area.width - width) / 2;
		}
		if (y + height + f.bottom > area.y + area.height) {
			y = area.y + (area.height - height) / 2;
		}
	}
	x = clamp_axis(x - f.left, width + f.left + f.right, area.x, area.width) + f.left;
	y = clamp_axis(y - f.top, height + f.top + f.bottom, area.y, area.height) + f.top;
	view_move(view, x, y);
}

/* The output a new window opens on: where the client placed it, else the
 * one under the cursor. */
static struct wlr_box placement_area(struct smtwc_view *view)
{
	struct smtwc_output *output = NULL;
	if (view->keep_position) {
		struct wlr_box geo = view->impl->geometry(view);
		output = output_at(view->server, view->x + geo.width / 2.0,
				view->y + geo.height / 2.0);
	}
	if (output == NULL) {
		output = output_focused(view->server);
	}
	return output != NULL ? output->usable_area : (struct wlr_box){ 0, 0, 800, 600 };
}

void view_map(struct smtwc_view *view)
{
	view->mapped = true;
	view->minimized = false;
	/* Names set before our listeners were there (an X window's, read
	 * when wlroots made it) show from the map on. */
	view_copy_names(view);
	/* A window larger than the usable area is asked to fit it, as sway and
	 * labwc do; one that insists on its size still opens with its title
	 * bar on the output. */
	struct wlr_box area = placement_area(view);
	struct wlr_box geo = view->impl->geometry(view);
	struct smtwc_frame_insets f = view_frame_insets(view);
	int width = geo.width, height = geo.height;
	if (width + f.left + f.right > area.width) {
		width = area.width - f.left - f.right;
	}
	if (height + f.top + f.bottom > area.height) {
		height = area.height - f.top - f.bottom;
	}
	if ((width != geo.width || height != geo.height) && width > 0 && height > 0) {
		view->impl->configure(view, width, height);
	}
	view_place(view, area, width, height);
	view_update_geometry(view);
	/* The frame is charged with the window's surface, which may be new
	 * (an X window remapped: Xwayland gives it another surface, and the
	 * bar, unchanged, would not be said again): said once more. */
	wl_signal_emit(&view->server->events.view_frame_memory, view);
	wlr_scene_node_set_enabled(&view->tree->node, true);
	wl_signal_emit(&view->server->events.view_map, view);
	view_focus(view);
	wl_signal_emit(&view->server->events.view_visibility, view);
}

static struct smtwc_view *next_focus_candidate(
		struct smtwc_server *server, struct smtwc_view *except)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		if (view != except && view->mapped && !view->minimized) {
			return view;
		}
	}
	return NULL;
}

void view_unmap(struct smtwc_view *view)
{
	struct smtwc_server *server = view->server;
	bool was_focused = view_is_focused(view);
	if (was_focused) {
		server->focused_view = NULL;
	}
	view->mapped = false;
	wlr_scene_node_set_enabled(&view->tree->node, false);
	wl_signal_emit(&server->events.view_unmap, view);
	wl_signal_emit(&server->events.view_visibility, view);
	if (server->grabbed_view == view) {
		server->grabbed_view = NULL;
		server->cursor_mode = SMTWC_CURSOR_PASSTHROUGH;
	}
	if (was_focused) {
		struct smtwc_view *next = next_focus_candidate(server, view);
		if (next != NULL) {
			view_focus(next);
		} else if (server->exclusive_layer == NULL) {
			wlr_seat_keyboard_notify_clear_focus(server->seat);
		}
	}
}

struct smtwc_view *view_focused(struct smtwc_server *server)
{
	struct smtwc_view *view = server->focused_view;
	return view != NULL && view->mapped ? view : NULL;
}

void view_focus(struct smtwc_view *view)
{
	struct smtwc_server *server = view->server;
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *surface = view->impl->surface(view);
	if (!view->mapped || surface == NULL || !input_inhibit_allows(server, surface)) {
		return;
	}
	if (view->minimized) {
		view_set_minimized(view, false);
	}
	/* Raise and move to the front of the focus order even when keyboard focus
	 * cannot move (an exclusive layer surface such as a lock screen holds it). */
	wlr_scene_node_raise_to_top(&view->tree->node);
	wl_list_remove(&view->link);
	wl_list_insert(&server->views, &view->link);
	if (server->exclusive_layer != NULL) {
		return;
	}

	struct smtwc_view *previous = server->focused_view;
	if (previous != view) {
		if (previous != NULL) {
			previous->impl->set_activated(previous, false);
		}
		server->focused_view = view;
		view->impl->set_activated(view, true);
		if (previous != NULL) {
			view_update_borders(previous);
			wl_signal_emit(&previous->server->events.view_change, previous);
		}
		view_update_borders(view);
		wl_signal_emit(&view->server->events.view_change, view);
	}
	if (seat->keyboard_state.focused_surface == surface) {
		return;
	}
	struct wlr_keyboard *keyboard = wlr_seat_get_keyboard(seat);
	if (keyboard != NULL) {
		wlr_seat_keyboard_notify_enter(seat, surface, keyboard->keycodes,
				keyboard->num_keycodes, &keyboard->modifiers);
	} else {
		wlr_seat_keyboard_notify_enter(seat, surface, NULL, 0, NULL);
	}
}

void view_set_maximized(struct smtwc_view *view, bool maximized)
{
	if (view->fullscreen || view->maximized == maximized) {
		view->impl->set_maximized(view, view->maximized);
		return;
	}
	view->anchor_edges = 0;
	if (maximized) {
		view->restore_box = view_box(view);
		struct wlr_box area = usable_area_for(view);
		view_move(view, area.x, area.y);
		view->impl->configure(view, area.width, area.height);
	} else {
		view_move(view, view->restore_box.x, view->restore_box.y);
		view->impl->configure(view, view->restore_box.width, view->restore_box.height);
	}
	view->maximized = maximized;
	view->impl->set_maximized(view, maximized);
	view_update_borders(view);
	wl_signal_emit(&view->server->events.view_change, view);
}

void view_set_fullscreen(struct smtwc_view *view, bool fullscreen)
{
	if (view->fullscreen == fullscreen) {
		view->impl->set_fullscreen(view, fullscreen);
		return;
	}
	struct smtwc_server *server = view->server;
	view->anchor_edges = 0;
	if (fullscreen) {
		if (!view->maximized) {
			view->restore_box = view_box(view);
		}
		struct smtwc_output *output = output_at(server, view->x + 1, view->y + 1);
		if (output == NULL) {
			output = output_focused(server);
		}
		if (output == NULL) {
			return;
		}
		struct wlr_box box = output_layout_box(output);
		/* Above panels in the top layer, below overlays. */
		wlr_scene_node_reparent(&view->tree->node, &server->layers[SMTWC_LAYER_TOP]->node);
		view_move(view, box.x, box.y);
		view->impl->configure(view, box.width, box.height);
	} else {
		wlr_scene_node_reparent(
				&view->tree->node, &server->layers[SMTWC_LAYER_WINDOWS]->node);
		if (view->maximized) {
			struct wlr_box area = usable_area_for(view);
			view_move(view, area.x, area.y);
			view->impl->configure(view, area.width, area.height);
		} else {
			view_move(view, view->restore_box.x, view->restore_box.y);
			view->impl->configure(
					view, view->restore_box.width, view->restore_box.height);
		}
	}
	view->fullscreen = fullscreen;
	view->impl->set_fullscreen(view, fullscreen);
	wlr_scene_node_raise_to_top(&view->tree->node);
	view_update_borders(view);
	wl_signal_emit(&view->server->events.view_change, view);
}

void view_set_minimized(struct smtwc_view *view, bool minimized)
{
	if (view->minimized == minimized || !view->mapped) {
		return;
	}
	view->minimized = minimized;
	wlr_scene_node_set_enabled(&view->tree->node, !minimized);
	if (minimized && view_is_focused(view)) {
		struct smtwc_view *next = next_focus_candidate(view->server, view);
		if (next != NULL) {
			view_focus(next);
		} else {
			view->server->focused_view = NULL;
			wlr_seat_keyboard_notify_clear_focus(view->server->seat);
		}
		view->impl->set_activated(view, false);
		/* Behind every other window in the cycle order. */
		wl_list_remove(&view->link);
		wl_list_insert(view->server->views.prev, &view->link);
	}
	wl_signal_emit(&view->server->events.view_change, view);
	wl_signal_emit(&view->server->events.view_visibility, view);
}

void view_set_server_side_decoration(struct smtwc_view *view, bool enabled)
{
	view->server_side_decoration = enabled;
	view_update_borders(view);
}

void view_close(struct smtwc_view *view)
{
	view->impl->close(view);
}

void views_cycle(struct smtwc_server *server)
{
	struct smtwc_view *view;
	wl_list_for_each_reverse (view, &server->views, link) {
		if (view->mapped) {
			view_focus(view);
			return;
		}
	}
}

/* Moves views that no output shows back onto one. */
static void views_ensure_visible(struct smtwc_server *server)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		if (!view->mapped) {
			continue;
		}
		struct wlr_box box = view_box(view);
		if (!wlr_output_layout_intersects(server->output_layout, NULL, &box)) {
			struct smtwc_output *output = output_focused(server);
			if (output != NULL) {
				struct smtwc_frame_insets f = view_frame_insets(view);
				view_move(view, output->usable_area.x + f.left,
						output->usable_area.y + f.top);
			}
		}
	}
	views_arrange(server);
}

void views_handle_output_layout_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, views_output_layout_change);
	views_ensure_visible(server);
}

void views_handle_output_removed(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, views_output_removed);
	views_ensure_visible(server);
}

void views_arrange(struct smtwc_server *server)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		if (!view->mapped) {
			continue;
		}
		if (view->fullscreen) {
			struct smtwc_output *output = output_at(server, view->x + 1, view->y + 1);
			if (output != NULL) {
				struct wlr_box box = output_layout_box(output);
				view_move(view, box.x, box.y);
				view->impl->configure(view, box.width, box.height);
			}
		} else if (view->maximized) {
			struct wlr_box area = usable_area_for(view);
			view_move(view, area.x, area.y);
			view->impl->configure(view, area.width, area.height);
		}
	}
}

/* One axis of views_leave_zones: the frame [pos, pos + len) was inside
 * [old_start, old_end); the area is now [new_start, new_end). Returns the
 * frame's new start. */
static int leave_zone_axis(int pos, int len, int old_start, int old_end, int new_start, int new_end)
{
	if (new_start > old_start && pos >= old_start && pos < new_start) {
		pos += new_start - old_start; /* the near edge came in */
	} else if (new_end < old_end && pos + len <= old_end && pos + len > new_end) {
		pos -= old_end - new_end; /* the far edge came in */
	} else {
		return pos;
	}
	return clamp_axis(pos, len, new_start, new_end - new_start);
}

void views_leave_zones(
		struct smtwc_server *server, struct wlr_box old_area, struct wlr_box new_area)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		/* Maximized and fullscreen ones are re-fitted (views_arrange);
		 * one the user is moving or resizing stays under the pointer. */
		if (!view->mapped || view->maximized || view->fullscreen ||
				view == server->grabbed_view) {
			continue;
		}
		struct wlr_box geo = view->impl->geometry(view);
		struct smtwc_frame_insets f = view_frame_insets(view);
		struct wlr_box frame = { view->x - f.left, view->y - f.top,
			geo.width + f.left + f.right, geo.height + f.top + f.bottom };
		/* Windows of other outputs do not meet this one's area. */
		if (frame.x >= old_area.x + old_area.width || frame.x + frame.width <= old_area.x ||
				frame.y >= old_area.y + old_area.height ||
				frame.y + frame.height <= old_area.y) {
			continue;
		}
		int x = leave_zone_axis(frame.x, frame.width, old_area.x,
				old_area.x + old_area.width, new_area.x,
				new_area.x + new_area.width);
		int y = leave_zone_axis(frame.y, frame.height, old_area.y,
				old_area.y + old_area.height, new_area.y,
				new_area.y + new_area.height);
		if (x != frame.x || y != frame.y) {
			view_move(view, x + f.left, y + f.top);
			wl_signal_emit(&server->events.view_change, view);
		}
	}
}

enum smtwc_node_kind *desktop_owner_at(struct smtwc_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy)
{
	*surface = NULL;
	/* The layers, top first (the scene's root and its layer trees are at
	 * 0,0); not the drag icons above them: an icon under the pointer made
	 * its own source client the drop target, and no drop ever landed. */
	struct wlr_scene_node *node = NULL;
	for (int i = SMTWC_LAYER_COUNT - 1; i >= 0 && node == NULL; i--) {
		node = wlr_scene_node_at(&server->layers[i]->node, lx, ly, sx, sy);
	}
	if (node != NULL && node->type == WLR_SCENE_NODE_SURFACE) {
		*surface = wlr_scene_surface_from_node(node)->surface;
	} else if (node != NULL && server->stand_in_surface != NULL &&
			(*surface = server->stand_in_surface(node)) != NULL) {
		/* A ring canvas covers its surface from the same origin: the
		 * input is the surface's, at the same coordinates. */
		node = node->parent;
	}
	/* Walk up to the tree that knows its owner; popups and borders have
	 * none of their own and belong to the window or layer surface they
	 * hang from. */
	while (node != NULL && node->data == NULL) {
		node = node->parent;
	}
	return node != NULL ? node->data : NULL;
}
