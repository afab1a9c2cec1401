/*
 * Screen locking at wlroots 0.15 (wlr-input-inhibitor, what swaylock 1.7
 * uses when there is no ext-session-lock): while a client holds the
 * inhibitor, keyboard and pointer focus may only go to that client's
 * surfaces, compositor key bindings are off (VT switching stays), and
 * interactive moves and resizes end. Every place that gives focus asks
 * input_inhibit_allows; the key and pointer paths check again before
 * delivering, so a focus given by a path that forgot cannot leak input.
 */
#include <wlr/types/wlr_input_inhibitor.h>
#include <wlr/util/log.h>
#include "compositor/input/input_inhibit.h"

bool input_inhibit_active(struct smtwc_server *server)
{
	return server->input_inhibit != NULL && server->input_inhibit->active_client != NULL;
}

bool input_inhibit_allows_client(struct smtwc_server *server, struct wl_client *client)
{
	return !input_inhibit_active(server) || client == server->input_inhibit->active_client;
}

bool input_inhibit_allows(struct smtwc_server *server, struct wlr_surface *surface)
{
	if (!input_inhibit_active(server)) {
		return true;
	}
	return surface != NULL &&
			input_inhibit_allows_client(
					server, wl_resource_get_client(surface->resource));
}

static void handle_activate(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_inhibit_activate);
	struct wlr_seat *seat = server->seat;
	wlr_log(WLR_INFO, "input inhibited: only the locker gets input");
	server->cursor_mode = SMTWC_CURSOR_PASSTHROUGH;
	server->grabbed_view = NULL;
	if (!input_inhibit_allows(server, seat->keyboard_state.focused_surface)) {
		wlr_seat_keyboard_notify_clear_focus(seat);
	}
	if (!input_inhibit_allows(server, seat->pointer_state.focused_surface)) {
		wlr_seat_pointer_notify_clear_focus(seat);
	}
	if (server->exclusive_layer != NULL &&
			!input_inhibit_allows(server, server->exclusive_layer->surface)) {
		server->exclusive_layer = NULL;
	}
}

void input_inhibit_init(struct smtwc_server *server)
{
	server->input_inhibit = wlr_input_inhibit_manager_create(server->display);
	server->input_inhibit_activate.notify = handle_activate;
	wl_signal_add(&server->input_inhibit->events.activate, &server->input_inhibit_activate);
}
