/*
 * pool-alloc — the sub-allocator behind smt_pool (pure: no Wayland, no
 * syscalls, so unit tests link it alone).
 *
 * It manages the offsets [0, size) of one growable pool. The bookkeeping
 * lives in ordinary heap memory, never inside the pool: the pool is shared
 * with the compositor and filled with pixels by the application, so
 * in-band boundary tags could be overwritten by a stray image write.
 *
 * Blocks form one address-ordered list (out-of-band boundary tags: O(1)
 * coalescing with both neighbours on free). Free blocks are also kept in
 * size bins (floor(log2(size / 64))): allocation scans the request's own
 * bin first-fit and otherwise takes the head of the next non-empty bin,
 * which always fits ("good fit" in O(bins)). Allocated blocks are found by
 * offset through a small open-addressing hash table, so free(offset) stays
 * O(1) with 100 000 live images.
 *
 * Every block size and offset is a multiple of SMT_PALLOC_ALIGN (64: a
 * cache line, and more than any pixel format needs).
 */
#ifndef SMT_POOL_ALLOC_H
#define SMT_POOL_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMT_PALLOC_ALIGN 64u
#define SMT_PALLOC_BINS 64

struct smt_palloc_blk;
struct smt_palloc_slot {
	uint64_t key;               /* offset */
	struct smt_palloc_blk *blk; /* NULL: empty slot */
};

struct smt_palloc {
	uint64_t size;                       /* managed bytes, multiple of 64 */
	uint64_t used;                       /* bytes in allocated blocks */
	struct smt_palloc_blk *first, *last; /* address order */
	struct smt_palloc_blk *bins[SMT_PALLOC_BINS];
	struct smt_palloc_slot *table; /* allocated blocks by offset */
	size_t table_cap, table_count;
	size_t free_blocks;
};

/* size: a multiple of 64 (may be 0). 0, or -ENOMEM. */
int smt_palloc_init(struct smt_palloc *a, uint64_t size);
void smt_palloc_fini(struct smt_palloc *a);

/* Allocates bytes (rounded up to 64). 0 and *offset set; -ENOSPC when no
 * free block is large enough (grow the pool and retry); -EINVAL for 0 or
 * absurd sizes; -ENOMEM when bookkeeping memory ran out. */
int smt_palloc_alloc(struct smt_palloc *a, uint64_t bytes, uint64_t *offset);
/* 0, or -EINVAL if offset is not the start of an allocated block. */
int smt_palloc_free(struct smt_palloc *a, uint64_t offset);
/* Size of the allocated block at offset, 0 if none. */
uint64_t smt_palloc_block_size(const struct smt_palloc *a, uint64_t offset);

/* Extends the managed range to new_size (multiple of 64, >= size); the new
 * space joins a free block at the end. 0, -EINVAL or -ENOMEM. */
int smt_palloc_grow(struct smt_palloc *a, uint64_t new_size);
/* Bytes of the free block that ends the pool (0 if the last is in use):
 * growing by (request - this) makes room for request. */
uint64_t smt_palloc_tail_free(const struct smt_palloc *a);

/* Checks every invariant (tests, debugging): 0 if consistent. */
int smt_palloc_check(const struct smt_palloc *a);

#endif
