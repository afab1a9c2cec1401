/*
 * What the window manager will read, fetched before it asks
 * (wm_property_fetch.h). The compositor's definitions of
 * xcb_get_property, xcb_get_property_reply, xcb_res_query_client_ids and
 * its _reply come first in the lookup order, as xcb_poll_for_event's does
 * (wm_event_pacer.c); every call that is not one of the window manager's
 * requests fetched ahead goes to libxcb's (and wm_selection_targets.c
 * hears of each GetProperty: the names of a selection's targets are asked
 * ahead too).
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_property_fetch.h"

#include <stdlib.h>
#include <xcb/res.h>
#include <xcb/xcbext.h>
#include <xcb/xproto.h>

#include "common/monotonic_clock.h"
#include "common/dlsym_next.h"
#include "xwayland-glue/wm/wm_paste_pipe.h"
#include "xwayland-glue/wm/wm_selection_targets.h"

/* What read_surface_property in wlroots 0.15's xwm.c asks: the whole of
 * any type, up to 2048 longs, not deleted. */
#define WM_READS_LONGS 2048u
/* A held fetch and an eager one, each a pairing's reads at most. */
#define WM_FETCH_ENTRIES (2u * (WM_FETCH_PAIRING_MAX + 1u))

enum entry_kind {
	ENTRY_PROPERTY, /* GetProperty (window, atom) */
	ENTRY_CLIENT_ID /* X-Resource QueryClientIds of window's client, its pid */
};

/* One request sent ahead, from sent to taken (or dropped). */
struct fetch_entry {
	bool used;
	bool eager;   /* offered at once (a pairing from the Wayland side) */
	bool arrived; /* reply (or error) read from libxcb */
	bool offered; /* the window manager's identical request gets it */
	bool claimed; /* that request came: its _reply takes it */
	enum entry_kind kind;
	xcb_window_t window;
	xcb_atom_t atom;
	unsigned int sequence;
	void *reply;
	xcb_generic_error_t *error;
};

static struct {
	xcb_connection_t *conn; /* of every entry used */
	struct fetch_entry e[WM_FETCH_ENTRIES];
	uint64_t taken;
	uint64_t waited_ns, waits; /* in replies not here when asked */
} fetch;

static xcb_get_property_cookie_t (*real_get_property)(xcb_connection_t *c, uint8_t delete_,
		xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint32_t long_offset,
		uint32_t long_length);
static xcb_get_property_reply_t *(*real_get_property_reply)(
		xcb_connection_t *c, xcb_get_property_cookie_t cookie, xcb_generic_error_t **e);
static xcb_res_query_client_ids_cookie_t (*real_query_client_ids)(
		xcb_connection_t *c, uint32_t num_specs, const xcb_res_client_id_spec_t *specs);
static xcb_res_query_client_ids_reply_t *(*real_query_client_ids_reply)(xcb_connection_t *c,
		xcb_res_query_client_ids_cookie_t cookie, xcb_generic_error_t **e);

static void find_real(void)
{
	if (real_get_property == NULL) {
		dlsym_next(&real_get_property, "xcb_get_property");
		dlsym_next(&real_get_property_reply, "xcb_get_property_reply");
		dlsym_next(&real_query_client_ids, "xcb_res_query_client_ids");
		dlsym_next(&real_query_client_ids_reply, "xcb_res_query_client_ids_reply");
	}
}

static void drop(struct fetch_entry *en)
{
	if (!en->arrived && !en->claimed && fetch.conn != NULL &&
			!xcb_connection_has_error(fetch.conn)) {
		xcb_discard_reply(fetch.conn, en->sequence);
	}
	free(en->reply);
	free(en->error);
	*en = (struct fetch_entry){ 0 };
}

/* Drops the entries for which keep() is false. */
static void drop_unless(bool (*keep)(const struct fetch_entry *en))
{
	bool any = false;
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		struct fetch_entry *en = &fetch.e[i];
		if (en->used && !keep(en)) {
			drop(en);
		}
		any = any || en->used;
	}
	if (!any) {
		fetch.conn = NULL;
	}
}

static bool keep_none(const struct fetch_entry *en)
{
	(void)en;
	return false;
}

static bool keep_held(const struct fetch_entry *en)
{
	return !en->eager;
}

static bool keep_eager(const struct fetch_entry *en)
{
	return en->eager;
}

