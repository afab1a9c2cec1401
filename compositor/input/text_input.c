/*
 * The relay between text inputs (one per client and seat) and the input
 * method. A text input is "focused" when its client has the keyboard; the
 * input method is activated when the focused one enables itself, and what
 * the input method commits (pre-edit, text, deletions) goes to that one.
 * Text inputs that got the keyboard before any input method existed wait
 * (pending_surface) and are entered once one appears.
 */
#include <stdlib.h>
#include <wlr/types/wlr_input_method_v2.h>
#include <wlr/types/wlr_text_input_v3.h>
#include <wlr/types/wlr_virtual_keyboard_v1.h>
#include <wlr/util/log.h>
#include "compositor/input/input_inhibit.h"
#include "compositor/input/text_input.h"

struct smtwc_text_input {
	struct smtwc_server *server;
	struct wlr_text_input_v3 *input;
	struct wl_list link; /* smtwc_server.text_inputs */
	/* Keyboard focus it should be entered into once an input method exists. */
	struct wlr_surface *pending_surface;
	struct wl_listener pending_surface_destroy;
	struct wl_listener enable;
	struct wl_listener commit;
	struct wl_listener disable;
	struct wl_listener destroy;
};

static struct smtwc_text_input *focused_text_input(struct smtwc_server *server)
{
	struct smtwc_text_input *ti;
	wl_list_for_each (ti, &server->text_inputs, link) {
		if (ti->input->focused_surface != NULL) {
			return ti;
		}
	}
	return NULL;
}

static void handle_pending_surface_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_text_input *ti = wl_container_of(listener, ti, pending_surface_destroy);
	wl_list_remove(&ti->pending_surface_destroy.link);
	wl_list_init(&ti->pending_surface_destroy.link);
	ti->pending_surface = NULL;
}

static void set_pending_surface(struct smtwc_text_input *ti, struct wlr_surface *surface)
{
	wl_list_remove(&ti->pending_surface_destroy.link);
	wl_list_init(&ti->pending_surface_destroy.link);
	ti->pending_surface = surface;
	if (surface != NULL) {
		wl_signal_add(&surface->events.destroy, &ti->pending_surface_destroy);
	}
}

/* The text field's state, for the input method to work on. */
static void send_state_to_input_method(struct smtwc_server *server, struct wlr_text_input_v3 *input)
{
	struct wlr_input_method_v2 *im = server->input_method;
	if (input->active_features & WLR_TEXT_INPUT_V3_FEATURE_SURROUNDING_TEXT) {
		wlr_input_method_v2_send_surrounding_text(im,
				input->current.surrounding.text != NULL ?
						input->current.surrounding.text :
						"",
				input->current.surrounding.cursor,
				input->current.surrounding.anchor);
	}
	wlr_input_method_v2_send_text_change_cause(im, input->current.text_change_cause);
	if (input->active_features & WLR_TEXT_INPUT_V3_FEATURE_CONTENT_TYPE) {
		wlr_input_method_v2_send_content_type(im, input->current.content_type.hint,
				input->current.content_type.purpose);
	}
	wlr_input_method_v2_send_done(im);
}

static void deactivate_input_method(struct smtwc_server *server)
{
	if (server->input_method != NULL) {
		wlr_input_method_v2_send_deactivate(server->input_method);
		wlr_input_method_v2_send_done(server->input_method);
	}
}

static void handle_text_input_enable(struct wl_listener *listener, void *data)
{
	struct smtwc_text_input *ti = wl_container_of(listener, ti, enable);
	struct smtwc_server *server = ti->server;
	if (server->input_method == NULL) {
		return;
	}
	wlr_input_method_v2_send_activate(server->input_method);
	send_state_to_input_method(server, ti->input);
}

static void handle_text_input_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_text_input *ti = wl_container_of(listener, ti, commit);
	if (!ti->input->current_enabled || ti->server->input_method == NULL ||
			ti->input->focused_surface == NULL) {
		return;
	}
	send_state_to_input_method(ti->server, ti->input);
}

static void handle_text_input_disable(struct wl_listener *listener, void *data)
{
	struct smtwc_text_input *ti = wl_container_of(listener, ti, disable);
	if (ti->input->focused_surface != NULL) {
		deactivate_input_method(ti->server);
	}
}

