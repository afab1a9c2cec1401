/* Unit tests for clients/libsmt/pool-alloc (pure C, no compositor). */
#include "clients/libsmt/pool-alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit_check.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t must_alloc(struct smt_palloc *a, uint64_t n)
{
	uint64_t off = UINT64_MAX;
	int r = smt_palloc_alloc(a, n, &off);
	CHECK(r == 0);
	return off;
}

static void test_basic(void)
{
	struct smt_palloc a;
	CHECK(smt_palloc_init(&a, 4096) == 0);
	CHECK(must_alloc(&a, 1) == 0);
	CHECK(must_alloc(&a, 64) == 64);
	CHECK(must_alloc(&a, 100) == 128);
	CHECK(smt_palloc_block_size(&a, 128) == 128);
	CHECK(smt_palloc_block_size(&a, 0) == 64);
	CHECK(smt_palloc_block_size(&a, 192) == 0); /* free space */
	CHECK(a.used == 256);
	CHECK(smt_palloc_free(&a, 64) == 0);
	CHECK(must_alloc(&a, 10) == 64); /* the hole is reused */
	CHECK(smt_palloc_check(&a) == 0);
	CHECK(smt_palloc_free(&a, 0) == 0 && smt_palloc_free(&a, 64) == 0 &&
			smt_palloc_free(&a, 128) == 0);
	CHECK(a.free_blocks == 1 && a.used == 0);
	CHECK(smt_palloc_tail_free(&a) == 4096);
	CHECK(must_alloc(&a, 4096) == 0); /* everything coalesced */
	CHECK(smt_palloc_check(&a) == 0);
	smt_palloc_fini(&a);
}

static void test_invalid(void)
{
	struct smt_palloc a;
	uint64_t off;
	CHECK(smt_palloc_init(&a, 100) == -EINVAL); /* not a multiple of 64 */
	CHECK(smt_palloc_init(&a, 1024) == 0);
	CHECK(smt_palloc_alloc(&a, 0, &off) == -EINVAL);
	CHECK(smt_palloc_alloc(&a, UINT64_MAX, &off) == -EINVAL);
	CHECK(smt_palloc_alloc(&a, 1025, &off) == -ENOSPC);
	off = must_alloc(&a, 256);
	CHECK(smt_palloc_free(&a, off + 64) == -EINVAL); /* inside a block */
	CHECK(smt_palloc_free(&a, 512) == -EINVAL);      /* free space */
	CHECK(smt_palloc_free(&a, off) == 0);
	CHECK(smt_palloc_free(&a, off) == -EINVAL);  /* double free */
	CHECK(smt_palloc_grow(&a, 512) == -EINVAL);  /* shrinking */
	CHECK(smt_palloc_grow(&a, 2000) == -EINVAL); /* unaligned */
	CHECK(smt_palloc_check(&a) == 0);
	smt_palloc_fini(&a);
}

/* Free in every order of three neighbours: always one block again. */
static void test_coalesce(void)
{
	static const int orders[6][3] = {
		{ 0, 1, 2 },
		{ 0, 2, 1 },
		{ 1, 0, 2 },
		{ 1, 2, 0 },
		{ 2, 0, 1 },
		{ 2, 1, 0 },
	};
	for (int o = 0; o < 6; o++) {
		struct smt_palloc a;
		uint64_t off[4];
		CHECK(smt_palloc_init(&a, 64 * 10) == 0);
		for (int i = 0; i < 4; i++)
			off[i] = must_alloc(&a, 64 * (uint64_t)(i + 1));
		/* blocks 0..2 are freed; 3 stays as a fence before the tail */
		for (int i = 0; i < 3; i++) {
			CHECK(smt_palloc_free(&a, off[orders[o][i]]) == 0);
			CHECK(smt_palloc_check(&a) == 0);
		}
		CHECK(a.free_blocks == 1); /* the tail [640,640) is empty: 10 units used */
		CHECK(must_alloc(&a, 64 * 6) == 0);
		smt_palloc_fini(&a);
	}
}

static void test_grow(void)
{
	struct smt_palloc a;
	uint64_t off;
	CHECK(smt_palloc_init(&a, 256) == 0);
	CHECK(must_alloc(&a, 256) == 0);
	CHECK(smt_palloc_tail_free(&a) == 0);
	CHECK(smt_palloc_alloc(&a, 64, &off) == -ENOSPC);
	CHECK(smt_palloc_grow(&a, 512) == 0);
	CHECK(must_alloc(&a, 64) == 256);
	CHECK(smt_palloc_tail_free(&a) == 192);
	/* growing extends the free tail instead of adding a second block */
	CHECK(smt_palloc_grow(&a, 1024) == 0);
	CHECK(smt_palloc_tail_free(&a) == 704 && a.free_blocks == 1);
	CHECK(must_alloc(&a, 704) == 320);
	CHECK(smt_palloc_check(&a) == 0);
	smt_palloc_fini(&a);

	/* an empty allocator grows from nothing */
	CHECK(smt_palloc_init(&a, 0) == 0);
	CHECK(smt_palloc_alloc(&a, 1, &off) == -ENOSPC);
	CHECK(smt_palloc_grow(&a, 64) == 0);
	CHECK(must_alloc(&a, 1) == 0);
	smt_palloc_fini(&a);
}

