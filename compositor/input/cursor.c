/*
 * The pointer: routes motion and buttons to the surface under the cursor,
 * and runs the compositor's own interactive moves and resizes (Mod+left drag
 * moves, Mod+right drag resizes, and clients may ask for either).
 */
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/util/edges.h>
#include <wlr/util/log.h>
#include "compositor/desktop/layer_shell.h"
#include "compositor/desktop/view.h"
#include "compositor/input/cursor.h"
#include "compositor/input/idle.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/input/keyboard.h"
#include "compositor/input/pointer_constraints.h"

enum {
	MIN_WINDOW_SIZE = 32
};

static void cursor_end_interactive(struct smtwc_server *server)
{
	server->cursor_mode = SMTWC_CURSOR_PASSTHROUGH;
	server->grabbed_view = NULL;
}

static void process_move(struct smtwc_server *server)
{
	struct smtwc_view *view = server->grabbed_view;
	/* Rounded: the pointer's layout position is a double, and truncating
	 * a difference that should be whole (99.99999) moves a pixel short. */
	view_move(view, (int)lround(server->cursor->x - server->grab_x),
			(int)lround(server->cursor->y - server->grab_y));
}

/* The client picks its final size (it may round to character cells); the
 * view keeps the edges opposite to the dragged ones fixed when it commits
 * (view_update_geometry), so a top/left resize never shows a jump. */
static void process_resize(struct smtwc_server *server)
{
	struct smtwc_view *view = server->grabbed_view;
	double dx = server->cursor->x - server->grab_x;
	double dy = server->cursor->y - server->grab_y;
	struct wlr_box box = server->grab_geobox;
	int left = box.x, right = box.x + box.width;
	int top = box.y, bottom = box.y + box.height;
	if (server->resize_edges & WLR_EDGE_LEFT) {
		left = (int)(box.x + dx);
		if (left > right - MIN_WINDOW_SIZE) {
			left = right - MIN_WINDOW_SIZE;
		}
	} else if (server->resize_edges & WLR_EDGE_RIGHT) {
		right = (int)(box.x + box.width + dx);
		if (right < left + MIN_WINDOW_SIZE) {
			right = left + MIN_WINDOW_SIZE;
		}
	}
	if (server->resize_edges & WLR_EDGE_TOP) {
		top = (int)(box.y + dy);
		if (top > bottom - MIN_WINDOW_SIZE) {
			top = bottom - MIN_WINDOW_SIZE;
		}
	} else if (server->resize_edges & WLR_EDGE_BOTTOM) {
		bottom = (int)(box.y + box.height + dy);
		if (bottom < top + MIN_WINDOW_SIZE) {
			bottom = top + MIN_WINDOW_SIZE;
		}
	}
	server->grab_target = (struct wlr_box){ left, top, right - left, bottom - top };
	view->impl->configure(view, right - left, bottom - top);
}

/* The client under the pointer was sent input: the scheduler boosts it. */
static void notify_input(struct smtwc_server *server)
{
	struct wlr_seat_client *focused = server->seat->pointer_state.focused_client;
	if (focused != NULL) {
		wl_signal_emit(&server->events.client_input, focused->client);
	}
}

