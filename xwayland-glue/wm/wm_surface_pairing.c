/* A window paired after its surface's first buffer, mapped: see the header. */
#include "xwayland-glue/wm/wm_surface_pairing.h"

#include <stdbool.h>
#include <string.h>
#include <wayland-server-core.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "compositor/log_limit.h"

static struct {
	bool pending;
	xcb_window_t window;
	uint32_t surface_id;
	uint64_t late_maps;
	struct log_limit log; /* an X client can make new windows at will */
} pairing;

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

void wm_surface_pairing_settle(struct wlr_xwayland *wlr)
{
	if (!pairing.pending) {
		return;
	}
	pairing.pending = false;
	if (wlr == NULL || wlr->server == NULL || wlr->server->client == NULL) {
		return;
	}
	/* The id is Xwayland's own (its Wayland connection's object), told
	 * by the X server: looked up there only. */
	struct wl_resource *res = wl_client_get_object(wlr->server->client, pairing.surface_id);
	/* Only wlroots' compositor makes wl_surfaces (wlr_surface_from_resource
	 * asserts that); any other object by that id is not one. */
	if (res == NULL || strcmp(wl_resource_get_class(res), "wl_surface") != 0) {
		return;
	}
	struct wlr_surface *surface = wlr_surface_from_resource(res);
	if (!wlr_surface_is_xwayland_surface(surface)) {
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
