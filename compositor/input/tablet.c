/*
 * As in sway: the tool moves the cursor; over a surface whose client bound
 * tablet-v2 for this seat, the tool's own events go there (proximity,
 * motion, pressure, tilt, tip, buttons); elsewhere it is a mouse, the tip
 * its left button. A surface keeps the tool while the tip is down (the
 * implicit grab), as a pointer keeps its button. A pad's buttons, rings and
 * strips go to the keyboard focus.
 */
#include <linux/input-event-codes.h>
#include <math.h>
#include <stdlib.h>
#include <wlr/types/wlr_tablet_pad.h>
#include <wlr/types/wlr_tablet_tool.h>
#include <wlr/types/wlr_tablet_v2.h>
#include "compositor/desktop/view.h"
#include "compositor/input/cursor.h"
#include "compositor/input/idle.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/input/tablet.h"

/* The tablet-v2 objects live with the wlroots devices they stand for:
 * wlroots destroys them with the device, so only their pointers are kept,
 * in the devices' data. */
static struct wlr_tablet_v2_tablet_tool *tool_v2(
		struct smtwc_server *server, struct wlr_tablet_tool *tool)
{
	if (tool->data == NULL) {
		tool->data = wlr_tablet_tool_create(server->tablet_manager, server->seat, tool);
	}
	return tool->data;
}

void tablet_attach(struct smtwc_server *server, struct wlr_input_device *device)
{
	device->data = wlr_tablet_create(server->tablet_manager, server->seat, device);
	/* Pads name the tablet they belong to by its wlr_tablet. */
	device->tablet->data = device->data;
	cursor_attach_pointer(server, device);
}

/* ---- pads ------------------------------------------------------------ */

struct smtwc_tablet_pad {
	struct wl_list link; /* smtwc_server.tablet_pads */
	struct smtwc_server *server;
	struct wlr_input_device *device;
	struct wlr_tablet_v2_tablet_pad *pad;
	struct wlr_tablet_v2_tablet *tablet; /* the one it is attached to, or NULL */
	struct wlr_surface *focus;           /* the surface it entered, or NULL */
	struct wl_listener button;
	struct wl_listener ring;
	struct wl_listener strip;
	struct wl_listener attach;
	struct wl_listener destroy;
	struct wl_listener tablet_destroy;
	struct wl_listener focus_destroy;
};

static void pad_leave(struct smtwc_tablet_pad *pad)
{
	if (pad->focus == NULL) {
		return;
	}
	wlr_tablet_v2_tablet_pad_notify_leave(pad->pad, pad->focus);
	wl_list_remove(&pad->focus_destroy.link);
	wl_list_init(&pad->focus_destroy.link);
	pad->focus = NULL;
}

static void pad_handle_focus_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, focus_destroy);
	wl_list_remove(&pad->focus_destroy.link);
	wl_list_init(&pad->focus_destroy.link);
	pad->focus = NULL;
}

/* The pad follows the keyboard focus, as in sway: it leaves the surface it
 * was on and enters the new one if that client bound tablet-v2. */
static void pad_set_focus(struct smtwc_tablet_pad *pad, struct wlr_surface *surface)
{
	if (surface == pad->focus) {
		return;
	}
	pad_leave(pad);
	if (surface == NULL || pad->tablet == NULL || !input_inhibit_allows(pad->server, surface) ||
			!wlr_surface_accepts_tablet_v2(pad->tablet, surface)) {
		return;
	}
	wlr_tablet_v2_tablet_pad_notify_enter(pad->pad, pad->tablet, surface);
	pad->focus = surface;
	wl_signal_add(&surface->events.destroy, &pad->focus_destroy);
}

static void pad_handle_button(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, button);
	struct wlr_event_tablet_pad_button *event = data;
	idle_notify_activity(pad->server);
	if (pad->focus == NULL) {
		return;
	}
	wlr_tablet_v2_tablet_pad_notify_mode(pad->pad, event->group, event->mode, event->time_msec);
	wlr_tablet_v2_tablet_pad_notify_button(pad->pad, event->button, event->time_msec,
			event->state == WLR_BUTTON_PRESSED ?
					ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED :
					ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
}

static void pad_handle_ring(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, ring);
	struct wlr_event_tablet_pad_ring *event = data;
	idle_notify_activity(pad->server);
	if (pad->focus != NULL) {
		/* wlroots 0.15 hands the angle to the wire as a wl_fixed_t without
		 * converting it (90 degrees arrived as 0.35): convert it here. A
		 * negative position (the finger lifted) stays negative. */
		wlr_tablet_v2_tablet_pad_notify_ring(pad->pad, event->ring, event->position * 256.0,
				event->source == WLR_TABLET_PAD_RING_SOURCE_FINGER,
				event->time_msec);
	}
}

static void pad_handle_strip(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, strip);
	struct wlr_event_tablet_pad_strip *event = data;
	idle_notify_activity(pad->server);
	if (pad->focus != NULL) {
		wlr_tablet_v2_tablet_pad_notify_strip(pad->pad, event->strip, event->position,
				event->source == WLR_TABLET_PAD_STRIP_SOURCE_FINGER,
				event->time_msec);
	}
}

static void pad_detach_tablet(struct smtwc_tablet_pad *pad)
{
	pad_leave(pad);
	if (pad->tablet != NULL) {
		wl_list_remove(&pad->tablet_destroy.link);
		wl_list_init(&pad->tablet_destroy.link);
		pad->tablet = NULL;
	}
}

static void pad_handle_tablet_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, tablet_destroy);
	pad_detach_tablet(pad);
}