static void handle_text_input_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_text_input *ti = wl_container_of(listener, ti, destroy);
	if (ti->input->current_enabled && ti->input->focused_surface != NULL) {
		deactivate_input_method(ti->server);
	}
	wl_list_remove(&ti->pending_surface_destroy.link);
	wl_list_remove(&ti->enable.link);
	wl_list_remove(&ti->commit.link);
	wl_list_remove(&ti->disable.link);
	wl_list_remove(&ti->destroy.link);
	wl_list_remove(&ti->link);
	free(ti);
}

static bool same_client(struct wlr_text_input_v3 *input, struct wlr_surface *surface)
{
	return wl_resource_get_client(input->resource) == wl_resource_get_client(surface->resource);
}

/* Keyboard focus moved to surface (or nowhere): text inputs follow it. */
static void set_focus(struct smtwc_server *server, struct wlr_surface *surface)
{
	struct smtwc_text_input *ti;
	wl_list_for_each (ti, &server->text_inputs, link) {
		if (ti->pending_surface != NULL && ti->pending_surface != surface) {
			set_pending_surface(ti, NULL);
		}
		if (ti->input->focused_surface != NULL && ti->input->focused_surface != surface) {
			if (ti->input->current_enabled) {
				deactivate_input_method(server);
			}
			wlr_text_input_v3_send_leave(ti->input);
		}
		if (surface != NULL && ti->input->focused_surface == NULL &&
				same_client(ti->input, surface)) {
			if (server->input_method != NULL) {
				wlr_text_input_v3_send_enter(ti->input, surface);
			} else {
				set_pending_surface(ti, surface);
			}
		}
	}
}

static void handle_keyboard_focus_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, text_input_focus_change);
	struct wlr_seat_keyboard_focus_change_event *event = data;
	set_focus(server, event->new_surface);
}

static void handle_new_text_input(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_text_input);
	struct wlr_text_input_v3 *input = data;
	if (input->seat != server->seat) {
		return;
	}
	struct smtwc_text_input *ti = calloc(1, sizeof(*ti));
	if (ti == NULL) {
		wl_resource_post_no_memory(input->resource);
		return;
	}
	ti->server = server;
	ti->input = input;
	wl_list_init(&ti->pending_surface_destroy.link);
	ti->pending_surface_destroy.notify = handle_pending_surface_destroy;
	ti->enable.notify = handle_text_input_enable;
	wl_signal_add(&input->events.enable, &ti->enable);
	ti->commit.notify = handle_text_input_commit;
	wl_signal_add(&input->events.commit, &ti->commit);
	ti->disable.notify = handle_text_input_disable;
	wl_signal_add(&input->events.disable, &ti->disable);
	ti->destroy.notify = handle_text_input_destroy;
	wl_signal_add(&input->events.destroy, &ti->destroy);
	wl_list_insert(&server->text_inputs, &ti->link);
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	if (focused != NULL && same_client(input, focused)) {
		if (server->input_method != NULL) {
			wlr_text_input_v3_send_enter(input, focused);
		} else {
			set_pending_surface(ti, focused);
		}
	}
}

static void handle_input_method_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_method_commit);
	struct wlr_input_method_v2 *im = data;
	struct smtwc_text_input *ti = focused_text_input(server);
	if (ti == NULL || !ti->input->current_enabled) {
		return;
	}
	if (im->current.preedit.text != NULL) {
		wlr_text_input_v3_send_preedit_string(ti->input, im->current.preedit.text,
				im->current.preedit.cursor_begin, im->current.preedit.cursor_end);
	}
	if (im->current.commit_text != NULL) {
		wlr_text_input_v3_send_commit_string(ti->input, im->current.commit_text);
	}
	if (im->current.delete.before_length != 0 || im->current.delete.after_length != 0) {
		wlr_text_input_v3_send_delete_surrounding_text(ti->input,
				im->current.delete.before_length, im->current.delete.after_length);
	}
	wlr_text_input_v3_send_done(ti->input);
}

static void handle_keyboard_grab_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_method_grab_destroy);
	struct wlr_input_method_keyboard_grab_v2 *grab = data;
	wl_list_remove(&server->input_method_grab_destroy.link);
	wl_list_init(&server->input_method_grab_destroy.link);
	if (grab->keyboard != NULL) {
		/* The client under the grab missed modifier changes. */
		wlr_seat_keyboard_notify_modifiers(server->seat, &grab->keyboard->modifiers);
	}
}

