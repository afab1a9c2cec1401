/*
 * The executor's bounds checks on a client's image pools (pool_view.h):
 * every image range is checked inside the one mapping, overflow-safe, so
 * PUT_IMAGE_POOL can never read outside the memfd the glue mapped.
 */
#include "compositor/exec/pool_view.h"

#include <stdlib.h>
#include <string.h>

void smt_pools_init(struct smt_pool_table *t, uint32_t max_id)
{
	memset(t, 0, sizeof(*t));
	t->max_id = max_id;
}

void smt_pools_fini(struct smt_pool_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int smt_pools_register(struct smt_pool_table *t, uint32_t id, const void *base, uint64_t size)
{
	if (id == 0 || id >= t->max_id || !base)
		return -1;
	if (id >= t->cap) {
		uint32_t cap = t->cap ? t->cap : 8;
		while (cap <= id)
			cap *= 2;
		struct smt_pool_view *s = realloc(t->slots, (size_t)cap * sizeof(*s));
		if (!s)
			return -1;
		memset(s + t->cap, 0, (size_t)(cap - t->cap) * sizeof(*s));
		t->slots = s;
		t->cap = cap;
	}
	if (t->slots[id].base)
		return -1;
	t->slots[id] = (struct smt_pool_view){ base, size };
	return 0;
}

int smt_pools_unregister(struct smt_pool_table *t, uint32_t id)
{
	if (id == 0 || id >= t->cap || !t->slots[id].base)
		return -1;
	t->slots[id] = (struct smt_pool_view){ NULL, 0 };
	return 0;
}

const struct smt_pool_view *smt_pools_get(const struct smt_pool_table *t, uint32_t id)
{
	if (id == 0 || id >= t->cap || !t->slots[id].base)
		return NULL;
	return &t->slots[id];
}

const uint8_t *smt_pool_view_range(
		const struct smt_pool_view *v, uint64_t offset, uint32_t stride, uint32_t height)
{
	uint64_t len = (uint64_t)stride * height; /* < 2^64: both are u32 */
	uint64_t end;
	if (__builtin_add_overflow(offset, len, &end) || end > v->size)
		return NULL;
	return v->base + offset;
}