static void process_passthrough(struct smtwc_server *server, uint32_t time_msec)
{
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *held = seat->pointer_state.focused_surface;
	if (seat->pointer_state.button_count > 0 && held != NULL &&
			!wlr_seat_pointer_has_grab(seat) && input_inhibit_allows(server, held)) {
		/* The implicit grab: while a button is held, the surface it was
		 * pressed on keeps the pointer, motion in its coordinates and the
		 * release, as in X and other compositors. Without it, a press
		 * that left the window lost its release (the client kept the
		 * button down) and a drag asked for after leaving was refused.
		 * wlroots' own grabs (a drag, a popup's) pick their focus. */
		wlr_seat_pointer_notify_motion(seat, time_msec,
				server->cursor->x - server->implicit_grab_x,
				server->cursor->y - server->implicit_grab_y);
		notify_input(server);
		return;
	}
	double sx, sy;
	struct wlr_surface *surface = NULL;
	desktop_owner_at(server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	if (!input_inhibit_allows(server, surface)) {
		surface = NULL; /* only the locker's surfaces get the pointer */
	}
	if (surface == NULL) {
		/* Over the desktop or a border, the compositor owns the image. */
		wlr_xcursor_manager_set_cursor_image(
				server->cursor_manager, "left_ptr", server->cursor);
		wlr_seat_pointer_clear_focus(seat);
		return;
	}
	/* enter is a no-op when focus does not change; motion always goes out. */
	wlr_seat_pointer_notify_enter(seat, surface, sx, sy);
	wlr_seat_pointer_notify_motion(seat, time_msec, sx, sy);
	notify_input(server);
}

void cursor_process_motion(struct smtwc_server *server, uint32_t time_msec)
{
	if (server->drag_icon != NULL) {
		wlr_scene_node_set_position(&server->drag_icon->node, (int)server->cursor->x,
				(int)server->cursor->y);
	}
	switch (server->cursor_mode) {
	case SMTWC_CURSOR_MOVE:
		process_move(server);
		return;
	case SMTWC_CURSOR_RESIZE:
		process_resize(server);
		return;
	case SMTWC_CURSOR_PASSTHROUGH:
		process_passthrough(server, time_msec);
		return;
	}
}

void cursor_refocus(struct smtwc_server *server, uint32_t time_msec)
{
	if (server->cursor_mode == SMTWC_CURSOR_PASSTHROUGH) {
		process_passthrough(server, time_msec);
	}
}

static void cursor_handle_motion(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, cursor_motion);
	struct wlr_event_pointer_motion *event = data;
	idle_notify_activity(server);
	struct wlr_surface *focus_before = server->seat->pointer_state.focused_surface;
	double dx = event->delta_x, dy = event->delta_y;
	pointer_constraints_motion(server, &dx, &dy);
	wlr_cursor_move(server->cursor, event->device, dx, dy);
	cursor_process_motion(server, event->time_msec);
	pointer_constraints_send_relative(server, focus_before, event->time_msec, event->delta_x,
			event->delta_y, event->unaccel_dx, event->unaccel_dy);
}

static void cursor_handle_motion_absolute(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, cursor_motion_absolute);
	struct wlr_event_pointer_motion_absolute *event = data;
	idle_notify_activity(server);
	/* Tablets, touch screens and virtual pointers move absolutely; clients
	 * get the same relative motion and constraints as from a mouse. */
	double lx, ly;
	wlr_cursor_absolute_to_layout_coords(
			server->cursor, event->device, event->x, event->y, &lx, &ly);
	struct wlr_surface *focus_before = server->seat->pointer_state.focused_surface;
	double motion_x = lx - server->cursor->x, motion_y = ly - server->cursor->y;
	double dx = motion_x, dy = motion_y;
	if (pointer_constraints_motion(server, &dx, &dy)) {
		wlr_cursor_move(server->cursor, event->device, dx, dy);
	} else {
		wlr_cursor_warp_absolute(server->cursor, event->device, event->x, event->y);
	}
	cursor_process_motion(server, event->time_msec);
	pointer_constraints_send_relative(server, focus_before, event->time_msec, motion_x,
			motion_y, motion_x, motion_y);
}

static bool view_has_pointer_button(struct smtwc_server *server, struct smtwc_view *view)
{
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *focused = seat->pointer_state.focused_surface;
	return seat->pointer_state.button_count > 0 && focused != NULL &&
			wlr_surface_get_root_surface(focused) == view->impl->surface(view);
}