static bool keep_held_under_way(const struct fetch_entry *en)
{
	return !en->eager && !en->offered;
}

/* A free entry on connection c (every entry of another is dropped). */
static struct fetch_entry *new_entry(xcb_connection_t *c, bool eager, enum entry_kind kind,
		xcb_window_t window, xcb_atom_t atom)
{
	if (fetch.conn != c) {
		drop_unless(keep_none);
		fetch.conn = c;
	}
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		struct fetch_entry *en = &fetch.e[i];
		if (!en->used) {
			*en = (struct fetch_entry){ .used = true,
				.eager = eager,
				.offered = eager,
				.kind = kind,
				.window = window,
				.atom = atom };
			return en;
		}
	}
	return NULL; /* not reached: a held and an eager fetch fit */
}

static void send_property(xcb_connection_t *c, bool eager, xcb_window_t window, xcb_atom_t atom)
{
	struct fetch_entry *en = new_entry(c, eager, ENTRY_PROPERTY, window, atom);
	if (en != NULL) {
		en->sequence = real_get_property(
				c, 0, window, atom, XCB_ATOM_ANY, 0, WM_READS_LONGS)
					       .sequence;
	}
}

void wm_property_fetch_start(xcb_connection_t *c, const xcb_property_notify_event_t *ev)
{
	find_real();
	drop_unless(keep_eager);
	send_property(c, false, ev->window, ev->atom);
	xcb_flush(c);
}

void wm_property_fetch_pairing(xcb_connection_t *c, xcb_window_t window, const xcb_atom_t *atoms,
		unsigned n, bool eager)
{
	find_real();
	drop_unless(eager ? keep_held : keep_eager);
	for (unsigned i = 0; i < n && i < WM_FETCH_PAIRING_MAX; i++) {
		send_property(c, eager, window, atoms[i]);
	}
	/* Without the extension libxcb would not send the request but fail
	 * the connection; wlroots then does not ask either. Its presence was
	 * asked when wlroots' window manager started: no round trip here. */
	const xcb_query_extension_reply_t *res = xcb_get_extension_data(c, &xcb_res_id);
	struct fetch_entry *en = res != NULL && res->present ?
			new_entry(c, eager, ENTRY_CLIENT_ID, window, XCB_ATOM_NONE) :
			NULL;
	if (en != NULL) {
		xcb_res_client_id_spec_t spec = {
			.client = window,
			.mask = XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID,
		};
		en->sequence = real_query_client_ids(c, 1, &spec).sequence;
	}
	xcb_flush(c);
}

bool wm_property_fetch_ready(xcb_connection_t *c)
{
	bool ready = true;
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		struct fetch_entry *en = &fetch.e[i];
		if (!en->used || en->eager || en->arrived) {
			continue;
		}
		if (c != fetch.conn) {
			return false;
		}
		void *reply = NULL;
		xcb_generic_error_t *error = NULL;
		/* Also 1 with neither once the connection has failed. */
		if (!xcb_poll_for_reply(c, en->sequence, &reply, &error)) {
			ready = false;
			continue;
		}
		en->reply = reply;
		en->error = error;
		en->arrived = true;
	}
	return ready;
}

void wm_property_fetch_offer(void)
{
	drop_unless(keep_held_under_way);
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		if (fetch.e[i].used) {
			fetch.e[i].offered = true;
		}
	}
}

void wm_property_fetch_forget_offered(void)
{
	drop_unless(keep_held_under_way);
}

void wm_property_fetch_forget(void)
{
	drop_unless(keep_none);
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

/* An offered entry of kind for window (and atom), not yet claimed. */
static struct fetch_entry *offered(
		xcb_connection_t *c, enum entry_kind kind, xcb_window_t window, xcb_atom_t atom)
{
	if (c == NULL || c != fetch.conn) {
		return NULL;
	}
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		struct fetch_entry *en = &fetch.e[i];
		if (en->used && en->offered && !en->claimed && en->kind == kind &&
				en->window == window && en->atom == atom) {
			return en;
		}
	}
	return NULL;
}

static struct fetch_entry *claimed(xcb_connection_t *c, enum entry_kind kind, unsigned sequence)
{
	if (c == NULL || c != fetch.conn) {
		return NULL;
	}
	for (unsigned i = 0; i < WM_FETCH_ENTRIES; i++) {
		struct fetch_entry *en = &fetch.e[i];
		if (en->used && en->claimed && en->kind == kind && en->sequence == sequence) {
			return en;
		}
	}
	return NULL;
}

