/*
 * pool_view — the executor's view of a client's image pools.
 *
 * A pool is one client memfd that the Wayland glue mapped once (and checked
 * sealed against shrinking, so no access can SIGBUS). The executor never
 * maps anything: the glue registers (id -> base, size, fd) and the executor
 * only bounds-checks image ranges inside it. Pool ids are per client.
 *
 * A page of the memfd the client never wrote is a hole, and a read of a
 * hole through a shared mapping creates the page, in the process that
 * reads: ours, charged to our memory cgroup and to nobody's account. So a
 * range is read through the mapping only when its pages are known to be in
 * the file; otherwise with pread, which returns zeros for a hole and
 * creates nothing (docs/reliability.md, "Pools of holes, session 40").
 * Known because a pool's memfd is sealed against writes (F_SEAL_FUTURE_WRITE
 * or F_SEAL_WRITE; required by create_pool since session 41, and refused
 * here without it): no page can leave it (no hole punched, no shrink), so
 * a page mincore once found in the file stays there, kept in a bitmap.
 * Without the seal a page found in the file could be punched out before
 * the read that follows.
 */
#ifndef SMT_POOL_VIEW_H
#define SMT_POOL_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smt_pool_view {
	const uint8_t *base; /* NULL: slot unused */
	uint64_t size;
	int fd; /* the memfd mapped at base; -1: memory that is no file (tests) */
	/* A bit per SMT_POOL_VIEW_GRAIN bytes: in the file (NULL: no file). */
	uint8_t *in_file;
};

/* The grain of what a sealed pool's bitmap knows: a page (a larger page
 * is looked at whole for each of its grains). */
#define SMT_POOL_VIEW_GRAIN 4096u
/* The bitmap of a pool of size bytes: what the glue charges for it. */
static inline uint64_t smt_pool_view_bitmap_bytes(uint64_t size)
{
	return (size + (uint64_t)SMT_POOL_VIEW_GRAIN * 8 - 1) / ((uint64_t)SMT_POOL_VIEW_GRAIN * 8);
}

struct smt_pool_table {
	struct smt_pool_view *slots;
	uint32_t cap;    /* slots allocated (ids 0..cap-1) */
	uint32_t max_id; /* ids must be in 1..max_id-1 */
};

void smt_pools_init(struct smt_pool_table *t, uint32_t max_id);
void smt_pools_fini(struct smt_pool_table *t);
/* 0, or -1: id 0/out of range, already registered, no memory, or fd not
 * sealed against writes. fd: the memfd mapped at base (kept open while
 * registered), or -1. */
int smt_pools_register(
		struct smt_pool_table *t, uint32_t id, const void *base, uint64_t size, int fd);
int smt_pools_unregister(struct smt_pool_table *t, uint32_t id);
const struct smt_pool_view *smt_pools_get(const struct smt_pool_table *t, uint32_t id);

/* Image of height rows of `stride` bytes starting at offset: requires
 * offset + stride * height <= size (64-bit, overflow-checked). Returns the
 * first pixel or NULL. Stride/width consistency is the decoder's check. */
const uint8_t *smt_pool_view_range(
		const struct smt_pool_view *v, uint64_t offset, uint32_t stride, uint32_t height);

/* Every page of rows rows of row_bytes bytes, stride apart, from offset
 * (inside the pool: smt_pool_view_range's check) is known to be in the
 * file, for good: the range may be read through the mapping. True for a
 * pool of no file. Learns what it did not know with mincore. */
bool smt_pool_view_rows_in_file(const struct smt_pool_view *v, uint64_t offset, uint32_t stride,
		uint32_t rows, uint32_t row_bytes);
/* len bytes at offset (inside the pool) with pread: holes read as zeros
 * and are not created. false if the file could not be read (no file). */
bool smt_pool_view_read(const struct smt_pool_view *v, uint64_t offset, uint64_t len, void *to);

#endif