void cursor_begin_interactive(struct smtwc_server *server, struct smtwc_view *view,
		enum smtwc_cursor_mode mode, uint32_t edges, bool from_client)
{
	if (!view->mapped || view->fullscreen) {
		return;
	}
	if (from_client && !view_has_pointer_button(server, view)) {
		return;
	}
	if (view->maximized) {
		view_set_maximized(view, false);
	}
	server->grabbed_view = view;
	server->cursor_mode = mode;
	struct wlr_box box = view_box(view);
	server->grab_geobox = box;
	server->grab_target = box;
	if (mode == SMTWC_CURSOR_MOVE) {
		view->anchor_edges = 0;
		server->grab_x = server->cursor->x - view->x;
		server->grab_y = server->cursor->y - view->y;
	} else {
		server->grab_x = server->cursor->x;
		server->grab_y = server->cursor->y;
		server->resize_edges = edges;
		view->anchor_edges = edges;
		view->anchor_box = box;
	}
	server->grab_from_client = from_client;
}

/* Mod+right drag resizes from the corner nearest to the pointer. */
static uint32_t nearest_edges(struct smtwc_server *server, struct smtwc_view *view)
{
	struct wlr_box box = view_box(view);
	uint32_t edges = 0;
	edges |= server->cursor->x < box.x + box.width / 2.0 ? WLR_EDGE_LEFT : WLR_EDGE_RIGHT;
	edges |= server->cursor->y < box.y + box.height / 2.0 ? WLR_EDGE_TOP : WLR_EDGE_BOTTOM;
	return edges;
}

/* Which edges of the window the pointer is beyond (0 inside the geometry
 * or over the title bar). */
static uint32_t frame_edges_at(struct smtwc_server *server, struct smtwc_view *view)
{
	struct wlr_box box = view_box(view);
	struct wlr_box title = view_title_bar_box(view);
	double x = server->cursor->x, y = server->cursor->y;
	if (wlr_box_contains_point(&title, x, y)) {
		return 0;
	}
	uint32_t edges = 0;
	if (x < box.x) {
		edges |= WLR_EDGE_LEFT;
	} else if (x >= box.x + box.width) {
		edges |= WLR_EDGE_RIGHT;
	}
	if (y < title.y || (title.height == 0 && y < box.y)) {
		edges |= WLR_EDGE_TOP;
	} else if (y >= box.y + box.height) {
		edges |= WLR_EDGE_BOTTOM;
	}
	return edges;
}

