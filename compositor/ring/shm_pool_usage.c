/*
 * Charging libwayland's wl_shm pool mappings to their clients
 * (shm_pool_usage.h). A pool's record mirrors libwayland's own reference
 * count: the pool object and each buffer made from it.
 */
#include <stdlib.h>
#include <string.h>
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/shm_fd.h"
#include "compositor/ring/shm_pool_usage.h"
#include "compositor/ring/ring_types.h"

/* Heap beyond the objects' own charge (object_usage.h): a pool's
 * libwayland struct and our record, kept while a buffer of it lives
 * (200 buffers each kept after its pool object: 573 bytes of heap each,
 * 256 charged); a buffer's libwayland struct and our reference (2,000
 * buffers of one pool: 308 each, 256 charged; session 38). */
#define SHM_POOL_BYTES 192u
#define SHM_BUFFER_BYTES 64u

/* What those two charges hold now, over every client (main thread only). */
static uint64_t record_bytes;

static bool charge_record(struct smt_usage *usage, uint64_t bytes, struct smt_usage_refusal *why)
{
	if (!smt_usage_charge(usage, SMT_RES_MEMORY, bytes, why)) {
		return false;
	}
	record_bytes += bytes;
	return true;
}

static void release_record(struct smtwc_client_usage *usage, uint64_t bytes)
{
	client_usage_release(usage, SMT_RES_MEMORY, bytes);
	record_bytes -= bytes;
}

uint64_t shm_pool_usage_record_bytes(void)
{
	return record_bytes;
}

struct shm_pool_record {
	struct smtwc_client_usage *usage;
	uint64_t size; /* charged as address space */
	int refs;      /* the pool object, its buffers */
	struct wl_listener pool_destroy;
};

struct shm_buffer_ref {
	struct shm_pool_record *pool;
	struct wl_listener destroy;
};

struct shm_client_watch {
	struct wl_listener resource_created, client_destroy;
};

/* Set by the request, taken by the object it creates (libwayland creates
 * it inside the handler, right after the logger saw the request). */
static struct {
	struct smtwc_client_usage *usage; /* create_pool charged, no pool yet */
	uint64_t size;
	struct shm_pool_record *buffer_pool; /* create_buffer on this pool, */
	struct wl_client *buffer_client;     /* by this client, charged */
} pending;

static struct wl_protocol_logger *logger;
static struct wl_listener client_created;
static bool listening;

static void record_unref(struct shm_pool_record *r)
{
	if (--r->refs > 0) {
		return;
	}
	client_usage_release(r->usage, SMT_RES_MAPPINGS, 1);
	client_usage_release(r->usage, SMT_RES_ADDRESS, r->size);
	release_record(r->usage, SHM_POOL_BYTES);
	client_usage_unref(r->usage);
	free(r);
}

static void handle_pool_destroy(struct wl_listener *listener, void *data)
{
	struct shm_pool_record *r = wl_container_of(listener, r, pool_destroy);
	wl_list_remove(&r->pool_destroy.link);
	record_unref(r);
}

static struct shm_pool_record *record_of(struct wl_resource *pool)
{
	struct wl_listener *l = wl_resource_get_destroy_listener(pool, handle_pool_destroy);
	if (l == NULL) {
		return NULL;
	}
	struct shm_pool_record *r = wl_container_of(l, r, pool_destroy);
	return r;
}

static void handle_buffer_destroy(struct wl_listener *listener, void *data)
{
	struct shm_buffer_ref *b = wl_container_of(listener, b, destroy);
	wl_list_remove(&b->destroy.link);
	release_record(b->pool->usage, SHM_BUFFER_BYTES);
	record_unref(b->pool);
	free(b);
}

/* A charge not taken by a pool object: libwayland refused the request. */
static void drop_pending(void)
{
	if (pending.usage != NULL) {
		client_usage_release(pending.usage, SMT_RES_MAPPINGS, 1);
		client_usage_release(pending.usage, SMT_RES_ADDRESS, pending.size);
		release_record(pending.usage, SHM_POOL_BYTES);
		pending.usage = NULL;
	}
	if (pending.buffer_pool != NULL) {
		release_record(pending.buffer_pool->usage, SHM_BUFFER_BYTES);
		pending.buffer_pool = NULL;
	}
}

