/*
 * Counting every object of every client (object_usage.h): libwayland's
 * resource-created signal of each client charges an object, a destroy
 * listener on the object gives it back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/object_usage.h"
#include "compositor/ring/ring_types.h"

struct object_record {
	struct wl_listener destroy;
	struct smtwc_client_usage *usage; /* a reference: objects outlive
					    * their client's destroy signal */
	uint64_t memory;                  /* charged with it */
};

/* Objects with more behind them than a small struct, charged the rest
 * with the object. A window (xdg_toplevel) is wlroots' toplevel with its
 * states, our view with its scene tree, four border rectangles and a
 * title bar's tree, and taskbars' handles: 200 windows not yet mapped
 * grew the heap 4,980 bytes each, 300 mapped ones (1x1) 6,150 and 50
 * more 8,500 (mallinfo2, session 37), with 2,068 and 3,015 charged
 * before these rows. Title bars' pixels are charged apart
 * (surface_usage.c). */
static struct {
	const struct wl_interface *interface; /* wlroots' own (set at init) */
	uint64_t bytes;
} object_extra[] = {
	{ NULL, 512 },  /* xdg_surface */
	{ NULL, 4096 }, /* xdg_toplevel */
	{ NULL, 4096 }, /* xdg_popup */
};

/* The interface of the object a request of iface creates (its new_id,
 * the first argument); NULL if iface has no such request. */
static const struct wl_interface *created_by(const struct wl_interface *iface, const char *request)
{
	for (int i = 0; iface != NULL && i < iface->method_count; i++) {
		if (strcmp(iface->methods[i].name, request) == 0) {
			return iface->methods[i].types[0];
		}
	}
	return NULL;
}

/* The interfaces wlroots made the xdg-shell global with: its generated
 * protocol code is private to it (ours would be other structs), so they
 * are found once through the global, as what its requests create. */
static void find_xdg_interfaces(struct wlr_xdg_shell *shell)
{
	const struct wl_interface *xdg_surface = created_by(
			wl_global_get_interface(shell->global), "get_xdg_surface");
	const struct wl_interface *found[] = {
		xdg_surface,
		created_by(xdg_surface, "get_toplevel"),
		created_by(xdg_surface, "get_popup"),
	};
	static const char *const names[] = { "xdg_surface", "xdg_toplevel", "xdg_popup" };
	for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
		if (found[i] != NULL && strcmp(found[i]->name, names[i]) == 0) {
			object_extra[i].interface = found[i];
		} else {
			wlr_log(WLR_ERROR, "xdg-shell's %s not found: charged as any object",
					names[i]);
		}
	}
}

static uint64_t object_memory(const struct wl_resource *resource)
{
	/* wl_resource shows its interface only as its name, a field of the
	 * interface: the same pointer for the same interface */
	const char *name = wl_resource_get_class((struct wl_resource *)resource);
	for (size_t i = 0; i < sizeof(object_extra) / sizeof(object_extra[0]); i++) {
		if (object_extra[i].interface != NULL && name == object_extra[i].interface->name) {
			return OBJECT_USAGE_BYTES + object_extra[i].bytes;
		}
	}
	return OBJECT_USAGE_BYTES;
}

/* The estimate covers what it says (object_usage.h): libwayland's
 * resource (about 128 bytes with its allocation) and its map entry. */
_Static_assert(OBJECT_USAGE_BYTES >= sizeof(struct object_record) + 128 + 8 + 32,
		"OBJECT_USAGE_BYTES below an object's size");

struct client_watch {
	struct wl_listener resource_created, client_destroy;
	/* A reference, taken at the client's first object: client_usage.c
	 * makes the record in its own client-created listener, and
	 * libwayland's private signals do not keep their listeners' order
	 * (each emission reverses it), so at our client-created it may not
	 * exist yet. */
	struct smtwc_client_usage *usage;
	bool refused; /* the error is posted: charge no more */
};

static struct {
	struct wl_listener client_created;
} watch;

static void object_destroyed(struct wl_listener *listener, void *data)
{
	struct object_record *rec = wl_container_of(listener, rec, destroy);
	wl_list_remove(&rec->destroy.link);
	client_usage_release(rec->usage, SMT_RES_OBJECTS, 1);
	client_usage_release(rec->usage, SMT_RES_MEMORY, rec->memory);
	client_usage_unref(rec->usage);
	free(rec);
}

static void refuse(struct client_watch *w, struct wl_resource *resource,
		const struct smt_usage_refusal *why)
{
	char request[96];
	snprintf(request, sizeof(request), "new %s", wl_resource_get_class(resource));
	client_usage_refuse(wl_resource_get_client(resource), request, why);
	w->refused = true;
}

static void handle_resource_created(struct wl_listener *listener, void *data)
{
	struct client_watch *w = wl_container_of(listener, w, resource_created);
	struct wl_resource *resource = data;
	if (w->refused) {
		return; /* going: its objects die with it, uncounted */
	}
	if (w->usage == NULL) {
		w->usage = client_usage_hold(client_usage_find(wl_resource_get_client(resource)));
		if (w->usage == NULL) {
			return; /* no record (out of memory): the other limits hold */
		}
	}
	struct object_record *rec = calloc(1, sizeof(*rec));
	if (rec == NULL) {
		wl_client_post_no_memory(wl_resource_get_client(resource));
		w->refused = true;
		return;
	}
	struct smtwc_client_usage *cu = w->usage;
	rec->memory = object_memory(resource);
	if (cu->pid == getpid()) {
		smt_usage_charge_over_limits(&cu->usage, SMT_RES_OBJECTS, 1);
		smt_usage_charge_over_limits(&cu->usage, SMT_RES_MEMORY, rec->memory);
	} else {
		struct smt_usage_refusal why;
		if (!smt_usage_charge(&cu->usage, SMT_RES_OBJECTS, 1, &why)) {
			free(rec);
			refuse(w, resource, &why);
			return;
		}
		if (!smt_usage_charge(&cu->usage, SMT_RES_MEMORY, rec->memory, &why)) {
			smt_usage_release(&cu->usage, SMT_RES_OBJECTS, 1);
			free(rec);
			refuse(w, resource, &why);
			return;
		}
	}
	rec->usage = client_usage_hold(cu);
	rec->destroy.notify = object_destroyed;
	wl_resource_add_destroy_listener(resource, &rec->destroy);
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct client_watch *w = wl_container_of(listener, w, client_destroy);
	/* libwayland destroys the objects after this signal: the records
	 * hold their own references. */
	wl_list_remove(&w->resource_created.link);
	wl_list_remove(&w->client_destroy.link);
	client_usage_unref(w->usage);
	free(w);
}

static void handle_client_created(struct wl_listener *listener, void *data)
{
	struct wl_client *client = data;
	struct client_watch *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		return; /* uncounted: the other limits still hold */
	}
	w->resource_created.notify = handle_resource_created;
	wl_client_add_resource_created_listener(client, &w->resource_created);
	w->client_destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &w->client_destroy);
}

void object_usage_init(struct smtwc_transport *transport)
{
	find_xdg_interfaces(transport->server->xdg_shell);
	watch.client_created.notify = handle_client_created;
	wl_display_add_client_created_listener(transport->server->display, &watch.client_created);
}

void object_usage_finish(struct smtwc_transport *transport)
{
	wl_list_remove(&watch.client_created.link);
}