/* Random churn against a model: one owner tag per 64-byte unit. */
struct live {
	uint64_t off, units;
	uint32_t tag;
};

static uint64_t largest_free_run(const uint32_t *owner, uint64_t units)
{
	uint64_t best = 0, run = 0;
	for (uint64_t i = 0; i < units; i++) {
		run = owner[i] ? 0 : run + 1;
		best = run > best ? run : best;
	}
	return best;
}

static void test_churn(void)
{
	struct smt_palloc a;
	uint64_t size = 64 * 1024, units = size / 64;
	uint32_t *owner = calloc(units, sizeof(*owner));
	struct live *live = calloc(100000, sizeof(*live));
	size_t n_live = 0;
	uint32_t tag = 0;
	uint64_t used_units = 0, grows = 0, nospc = 0;
	CHECK(smt_palloc_init(&a, size) == 0);

	for (int op = 0; op < 200000; op++) {
		bool do_alloc = n_live == 0 || (rnd() % 100 < 55 && n_live < 100000);
		if (do_alloc) {
			/* mostly small, sometimes image-sized */
			uint64_t bytes = rnd() % 8 ? 1 + rnd() % 2048 : 1 + rnd() % 65536;
			uint64_t need = (bytes + 63) / 64, off;
			int r = smt_palloc_alloc(&a, bytes, &off);
			if (r == -ENOSPC) {
				/* only legal when no free run is large enough */
				nospc++;
				CHECK(largest_free_run(owner, units) < need);
				uint64_t nsize = size * 2;
				CHECK(smt_palloc_grow(&a, nsize) == 0);
				owner = realloc(owner, nsize / 64 * sizeof(*owner));
				memset(owner + units, 0, (nsize - size) / 64 * sizeof(*owner));
				size = nsize;
				units = size / 64;
				grows++;
				r = smt_palloc_alloc(&a, bytes, &off);
			}
			CHECK(r == 0);
			if (r)
				continue;
			CHECK(off % 64 == 0 && off + need * 64 <= size);
			CHECK(smt_palloc_block_size(&a, off) == need * 64);
			tag++;
			for (uint64_t u = off / 64; u < off / 64 + need; u++) {
				CHECK(owner[u] == 0); /* no overlap */
				owner[u] = tag;
			}
			live[n_live++] = (struct live){ off, need, tag };
			used_units += need;
		} else {
			size_t i = rnd() % n_live;
			struct live l = live[i];
			CHECK(smt_palloc_free(&a, l.off) == 0);
			for (uint64_t u = l.off / 64; u < l.off / 64 + l.units; u++) {
				CHECK(owner[u] == l.tag);
				owner[u] = 0;
			}
			live[i] = live[--n_live];
			used_units -= l.units;
		}
		if (op % 4096 == 0) {
			CHECK(smt_palloc_check(&a) == 0);
			CHECK(a.used == used_units * 64);
		}
	}
	while (n_live)
		CHECK(smt_palloc_free(&a, live[--n_live].off) == 0);
	CHECK(smt_palloc_check(&a) == 0);
	CHECK(a.used == 0 && a.free_blocks == 1 && smt_palloc_tail_free(&a) == size);
	printf("churn: %llu grows, %llu ENOSPC, final size %llu\n", (unsigned long long)grows,
			(unsigned long long)nospc, (unsigned long long)size);
	smt_palloc_fini(&a);
	free(owner);
	free(live);
}

/* Many live blocks: the offset table grows, deletes shift correctly. */
static void test_many(void)
{
	enum {
		N = 100000
	};
	struct smt_palloc a;
	uint64_t *offs = malloc(N * sizeof(*offs));
	CHECK(smt_palloc_init(&a, (uint64_t)N * 64) == 0);
	for (int i = 0; i < N; i++)
		offs[i] = must_alloc(&a, 64);
	for (int i = N - 1; i > 0; i--) { /* shuffle */
		int j = (int)(rnd() % (uint64_t)(i + 1));
		uint64_t t = offs[i];
		offs[i] = offs[j];
		offs[j] = t;
	}
	for (int i = 0; i < N / 2; i++)
		CHECK(smt_palloc_free(&a, offs[i]) == 0);
	for (int i = N / 2; i < N; i++)
		CHECK(smt_palloc_block_size(&a, offs[i]) == 64);
	for (int i = 0; i < N / 2; i++)
		CHECK(smt_palloc_block_size(&a, offs[i]) == 0);
	CHECK(smt_palloc_check(&a) == 0);
	for (int i = N / 2; i < N; i++)
		CHECK(smt_palloc_free(&a, offs[i]) == 0);
	CHECK(a.free_blocks == 1 && a.table_count == 0);
	smt_palloc_fini(&a);
	free(offs);
}

int main(void)
{
	test_basic();
	test_invalid();
	test_coalesce();
	test_grow();
	test_churn();
	test_many();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