static void pad_handle_attach(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, attach);
	struct wlr_tablet *wlr_tablet = data;
	struct wlr_tablet_v2_tablet *tablet = wlr_tablet != NULL ? wlr_tablet->data : NULL;
	pad_detach_tablet(pad);
	if (tablet == NULL) {
		return; /* not a tablet we announced */
	}
	pad->tablet = tablet;
	wl_signal_add(&tablet->wlr_device->events.destroy, &pad->tablet_destroy);
	pad_set_focus(pad, pad->server->seat->keyboard_state.focused_surface);
}

static void pad_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_tablet_pad *pad = wl_container_of(listener, pad, destroy);
	pad_detach_tablet(pad);
	wl_list_remove(&pad->link);
	wl_list_remove(&pad->button.link);
	wl_list_remove(&pad->ring.link);
	wl_list_remove(&pad->strip.link);
	wl_list_remove(&pad->attach.link);
	wl_list_remove(&pad->destroy.link);
	free(pad);
}

void tablet_pad_attach(struct smtwc_server *server, struct wlr_input_device *device)
{
	struct smtwc_tablet_pad *pad = calloc(1, sizeof(*pad));
	if (pad == NULL) {
		return;
	}
	pad->pad = wlr_tablet_pad_create(server->tablet_manager, server->seat, device);
	if (pad->pad == NULL) {
		free(pad);
		return;
	}
	pad->server = server;
	pad->device = device;
	wl_list_init(&pad->tablet_destroy.link);
	wl_list_init(&pad->focus_destroy.link);
	pad->tablet_destroy.notify = pad_handle_tablet_destroy;
	pad->focus_destroy.notify = pad_handle_focus_destroy;
	struct wlr_tablet_pad *wlr_pad = device->tablet_pad;
	pad->button.notify = pad_handle_button;
	wl_signal_add(&wlr_pad->events.button, &pad->button);
	pad->ring.notify = pad_handle_ring;
	wl_signal_add(&wlr_pad->events.ring, &pad->ring);
	pad->strip.notify = pad_handle_strip;
	wl_signal_add(&wlr_pad->events.strip, &pad->strip);
	pad->attach.notify = pad_handle_attach;
	wl_signal_add(&wlr_pad->events.attach_tablet, &pad->attach);
	pad->destroy.notify = pad_handle_destroy;
	wl_signal_add(&device->events.destroy, &pad->destroy);
	wl_list_insert(&server->tablet_pads, &pad->link);
}

static void handle_keyboard_focus(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, tablet_pad_focus);
	struct wlr_seat_keyboard_focus_change_event *event = data;
	struct smtwc_tablet_pad *pad;
	wl_list_for_each (pad, &server->tablet_pads, link) {
		pad_set_focus(pad, event->new_surface);
	}
}

/* Moves the cursor to the tool and sends it to the surface under it, if
 * that surface speaks tablet-v2; returns false when the pointer must be
 * emulated instead. */
static bool tool_motion(struct smtwc_server *server, struct wlr_input_device *device,
		struct wlr_tablet_tool *tool, uint32_t time_msec, bool has_x, double x, bool has_y,
		double y)
{
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

static void handle_axis(struct wl_listener *listener, void *data)
{
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

static void handle_proximity(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, tablet_proximity);
	struct wlr_event_tablet_tool_proximity *event = data;
	if (event->state == WLR_TABLET_TOOL_PROXIMITY_OUT) {
		struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
		if (tv2 != NULL) {
			wlr_tablet_v2_tablet_tool_notify_proximity_out(tv2);
		}
		return;
	}
	if (!tool_motion(server, event->device, event->tool, event->time_msec, true, event->x, true,
			    event->y)) {
		cursor_process_motion(server, event->time_msec);
	}
}

static void handle_tip(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, tablet_tip);
	struct wlr_event_tablet_tool_tip *event = data;
	struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
	bool down = event->state == WLR_TABLET_TOOL_TIP_DOWN;
	if (tv2 != NULL && tv2->focused_surface != NULL) {
		if (down) {
			wlr_tablet_v2_tablet_tool_notify_down(tv2);
			/* A click of the tip focuses the window, as a mouse click does. */
			struct wlr_surface *root = wlr_surface_get_root_surface(
					tv2->focused_surface);
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

static void handle_button(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, tablet_button);
	struct wlr_event_tablet_tool_button *event = data;
	struct wlr_tablet_v2_tablet_tool *tv2 = tool_v2(server, event->tool);
	if (tv2 != NULL && tv2->focused_surface != NULL) {
		wlr_tablet_v2_tablet_tool_notify_button(tv2, event->button,
				event->state == WLR_BUTTON_PRESSED ?
						ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED :
						ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
		return;
	}
	/* The pen's buttons, emulated, are the mouse's right and middle. */
	cursor_process_button(server, event->time_msec,
			event->button == BTN_STYLUS ? BTN_RIGHT : BTN_MIDDLE, event->state);
}

void tablet_init(struct smtwc_server *server)
{
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
	wl_list_init(&server->tablet_pads);
	server->tablet_pad_focus.notify = handle_keyboard_focus;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change, &server->tablet_pad_focus);
}

void tablet_finish(struct smtwc_server *server)
{
	wl_list_remove(&server->tablet_axis.link);
	wl_list_remove(&server->tablet_proximity.link);
	wl_list_remove(&server->tablet_tip.link);
	wl_list_remove(&server->tablet_button.link);
	wl_list_remove(&server->tablet_pad_focus.link);
}
