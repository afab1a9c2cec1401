/*
 * Every wl_surface charged to its client's account while it lives
 * (surface_usage.h), through wlroots' new_surface signal and an addon on
 * the surface, which wlroots finishes when the surface is destroyed.
 */
#include <stdlib.h>
#include <unistd.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_surface.h>
#include <wlr/util/addon.h>
#include "compositor/server.h"
#include "compositor/desktop/view.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/surface_usage.h"
#include "compositor/ring/ring_types.h"

struct surface_record {
	struct wlr_addon addon;
	/* What the window of this surface has in its frame (a title bar),
	 * charged as memory (server->events.view_frame_memory). */
	uint64_t frame_bytes;
	struct smtwc_client_usage *usage; /* holds a reference: the record
					    * outlives the client's destroy
					    * signal (libwayland destroys its
					    * resources after it) */
};

/* The estimate covers what it says (surface_usage.h). */
_Static_assert(SURFACE_USAGE_BYTES >=
				sizeof(struct wlr_surface) + sizeof(struct surface_record) + 128,
		"SURFACE_USAGE_BYTES below a surface's size");
#define SURFACE_BYTES SURFACE_USAGE_BYTES

static struct {
	struct smtwc_transport *transport;
	struct wl_listener new_surface;
	struct wl_listener view_frame_memory;
	uint64_t frame_bytes; /* every record's, for statistics */
} watch;

static void surface_record_destroy(struct wlr_addon *addon)
{
	struct surface_record *rec = wl_container_of(addon, rec, addon);
	wlr_addon_finish(&rec->addon);
	client_usage_release(rec->usage, SMT_RES_SURFACES, 1);
	client_usage_release(rec->usage, SMT_RES_MEMORY, SURFACE_BYTES + rec->frame_bytes);
	watch.frame_bytes -= rec->frame_bytes;
	client_usage_unref(rec->usage);
	free(rec);
}

static const struct wlr_addon_interface surface_record_impl = {
	.name = "smtwc_surface_usage",
	.destroy = surface_record_destroy,
};

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct wlr_surface *surface = data;
	struct wl_client *client = wl_resource_get_client(surface->resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL || cu->client == NULL) {
		return; /* a client created before accounting began */
	}
	struct surface_record *rec = calloc(1, sizeof(*rec));
	if (rec == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	/* The compositor's own connection (Xwayland's) is counted, never
	 * refused: the X server bounds its clients' windows. */
	if (cu->pid == getpid()) {
		smt_usage_charge_over_limits(&cu->usage, SMT_RES_SURFACES, 1);
		smt_usage_charge_over_limits(&cu->usage, SMT_RES_MEMORY, SURFACE_BYTES);
	} else {
		struct smt_usage_refusal why;
		if (!smt_usage_charge(&cu->usage, SMT_RES_SURFACES, 1, &why)) {
			free(rec);
			client_usage_refuse(client, "wl_compositor.create_surface", &why);
			return;
		}
		if (!smt_usage_charge(&cu->usage, SMT_RES_MEMORY, SURFACE_BYTES, &why)) {
			smt_usage_release(&cu->usage, SMT_RES_SURFACES, 1);
			free(rec);
			client_usage_refuse(client, "wl_compositor.create_surface", &why);
			return;
		}
	}
	rec->usage = client_usage_hold(cu);
	wlr_addon_init(&rec->addon, &surface->addons, watch.transport, &surface_record_impl);
}

/* A window's title bar is charged to its surface's client, given back
 * when it shrinks, goes or the surface does: 20 windows 16384 pixels wide
 * with server-side decorations held 33 MB of the compositor's heap with
 * 50 KB counted (session 37). One past the client's limits ends it, the
 * error naming the limit; the compositor's own connection (Xwayland's)
 * is counted, never refused. */
static void handle_view_frame_memory(struct wl_listener *listener, void *data)
{
	struct smtwc_view *view = data;
	struct wlr_surface *surface = view->impl->surface(view);
	struct wlr_addon *addon = surface != NULL ?
			wlr_addon_find(&surface->addons, watch.transport, &surface_record_impl) :
			NULL;
	if (addon == NULL) {
		return; /* a surface created before accounting began, or gone */
	}
	struct surface_record *rec = wl_container_of(addon, rec, addon);
	uint64_t now = view->frame_bytes;
	if (now <= rec->frame_bytes) {
		client_usage_release(rec->usage, SMT_RES_MEMORY, rec->frame_bytes - now);
		watch.frame_bytes -= rec->frame_bytes - now;
		rec->frame_bytes = now;
		return;
	}
	struct smtwc_client_usage *cu = rec->usage;
	struct smt_usage_refusal why;
	if (cu->pid == getpid()) {
		smt_usage_charge_over_limits(&cu->usage, SMT_RES_MEMORY, now - rec->frame_bytes);
	} else if (!smt_usage_charge(&cu->usage, SMT_RES_MEMORY, now - rec->frame_bytes, &why)) {
		if (cu->client != NULL) {
			client_usage_refuse(cu->client, "title bar", &why);
		}
		return;
	}
	watch.frame_bytes += now - rec->frame_bytes;
	rec->frame_bytes = now;
}

uint64_t surface_usage_frame_bytes(void)
{
	return watch.frame_bytes;
}

void surface_usage_init(struct smtwc_transport *transport)
{
	watch.transport = transport;
	watch.new_surface.notify = handle_new_surface;
	wl_signal_add(&transport->server->compositor->events.new_surface, &watch.new_surface);
	watch.view_frame_memory.notify = handle_view_frame_memory;
	wl_signal_add(&transport->server->events.view_frame_memory, &watch.view_frame_memory);
}

void surface_usage_finish(struct smtwc_transport *transport)
{
	wl_list_remove(&watch.view_frame_memory.link);
	wl_list_remove(&watch.new_surface.link);
	watch.transport = NULL;
}