/* A reply waited for since t0 (a monotonic_now_ns()): the main loop stood
 * still that long. */
static void waited_since(uint64_t t0)
{
	fetch.waited_ns += monotonic_now_ns() - t0;
	fetch.waits++;
}

/* The claimed entry's reply, handed over (error into *e, or freed); one
 * not here yet is waited for (counted). */
static void *take(struct fetch_entry *en, xcb_generic_error_t **e)
{
	void *reply = en->reply;
	xcb_generic_error_t *error = en->error;
	/* An eager fetch's replies come together: the first one waited for
	 * has brought the others into libxcb. */
	if (!en->arrived && !xcb_poll_for_reply(fetch.conn, en->sequence, &reply, &error)) {
		uint64_t t0 = monotonic_now_ns();
		reply = xcb_wait_for_reply(fetch.conn, en->sequence, &error);
		waited_since(t0);
	}
	if (e != NULL) {
		*e = error;
	} else {
		free(error);
	}
	fetch.taken += en->kind == ENTRY_PROPERTY;
	*en = (struct fetch_entry){ 0 };
	return reply;
}

xcb_get_property_cookie_t xcb_get_property(xcb_connection_t *c, uint8_t delete_,
		xcb_window_t window, xcb_atom_t property, xcb_atom_t type, uint32_t long_offset,
		uint32_t long_length)
{
	find_real();
	struct fetch_entry *en = delete_ == 0 && type == XCB_ATOM_ANY && long_offset == 0 &&
					long_length == WM_READS_LONGS ?
			offered(c, ENTRY_PROPERTY, window, property) :
			NULL;
	if (en != NULL) {
		en->claimed = true;
		return (xcb_get_property_cookie_t){ .sequence = en->sequence };
	}
	xcb_get_property_cookie_t cookie = real_get_property(
			c, delete_, window, property, type, long_offset, long_length);
	wm_selection_targets_property_asked(c, property, long_offset, long_length, cookie);
	wm_paste_pipe_property_asked(c, delete_, window, property, cookie);
	return cookie;
}

xcb_get_property_reply_t *xcb_get_property_reply(
		xcb_connection_t *c, xcb_get_property_cookie_t cookie, xcb_generic_error_t **e)
{
	find_real();
	struct fetch_entry *en = claimed(c, ENTRY_PROPERTY, cookie.sequence);
	if (en != NULL) {
		return take(en, e);
	}
	/* The main loop stands still in here: what is left to read ahead. */
	uint64_t t0 = monotonic_now_ns();
	xcb_get_property_reply_t *reply = real_get_property_reply(c, cookie, e);
	waited_since(t0);
	wm_selection_targets_property_reply(c, cookie, reply);
	wm_paste_pipe_property_reply(c, cookie, reply);
	return reply;
}

/* wlroots asks one spec, the window's client's pid (read_surface_client_id);
 * wm_window_budget.c asks by client base: never fetched, passed through. */
xcb_res_query_client_ids_cookie_t xcb_res_query_client_ids(
		xcb_connection_t *c, uint32_t num_specs, const xcb_res_client_id_spec_t *specs)
{
	find_real();
	struct fetch_entry *en = num_specs == 1 &&
					specs[0].mask == XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID ?
			offered(c, ENTRY_CLIENT_ID, specs[0].client, XCB_ATOM_NONE) :
			NULL;
	if (en != NULL) {
		en->claimed = true;
		return (xcb_res_query_client_ids_cookie_t){ .sequence = en->sequence };
	}
	return real_query_client_ids(c, num_specs, specs);
}

xcb_res_query_client_ids_reply_t *xcb_res_query_client_ids_reply(xcb_connection_t *c,
		xcb_res_query_client_ids_cookie_t cookie, xcb_generic_error_t **e)
{
	find_real();
	struct fetch_entry *en = claimed(c, ENTRY_CLIENT_ID, cookie.sequence);
	if (en != NULL) {
		return take(en, e);
	}
	uint64_t t0 = monotonic_now_ns();
	xcb_res_query_client_ids_reply_t *reply = real_query_client_ids_reply(c, cookie, e);
	waited_since(t0);
	return reply;
}
