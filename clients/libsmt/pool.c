/*
 * libsmt: image pools. One memfd per pool, mapped once on each side; the
 * allocator (pool-alloc.c) hands out 64-byte aligned blocks. The memfd is
 * sealed against shrinking only, so it can grow: ftruncate + mremap here,
 * smt_pool_v1.resize for the compositor.
 *
 * Freeing is where pools bite: the compositor reads a block when it
 * executes the PUT_IMAGE_POOL, not when we write it. smt_pool_free_after
 * parks a block until the fence covering its last use has completed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clients/libsmt/pool-alloc.h"
#include "clients/libsmt/smt-internal.h"
#include "smt-ring-v1-client-protocol.h"

/* create_pool and resize carry the size as a 32-bit uint */
#define POOL_MAX_SIZE (UINT64_C(0xffffffff) & ~UINT64_C(4095))

struct deferred {
	uint64_t offset, serial;
};

struct smt_pool {
	struct smt_ctx *ctx;
	struct wl_list link; /* ctx->pools */
	struct smt_pool_v1 *proxy;
	uint32_t id;
	int fd;
	uint8_t *map;
	uint64_t size;
	struct smt_palloc alloc;
	struct deferred *def;
	size_t n_def, cap_def;
	uint64_t def_bytes;
};

static uint64_t page_round(uint64_t n)
{
	return (n + 4095) & ~UINT64_C(4095);
}

/* Ring commands travel beside the Wayland socket: after a pool request,
 * wait until the compositor handled it, so a PUT_IMAGE_POOL written next
 * cannot be executed before the pool exists or has grown. */
static int pool_request_done(struct smt_ctx *ctx)
{
	return smt_transport(ctx) == SMT_TRANSPORT_RING ? smt__roundtrip(ctx) :
							  smt__flush_requests(ctx);
}

