/*
 * The executor's bounds checks on a client's image pools (pool_view.h):
 * every image range is checked inside the one mapping, overflow-safe, so
 * PUT_IMAGE_POOL can never read outside the memfd the glue mapped; and
 * which of a range's pages are in the file, so holes are read without
 * creating them.
 */
#define _GNU_SOURCE
#include "compositor/exec/pool_view.h"

#include <errno.h>
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
	t->slots[id] = (struct smt_pool_view){ base, size, fd };
	return 0;
}

int smt_pools_unregister(struct smt_pool_table *t, uint32_t id)
{
	if (id == 0 || id >= t->cap || !t->slots[id].base)
		return -1;
	t->slots[id] = (struct smt_pool_view){ NULL, 0, -1 };
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

/* mincore's answer for up to this many pages at a time (a stack array). */
#define POOL_VIEW_MINCORE_PAGES 1024u

static uint64_t page_size(void)
{
	static _Atomic uint64_t cached;
	uint64_t p = atomic_load_explicit(&cached, memory_order_relaxed);
	if (p == 0) {
		long s = sysconf(_SC_PAGESIZE);
		p = s > 0 ? (uint64_t)s : 4096;
		atomic_store_explicit(&cached, p, memory_order_relaxed);
	}
	return p;
}

/* Pages [first, last] of the mapping all in the file. */
static bool pages_in_file(const struct smt_pool_view *v, uint64_t first, uint64_t last)
{
	uint64_t ps = page_size();
	unsigned char vec[POOL_VIEW_MINCORE_PAGES];
	for (uint64_t p = first; p <= last;) {
		uint64_t n = last - p + 1;
		if (n > POOL_VIEW_MINCORE_PAGES)
			n = POOL_VIEW_MINCORE_PAGES;
		/* base is the glue's mapping: page-aligned */
		if (mincore((void *)(uintptr_t)(v->base + p * ps), (size_t)(n * ps), vec) != 0)
			return false; /* unknown: read it the safe way */
		for (uint64_t i = 0; i < n; i++) {
			if (!(vec[i] & 1))
				return false;
		}
		p += n;
	}
	return true;
}

bool smt_pool_view_rows_in_file(const struct smt_pool_view *v, uint64_t offset, uint32_t stride,
		uint32_t rows, uint32_t row_bytes)
{
	if (v->fd < 0 || rows == 0 || row_bytes == 0)
		return true;
	uint64_t ps = page_size();
	uint64_t span_end = offset + (uint64_t)stride * (rows - 1) + row_bytes; /* in range */
	uint64_t span_pages = (span_end - 1) / ps - offset / ps + 1;
	/* Rows close together: their whole span in a few calls; rows pages
	 * apart (a large stride): each row's own pages. */
	if (span_pages <= 2 * (uint64_t)rows + 64)
		return pages_in_file(v, offset / ps, (span_end - 1) / ps);
	for (uint32_t r = 0; r < rows; r++) {
		uint64_t start = offset + (uint64_t)stride * r;
		if (!pages_in_file(v, start / ps, (start + row_bytes - 1) / ps))
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
