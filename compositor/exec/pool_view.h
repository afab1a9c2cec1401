/*
 * pool_view — the executor's view of a client's image pools.
 *
 * A pool is one client memfd that the Wayland glue mapped once (and checked
 * sealed against shrinking, so no access can SIGBUS). The executor never
 * maps anything: the glue registers (id -> base, size) and the executor
 * only bounds-checks image ranges inside it. Pool ids are per client.
 */
#ifndef SMT_POOL_VIEW_H
#define SMT_POOL_VIEW_H

#include <stddef.h>
#include <stdint.h>

struct smt_pool_view {
	const uint8_t *base; /* NULL: slot unused */
	uint64_t size;
};

struct smt_pool_table {
	struct smt_pool_view *slots;
	uint32_t cap;    /* slots allocated (ids 0..cap-1) */
	uint32_t max_id; /* ids must be in 1..max_id-1 */
};

void smt_pools_init(struct smt_pool_table *t, uint32_t max_id);
void smt_pools_fini(struct smt_pool_table *t);
/* 0, or -1: id 0/out of range, already registered, or no memory. */
int smt_pools_register(struct smt_pool_table *t, uint32_t id, const void *base, uint64_t size);
int smt_pools_unregister(struct smt_pool_table *t, uint32_t id);
const struct smt_pool_view *smt_pools_get(const struct smt_pool_table *t, uint32_t id);

/* Image of height rows of `stride` bytes starting at offset: requires
 * offset + stride * height <= size (64-bit, overflow-checked). Returns the
 * first pixel or NULL. Stride/width consistency is the decoder's check. */
const uint8_t *smt_pool_view_range(
		const struct smt_pool_view *v, uint64_t offset, uint32_t stride, uint32_t height);

#endif
