/* A window paired after its surface's first buffer, mapped: see the header. */
#include "xwayland-glue/wm/wm_surface_pairing.h"

#include <stdlib.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "compositor/log_limit.h"

/* A window wlroots tracks (one per wlr_xwayland_surface, so as many as the
 * window budget lets X clients have), until it goes. */
struct known_window {
	struct wl_list link;
	struct wlr_xwayland_surface *xs;
	struct wl_listener destroy;
};

/* Xwayland's surfaces' destructions, by id: direct-mapped (a power of
 * two), so a collision forgets one, and a message is then judged by the
 * X side alone (wm_event_pacer.c), never dropped for it. */
#define DESTROYED_SLOTS 1024u

struct destroyed_slot {
	uint32_t id;
	uint64_t seq; /* destroy_seq at its last destruction */
};

/* A surface of Xwayland's, until it goes. */
struct xwayland_surface_watch {
	struct wl_listener destroy;
	uint32_t id;
};

static struct {
	bool pending;
	xcb_window_t window;
	uint32_t surface_id;
	uint64_t late_maps;
	struct log_limit log; /* an X client can make new windows at will */
	struct wlr_xwayland *wlr;
	void (*will_pair)(xcb_window_t window);
	struct wl_list known;              /* struct known_window */
	struct wl_listener new_window;     /* wlroots' new_surface */
	struct wl_listener surface_create; /* the compositor's new_surface */
	bool listening;
	uint64_t destroy_seq; /* Xwayland's surfaces destroyed so far */
	struct destroyed_slot destroyed[DESTROYED_SLOTS];
} pairing;

static void handle_xwayland_surface_destroy(struct wl_listener *listener, void *data)
{
	(void)data;
	struct xwayland_surface_watch *w = wl_container_of(listener, w, destroy);
	pairing.destroyed[w->id & (DESTROYED_SLOTS - 1)] = (struct destroyed_slot){ .id = w->id,
		.seq = ++pairing.destroy_seq };
	wl_list_remove(&w->destroy.link);
	free(w);
}

static void handle_known_destroy(struct wl_listener *listener, void *data)
{
	(void)data;
	struct known_window *k = wl_container_of(listener, k, destroy);
	wl_list_remove(&k->link);
	wl_list_remove(&k->destroy.link);
	free(k);
}

static void handle_new_window(struct wl_listener *listener, void *data)
{
	(void)listener;
	struct known_window *k = calloc(1, sizeof(*k));
	if (k == NULL) {
		return; /* its pairing is not read ahead: wlroots reads it itself */
	}
	k->xs = data;
	k->destroy.notify = handle_known_destroy;
	wl_signal_add(&k->xs->events.destroy, &k->destroy);
	wl_list_insert(&pairing.known, &k->link);
}

/* Xwayland's wl_client, or NULL while none runs. */
static struct wl_client *xwayland_client(void)
{
	struct wlr_xwayland *wlr = pairing.wlr;
	return wlr != NULL && wlr->server != NULL ? wlr->server->client : NULL;
}

/* wlroots 0.15's handle_compositor_new_surface pairs a surface of
 * Xwayland's with the window whose WL_SURFACE_ID named its id before it
 * existed (surface_id, set while unpaired); this runs first. */
static void handle_surface_create(struct wl_listener *listener, void *data)
{
	(void)listener;
	struct wlr_surface *surface = data;
	struct wl_client *client = xwayland_client();
	if (client == NULL || wl_resource_get_client(surface->resource) != client) {
		return;
	}
	uint32_t id = wl_resource_get_id(surface->resource);
	struct xwayland_surface_watch *w = calloc(1, sizeof(*w));
	if (w != NULL) { /* else its end is not seen: messages judged by X alone */
		w->id = id;
		w->destroy.notify = handle_xwayland_surface_destroy;
		wl_signal_add(&surface->events.destroy, &w->destroy);
	}
	struct known_window *k;
	wl_list_for_each (k, &pairing.known, link) {
		if (k->xs->surface_id == id && k->xs->surface == NULL) {
			pairing.will_pair(k->xs->window_id);
			return;
		}
	}
}

/* Xwayland's wl_surface by the id a message named, or NULL. */
static struct wlr_surface *xwayland_surface_by_id(uint32_t id)
{
	struct wl_client *client = xwayland_client();
	struct wl_resource *res = client != NULL ? wl_client_get_object(client, id) : NULL;
	/* Only wlroots' compositor makes wl_surfaces (wlr_surface_from_resource
	 * asserts that); any other object by that id is not one. */
	if (res == NULL || strcmp(wl_resource_get_class(res), "wl_surface") != 0) {
		return NULL;
	}
	return wlr_surface_from_resource(res);
}

uint64_t wm_surface_pairing_destroys(void)
{
	return pairing.destroy_seq;
}

