/*
 * The compositor binds no gestures of its own: each goes to the client
 * under the pointer, which wlroots tracks from the seat's pointer focus.
 */
#include <stdlib.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/types/wlr_pointer_gestures_v1.h>
#include "compositor/input/gestures.h"
#include "compositor/input/idle.h"

struct smtwc_gestures {
	struct smtwc_server *server;
	struct wlr_pointer_gestures_v1 *wlr_gestures;
	struct wl_listener swipe_begin, swipe_update, swipe_end;
	struct wl_listener pinch_begin, pinch_update, pinch_end;
	struct wl_listener hold_begin, hold_end;
};

static void handle_swipe_begin(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, swipe_begin);
	struct wlr_event_pointer_swipe_begin *event = data;
	idle_notify_activity(g->server);
	wlr_pointer_gestures_v1_send_swipe_begin(
			g->wlr_gestures, g->server->seat, event->time_msec, event->fingers);
}

static void handle_swipe_update(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, swipe_update);
	struct wlr_event_pointer_swipe_update *event = data;
	wlr_pointer_gestures_v1_send_swipe_update(
			g->wlr_gestures, g->server->seat, event->time_msec, event->dx, event->dy);
}

static void handle_swipe_end(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, swipe_end);
	struct wlr_event_pointer_swipe_end *event = data;
	wlr_pointer_gestures_v1_send_swipe_end(
			g->wlr_gestures, g->server->seat, event->time_msec, event->cancelled);
}

static void handle_pinch_begin(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, pinch_begin);
	struct wlr_event_pointer_pinch_begin *event = data;
	idle_notify_activity(g->server);
	wlr_pointer_gestures_v1_send_pinch_begin(
			g->wlr_gestures, g->server->seat, event->time_msec, event->fingers);
}

static void handle_pinch_update(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, pinch_update);
	struct wlr_event_pointer_pinch_update *event = data;
	wlr_pointer_gestures_v1_send_pinch_update(g->wlr_gestures, g->server->seat,
			event->time_msec, event->dx, event->dy, event->scale, event->rotation);
}

static void handle_pinch_end(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, pinch_end);
	struct wlr_event_pointer_pinch_end *event = data;
	wlr_pointer_gestures_v1_send_pinch_end(
			g->wlr_gestures, g->server->seat, event->time_msec, event->cancelled);
}

static void handle_hold_begin(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, hold_begin);
	struct wlr_event_pointer_hold_begin *event = data;
	idle_notify_activity(g->server);
	wlr_pointer_gestures_v1_send_hold_begin(
			g->wlr_gestures, g->server->seat, event->time_msec, event->fingers);
}

static void handle_hold_end(struct wl_listener *listener, void *data)
{
	struct smtwc_gestures *g = wl_container_of(listener, g, hold_end);
	struct wlr_event_pointer_hold_end *event = data;
	wlr_pointer_gestures_v1_send_hold_end(
			g->wlr_gestures, g->server->seat, event->time_msec, event->cancelled);
}

void gestures_init(struct smtwc_server *server)
{
	struct smtwc_gestures *g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return;
	}
	g->server = server;
	g->wlr_gestures = wlr_pointer_gestures_v1_create(server->display);
	struct wlr_cursor *cursor = server->cursor;
	g->swipe_begin.notify = handle_swipe_begin;
	wl_signal_add(&cursor->events.swipe_begin, &g->swipe_begin);
	g->swipe_update.notify = handle_swipe_update;
	wl_signal_add(&cursor->events.swipe_update, &g->swipe_update);
	g->swipe_end.notify = handle_swipe_end;
	wl_signal_add(&cursor->events.swipe_end, &g->swipe_end);
	g->pinch_begin.notify = handle_pinch_begin;
	wl_signal_add(&cursor->events.pinch_begin, &g->pinch_begin);
	g->pinch_update.notify = handle_pinch_update;
	wl_signal_add(&cursor->events.pinch_update, &g->pinch_update);
	g->pinch_end.notify = handle_pinch_end;
	wl_signal_add(&cursor->events.pinch_end, &g->pinch_end);
	g->hold_begin.notify = handle_hold_begin;
	wl_signal_add(&cursor->events.hold_begin, &g->hold_begin);
	g->hold_end.notify = handle_hold_end;
	wl_signal_add(&cursor->events.hold_end, &g->hold_end);
	server->gestures = g;
}

void gestures_finish(struct smtwc_server *server)
{
	struct smtwc_gestures *g = server->gestures;
	if (g == NULL) {
		return;
	}
	struct wl_listener *listeners[] = {
		&g->swipe_begin,
		&g->swipe_update,
		&g->swipe_end,
		&g->pinch_begin,
		&g->pinch_update,
		&g->pinch_end,
		&g->hold_begin,
		&g->hold_end,
	};
	for (size_t i = 0; i < sizeof(listeners) / sizeof(listeners[0]); i++) {
		wl_list_remove(&listeners[i]->link);
	}
	free(g);
	server->gestures = NULL;
}
