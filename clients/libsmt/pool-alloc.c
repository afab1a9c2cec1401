/* pool-alloc: see pool-alloc.h for the design. */
#include "clients/libsmt/pool-alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct smt_palloc_blk {
	uint64_t off, size;
	struct smt_palloc_blk *prev, *next;   /* address order */
	struct smt_palloc_blk *fprev, *fnext; /* bin list, free blocks only */
	bool free;
};

/* Requests above this are refused outright: no pool can be that large, and
 * rounding cannot overflow below it. */
#define PALLOC_MAX_REQUEST (UINT64_C(1) << 48)

static unsigned bin_of(uint64_t size)
{
	/* size >= 64 always; floor(log2(size / 64)) */
	return 63u - (unsigned)__builtin_clzll(size / SMT_PALLOC_ALIGN);
}

static void bin_insert(struct smt_palloc *a, struct smt_palloc_blk *b)
{
	unsigned i = bin_of(b->size);
	b->free = true;
	b->fprev = NULL;
	b->fnext = a->bins[i];
	if (b->fnext)
		b->fnext->fprev = b;
	a->bins[i] = b;
	a->free_blocks++;
}

static void bin_remove(struct smt_palloc *a, struct smt_palloc_blk *b)
{
	if (b->fprev)
		b->fprev->fnext = b->fnext;
	else
		a->bins[bin_of(b->size)] = b->fnext;
	if (b->fnext)
		b->fnext->fprev = b->fprev;
	b->fprev = b->fnext = NULL;
	b->free = false;
	a->free_blocks--;
}

/* ---- offset -> allocated block (linear probing, backward-shift delete) -- */

static size_t slot_of(const struct smt_palloc *a, uint64_t key)
{
	/* offsets are multiples of 64: drop the zero bits, then Fibonacci hash */
	return (size_t)(((key / SMT_PALLOC_ALIGN) * UINT64_C(0x9e3779b97f4a7c15)) >> 17) &
			(a->table_cap - 1);
}

static struct smt_palloc_slot *table_find(const struct smt_palloc *a, uint64_t key)
{
	if (!a->table_cap)
		return NULL;
	for (size_t i = slot_of(a, key);; i = (i + 1) & (a->table_cap - 1)) {
		struct smt_palloc_slot *s = &a->table[i];
		if (!s->blk)
			return NULL;
		if (s->key == key)
			return s;
	}
}

static void table_put(struct smt_palloc *a, struct smt_palloc_blk *b);

static int table_rehash(struct smt_palloc *a, size_t cap)
{
	struct smt_palloc_slot *old = a->table;
	size_t old_cap = a->table_cap;
	struct smt_palloc_slot *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	a->table = t;
	a->table_cap = cap;
	a->table_count = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].blk)
			table_put(a, old[i].blk);
	free(old);
	return 0;
}

/* Make room for one more entry first, so table_put cannot fail half-way
 * through an allocation. The load factor stays under 3/4 (short probes). */
static int table_reserve(struct smt_palloc *a)
{
	if ((a->table_count + 1) * 4 <= a->table_cap * 3)
		return 0;
	return table_rehash(a, a->table_cap ? a->table_cap * 2 : 64);
}

static void table_put(struct smt_palloc *a, struct smt_palloc_blk *b)
{
	size_t i = slot_of(a, b->off);
	while (a->table[i].blk)
		i = (i + 1) & (a->table_cap - 1);
	a->table[i].key = b->off;
	a->table[i].blk = b;
	a->table_count++;
}

static void table_del(struct smt_palloc *a, struct smt_palloc_slot *s)
{
	size_t mask = a->table_cap - 1, hole = (size_t)(s - a->table);
	/* Backward-shift: move later members of the probe run into the hole so
	 * lookups never need tombstones. */
	for (size_t i = (hole + 1) & mask; a->table[i].blk; i = (i + 1) & mask) {
		size_t home = slot_of(a, a->table[i].key);
		/* may the entry at i move to hole? only if home is not in (hole, i] */
		bool movable = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
		if (movable) {
			a->table[hole] = a->table[i];
			hole = i;
		}
	}
	a->table[hole].blk = NULL;
	a->table[hole].key = 0;
	a->table_count--;
}

/* ---- public ------------------------------------------------------------ */

int smt_palloc_init(struct smt_palloc *a, uint64_t size)
{
	memset(a, 0, sizeof(*a));
	if (size % SMT_PALLOC_ALIGN || size > PALLOC_MAX_REQUEST)
		return -EINVAL;
	return size ? smt_palloc_grow(a, size) : 0;
}

void smt_palloc_fini(struct smt_palloc *a)
{
	struct smt_palloc_blk *b = a->first;
	while (b) {
		struct smt_palloc_blk *n = b->next;
		free(b);
		b = n;
	}
	free(a->table);
	memset(a, 0, sizeof(*a));
}

