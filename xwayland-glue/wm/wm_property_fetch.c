/*
 * A client window's property fetched before the window manager asks
 * (wm_property_fetch.h). The compositor's definitions of xcb_get_property
 * and xcb_get_property_reply come first in the lookup order, as
 * xcb_poll_for_event's does (wm_event_pacer.c); every call that is not
 * the window manager's GetProperty for the event just handed out goes to
 * libxcb's (and wm_selection_targets.c hears of each: the names of a
 * selection's targets are asked ahead too).
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_property_fetch.h"

#include <stdlib.h>
#include <xcb/xcbext.h>
#include <xcb/xproto.h>

#include "common/monotonic_clock.h"
#include "common/dlsym_next.h"
#include "xwayland-glue/wm/wm_selection_targets.h"

/* What read_surface_property in wlroots 0.15's xwm.c asks: the whole of
 * any type, up to 2048 longs, not deleted. */
#define WM_READS_LONGS 2048u

enum fetch_state {
	FETCH_NONE,
	FETCH_SENT,    /* the request is out, its reply not here */
	FETCH_ARRIVED, /* reply (or error) here, event not handed out yet */
	FETCH_OFFERED, /* event handed out: the next matching GetProperty gets it */
	FETCH_CLAIMED  /* that GetProperty came: its _reply takes it */
};

static struct {
	enum fetch_state state;
	xcb_connection_t *conn;
	xcb_window_t window;
	xcb_atom_t atom;
	unsigned int sequence;
	xcb_get_property_reply_t *reply;
	xcb_generic_error_t *error;
	uint64_t taken;
	uint64_t waited_ns, waits; /* in GetProperty replies not read ahead */
} fetch;

static xcb_get_property_cookie_t (*real_get_property)(xcb_connection_t *c, uint8_t delete_,
		xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint32_t long_offset,
		uint32_t long_length);
static xcb_get_property_reply_t *(*real_get_property_reply)(
		xcb_connection_t *c, xcb_get_property_cookie_t cookie, xcb_generic_error_t **e);

static void find_real(void)
{
	if (real_get_property == NULL) {
		dlsym_next(&real_get_property, "xcb_get_property");
	}
	if (real_get_property_reply == NULL) {
		dlsym_next(&real_get_property_reply, "xcb_get_property_reply");
	}
}

void wm_property_fetch_start(xcb_connection_t *c, const xcb_property_notify_event_t *ev)
{
	find_real();
	wm_property_fetch_forget();
	fetch.conn = c;
	fetch.window = ev->window;
	fetch.atom = ev->atom;
	fetch.sequence = real_get_property(
			c, 0, ev->window, ev->atom, XCB_ATOM_ANY, 0, WM_READS_LONGS)
					 .sequence;
	fetch.state = FETCH_SENT;
	xcb_flush(c);
}

bool wm_property_fetch_pending(void)
{
	return fetch.state == FETCH_SENT || fetch.state == FETCH_ARRIVED;
}

bool wm_property_fetch_ready(xcb_connection_t *c)
{
	if (fetch.state == FETCH_ARRIVED) {
		return true;
	}
	if (fetch.state != FETCH_SENT || c != fetch.conn) {
		return false;
	}
	void *reply = NULL;
	xcb_generic_error_t *error = NULL;
	/* Also 1 with neither once the connection has failed. */
	if (!xcb_poll_for_reply(c, fetch.sequence, &reply, &error)) {
		return false;
	}
	fetch.reply = reply;
	fetch.error = error;
	fetch.state = FETCH_ARRIVED;
	return true;
}

void wm_property_fetch_offer(void)
{
	if (fetch.state == FETCH_ARRIVED) {
		fetch.state = FETCH_OFFERED;
	}
}

void wm_property_fetch_forget(void)
{
	if (fetch.state == FETCH_SENT && !xcb_connection_has_error(fetch.conn)) {
		xcb_discard_reply(fetch.conn, fetch.sequence);
	}
	free(fetch.reply);
	free(fetch.error);
	fetch.reply = NULL;
	fetch.error = NULL;
	fetch.conn = NULL;
	fetch.state = FETCH_NONE;
}

uint64_t wm_property_fetch_taken(void)
{
	return fetch.taken;
}

uint64_t wm_property_fetch_waits(uint64_t *waited_ns)
{
	*waited_ns = fetch.waited_ns;
	return fetch.waits;
}

xcb_get_property_cookie_t xcb_get_property(xcb_connection_t *c, uint8_t delete_,
		xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint32_t long_offset,
		uint32_t long_length)
{
	find_real();
	if (fetch.state == FETCH_OFFERED && c == fetch.conn && delete_ == 0 &&
			window == fetch.window && property == fetch.atom && type == XCB_ATOM_ANY &&
			long_offset == 0 && long_length == WM_READS_LONGS) {
		fetch.state = FETCH_CLAIMED;
		return (xcb_get_property_cookie_t){ .sequence = fetch.sequence };
	}
	xcb_get_property_cookie_t cookie = real_get_property(
			c, delete_, window, property, type, long_offset, long_length);
	wm_selection_targets_property_asked(c, property, long_offset, long_length, cookie);
	return cookie;
}

xcb_get_property_reply_t *xcb_get_property_reply(
		xcb_connection_t *c, xcb_get_property_cookie_t cookie, xcb_generic_error_t **e)
{
	find_real();
	if (fetch.state != FETCH_CLAIMED || c != fetch.conn || cookie.sequence != fetch.sequence) {
		/* The main loop stands still in here: what is left to read ahead. */
		uint64_t t0 = monotonic_now_ns();
		xcb_get_property_reply_t *reply = real_get_property_reply(c, cookie, e);
		fetch.waited_ns += monotonic_now_ns() - t0;
		fetch.waits++;
		wm_selection_targets_property_reply(c, cookie, reply);
		return reply;
	}
	xcb_get_property_reply_t *reply = fetch.reply;
	if (e != NULL) {
		*e = fetch.error;
	} else {
		free(fetch.error);
	}
	fetch.reply = NULL;
	fetch.error = NULL;
	fetch.conn = NULL;
	fetch.state = FETCH_NONE;
	fetch.taken++;
	return reply;
}
