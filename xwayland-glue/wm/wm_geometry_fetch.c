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
/* Slots are found by window through chains from these buckets: a scan of
 * every slot per lookup cost up to 65 x 1,024 compares for each
 * CreateNotify handed out (wm_event_pacer.c asks for the next 64). */
#define GEOMETRY_BUCKETS 2048u

struct geometry_slot {
	xcb_window_t window; /* 0: free */
	unsigned int sequence;
	uint16_t next; /* 1 + the next slot of its bucket's chain; 0 ends it */
};

static struct {
	xcb_connection_t *conn;
	struct geometry_slot s[GEOMETRY_SLOTS];
	uint16_t bucket[GEOMETRY_BUCKETS]; /* 1 + a chain's first slot; 0 empty */
	unsigned next;                     /* where the next one goes (oldest first when full) */
	uint64_t sent, taken, unforeseen;
} geo;

static xcb_get_geometry_cookie_t (*real_get_geometry)(xcb_connection_t *c, xcb_drawable_t d);

static uint16_t *bucket_of(xcb_window_t window)
{
	/* XIDs of one client share their high bits: Fibonacci hashing
	 * spreads the low ones. */
	return &geo.bucket[(uint32_t)(window * 2654435761u) >> 21];
}

/* The slot leaves its chain and is free. */
static void release(struct geometry_slot *slot)
{
	if (slot->window == 0) {
		return;
	}
	uint16_t self = (uint16_t)(slot - geo.s + 1);
	for (uint16_t *link = bucket_of(slot->window); *link != 0; link = &geo.s[*link - 1].next) {
		if (*link == self) {
			*link = slot->next;
			break;
		}
	}
	slot->window = 0;
	slot->next = 0;
}

static void discard(struct geometry_slot *slot)
{
	if (slot->window != 0 && geo.conn != NULL && !xcb_connection_has_error(geo.conn)) {
		xcb_discard_reply(geo.conn, slot->sequence);
	}
	release(slot);
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
	for (uint16_t i = *bucket_of(window); i != 0; i = geo.s[i - 1].next) {
		if (geo.s[i - 1].window == window) {
			return &geo.s[i - 1];
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
	uint16_t *head = bucket_of(window);
	slot->next = *head;
	*head = (uint16_t)(slot - geo.s + 1);
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
		release(slot); /* its reply is the caller's to take now */
		geo.taken++;
		return cookie;
	}
	if (c != NULL && c == geo.conn) {
		geo.unforeseen++;
	}
	return real_get_geometry(c, d);
}
