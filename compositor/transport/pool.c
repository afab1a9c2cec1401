/*
 * smt_pool_v1. Requests on a pool take effect in request order, but ring
 * commands run later; so before a pool changes, every command the client
 * had already written is executed (ring_drain), and commands written after
 * a destroy find no pool and fail cleanly.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "smt-ring-v1-protocol.h"
#include "transport/pool.h"
#include "transport/ring.h"
#include "transport/shm_fd.h"

static void pool_unmap(struct smtwc_pool *pool) {
	if (pool->map != NULL) {
		smt_exec_unregister_pool(pool->ring->exec, pool->id);
		munmap(pool->map, (size_t)pool->size);
		pool->map = NULL;
	}
}

static void pool_free(struct smtwc_pool *pool) {
	pool_unmap(pool);
	if (pool->fd >= 0) {
		close(pool->fd);
	}
	wl_list_remove(&pool->link);
	free(pool);
}

static void pool_handle_resource_destroy(struct wl_resource *resource) {
	struct smtwc_pool *pool = wl_resource_get_user_data(resource);
	if (pool == NULL) {
		return; /* its ring went first */
	}
	ring_drain(pool->ring);
	pool_free(pool);
}

static void pool_handle_resize(struct wl_client *client, struct wl_resource *resource,
		uint32_t size) {
	struct smtwc_pool *pool = wl_resource_get_user_data(resource);
	if (pool == NULL) {
		return;
	}
	if (size < pool->size) {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_BAD_FD,
			"pool %u: resize to %u bytes would shrink it (%llu)", pool->id, size,
			(unsigned long long)pool->size);
		return;
	}
	ring_drain(pool->ring);
	const char *why = NULL;
	void *map = shm_fd_map_client(pool->fd, size, &why);
	if (map == NULL) {
		wl_resource_post_error(pool->ring->resource, SMT_RING_V1_ERROR_BAD_FD,
			"pool %u: resize to %u bytes: %s", pool->id, size, why);
		return;
	}
	pool_unmap(pool);
	pool->map = map;
	pool->size = size;
	smt_exec_register_pool(pool->ring->exec, pool->id, map, size);
}

static void pool_handle_destroy(struct wl_client *client, struct wl_resource *resource) {
	wl_resource_destroy(resource);
}

static const struct smt_pool_v1_interface pool_impl = {
	.resize = pool_handle_resize,
	.destroy = pool_handle_destroy,
};

void pool_create(struct smtwc_ring *ring, struct wl_client *client, uint32_t id,
		uint32_t pool_id, int fd, uint32_t size) {
	struct wl_resource *resource = wl_resource_create(client, &smt_pool_v1_interface,
		wl_resource_get_version(ring->resource), id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &pool_impl, NULL,
		pool_handle_resource_destroy);
	ring_drain(ring);
	struct smtwc_pool *existing;
	wl_list_for_each(existing, &ring->pools, link) {
		if (existing->id == pool_id) {
			wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_ID,
				"create_pool: pool id %u is already in use", pool_id);
			return;
		}
	}
	const char *why = NULL;
	void *map = shm_fd_map_client(fd, size, &why);
	if (map == NULL) {
		wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_FD,
			"create_pool %u: %s", pool_id, why);
		return;
	}
	if (smt_exec_register_pool(ring->exec, pool_id, map, size) != 0) {
		munmap(map, size);
		wl_resource_post_error(ring->resource, SMT_RING_V1_ERROR_BAD_ID,
			"create_pool: pool id %u is 0 or out of range", pool_id);
		return;
	}
	struct smtwc_pool *pool = calloc(1, sizeof(*pool));
	int kept = dup(fd);
	if (pool == NULL || kept < 0) {
		free(pool);
		if (kept >= 0) {
			close(kept);
		}
		smt_exec_unregister_pool(ring->exec, pool_id);
		munmap(map, size);
		wl_client_post_no_memory(client);
		return;
	}
	pool->resource = resource;
	pool->ring = ring;
	pool->id = pool_id;
	pool->fd = kept; /* to remap when the client grows the pool */
	pool->map = map;
	pool->size = size;
	wl_list_insert(&ring->pools, &pool->link);
	wl_resource_set_user_data(resource, pool);
}

void pools_ring_destroyed(struct smtwc_ring *ring) {
	struct smtwc_pool *pool, *tmp;
	wl_list_for_each_safe(pool, tmp, &ring->pools, link) {
		wl_resource_set_user_data(pool->resource, NULL);
		pool_free(pool);
	}
}

uint64_t pools_mapped_bytes(struct smtwc_ring *ring) {
	uint64_t total = 0;
	struct smtwc_pool *pool;
	wl_list_for_each(pool, &ring->pools, link) {
		total += pool->size;
	}
	return total;
}