int smt_palloc_alloc(struct smt_palloc *a, uint64_t bytes, uint64_t *offset)
{
	if (bytes == 0 || bytes > PALLOC_MAX_REQUEST)
		return -EINVAL;
	uint64_t need = (bytes + SMT_PALLOC_ALIGN - 1) & ~(uint64_t)(SMT_PALLOC_ALIGN - 1);
	unsigned bin = bin_of(need);
	struct smt_palloc_blk *b = a->bins[bin];

	/* The request's own bin holds sizes in [2^bin, 2^(bin+1)) * 64: some
	 * may be too small, so first-fit scan it; any higher bin fits. */
	/* Wilderness preservation (dlmalloc; the mmap seed's suggestion): the
	 * free block that ends the pool is used only when no other block
	 * fits. Carving from it first let a create/free churn walk through a
	 * large pool's untouched tail (new pages, cold caches): with 80,000
	 * live images it touched 5,264 pages instead of 414 and cost 3.9x as
	 * much per operation (docs/benchmarks.md, "Images"). */
	while (b && (b->size < need || b == a->last))
		b = b->fnext;
	for (unsigned i = bin + 1; !b && i < SMT_PALLOC_BINS; i++) {
		b = a->bins[i];
		if (b && b == a->last)
			b = b->fnext;
	}
	if (!b && a->last && a->last->free && a->last->size >= need)
		b = a->last;
	if (!b)
		return -ENOSPC;

	if (table_reserve(a))
		return -ENOMEM;
	bin_remove(a, b);
	if (b->size > need) {
		/* split: the front is allocated, the rest stays free */
		struct smt_palloc_blk *rest = calloc(1, sizeof(*rest));
		if (!rest) {
			bin_insert(a, b);
			return -ENOMEM;
		}
		rest->off = b->off + need;
		rest->size = b->size - need;
		rest->prev = b;
		rest->next = b->next;
		if (b->next)
			b->next->prev = rest;
		else
			a->last = rest;
		b->next = rest;
		b->size = need;
		bin_insert(a, rest);
	}
	table_put(a, b);
	a->used += b->size;
	*offset = b->off;
	return 0;
}

/* Merge b->next into b (both free, b's bin entry already removed). */
static void absorb_next(struct smt_palloc *a, struct smt_palloc_blk *b)
{
	struct smt_palloc_blk *n = b->next;
	bin_remove(a, n);
	b->size += n->size;
	b->next = n->next;
	if (n->next)
		n->next->prev = b;
	else
		a->last = b;
	free(n);
}

int smt_palloc_free(struct smt_palloc *a, uint64_t offset)
{
	struct smt_palloc_slot *s = table_find(a, offset);
	if (!s)
		return -EINVAL;
	struct smt_palloc_blk *b = s->blk;
	table_del(a, s);
	a->used -= b->size;
	if (b->prev && b->prev->free) {
		/* fold b into its free predecessor, which leaves its bin */
		struct smt_palloc_blk *p = b->prev;
		bin_remove(a, p);
		p->size += b->size;
		p->next = b->next;
		if (b->next)
			b->next->prev = p;
		else
			a->last = p;
		free(b);
		b = p;
	}
	if (b->next && b->next->free)
		absorb_next(a, b);
	bin_insert(a, b);
	return 0;
}

uint64_t smt_palloc_block_size(const struct smt_palloc *a, uint64_t offset)
{
	const struct smt_palloc_slot *s = table_find(a, offset);
	return s ? s->blk->size : 0;
}

int smt_palloc_grow(struct smt_palloc *a, uint64_t new_size)
{
	if (new_size % SMT_PALLOC_ALIGN || new_size < a->size || new_size > PALLOC_MAX_REQUEST)
		return -EINVAL;
	if (new_size == a->size)
		return 0;
	struct smt_palloc_blk *l = a->last;
	if (l && l->free) {
		bin_remove(a, l); /* its bin changes with its size */
		l->size += new_size - a->size;
		bin_insert(a, l);
	} else {
		struct smt_palloc_blk *b = calloc(1, sizeof(*b));
		if (!b)
			return -ENOMEM;
		b->off = a->size;
		b->size = new_size - a->size;
		b->prev = l;
		if (l)
			l->next = b;
		else
			a->first = b;
		a->last = b;
		bin_insert(a, b);
	}
	a->size = new_size;
	return 0;
}

uint64_t smt_palloc_tail_free(const struct smt_palloc *a)
{
	return a->last && a->last->free ? a->last->size : 0;
}

int smt_palloc_check(const struct smt_palloc *a)
{
	uint64_t pos = 0, used = 0;
	size_t n_free = 0, n_used = 0;
	const struct smt_palloc_blk *prev = NULL;
	for (const struct smt_palloc_blk *b = a->first; b; prev = b, b = b->next) {
		if (b->off != pos || b->size == 0 || b->size % SMT_PALLOC_ALIGN || b->prev != prev)
			return -1;
		if (b->free && prev && prev->free)
			return -2; /* missed coalescing */
		if (b->free) {
			n_free++;
			/* must be reachable in its own bin */
			const struct smt_palloc_blk *f = a->bins[bin_of(b->size)];
			while (f && f != b)
				f = f->fnext;
			if (!f)
				return -3;
		} else {
			n_used++;
			used += b->size;
			const struct smt_palloc_slot *s = table_find(a, b->off);
			if (!s || s->blk != b)
				return -4;
		}
		pos += b->size;
	}
	if (pos != a->size || prev != a->last || used != a->used)
		return -5;
	if (n_free != a->free_blocks || n_used != a->table_count)
		return -6;
	return 0;
}
