/*
 * smt_pool_v1: a client's image pool, one memfd mapped once, which
 * PUT_IMAGE_POOL reads by offset (no mapping per image).
 */
#ifndef SMTWC_RING_IMAGE_POOL_H
#define SMTWC_RING_IMAGE_POOL_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct smtwc_ring;
struct pool_request;

/* An image pool: one client memfd mapped once, read-only. PUT_IMAGE_POOL
 * names it by id and offset, so its mapping count never grows with the
 * number of images in it. */
struct smtwc_pool {
	struct wl_resource *resource;
	struct smtwc_ring *ring;
	struct wl_list link; /* smtwc_ring.pools */
	uint32_t id;
	int fd;
	void *map;
	uint64_t size;     /* of map, the executor's view */
	uint64_t declared; /* after the resizes requested so far: what is
			    * charged as address space */
	/* The one resize waiting for its place in the stream: later resizes
	 * before it applies only raise its size, so a pool never has more
	 * than one mapping (issue 24: 64 pending resizes mapped it 64 times). */
	struct pool_request *resize_pending;
	/* Its destroy request, allocated with the pool: a destroy must queue
	 * behind the requests that still name the pool (its registration, a
	 * resize), and freeing the pool at once when that allocation failed
	 * left them pointing at freed memory. NULL once queued. */
	struct pool_request *free_request;
	bool registered; /* the executor knows it (ordered_request.h) */
	bool destroying; /* resource gone, waiting for earlier commands */
};

void pool_create(struct smtwc_ring *ring, struct wl_client *client, uint32_t id, uint32_t pool_id,
		int fd, uint32_t size);
void pools_ring_destroyed(struct smtwc_ring *ring);
uint64_t pools_mapped_bytes(struct smtwc_ring *ring);

#endif
