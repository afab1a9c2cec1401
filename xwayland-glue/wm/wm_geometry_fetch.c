/*
 * The window manager's GetGeometry of a new window, sent ahead
 * (wm_geometry_fetch.h). The compositor's xcb_get_geometry comes first in
 * the lookup order, as its xcb_get_property does (wm_property_fetch.c).
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_geometry_fetch.h"

#include <stdbool.h>
#include <xcb/xcbext.h>
#include <xcb/xproto.h>

#include "common/dlsym_next.h"

/* Windows whose request is under way at once: more than the pacer's FIFO
 * holds CreateNotify for at a time in practice; the oldest goes first. */
#define GEOMETRY_SLOTS 1024u

struct geometry_slot {
	xcb_window_t window; /* 0: free */
	unsigned int sequence;
};

static struct {
	xcb_connection_t *conn;
	struct geometry_slot s[GEOMETRY_SLOTS];
	unsigned next; /* where the next one goes (oldest first when full) */
	uint64_t sent, taken, unforeseen;
} geo;

static xcb_get_geometry_cookie_t (*real_get_geometry)(xcb_connection_t *c, xcb_drawable_t d);

static void discard(struct geometry_slot *slot)
{
	if (slot->window != 0 && geo.conn != NULL && !xcb_connection_has_error(geo.conn)) {
		xcb_discard_reply(geo.conn, slot->sequence);
	}
	slot->window = 0;
}

void wm_geometry_fetch_forget(void)
{
	for (unsigned i = 0; i < GEOMETRY_SLOTS; i++) {
		discard(&geo.s[i]);
	}
	geo.conn = NULL;
	geo.next = 0;
}

static struct geometry_slot *find(xcb_connection_t *c, xcb_window_t window)
{
	if (c == NULL || c != geo.conn || window == 0) {
		return NULL;
	}
	for (unsigned i = 0; i < GEOMETRY_SLOTS; i++) {
		if (geo.s[i].window == window) {
			return &geo.s[i];
		}
	}
	return NULL;
}

void wm_geometry_fetch_created(xcb_connection_t *c, xcb_window_t window)
{
	if (real_get_geometry == NULL) {
		dlsym_next(&real_get_geometry, "xcb_get_geometry");
	}
	if (geo.conn != c) {
		wm_geometry_fetch_forget();
		geo.conn = c;
	}
	/* A reused id's old request (its DestroyNotify not seen) goes. */
	struct geometry_slot *old = find(c, window);
	if (old != NULL) {
		discard(old);
	}
	struct geometry_slot *slot = &geo.s[geo.next];
	geo.next = (geo.next + 1) % GEOMETRY_SLOTS;
	discard(slot);
	slot->window = window;
	slot->sequence = real_get_geometry(c, window).sequence;
	geo.sent++;
}

void wm_geometry_fetch_destroyed(xcb_connection_t *c, xcb_window_t window)
{
	struct geometry_slot *slot = find(c, window);
	if (slot != NULL) {
		discard(slot);
	}
}

bool wm_geometry_fetch_has(xcb_connection_t *c, xcb_window_t window)
{
	return find(c, window) != NULL;
}

void wm_geometry_fetch_counts(uint64_t *sent, uint64_t *taken, uint64_t *unforeseen)
{
	*sent = geo.sent;
	*taken = geo.taken;
	*unforeseen = geo.unforeseen;
}

xcb_get_geometry_cookie_t xcb_get_geometry(xcb_connection_t *c, xcb_drawable_t d)
{
	if (real_get_geometry == NULL) {
		dlsym_next(&real_get_geometry, "xcb_get_geometry");
	}
	struct geometry_slot *slot = find(c, d);
	if (slot != NULL) {
		xcb_get_geometry_cookie_t cookie = { .sequence = slot->sequence };
		slot->window = 0; /* its reply is the caller's to take now */
		geo.taken++;
		return cookie;
	}
	if (c != NULL && c == geo.conn) {
		geo.unforeseen++;
	}
	return real_get_geometry(c, d);
}
