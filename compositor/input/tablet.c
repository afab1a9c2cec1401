/*
 * As in sway: the tool moves the cursor; over a surface whose client bound
 * tablet-v2 for this seat, the tool's own events go there (proximity,
 * motion, pressure, tilt, tip, buttons); elsewhere it is a mouse, the tip
 * its left button. A surface keeps the tool while the tip is down (the
 * implicit grab), as a pointer keeps its button.
 */
#include <linux/input-event-codes.h>
#include <math.h>
#include <wlr/types/wlr_tablet_tool.h>
#include <wlr/types/wlr_tablet_v2.h>
#include "desktop/view.h"
#include "input/cursor.h"
#include "input/idle.h"
#include "input/input_inhibit.h"
#include "input/tablet.h"

/* The tablet-v2 objects live with the wlroots devices they stand for:
 * wlroots destroys them with the device, so only their pointers are kept,
 * in the devices' data. */
static struct wlr_tablet_v2_tablet_tool *tool_v2(struct smtwc_server *server,
		struct wlr_tablet_tool *tool) {
	if (tool->data == NULL) {
		tool->data = wlr_tablet_tool_create(server->tablet_manager, server->seat, tool);
	}
	return tool->data;
}

void tablet_attach(struct smtwc_server *server, struct wlr_input_device *device) {
	device->data = wlr_tablet_create(server->tablet_manager, server->seat, device);
	cursor_attach_pointer(server, device);
}

/* Moves the cursor to the tool and sends it to the surface under it, if
 * that surface speaks tablet-v2; returns false when the pointer must be
 * emulated instead. */
static bool tool_motion(struct smtwc_server *server, struct wlr_input_device *device,
		struct wlr_tablet_tool *tool, uint32_t time_msec, bool has_x, double x,
		bool has_y, double y) {
	idle_notify_activity(server);
	wlr_cursor_warp_absolute(server->cursor, device, has_x ? x : NAN, has_y ? y : NAN);
	struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, tool);
	struct wlr_tablet_v2_tablet *tablet = device->data;
	if (tv2 == NULL || tablet == NULL) {
		return false;
	}
	double sx, sy;
	struct wlr_surface *surface = NULL;
	desktop_owner_at(server, server->cursor->x, server->cursor->y, &surface, &sx, &sy);
	if (wlr_tablet_tool_v2_has_implicit_grab(tv2)) {
		/* Drawing a stroke: the surface under the tip keeps the tool; the
		 * stroke pauses while the tip is outside it (as in sway). */
		if (surface == tv2->focused_surface) {
			wlr_tablet_v2_tablet_tool_notify_motion(tv2, sx, sy);
		}
		return true;
	}
	if (surface == NULL || !input_inhibit_allows(server, surface) ||
			!wlr_surface_accepts_tablet_v2(tablet, surface)) {
		if (tv2->focused_surface != NULL) {
			wlr_tablet_v2_tablet_tool_notify_proximity_out(tv2);
		}
		return false;
	}
	wlr_tablet_v2_tablet_tool_notify_proximity_in(tv2, tablet, surface);
	wlr_tablet_v2_tablet_tool_notify_motion(tv2, sx, sy);
	return true;
}

static void handle_axis(struct wl_listener *listener, void *data) {
	struct smtwc_server *server = wl_container_of(listener, server, tablet_axis);
	struct wlr_event_tablet_tool_axis *event = data;
	uint32_t axes = event->updated_axes;
	if (!tool_motion(server, event->device, event->tool, event->time_msec,
			axes & WLR_TABLET_TOOL_AXIS_X, event->x, axes & WLR_TABLET_TOOL_AXIS_Y,
			event->y)) {
		cursor_process_motion(server, event->time_msec);
		return;
	}
	struct wlr_tablet_v2_tablet_tool *tv2 = event->tool->data;
	if (axes & WLR_TABLET_TOOL_AXIS_PRESSURE) {
		wlr_tablet_v2_tablet_tool_notify_pressure(tv2, event->pressure);
	}
	if (axes & WLR_TABLET_TOOL_AXIS_DISTANCE) {
		wlr_tablet_v2_tablet_tool_notify_distance(tv2, event->distance);
	}
	if (axes & (WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y)) {
		wlr_tablet_v2_tablet_tool_notify_tilt(tv2, event->tilt_x, event->tilt_y);
	}
	if (axes & WLR_TABLET_TOOL_AXIS_ROTATION) {
		wlr_tablet_v2_tablet_tool_notify_rotation(tv2, event->rotation);
	}
	if (axes & WLR_TABLET_TOOL_AXIS_SLIDER) {
		wlr_tablet_v2_tablet_tool_notify_slider(tv2, event->slider);
	}
	if (axes & WLR_TABLET_TOOL_AXIS_WHEEL) {
		wlr_tablet_v2_tablet_tool_notify_wheel(tv2, event->wheel_delta, 0);
	}
}

