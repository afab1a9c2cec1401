/*
 * The seat: input devices (real, and virtual ones created by clients such as
 * test drivers or wayvnc), cursor images, clipboard, primary selection and
 * drag-and-drop requests.
 */
#include <stdlib.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_input_device.h>
#include <wlr/types/wlr_input_inhibitor.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/types/wlr_virtual_pointer_v1.h>
#include <wlr/util/log.h>
#include "compositor/desktop/layer_shell.h"
#include "compositor/desktop/view.h"
#include "compositor/input/cursor.h"
#include "compositor/input/drop_focus.h"
#include "compositor/input/gestures.h"
#include "compositor/input/idle.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/input/keyboard.h"
#include "compositor/input/pointer_constraints.h"
#include "compositor/input/seat.h"
#include "compositor/input/selection_limits.h"
#include "compositor/input/shortcuts_inhibit.h"
#include "compositor/input/tablet.h"
#include "compositor/input/text_input.h"

static void seat_update_capabilities(struct smtwc_server *server)
{
	/* Pointer and keyboard are always offered, as on any desktop: clients
	 * bind them at start-up, and a keyboard plugged in (or a virtual one
	 * created) later must reach clients that are already running. */
	wlr_seat_set_capabilities(
			server->seat, WL_SEAT_CAPABILITY_POINTER | WL_SEAT_CAPABILITY_KEYBOARD);
}

static void seat_handle_new_input(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_input);
	struct wlr_input_device *device = data;
	switch (device->type) {
	case WLR_INPUT_DEVICE_KEYBOARD:
		keyboard_attach(server, device, true);
		break;
	case WLR_INPUT_DEVICE_POINTER:
	case WLR_INPUT_DEVICE_TOUCH:
		cursor_attach_pointer(server, device);
		break;
	case WLR_INPUT_DEVICE_TABLET_TOOL:
		tablet_attach(server, device);
		break;
	case WLR_INPUT_DEVICE_TABLET_PAD:
		tablet_pad_attach(server, device);
		break;
	default:
		break;
	}
	seat_update_capabilities(server);
}

static void seat_handle_new_virtual_keyboard(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_virtual_keyboard);
	struct wlr_virtual_keyboard_v1 *vkb = data;
	/* The client sends its own keymap; ours would replace it. */
	keyboard_attach(server, &vkb->input_device, false);
	seat_update_capabilities(server);
}

static void seat_handle_new_virtual_pointer(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_virtual_pointer);
	struct wlr_virtual_pointer_v1_new_pointer_event *event = data;
	struct wlr_input_device *device = &event->new_pointer->input_device;
	cursor_attach_pointer(server, device);
	if (event->suggested_output != NULL) {
		wlr_cursor_map_input_to_output(server->cursor, device, event->suggested_output);
	}
}

static void seat_handle_request_set_cursor(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, request_set_cursor);
	struct wlr_seat_pointer_request_set_cursor_event *event = data;
	/* Only the client under the pointer may choose its image. */
	if (event->seat_client == server->seat->pointer_state.focused_client) {
		wlr_cursor_set_surface(
				server->cursor, event->surface, event->hotspot_x, event->hotspot_y);
	}
}

/* A selection past selection_limits.h's bounds is not shown to anybody
 * (it would end each Wayland client it is offered to); whoever made it
 * keeps what it had before. Logged at a bounded rate. */
static bool selection_allowed(
		struct smtwc_server *server, const struct wl_array *mime_types, const char *which)
{
	char why[128];
	if (selection_mime_types_allowed(mime_types, &server->config.limits, why, sizeof(why))) {
		return true;
	}
	uint64_t left_out;
	if (log_limit_allow(&server->selection_refused_log, &left_out)) {
		wlr_log(WLR_ERROR, "%s refused: %s (%llu refused in all, %llu not logged before)",
				which, why,
				(unsigned long long)server->selection_refused_log.events,
				(unsigned long long)left_out);
	}
	return false;
}

static void seat_handle_request_set_selection(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, request_set_selection);
	struct wlr_seat_request_set_selection_event *event = data;
	if (event->source != NULL &&
			!selection_allowed(server, &event->source->mime_types,
					"a clipboard selection")) {
		/* Nobody holds a refused source: freed here (an X one would
		 * leak, a client's is told it was cancelled). */
		wlr_data_source_destroy(event->source);
		return;
	}
	wlr_seat_set_selection(server->seat, event->source, event->serial);
}

static void seat_handle_request_set_primary_selection(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(
			listener, server, request_set_primary_selection);
	struct wlr_seat_request_set_primary_selection_event *event = data;
	if (event->source != NULL &&
			!selection_allowed(server, &event->source->mime_types,
					"a primary selection")) {
		wlr_primary_selection_source_destroy(event->source);
		return;
	}
	wlr_seat_set_primary_selection(server->seat, event->source, event->serial);
}

/* wlroots' X window manager sets the primary selection itself, without a
 * request. The focused client then is Xwayland, which binds no primary
 * selection device; this listener, added before any clipboard manager's,
 * takes a refused one away before they are told of it. */
static void seat_handle_set_primary_selection(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, set_primary_selection);
	struct wlr_primary_selection_source *source = server->seat->primary_selection_source;
	if (source != NULL &&
			!selection_allowed(server, &source->mime_types, "an X primary selection")) {
		wlr_seat_set_primary_selection(
				server->seat, NULL, wl_display_next_serial(server->display));
	}
}