static void handle_grab_keyboard(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_method_grab);
	struct wlr_input_method_keyboard_grab_v2 *grab = data;
	wlr_input_method_keyboard_grab_v2_set_keyboard(grab, wlr_seat_get_keyboard(server->seat));
	wl_list_remove(&server->input_method_grab_destroy.link);
	wl_signal_add(&grab->events.destroy, &server->input_method_grab_destroy);
}

static void handle_input_method_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, input_method_destroy);
	wl_list_remove(&server->input_method_commit.link);
	wl_list_remove(&server->input_method_grab.link);
	wl_list_remove(&server->input_method_destroy.link);
	wl_list_init(&server->input_method_commit.link);
	wl_list_init(&server->input_method_grab.link);
	wl_list_init(&server->input_method_destroy.link);
	server->input_method = NULL;
	/* The text input waits for the next input method. */
	struct smtwc_text_input *ti = focused_text_input(server);
	if (ti != NULL) {
		set_pending_surface(ti, ti->input->focused_surface);
		wlr_text_input_v3_send_leave(ti->input);
	}
}

static void handle_new_input_method(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_input_method);
	struct wlr_input_method_v2 *im = data;
	if (im->seat != server->seat || server->input_method != NULL) {
		wlr_log(WLR_INFO, "a second input method was refused");
		wlr_input_method_v2_send_unavailable(im);
		return;
	}
	server->input_method = im;
	server->input_method_commit.notify = handle_input_method_commit;
	wl_signal_add(&im->events.commit, &server->input_method_commit);
	server->input_method_grab.notify = handle_grab_keyboard;
	wl_signal_add(&im->events.grab_keyboard, &server->input_method_grab);
	server->input_method_destroy.notify = handle_input_method_destroy;
	wl_signal_add(&im->events.destroy, &server->input_method_destroy);
	struct smtwc_text_input *ti;
	wl_list_for_each (ti, &server->text_inputs, link) {
		if (ti->pending_surface != NULL) {
			wlr_text_input_v3_send_enter(ti->input, ti->pending_surface);
			set_pending_surface(ti, NULL);
		}
	}
	ti = focused_text_input(server);
	if (ti != NULL && ti->input->current_enabled) {
		wlr_input_method_v2_send_activate(im);
		send_state_to_input_method(server, ti->input);
	}
}

struct wlr_input_method_keyboard_grab_v2 *text_input_keyboard_grab(
		struct smtwc_server *server, struct wlr_input_device *device)
{
	struct wlr_input_method_v2 *im = server->input_method;
	if (im == NULL || im->keyboard_grab == NULL) {
		return NULL;
	}
	/* While a locker holds input, the password is not for the input
	 * method (unless the locker is one). */
	if (!input_inhibit_allows_client(server, wl_resource_get_client(im->resource))) {
		return NULL;
	}
	/* Keys the input method types itself must not loop back to it. */
	struct wlr_virtual_keyboard_v1 *vkb = wlr_input_device_get_virtual_keyboard(device);
	if (vkb != NULL &&
			wl_resource_get_client(vkb->resource) ==
					wl_resource_get_client(im->resource)) {
		return NULL;
	}
	return im->keyboard_grab;
}

void text_input_init(struct smtwc_server *server)
{
	wl_list_init(&server->text_inputs);
	wl_list_init(&server->input_method_grab_destroy.link);
	server->input_method_grab_destroy.notify = handle_keyboard_grab_destroy;
	struct wlr_text_input_manager_v3 *text_inputs = wlr_text_input_manager_v3_create(
			server->display);
	server->new_text_input.notify = handle_new_text_input;
	wl_signal_add(&text_inputs->events.text_input, &server->new_text_input);
	struct wlr_input_method_manager_v2 *input_methods = wlr_input_method_manager_v2_create(
			server->display);
	server->new_input_method.notify = handle_new_input_method;
	wl_signal_add(&input_methods->events.input_method, &server->new_input_method);
	server->text_input_focus_change.notify = handle_keyboard_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change,
			&server->text_input_focus_change);
}

void text_input_finish(struct smtwc_server *server)
{
	wl_list_remove(&server->text_input_focus_change.link);
}
