/*
 * smt_pool_v1. Requests on a pool take effect in stream order: the commands
 * a client published before create_pool, resize or destroy run without the
 * change, those after it with it (ordered_request.h). The fd and the new
 * size are checked, and the address space charged, when the request
 * arrives, so a bad one is refused at once; the mapping is replaced
 * (mremap) when the resize applies, so a pool is one mapping whatever the
 * client asks. Commands written after a destroy find no pool and fail
 * cleanly.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "smt-ring-v1-protocol.h"
#include "compositor/exec/pool_view.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/ordered_request.h"
#include "compositor/ring/image_pool.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/shm_fd.h"

struct pool_request {
	struct smtwc_ordered_request base;
	struct smtwc_pool *pool;
	uint64_t size; /* resize: the size to map */
};

/* What a pool holds on the heap beyond its object (charged as one,
 * object_usage.h): our struct, its requests, the executor's pool entry.
 * 60 pools grew the heap 838 bytes each, 256 charged (session 38). */
#define POOL_BOOKKEEPING_BYTES 512u

/* A pool's charges: itself, the fd kept for resizes, its one mapping,
 * the address space of its declared size (whole pages, as mapped) and
 * its bookkeeping, with the executor's bitmap of the pages it knows are
 * in the file (a bit per 4 KiB of the declared size: 32 KiB a GiB; every
 * pool is sealed against writes since session 41, so every pool has one). */
#define POOL_CHARGES 5
static void pool_charges(uint64_t declared, struct client_charge out[POOL_CHARGES])
{
	out[0] = (struct client_charge){ SMT_RES_POOLS, 1 };
	out[1] = (struct client_charge){ SMT_RES_FDS, 1 };
	out[2] = (struct client_charge){ SMT_RES_MAPPINGS, 1 };
	out[3] = (struct client_charge){ SMT_RES_ADDRESS, shm_fd_address_space(declared) };
	out[4] = (struct client_charge){ SMT_RES_MEMORY,
		POOL_BOOKKEEPING_BYTES + smt_pool_view_bitmap_bytes(declared) };
}

static void pool_free(struct smtwc_pool *pool)
{
	if (pool->registered) {
		smt_exec_unregister_pool(pool->ring->exec, pool->id);
		pool->registered = false;
	}
	struct client_charge charges[POOL_CHARGES];
	pool_charges(pool->declared, charges);
	if (pool->map != NULL) {
		/* A mapping of GiBs is unmapped in pieces (heap_reclaim.h); it
		 * stays charged, as a mapping and its address space, until it
		 * is gone. The address space of a resize that never applied
		 * (declared beyond the mapping) goes now. */
		uint64_t mapped = shm_fd_address_space(pool->size);
		heap_reclaim_add_mapping(&pool->ring->transport->reclaims, pool->map,
				(size_t)pool->size, pool->ring->usage, mapped);
		pool->map = NULL;
		charges[2].n = 0;
		charges[3].n -= mapped;
	}
	if (pool->fd >= 0) {
		close(pool->fd);
	}
	client_usage_release_all(pool->ring->usage, charges, POOL_CHARGES);
	wl_list_remove(&pool->link);
	free(pool->free_request);
	free(pool);
}

static struct pool_request *pool_request_new(struct smtwc_pool *pool,
		void (*apply)(struct smtwc_ordered_request *),
		void (*discard)(struct smtwc_ordered_request *))
{
	struct pool_request *req = calloc(1, sizeof(*req));
	if (req != NULL) {
		req->base.apply = apply;
		req->base.discard = discard;
		req->pool = pool;
	}
	return req;
}

static void pool_request_free(struct smtwc_ordered_request *base)
{
	struct pool_request *req = wl_container_of(base, req, base);
	free(req);
}

static void pool_register_apply(struct smtwc_ordered_request *base)
{
	struct pool_request *req = wl_container_of(base, req, base);
	struct smtwc_pool *pool = req->pool;
	if (smt_exec_register_pool_file(
			    pool->ring->exec, pool->id, pool->map, pool->size, pool->fd) == 0) {
		pool->registered = true;
	} else {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_BAD_ID,
				"create_pool: pool id %u is 0 or out of range", pool->id);
	}
	free(req);
}

static void pool_remap_apply(struct smtwc_ordered_request *base)
{
	struct pool_request *req = wl_container_of(base, req, base);
	struct smtwc_pool *pool = req->pool;
	pool->resize_pending = NULL;
	bool registered = pool->registered;
	if (registered) {
		smt_exec_unregister_pool(pool->ring->exec, pool->id);
		pool->registered = false;
	}
	/* The file is sealed against shrinking and was at least this large
	 * when the resize arrived, so the larger mapping cannot fault; its
	 * seal against writes (create_pool's check) cannot be taken off. */
	void *map = mremap(pool->map, (size_t)pool->size, (size_t)req->size, MREMAP_MAYMOVE);
	if (map == MAP_FAILED) {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_LIMIT,
				"pool %u: resize to %llu bytes: mremap failed (address space)",
				pool->id, (unsigned long long)req->size);
	} else {
		pool->map = map;
		pool->size = req->size;
	}
	if (registered &&
			smt_exec_register_pool_file(pool->ring->exec, pool->id, pool->map,
					pool->size, pool->fd) == 0) {
		pool->registered = true;
	}
	free(req);
}

static void pool_remap_discard(struct smtwc_ordered_request *base)
{
	struct pool_request *req = wl_container_of(base, req, base);
	req->pool->resize_pending = NULL;
	free(req);
}