bool wm_surface_pairing_stale(const xcb_client_message_event_t *m, uint64_t destroys)
{
	uint32_t id = m->data.data32[0];
	const struct destroyed_slot *d = &pairing.destroyed[id & (DESTROYED_SLOTS - 1)];
	if (d->id == id && d->seq > destroys) {
		return true;
	}
	struct wl_client *client = xwayland_client();
	struct wl_resource *res = client != NULL ? wl_client_get_object(client, id) : NULL;
	return res != NULL && strcmp(wl_resource_get_class(res), "wl_surface") != 0;
}

struct wlr_xwayland_surface *wm_surface_pairing_find(xcb_window_t window)
{
	if (!pairing.listening) {
		return NULL;
	}
	struct known_window *k;
	wl_list_for_each (k, &pairing.known, link) {
		if (k->xs->window_id == window) {
			return k->xs;
		}
	}
	return NULL;
}

bool wm_surface_pairing_knows(xcb_window_t window)
{
	return wm_surface_pairing_find(window) != NULL;
}

bool wm_surface_pairing_pairs_now(const xcb_generic_event_t *ev, xcb_atom_t surface_id_atom)
{
	if (!pairing.listening || (ev->response_type & 0x7f) != XCB_CLIENT_MESSAGE ||
			surface_id_atom == XCB_ATOM_NONE) {
		return false;
	}
	const xcb_client_message_event_t *m = (const xcb_client_message_event_t *)ev;
	if (m->format != 32 || m->type != surface_id_atom || m->data.data32[0] == 0 ||
			xwayland_surface_by_id(m->data.data32[0]) == NULL) {
		return false;
	}
	struct known_window *k;
	wl_list_for_each (k, &pairing.known, link) {
		if (k->xs->window_id == m->window) {
			return k->xs->surface == NULL;
		}
	}
	return false;
}

void wm_surface_pairing_init(struct wlr_xwayland *wlr, void (*will_pair)(xcb_window_t window))
{
	pairing.wlr = wlr;
	pairing.will_pair = will_pair;
	wl_list_init(&pairing.known);
	pairing.new_window.notify = handle_new_window;
	wl_signal_add(&wlr->events.new_surface, &pairing.new_window);
	pairing.surface_create.notify = handle_surface_create;
	wl_signal_add(&wlr->compositor->events.new_surface, &pairing.surface_create);
	pairing.listening = true;
}

void wm_surface_pairing_finish(void)
{
	if (!pairing.listening) {
		return;
	}
	wl_list_remove(&pairing.new_window.link);
	wl_list_remove(&pairing.surface_create.link);
	struct known_window *k, *tmp;
	wl_list_for_each_safe (k, tmp, &pairing.known, link) {
		handle_known_destroy(&k->destroy, NULL);
	}
	pairing.listening = false;
	pairing.wlr = NULL;
	pairing.will_pair = NULL;
}

void wm_surface_pairing_handed(const xcb_generic_event_t *ev)
{
	pairing.pending = false;
	if ((ev->response_type & 0x7f) != XCB_CLIENT_MESSAGE) {
		return;
	}
	const xcb_client_message_event_t *m = (const xcb_client_message_event_t *)ev;
	/* No need to know the atom: whatever message named the surface, a
	 * surface paired with this window, with a buffer and unmapped, is
	 * what wlroots would map at its next commit. */
	if (m->format != 32 || m->data.data32[0] == 0) {
		return;
	}
	pairing.pending = true;
	pairing.window = m->window;
	pairing.surface_id = m->data.data32[0];
}

void wm_surface_pairing_settle(void)
{
	if (!pairing.pending) {
		return;
	}
	pairing.pending = false;
	/* The id is Xwayland's own (its Wayland connection's object), told
	 * by the X server: looked up there only. */
	struct wlr_surface *surface = xwayland_surface_by_id(pairing.surface_id);
	if (surface == NULL || !wlr_surface_is_xwayland_surface(surface)) {
		return;
	}
	struct wlr_xwayland_surface *xs = wlr_xwayland_surface_from_wlr_surface(surface);
	if (xs == NULL || xs->window_id != pairing.window || xs->surface != surface || xs->mapped ||
			!wlr_surface_has_buffer(surface)) {
		return;
	}
	/* wlroots' own map, as at a commit: its role's commit hook (the role
	 * the pairing gave the surface) emits map, sets `mapped` and rewrites
	 * _NET_CLIENT_LIST, which nothing exported does otherwise. */
	if (surface->role == NULL || surface->role->commit == NULL) {
		return;
	}
	surface->role->commit(surface);
	if (!xs->mapped) {
		return;
	}
	pairing.late_maps++;
	uint64_t left_out;
	if (log_limit_allow(&pairing.log, &left_out)) {
		wlr_log(WLR_INFO,
				"X window 0x%x (pid %d) paired after its surface drew: shown now "
				"(%llu such windows; %llu lines left out)",
				(unsigned)xs->window_id, (int)xs->pid,
				(unsigned long long)pairing.late_maps,
				(unsigned long long)left_out);
	}
}