static void log_request(void *data, enum wl_protocol_logger_type type,
		const struct wl_protocol_logger_message *m)
{
	if (type != WL_PROTOCOL_LOGGER_REQUEST) {
		return;
	}
	drop_pending();
	const char *class = wl_resource_get_class(m->resource);
	bool create_pool = strcmp(class, "wl_shm") == 0 &&
			strcmp(m->message->name, "create_pool") == 0 && m->arguments_count == 3;
	bool resize = strcmp(class, "wl_shm_pool") == 0 &&
			strcmp(m->message->name, "resize") == 0 && m->arguments_count == 1;
	bool create_buffer = strcmp(class, "wl_shm_pool") == 0 &&
			strcmp(m->message->name, "create_buffer") == 0;
	if (!create_pool && !resize && !create_buffer) {
		return;
	}
	struct wl_client *client = wl_resource_get_client(m->resource);
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL) {
		return;
	}
	struct smt_usage_refusal why;
	if (create_pool) {
		int32_t size = m->arguments[2].i;
		/* libwayland refuses <= 0; it maps whole pages */
		uint64_t bytes = size > 0 ? shm_fd_address_space((uint64_t)size) : 0;
		if (!smt_usage_charge(&cu->usage, SMT_RES_MAPPINGS, 1, &why)) {
			client_usage_refuse(client, "wl_shm.create_pool", &why);
		} else if (!smt_usage_charge(&cu->usage, SMT_RES_ADDRESS, bytes, &why)) {
			smt_usage_release(&cu->usage, SMT_RES_MAPPINGS, 1);
			client_usage_refuse(client, "wl_shm.create_pool", &why);
		} else if (!charge_record(&cu->usage, SHM_POOL_BYTES, &why)) {
			smt_usage_release(&cu->usage, SMT_RES_MAPPINGS, 1);
			smt_usage_release(&cu->usage, SMT_RES_ADDRESS, bytes);
			client_usage_refuse(client, "wl_shm.create_pool", &why);
		} else {
			pending.usage = cu;
			pending.size = bytes;
		}
		return;
	}
	struct shm_pool_record *r = record_of(m->resource);
	if (r == NULL) {
		return;
	}
	if (create_buffer) {
		if (charge_record(&r->usage->usage, SHM_BUFFER_BYTES, &why)) {
			pending.buffer_pool = r;
			pending.buffer_client = client;
		} else {
			client_usage_refuse(client, "wl_shm_pool.create_buffer", &why);
		}
		return;
	}
	int32_t size = m->arguments[0].i;
	uint64_t bytes = size > 0 ? shm_fd_address_space((uint64_t)size) : 0;
	if (bytes > r->size) {
		uint64_t more = bytes - r->size;
		if (smt_usage_charge(&r->usage->usage, SMT_RES_ADDRESS, more, &why)) {
			r->size = bytes;
		} else {
			client_usage_refuse(client, "wl_shm_pool.resize", &why);
		}
	}
}

static void handle_resource_created(struct wl_listener *listener, void *data)
{
	struct wl_resource *resource = data;
	const char *class = wl_resource_get_class(resource);
	if (pending.usage != NULL && strcmp(class, "wl_shm_pool") == 0) {
		struct shm_pool_record *r = calloc(1, sizeof(*r));
		if (r == NULL) {
			drop_pending();
			return;
		}
		r->usage = client_usage_hold(pending.usage);
		r->size = pending.size;
		r->refs = 1;
		r->pool_destroy.notify = handle_pool_destroy;
		wl_resource_add_destroy_listener(resource, &r->pool_destroy);
		pending.usage = NULL;
	} else if (pending.buffer_pool != NULL && strcmp(class, "wl_buffer") == 0) {
		struct shm_buffer_ref *b = calloc(1, sizeof(*b));
		if (b == NULL) {
			drop_pending();
			return;
		}
		b->pool = pending.buffer_pool;
		b->pool->refs++;
		b->destroy.notify = handle_buffer_destroy;
		wl_resource_add_destroy_listener(resource, &b->destroy);
		pending.buffer_pool = NULL;
	}
}

static void handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct shm_client_watch *w = wl_container_of(listener, w, client_destroy);
	/* (the client's pools and buffers go after this, each through its
	 * own destroy listener) */
	if ((pending.usage != NULL && pending.usage->client == data) ||
			(pending.buffer_pool != NULL && pending.buffer_client == data)) {
		drop_pending(); /* a request refused: its pool record goes next */
	}
	wl_list_remove(&w->resource_created.link);
	wl_list_remove(&w->client_destroy.link);
	free(w);
}

static void handle_client_created(struct wl_listener *listener, void *data)
{
	struct wl_client *client = data;
	struct shm_client_watch *w = calloc(1, sizeof(*w));
	if (w == NULL) {
		return;
	}
	w->resource_created.notify = handle_resource_created;
	wl_client_add_resource_created_listener(client, &w->resource_created);
	w->client_destroy.notify = handle_client_destroy;
	wl_client_add_destroy_listener(client, &w->client_destroy);
}

void shm_pool_usage_init(struct smtwc_transport *transport)
{
	struct wl_display *display = transport->server->display;
	logger = wl_display_add_protocol_logger(display, log_request, NULL);
	client_created.notify = handle_client_created;
	wl_display_add_client_created_listener(display, &client_created);
	listening = true;
}

void shm_pool_usage_finish(struct smtwc_transport *transport)
{
	if (!listening) {
		return;
	}
	wl_list_remove(&client_created.link);
	wl_protocol_logger_destroy(logger);
	listening = false;
}
