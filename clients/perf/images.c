/* smt-perf --images: pool sub-allocation churn (main.c's comment). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clients/libsmt/smt.h"
#include "clients/libsmt/pool-alloc.h"
#include "clients/perf/perf.h"

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The same churn on libsmt's sub-allocator alone (no compositor, no
 * pixels): separates allocator cost from transport and memory effects. */
int images_alloc_only(const char *nlist, long iters)
{
	long ns[16];
	int nn = parse_list(nlist, ns, 16);
	printf("# allocator only (smt_palloc): %ld create/free ops over 100 slots\n", iters);
	printf("%8s %10s %14s %14s\n", "N", "us/op", "pages touched", "offset span MiB");
	for (int k = 0; k < nn; k++) {
		long N = ns[k];
		struct smt_palloc a;
		smt_palloc_init(&a, 0);
		uint64_t off;
		for (long i = 0; i < N; i++)
			while (smt_palloc_alloc(&a, 4000, &off) == -ENOSPC)
				smt_palloc_grow(&a, a.size ? a.size * 2 : 1u << 20);
		uint64_t slot[100];
		bool used[100] = { false };
		uint64_t npg = (4ull << 30) >> 12, touched = 0, lo = UINT64_MAX, hi = 0;
		uint8_t *bits = calloc(npg / 8, 1);
		uint64_t t0 = monotonic_now_ns();
		for (long j = 0; j < iters; j++) {
			unsigned i = (unsigned)(rnd() % 100);
			if (!used[i]) {
				uint64_t bytes = 1 + rnd() % 16384;
				while (smt_palloc_alloc(&a, (bytes + 3) & ~3ull, &slot[i]) ==
						-ENOSPC)
					smt_palloc_grow(&a, a.size * 2);
				used[i] = true;
				for (uint64_t pg = slot[i] >> 12; pg <= (slot[i] + bytes - 1) >> 12;
						pg++) {
					if (pg >= npg)
						continue;
					touched += !(bits[pg >> 3] & (1u << (pg & 7)));
					bits[pg >> 3] |= (uint8_t)(1u << (pg & 7));
				}
				lo = slot[i] < lo ? slot[i] : lo;
				hi = slot[i] + bytes > hi ? slot[i] + bytes : hi;
			} else {
				smt_palloc_free(&a, slot[i]);
				used[i] = false;
			}
		}
		printf("%8ld %10.4f %14" PRIu64 " %14.1f\n", N,
				(double)(monotonic_now_ns() - t0) / 1e3 / (double)iters, touched,
				(double)(hi - lo) / 1048576.0);
		free(bits);
		smt_palloc_fini(&a);
	}
	return 0;
}

int images(const char *nlist, long iters, int spid, const char *csv)
{
	long ns[16];
	int nn = parse_list(nlist, ns, 16);
	FILE *f = csv ? fopen(csv, "w") : NULL;
	if (f)
		fprintf(f,
				"live_images,ops,us_per_op,pool_bytes,server_maps,server_rss_kb,"
				"client_faults_per_op,server_faults_per_op,churn_pages\n");
	printf("# smt-perf images: churn of %ld create/free ops over 100 slots, 1..16384 bytes\n",
			iters);
	printf("%8s %10s %10s %12s %14s %12s %12s %12s\n", "N", "us/op", "pool MiB", "server maps",
			"server RSS MiB", "cli flt/op", "srv flt/op", "churn pages");
	for (int k = 0; k < nn; k++) {
		long N = ns[k];
		struct smt_options o = { .transport = SMT_TRANSPORT_RING };
		struct smt_ctx *ctx = smt_connect(&o);
		if (!ctx)
			die("connect");
		struct smt_window *win = smt_window_create(
				ctx, "smt-perf images", "smt-perf", 256, 256);
		if (!win)
			die("window");
		smt_set_target(ctx, smt_window_canvas(win));
		struct smt_pool *pool = smt_pool_create(ctx, 1u << 20);
		if (!pool)
			die("pool");
		uint64_t *live = malloc(sizeof(uint64_t) * (size_t)N);
		for (long i = 0; i < N; i++) {
			struct smt_image im;
			if (smt_image_alloc(pool, 1000, 1, SMT_FORMAT_ARGB8888, &im))
				die("image alloc (base)");
			live[i] = im.offset;
		}
		/* one PUT of an image from every part of the pool so the server
		 * has seen (mapped) all of it */
		smt_sync(ctx);
		long maps0 = spid > 0 ? proc_maps_lines(spid) : -1;
		enum {
			L = 100
		};
		struct smt_image slot[L];
		bool used[L] = { false };
		uint64_t npg = (4ull << 30) >> 12, touched = 0;
		uint8_t *bits = calloc(npg / 8, 1);
		long long cf0 = proc_minflt(0), sf0 = spid > 0 ? proc_minflt(spid) : 0;
		uint64_t t0 = monotonic_now_ns();
		for (long j = 0; j < iters; j++) {
			unsigned i = (unsigned)(rnd() % L);
			if (!used[i]) {
				uint32_t bytes = 1 + (uint32_t)(rnd() % 16384);
				uint32_t w = (bytes + 3) / 4;
				if (smt_image_alloc(pool, w, 1, SMT_FORMAT_ARGB8888, &slot[i]))
					die("image alloc");
				memset(slot[i].data, 0x80, (size_t)w * 4);
				for (uint64_t pg = slot[i].offset >> 12;
						pg <= (slot[i].offset + (uint64_t)w * 4 - 1) >> 12;
						pg++) {
					if (pg < npg && !(bits[pg >> 3] & (1u << (pg & 7)))) {
						touched++;
						bits[pg >> 3] |= (uint8_t)(1u << (pg & 7));
					}
				}
				smt_put_image_pool(ctx, pool, &slot[i], 0, (int32_t)(j & 127));
				used[i] = true;
			} else {
				uint64_t s = smt_fence(ctx);
				smt_pool_free_after(pool, slot[i].offset, s);
				used[i] = false;
			}
			if ((j & 63) == 63)
				smt_pool_reclaim(pool);
		}
		smt_sync(ctx);
		uint64_t t1 = monotonic_now_ns();
		long maps1 = spid > 0 ? proc_maps_lines(spid) : -1;
		long rss = spid > 0 ? proc_rss_kb(spid) : -1;
		double cf = (double)(proc_minflt(0) - cf0) / (double)iters;
		double sf = spid > 0 ? (double)(proc_minflt(spid) - sf0) / (double)iters : 0;
		double us = (double)(t1 - t0) / 1e3 / (double)iters;
		printf("%8ld %10.3f %10.1f %12ld %14.1f %12.3f %12.3f %12" PRIu64 "\n", N, us,
				(double)smt_pool_size(pool) / 1048576.0, maps1,
				(double)rss / 1024.0, cf, sf, touched);
		(void)maps0;
		free(bits);
		fflush(stdout);
		if (f)
			fprintf(f, "%ld,%ld,%.4f,%" PRIu64 ",%ld,%ld,%.4f,%.4f,%" PRIu64 "\n", N,
					iters, us, smt_pool_size(pool), maps1, rss, cf, sf,
					touched);
		free(live);
		smt_disconnect(ctx);
		usleep(200000);
	}
	if (f)
		fclose(f);
	return 0;
}
