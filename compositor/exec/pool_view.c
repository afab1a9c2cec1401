/*
 * The executor's bounds checks on a client's image pools (pool_view.h):
 * every image range is checked inside the one mapping, overflow-safe, so
 * PUT_IMAGE_POOL can never read outside the memfd the glue mapped; and
 * which of a range's pages are in the file, so holes are read without
 * creating them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* F_SEAL_FUTURE_WRITE, mincore; the fuzzers' build defines it */
#endif
#include "compositor/exec/pool_view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void smt_pools_init(struct smt_pool_table *t, uint32_t max_id)
{
	memset(t, 0, sizeof(*t));
	t->max_id = max_id;
}

void smt_pools_fini(struct smt_pool_table *t)
{
	for (uint32_t i = 0; i < t->cap; i++)
		free(t->slots[i].in_file);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int smt_pools_register(
		struct smt_pool_table *t, uint32_t id, const void *base, uint64_t size, int fd)
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
	uint8_t *in_file = NULL;
	if (fd >= 0) {
		/* The bitmap is only true of a file that loses no page: the
		 * glue refused a pool without the seal (create_pool, shm_fd.c);
		 * looked at again here, where the bitmap depends on it. */
		int seals = fcntl(fd, F_GET_SEALS);
		if (seals < 0 || !(seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
			return -1;
		in_file = calloc(1, (size_t)smt_pool_view_bitmap_bytes(size));
		if (!in_file)
			return -1;
	}
	t->slots[id] = (struct smt_pool_view){ base, size, fd, in_file };
	return 0;
}

int smt_pools_unregister(struct smt_pool_table *t, uint32_t id)
{
	if (id == 0 || id >= t->cap || !t->slots[id].base)
		return -1;
	free(t->slots[id].in_file);
	t->slots[id] = (struct smt_pool_view){ NULL, 0, -1, NULL };
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

/* Grains mincore is asked about at once when one is not known. */
#define POOL_VIEW_MINCORE_GRAINS 64u

static uint64_t page_size(void)
{
	static _Atomic uint64_t cached;
	uint64_t p = atomic_load_explicit(&cached, memory_order_relaxed);
	if (p == 0) {
		long s = sysconf(_SC_PAGESIZE);
		p = s > 0 ? (uint64_t)s : SMT_POOL_VIEW_GRAIN;
		atomic_store_explicit(&cached, p, memory_order_relaxed);
	}
	return p;
}

static bool known(const struct smt_pool_view *v, uint64_t g)
{
	return v->in_file[g / 8] & (1u << (g % 8));
}

/* Grain g in the file: known, or found now with mincore (with the grains
 * after it, up to POOL_VIEW_MINCORE_GRAINS: a pool's pages are looked at
 * once each, not once a command), and then known for good: the pool is
 * sealed against losing pages. */
static bool grain_in_file(const struct smt_pool_view *v, uint64_t g)
{
	if (known(v, g))
		return true;
	uint64_t ps = page_size(),
		 grains = (v->size + SMT_POOL_VIEW_GRAIN - 1) / SMT_POOL_VIEW_GRAIN;
	uint64_t n = grains - g < POOL_VIEW_MINCORE_GRAINS ? grains - g : POOL_VIEW_MINCORE_GRAINS;
	/* base is page-aligned (the glue's mapping); pages of any size */
	uint64_t from = g * SMT_POOL_VIEW_GRAIN / ps * ps;
	uint64_t to = ((g + n) * SMT_POOL_VIEW_GRAIN + ps - 1) / ps * ps;
	unsigned char vec[POOL_VIEW_MINCORE_GRAINS + 1];
	if ((to - from) / ps > sizeof(vec) ||
			mincore((void *)(uintptr_t)(v->base + from), (size_t)(to - from), vec) != 0)
		return false; /* unknown: read it the safe way */
	for (uint64_t i = g; i < g + n; i++) {
		if (vec[(i * SMT_POOL_VIEW_GRAIN - from) / ps] & 1)
			v->in_file[i / 8] |= (uint8_t)(1u << (i % 8));
	}
	return known(v, g);
}

/* Every grain of [from, to) in the file. */
static bool range_in_file(const struct smt_pool_view *v, uint64_t from, uint64_t to)
{
	for (uint64_t g = from / SMT_POOL_VIEW_GRAIN; g <= (to - 1) / SMT_POOL_VIEW_GRAIN; g++) {
		if (!grain_in_file(v, g))
			return false;
	}
	return true;
}

bool smt_pool_view_rows_in_file(const struct smt_pool_view *v, uint64_t offset, uint32_t stride,
		uint32_t rows, uint32_t row_bytes)
{
	if (v->fd < 0 || rows == 0 || row_bytes == 0)
		return true;
	uint64_t end = offset + (uint64_t)stride * (rows - 1) + row_bytes; /* in range */
	/* Rows close together: the grains of their whole span; rows grains
	 * apart (a large stride): each row's own. */
	if ((end - offset) / SMT_POOL_VIEW_GRAIN <= 2 * (uint64_t)rows)
		return range_in_file(v, offset, end);
	for (uint32_t r = 0; r < rows; r++) {
		uint64_t start = offset + (uint64_t)stride * r;
		if (!range_in_file(v, start, start + row_bytes))
			return false;
	}
	return true;
}

bool smt_pool_view_read(const struct smt_pool_view *v, uint64_t offset, uint64_t len, void *to)
{
	uint8_t *p = to;
	while (len > 0) {
		ssize_t n = v->fd >= 0 ? pread(v->fd, p, (size_t)len, (off_t)offset) : -1;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		offset += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return true;
}