static bool handle_press(struct smtwc_server *server, uint32_t button)
{
	double sx, sy;
	struct wlr_surface *surface = NULL;
	enum smtwc_node_kind *owner = desktop_owner_at(
			server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	if (owner == NULL || !input_inhibit_allows(server, surface)) {
		return false;
	}
	if (*owner == SMTWC_NODE_LAYER_SURFACE) {
		layer_shell_focus((struct smtwc_layer_surface *)owner);
		return false;
	}
	if (*owner != SMTWC_NODE_VIEW) {
		return false; /* X menus and tooltips take no focus by clicking */
	}
	struct smtwc_view *view = (struct smtwc_view *)owner;
	view_focus(view);
	if (surface == NULL && button == BTN_LEFT) {
		/* The compositor's frame: the title bar moves the window, the
		 * border resizes it from the edges under the pointer. */
		uint32_t edges = frame_edges_at(server, view);
		cursor_begin_interactive(server, view,
				edges == 0 ? SMTWC_CURSOR_MOVE : SMTWC_CURSOR_RESIZE, edges, false);
		return true;
	}
	uint32_t mod = server->config.modifier;
	if ((keyboard_modifiers(server) & mod) == mod && mod != 0) {
		if (button == BTN_LEFT) {
			cursor_begin_interactive(server, view, SMTWC_CURSOR_MOVE, 0, false);
			return true;
		}
		if (button == BTN_RIGHT) {
			cursor_begin_interactive(server, view, SMTWC_CURSOR_RESIZE,
					nearest_edges(server, view), false);
			return true;
		}
	}
	return false;
}

void cursor_process_button(struct smtwc_server *server, uint32_t time_msec, uint32_t button,
		enum wlr_button_state state)
{
	idle_notify_activity(server);
	if (state == WLR_BUTTON_PRESSED) {
		if (server->cursor_mode == SMTWC_CURSOR_PASSTHROUGH &&
				handle_press(server, button)) {
			/* The compositor's own grab: the client never sees this click. */
			return;
		}
	} else if (server->cursor_mode != SMTWC_CURSOR_PASSTHROUGH) {
		bool swallow = !server->grab_from_client;
		cursor_end_interactive(server);
		if (swallow) {
			return;
		}
	}
	struct wlr_seat_pointer_state *pointer = &server->seat->pointer_state;
	if (state == WLR_BUTTON_PRESSED && pointer->button_count == 0) {
		/* The implicit grab's origin: the surface-local position last
		 * sent is that of the cursor now. */
		server->implicit_grab_x = server->cursor->x - pointer->sx;
		server->implicit_grab_y = server->cursor->y - pointer->sy;
	}
	wlr_seat_pointer_notify_button(server->seat, time_msec, button, state);
	notify_input(server);
	if (state == WLR_BUTTON_RELEASED && pointer->button_count == 0 &&
			server->cursor_mode == SMTWC_CURSOR_PASSTHROUGH) {
		/* The implicit grab ends: the pointer goes to what is under it. */
		process_passthrough(server, time_msec);
	}
}

static void cursor_handle_button(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, cursor_button);
	struct wlr_event_pointer_button *event = data;
	cursor_process_button(server, event->time_msec, event->button, event->state);
}

static void cursor_handle_axis(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, cursor_axis);
	struct wlr_event_pointer_axis *event = data;
	idle_notify_activity(server);
	wlr_seat_pointer_notify_axis(server->seat, event->time_msec, event->orientation,
			event->delta, event->delta_discrete, event->source);
}

static void cursor_handle_frame(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, cursor_frame);
	wlr_seat_pointer_notify_frame(server->seat);
}

void cursor_attach_pointer(struct smtwc_server *server, struct wlr_input_device *device)
{
	wlr_cursor_attach_input_device(server->cursor, device);
}

void cursor_init(struct smtwc_server *server)
{
	server->cursor = wlr_cursor_create();
	wlr_cursor_attach_output_layout(server->cursor, server->output_layout);
	server->cursor_manager = wlr_xcursor_manager_create(
			server->config.cursor_theme, (uint32_t)server->config.cursor_size);
	wlr_xcursor_manager_load(server->cursor_manager, 1);

	server->cursor_motion.notify = cursor_handle_motion;
	wl_signal_add(&server->cursor->events.motion, &server->cursor_motion);
	server->cursor_motion_absolute.notify = cursor_handle_motion_absolute;
	wl_signal_add(&server->cursor->events.motion_absolute, &server->cursor_motion_absolute);
	server->cursor_button.notify = cursor_handle_button;
	wl_signal_add(&server->cursor->events.button, &server->cursor_button);
	server->cursor_axis.notify = cursor_handle_axis;
	wl_signal_add(&server->cursor->events.axis, &server->cursor_axis);
	server->cursor_frame.notify = cursor_handle_frame;
	wl_signal_add(&server->cursor->events.frame, &server->cursor_frame);
}

void cursor_finish(struct smtwc_server *server)
{
	wl_list_remove(&server->cursor_motion.link);
	wl_list_remove(&server->cursor_motion_absolute.link);
	wl_list_remove(&server->cursor_button.link);
	wl_list_remove(&server->cursor_axis.link);
	wl_list_remove(&server->cursor_frame.link);
	wlr_xcursor_manager_destroy(server->cursor_manager);
	server->cursor_manager = NULL;
	wlr_cursor_destroy(server->cursor);
}