struct smt_pool *smt_pool_create(struct smt_ctx *ctx, uint64_t initial_size)
{
	uint64_t size = page_round(initial_size ? initial_size : 1);
	if (smt__check(ctx) || size > POOL_MAX_SIZE)
		return NULL;
	struct smt_pool *pool = calloc(1, sizeof(*pool));
	if (!pool)
		return NULL;
	pool->ctx = ctx;
	pool->size = size;
	pool->map = MAP_FAILED;
	pool->fd = memfd_create("smt-pool", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	pool->id = smt__id_get(&ctx->pool_ids);
	if (pool->fd < 0 || !pool->id || ftruncate(pool->fd, (off_t)size) < 0 ||
			fcntl(pool->fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		goto fail;
	pool->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, pool->fd, 0);
	/* Sealed against writes except through this mapping (which grows with
	 * mremap): no page can be punched out of the pool, so the compositor
	 * reads pages it once found in the file straight from its mapping;
	 * create_pool refuses a pool without the seal (session 41;
	 * docs/protocol.md, "Reading a pool"). */
	if (pool->map == MAP_FAILED || fcntl(pool->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) < 0 ||
			smt_palloc_init(&pool->alloc, size))
		goto fail;
	pool->proxy = smt_ring_v1_create_pool(ctx->ring, pool->id, pool->fd, (uint32_t)size);
	wl_list_insert(&ctx->pools, &pool->link);
	if (pool_request_done(ctx)) {
		smt_pool_destroy(pool);
		return NULL;
	}
	return pool;
fail:
	if (pool->map != MAP_FAILED)
		munmap(pool->map, size);
	if (pool->fd >= 0)
		close(pool->fd);
	if (pool->id)
		smt__id_put(&ctx->pool_ids, pool->id);
	free(pool);
	return NULL;
}

void smt_pool_destroy(struct smt_pool *pool)
{
	if (!pool)
		return;
	struct smt_ctx *ctx = pool->ctx;
	if (!ctx->failed)
		smt_flush(ctx); /* commands naming the pool run before it goes */
	if (pool->proxy)
		smt_pool_v1_destroy(pool->proxy);
	/* reusable: the compositor handles the destroy before a later
	 * create_pool of the same id, and drains the ring first */
	smt__id_put(&ctx->pool_ids, pool->id);
	munmap(pool->map, pool->size);
	close(pool->fd);
	smt_palloc_fini(&pool->alloc);
	free(pool->def);
	wl_list_remove(&pool->link);
	free(pool);
}

void smt__pool_destroy_all(struct smt_ctx *ctx)
{
	struct smt_pool *pool, *tmp;
	wl_list_for_each_safe (pool, tmp, &ctx->pools, link)
		smt_pool_destroy(pool);
}

uint32_t smt_pool_id(const struct smt_pool *pool)
{
	return pool->id;
}
uint64_t smt_pool_size(const struct smt_pool *pool)
{
	return pool->size;
}
void *smt_pool_ptr(struct smt_pool *pool, uint64_t offset)
{
	return offset < pool->size ? pool->map + offset : NULL;
}

#define POOL_PARKED_FLUSH (256u * 1024u)

static int pool_grow(struct smt_pool *pool, uint64_t need)
{
	/* double, or more if one request needs it: amortised O(1) growth */
	uint64_t want = pool->size + need - smt_palloc_tail_free(&pool->alloc);
	uint64_t size = page_round(want > pool->size * 2 ? want : pool->size * 2);
	if (size > POOL_MAX_SIZE)
		size = POOL_MAX_SIZE;
	if (size < want || size <= pool->size)
		return -ENOSPC;
	if (ftruncate(pool->fd, (off_t)size) < 0)
		return -errno;
	void *map = mremap(pool->map, pool->size, size, MREMAP_MAYMOVE);
	if (map == MAP_FAILED)
		return -errno; /* the file is bigger; harmless */
	int r = smt_palloc_grow(&pool->alloc, size);
	pool->map = map;
	pool->size = size;
	if (r)
		return r;
	smt_pool_v1_resize(pool->proxy, (uint32_t)size);
	return pool_request_done(pool->ctx);
}

int smt_pool_reclaim(struct smt_pool *pool)
{
	if (!pool->n_def)
		return 0;
	uint64_t done = smt_completed_fence(pool->ctx);
	size_t j = 0, freed = 0;
	for (size_t i = 0; i < pool->n_def; i++) {
		struct deferred d = pool->def[i];
		if (d.serial <= done) {
			pool->def_bytes -= smt_palloc_block_size(&pool->alloc, d.offset);
			smt_palloc_free(&pool->alloc, d.offset);
			freed++;
		} else {
			pool->def[j++] = d;
		}
	}
	pool->n_def = j;
	return (int)freed;
}

int smt_pool_alloc(struct smt_pool *pool, uint64_t bytes, uint64_t *offset)
{
	int r = smt__check(pool->ctx);
	if (r)
		return r;
	/* Blocks parked behind fences the compositor has not even seen yet
	 * cannot come back: once a lot is parked, publish so those fences
	 * complete and the space is reused instead of fresh pool pages
	 * (docs/benchmarks.md, "Images"). A ring publish is a store and a
	 * fence, writing the eventfd only if the compositor sleeps; over the
	 * socket it would be a sendmsg per allocation, so not there. */
	if (pool->def_bytes >= POOL_PARKED_FLUSH &&
			smt_transport(pool->ctx) == SMT_TRANSPORT_RING) {
		r = smt_flush(pool->ctx);
		if (r)
			return r;
	}
	smt_pool_reclaim(pool);
	r = smt_palloc_alloc(&pool->alloc, bytes, offset);
	if (r == -ENOSPC && pool->def_bytes >= bytes) {
		/* enough is parked behind fences: wait for them rather than grow
		 * (a stream of images would otherwise grow the pool forever) */
		uint64_t last = 0;
		for (size_t i = 0; i < pool->n_def; i++)
			last = pool->def[i].serial > last ? pool->def[i].serial : last;
		if ((r = smt_wait_fence(pool->ctx, last)))
			return r;
		smt_pool_reclaim(pool);
		r = smt_palloc_alloc(&pool->alloc, bytes, offset);
	}
	if (r == -ENOSPC && !(r = pool_grow(pool, page_round(bytes))))
		r = smt_palloc_alloc(&pool->alloc, bytes, offset);
	return r;
}

int smt_pool_free(struct smt_pool *pool, uint64_t offset)
{
	for (size_t i = 0; i < pool->n_def; i++)
		if (pool->def[i].offset == offset)
			return -EINVAL; /* already parked */
	return smt_palloc_free(&pool->alloc, offset);
}

int smt_pool_free_after(struct smt_pool *pool, uint64_t offset, uint64_t serial)
{
	uint64_t size = smt_palloc_block_size(&pool->alloc, offset);
	if (!size || serial > pool->ctx->next_fence)
		return -EINVAL;
	if (serial <= smt_completed_fence(pool->ctx))
		return smt_pool_free(pool, offset);
	for (size_t i = 0; i < pool->n_def; i++)
		if (pool->def[i].offset == offset)
			return -EINVAL;
	if (pool->n_def == pool->cap_def) {
		size_t cap = pool->cap_def ? pool->cap_def * 2 : 16;
		struct deferred *d = realloc(pool->def, cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		pool->def = d;
		pool->cap_def = cap;
	}
	pool->def[pool->n_def++] = (struct deferred){ offset, serial };
	pool->def_bytes += size;
	return 0;
}

int smt_image_alloc(struct smt_pool *pool, uint32_t w, uint32_t h, uint32_t format,
		struct smt_image *out)
{
	uint32_t bpp = smt_format_bpp(format);
	if (!w || !h || w > SMT_MAX_DIMENSION || h > SMT_MAX_DIMENSION || !bpp)
		return -EINVAL;
	uint32_t stride = ((w * bpp / 8) + 3) & ~3u; /* the protocol wants % 4 */
	uint64_t offset;
	int r = smt_pool_alloc(pool, (uint64_t)stride * h, &offset);
	if (r)
		return r;
	*out = (struct smt_image){ .offset = offset,
		.width = w,
		.height = h,
		.stride = stride,
		.format = format,
		.data = pool->map + offset };
	return 0;
}