static void pool_free_apply(struct smtwc_ordered_request *base)
{
	struct pool_request *req = wl_container_of(base, req, base);
	pool_free(req->pool);
	free(req);
}

static void pool_handle_resource_destroy(struct wl_resource *resource)
{
	struct smtwc_pool *pool = wl_resource_get_user_data(resource);
	if (pool == NULL) {
		return; /* its ring went first */
	}
	pool->resource = NULL;
	pool->destroying = true;
	/* (pools_ring_destroyed frees a pool whose request is discarded) */
	struct pool_request *req = pool->free_request;
	pool->free_request = NULL;
	ordered_request_queue(pool->ring, &req->base);
}

static void pool_handle_resize(
		struct wl_client *client, struct wl_resource *resource, uint32_t size)
{
	struct smtwc_pool *pool = wl_resource_get_user_data(resource);
	if (pool == NULL) {
		return;
	}
	if (size < pool->declared) {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_BAD_FD,
				"pool %u: resize to %u bytes would shrink it (%llu)", pool->id,
				size, (unsigned long long)pool->declared);
		return;
	}
	if (pool->resize_pending == NULL &&
			!ordered_request_room(pool->ring, pool->ring->resource,
					SMT_RING_V1_ERROR_LIMIT, "smt_pool_v1.resize")) {
		return;
	}
	const char *why = NULL;
	if (!shm_fd_check_client(pool->fd, size, &why)) {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_BAD_FD,
				"pool %u: resize to %u bytes: %s", pool->id, size, why);
		return;
	}
	struct client_charge grown[2] = {
		{ SMT_RES_ADDRESS,
				shm_fd_address_space(size) - shm_fd_address_space(pool->declared) },
		{ SMT_RES_MEMORY,
				smt_pool_view_bitmap_bytes(size) -
						smt_pool_view_bitmap_bytes(pool->declared) },
	};
	if (!client_usage_charge_all(pool->ring->usage, grown, 2, pool->ring->resource,
			    SMT_RING_V1_ERROR_LIMIT, "smt_pool_v1.resize")) {
		return;
	}
	pool->declared = size;
	if (pool->resize_pending != NULL) {
		pool->resize_pending->size = size; /* one mapping, the latest size */
		return;
	}
	struct pool_request *req = pool_request_new(pool, pool_remap_apply, pool_remap_discard);
	if (req == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	req->size = size;
	pool->resize_pending = req;
	ordered_request_queue(pool->ring, &req->base);
}

static void pool_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct smt_pool_v1_interface pool_impl = {
	.resize = pool_handle_resize,
	.destroy = pool_handle_destroy,
};

void pool_create(struct smtwc_ring *ring, struct wl_client *client, uint32_t id, uint32_t pool_id,
		int fd, uint32_t size)
{
	struct wl_resource *resource = wl_resource_create(client, &smt_pool_v1_interface,
			wl_resource_get_version(ring->resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &pool_impl, NULL, pool_handle_resource_destroy);
	/* Counted with the other requests that wait for earlier commands. */
	if (!ordered_request_room(ring, ring->resource, SMT_RING_V1_ERROR_LIMIT, "create_pool")) {
		return;
	}
	struct smtwc_pool *existing;
	wl_list_for_each (existing, &ring->pools, link) {
		if (existing->id == pool_id && !existing->destroying) {
			wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_ID,
					"create_pool: pool id %u is already in use", pool_id);
			return;
		}
	}
	/* The dup kept for resizes is a descriptor the client causes. */
	struct client_charge charges[POOL_CHARGES];
	pool_charges(size, charges);
	if (!client_usage_charge_all(ring->usage, charges, POOL_CHARGES, ring->resource,
			    SMT_RING_V1_ERROR_LIMIT, "create_pool")) {
		return;
	}
	const char *why = NULL;
	void *map = shm_fd_map_pool(fd, size, &why);
	struct smtwc_pool *pool = map != NULL ? calloc(1, sizeof(*pool)) : NULL;
	struct pool_request *free_request = pool != NULL ?
			pool_request_new(pool, pool_free_apply, pool_request_free) :
			NULL;
	int kept = free_request != NULL ? dup(fd) : -1;
	if (kept < 0) {
		client_usage_release_all(ring->usage, charges, POOL_CHARGES);
		free(free_request);
		free(pool);
		if (map == NULL) {
			wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_FD,
					"create_pool %u: %s", pool_id, why);
			return;
		}
		munmap(map, size);
		wl_client_post_no_memory(client);
		return;
	}
	pool->resource = resource;
	pool->ring = ring;
	pool->id = pool_id;
	pool->fd = kept; /* to remap when the client grows the pool */
	pool->map = map;
	pool->size = pool->declared = size;
	pool->free_request = free_request;
	wl_list_insert(&ring->pools, &pool->link);
	wl_resource_set_user_data(resource, pool);
	struct pool_request *req = pool_request_new(pool, pool_register_apply, pool_request_free);
	if (req == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	ordered_request_queue(ring, &req->base);
}

void pools_ring_destroyed(struct smtwc_ring *ring)
{
	struct smtwc_pool *pool, *tmp;
	wl_list_for_each_safe (pool, tmp, &ring->pools, link) {
		if (pool->resource != NULL) {
			wl_resource_set_user_data(pool->resource, NULL);
		}
		pool_free(pool);
	}
}

uint64_t pools_mapped_bytes(struct smtwc_ring *ring)
{
	uint64_t total = 0;
	struct smtwc_pool *pool;
	wl_list_for_each (pool, &ring->pools, link) {
		total += pool->size;
	}
	return total;
}