static void handle_proximity(struct wl_listener *listener, void *data) {
	struct smtwc_server *server = wl_container_of(listener, server, tablet_proximity);
	struct wlr_event_tablet_tool_proximity *event = data;
	if (event->state == WLR_TABLET_TOOL_PROXIMITY_OUT) {
		struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
		if (tv2 != NULL) {
			wlr_tablet_v2_tablet_tool_notify_proximity_out(tv2);
		}
		return;
	}
	if (!tool_motion(server, event->device, event->tool, event->time_msec, true, event->x,
			true, event->y)) {
		cursor_process_motion(server, event->time_msec);
	}
}

static void handle_tip(struct wl_listener *listener, void *data) {
	struct smtwc_server *server = wl_container_of(listener, server, tablet_tip);
	struct wlr_event_tablet_tool_tip *event = data;
	struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
	bool down = event->state == WLR_TABLET_TOOL_TIP_DOWN;
	if (tv2 != NULL && tv2->focused_surface != NULL) {
		if (down) {
			wlr_tablet_v2_tablet_tool_notify_down(tv2);
			/* A click of the tip focuses the window, as a mouse click does. */
			struct wlr_surface *root = wlr_surface_get_root_surface(tv2->focused_surface);
			struct smtwc_view *view = view_from_surface(server, root);
			if (view != NULL) {
				view_focus(view);
			}
		} else {
			wlr_tablet_v2_tablet_tool_notify_up(tv2);
		}
		return;
	}
	cursor_process_button(server, event->time_msec, BTN_LEFT,
		down ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED);
}

static void handle_button(struct wl_listener *listener, void *data) {
	struct smtwc_server *server = wl_container_of(listener, server, tablet_button);
	struct wlr_event_tablet_tool_button *event = data;
	struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
	if (tv2 != NULL && tv2->focused_surface != NULL) {
		wlr_tablet_v2_tablet_tool_notify_button(tv2, event->button,
			event->state == WLR_BUTTON_PRESSED ? ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED
				: ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
		return;
	}
	/* The pen's buttons, emulated, are the mouse's right and middle. */
	cursor_process_button(server, event->time_msec,
		event->button == BTN_STYLUS ? BTN_RIGHT : BTN_MIDDLE, event->state);
}

void tablet_init(struct smtwc_server *server) {
	server->tablet_manager = wlr_tablet_v2_create(server->display);
	struct wlr_cursor *cursor = server->cursor;
	server->tablet_axis.notify = handle_axis;
	wl_signal_add(&cursor->events.tablet_tool_axis, &server->tablet_axis);
	server->tablet_proximity.notify = handle_proximity;
	wl_signal_add(&cursor->events.tablet_tool_proximity, &server->tablet_proximity);
	server->tablet_tip.notify = handle_tip;
	wl_signal_add(&cursor->events.tablet_tool_tip, &server->tablet_tip);
	server->tablet_button.notify = handle_button;
	wl_signal_add(&cursor->events.tablet_tool_button, &server->tablet_button);
}

void tablet_finish(struct smtwc_server *server) {
	wl_list_remove(&server->tablet_axis.link);
	wl_list_remove(&server->tablet_proximity.link);
	wl_list_remove(&server->tablet_tip.link);
	wl_list_remove(&server->tablet_button.link);
}