static void seat_handle_request_start_drag(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, request_start_drag);
	struct wlr_seat_request_start_drag_event *event = data;
	if (wlr_seat_validate_pointer_grab_serial(server->seat, event->origin, event->serial)) {
		wlr_seat_start_pointer_drag(server->seat, event->drag, event->serial);
		/* wlroots clears the pointer's focus as the drag starts: the drag
		 * is over what is under the pointer now, not from its next motion
		 * on (released at once, it was dropped on nothing). */
		cursor_refocus(server, 0);
		return;
	}
	/* A drag not started by a click of ours is refused. */
	wlr_data_source_destroy(event->drag->source);
}

struct smtwc_drag_icon {
	struct smtwc_server *server;
	struct wl_listener destroy;
};

static void drag_icon_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_drag_icon *icon = wl_container_of(listener, icon, destroy);
	if (icon->server->drag_icon != NULL) {
		wlr_scene_node_destroy(&icon->server->drag_icon->node);
		icon->server->drag_icon = NULL;
	}
	wl_list_remove(&icon->destroy.link);
	free(icon);
}

static void seat_handle_start_drag(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, start_drag);
	struct wlr_drag *drag = data;
	drop_focus_follow(drag);
	if (drag->icon == NULL || server->drag_icon != NULL) {
		return;
	}
	struct smtwc_drag_icon *icon = calloc(1, sizeof(*icon));
	if (icon == NULL) {
		return;
	}
	icon->server = server;
	server->drag_icon = wlr_scene_tree_create(&server->drag_icons->node);
	wlr_scene_subsurface_tree_create(&server->drag_icon->node, drag->icon->surface);
	wlr_scene_node_set_position(
			&server->drag_icon->node, (int)server->cursor->x, (int)server->cursor->y);
	icon->destroy.notify = drag_icon_handle_destroy;
	wl_signal_add(&drag->icon->events.destroy, &icon->destroy);
}

/* The locker let go of the input inhibitor: the keyboard goes back to
 * where the user left it, the pointer to what is under it. */
static void seat_handle_input_inhibit_deactivate(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_inhibit_deactivate);
	wlr_log(WLR_INFO, "input inhibitor released");
	if (server->exclusive_layer != NULL) {
		layer_shell_focus(server->exclusive_layer->data);
	} else if (view_focused(server) != NULL) {
		view_focus(view_focused(server));
	}
	cursor_refocus(server, 0);
}

void seat_init(struct smtwc_server *server)
{
	server->seat = wlr_seat_create(server->display, "seat0");
	wl_list_init(&server->keyboards);
	cursor_init(server);
	idle_init(server);
	input_inhibit_init(server);
	server->input_inhibit_deactivate.notify = seat_handle_input_inhibit_deactivate;
	wl_signal_add(&server->input_inhibit->events.deactivate, &server->input_inhibit_deactivate);
	pointer_constraints_init(server);
	shortcuts_inhibit_init(server);
	gestures_init(server);
	tablet_init(server);
	text_input_init(server);

	server->new_input.notify = seat_handle_new_input;
	wl_signal_add(&server->backend->events.new_input, &server->new_input);

	struct wlr_virtual_keyboard_manager_v1 *vkbd = wlr_virtual_keyboard_manager_v1_create(
			server->display);
	server->new_virtual_keyboard.notify = seat_handle_new_virtual_keyboard;
	wl_signal_add(&vkbd->events.new_virtual_keyboard, &server->new_virtual_keyboard);
	struct wlr_virtual_pointer_manager_v1 *vptr = wlr_virtual_pointer_manager_v1_create(
			server->display);
	server->new_virtual_pointer.notify = seat_handle_new_virtual_pointer;
	wl_signal_add(&vptr->events.new_virtual_pointer, &server->new_virtual_pointer);

	struct wlr_seat *seat = server->seat;
	server->request_set_cursor.notify = seat_handle_request_set_cursor;
	wl_signal_add(&seat->events.request_set_cursor, &server->request_set_cursor);
	server->request_set_selection.notify = seat_handle_request_set_selection;
	wl_signal_add(&seat->events.request_set_selection, &server->request_set_selection);
	server->request_set_primary_selection.notify = seat_handle_request_set_primary_selection;
	wl_signal_add(&seat->events.request_set_primary_selection,
			&server->request_set_primary_selection);
	server->set_primary_selection.notify = seat_handle_set_primary_selection;
	wl_signal_add(&seat->events.set_primary_selection, &server->set_primary_selection);
	server->request_start_drag.notify = seat_handle_request_start_drag;
	wl_signal_add(&seat->events.request_start_drag, &server->request_start_drag);
	server->start_drag.notify = seat_handle_start_drag;
	wl_signal_add(&seat->events.start_drag, &server->start_drag);
	seat_update_capabilities(server);
}

void seat_finish(struct smtwc_server *server)
{
	wl_list_remove(&server->new_input.link);
	wl_list_remove(&server->new_virtual_keyboard.link);
	wl_list_remove(&server->new_virtual_pointer.link);
	wl_list_remove(&server->request_set_cursor.link);
	wl_list_remove(&server->request_set_selection.link);
	wl_list_remove(&server->request_set_primary_selection.link);
	wl_list_remove(&server->set_primary_selection.link);
	wl_list_remove(&server->request_start_drag.link);
	wl_list_remove(&server->start_drag.link);
	text_input_finish(server);
	gestures_finish(server);
	tablet_finish(server);
	pointer_constraints_finish(server);
	cursor_finish(server);
}
