/*
 * The pure executor on several threads at once, as ring workers run it
 * (docs/architecture.md "Threads"): each thread a client with its own
 * context and ring, all of one process (and so one uid and the total),
 * creating, drawing into and freeing pixmaps against the process's memory
 * limit. A charge is a check and an addition under one lock
 * (resource_usage.c): the pixmaps alive at any moment never hold more than
 * the process's limit, and once every context is gone every level is back
 * to zero. Also built under ThreadSanitizer (scripts/test.sh, build-tsan).
 *
 * Two phases. In lock-step rounds every client asks for its pixmap between
 * the same two barriers, so exactly one is granted and the others are
 * refused whatever the machine's scheduling. Then the clients run free,
 * charges and refunds interleaving as the kernel happens to schedule them:
 * only what must hold on any interleaving is asserted there (a busy
 * machine may well run the threads one after another). Meanwhile a reader
 * copies the accounts as the statistics do (smt_usage_read, under the
 * charges' lock): never more than the limit, and under ThreadSanitizer no
 * race with the charges (a plain read of the counters was one).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>

#include "compositor/exec/drawable_table.h"
#include "tests/unit/test_ring_util.h"

#define THREADS 4
#define LOCKSTEP_ROUNDS 50
#define ROUNDS 300
#define SIDE 64
#define FILLS 64 /* per pixmap: it lives while the others' do */

static struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
static struct smt_usage uid = { .parent = &total, .level = SMT_LEVEL_UID };
static struct smt_usage process = { .parent = &uid, .level = SMT_LEVEL_PROCESS };
static const uint64_t pixmap_bytes = SIDE * SIDE * 4 + SMT_PIXMAP_OVERHEAD;
static atomic_uint_fast64_t alive, refused, drawn, lockstep_granted, stats_reads;
static atomic_bool clients_done;
static pthread_barrier_t step; /* lock-step rounds, then the free run's start */

static struct smt_exec_ctx *new_ctx(struct smt_usage *client)
{
	struct smt_exec_config cfg;
	smt_exec_config_defaults(&cfg);
	cfg.usage = client;
	struct smt_exec_ctx *ctx = smt_exec_create(&cfg);
	REQUIRE(ctx, "context");
	return ctx;
}

/* What a context's drawable table charges for pixmap 1's slot, measured
 * with an account of its own (no limit). */
static uint64_t table_bytes_per_client(void)
{
	struct smt_usage alone = { .level = SMT_LEVEL_CLIENT };
	struct smt_exec_ctx *ctx = new_ctx(&alone);
	struct stream s;
	st_init(&s);
	struct smt_exec_result res;
	ST(&s, smt_encode_create_pixmap(st_at(&s), 1, SIDE, SIDE, SMT_FORMAT_ARGB8888));
	expect_ok(run_ring(ctx, &s, 4096, &res), &res, "measuring pixmap");
	uint64_t used[SMT_RES_COUNT], max[SMT_RES_COUNT];
	smt_usage_read(&alone, used, max);
	REQUIRE(used[SMT_RES_MEMORY] > pixmap_bytes, "the table was charged");
	uint64_t table = used[SMT_RES_MEMORY] - pixmap_bytes;
	smt_exec_destroy(ctx);
	st_fini(&s);
	smt_usage_read(&alone, used, max);
	REQUIRE(used[SMT_RES_MEMORY] == 0, "the measuring context's charge was refunded");
	return table;
}

/* Creates pixmap 1; false when the process's limit refused it (the client
 * is then ended by its error and *ctx is a new connection). */
static bool ask_pixmap(struct smt_exec_ctx **ctx, struct smt_usage *client, struct stream *s,
		struct smt_exec_result *res)
{
	s->len = 0;
	ST(s, smt_encode_create_pixmap(st_at(s), 1, SIDE, SIDE, SMT_FORMAT_ARGB8888));
	if (run_ring(*ctx, s, 4096, res) == SMT_EXEC_ERROR) {
		REQUIRE(res->error.code == SMT_ERROR_LIMIT, "refused: %s", res->error.message);
		atomic_fetch_add(&refused, 1);
		smt_exec_destroy(*ctx);
		*ctx = new_ctx(client);
		return false;
	}
	uint64_t now = atomic_fetch_add(&alive, 1) + 1;
	REQUIRE(now * pixmap_bytes <= process.max[SMT_RES_MEMORY],
			"%llu pixmaps alive: more than the process's limit",
			(unsigned long long)now);
	return true;
}

static void draw_and_free(
		struct smt_exec_ctx *ctx, struct stream *s, struct smt_exec_result *res, int round)
{
	struct smt_rect r = { 0, 0, SIDE, SIDE };
	s->len = 0;
	ST(s, smt_encode_set_target(st_at(s), 1));
	ST(s, smt_encode_fill_rects(st_at(s), SMT_PAINT_SRC, 0xff000000u | (uint32_t)round, 1, &r));
	expect_ok(run_ring(ctx, s, 4096, res), res, "draw");
	atomic_fetch_add(&drawn, 1);
	atomic_fetch_sub(&alive, 1);
	s->len = 0;
	ST(s, smt_encode_free_pixmap(st_at(s), 1));
	expect_ok(run_ring(ctx, s, 4096, res), res, "free");
}

static void *client_thread(void *data)
{
	struct smt_usage *client = data;
	struct smt_exec_ctx *ctx = new_ctx(client);
	struct stream s;
	st_init(&s);
	struct smt_exec_result res;
	for (int i = 0; i < LOCKSTEP_ROUNDS; i++) {
		/* Every ask lies between two barriers and every free after the
		 * second: the asks see the same empty process. */
		pthread_barrier_wait(&step);
		bool granted = ask_pixmap(&ctx, client, &s, &res);
		pthread_barrier_wait(&step);
		if (granted) {
			atomic_fetch_add(&lockstep_granted, 1);
			draw_and_free(ctx, &s, &res, i);
		}
	}
	pthread_barrier_wait(&step);
	for (int i = 0; i < ROUNDS; i++) {
		if (ask_pixmap(&ctx, client, &s, &res)) {
			draw_and_free(ctx, &s, &res, i);
		}
	}
	smt_exec_destroy(ctx);
	st_fini(&s);
	return NULL;
}

/* The statistics' reader (ring_stats.c) beside the charging threads. */
static void *stats_thread(void *data)
{
	(void)data;
	const struct smt_usage *levels[] = { &process, &uid, &total };
	do {
		for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
			uint64_t used[SMT_RES_COUNT], max[SMT_RES_COUNT];
			smt_usage_read(levels[i], used, max);
			REQUIRE(max[SMT_RES_MEMORY] == 0 ||
							used[SMT_RES_MEMORY] <= max[SMT_RES_MEMORY],
					"statistics read %llu bytes charged over the limit",
					(unsigned long long)used[SMT_RES_MEMORY]);
			atomic_fetch_add(&stats_reads, 1);
		}
	} while (!atomic_load(&clients_done));
	return NULL;
}

int main(void)
{
	/* Room for one pixmap and every context's table for four clients
	 * that each want one: they meet the limit all the time. A pixmap's
	 * ask charges the context's table first (kept until the context
	 * ends), so four tables charged at once must still leave room for
	 * the one pixmap: an allowance of half a pixmap for all of them once
	 * refused all four asks of a lock-step round (CI, under TSan). Two
	 * pixmaps never fit, whichever tables are charged: a quarter of a
	 * pixmap is less than two tables' worth of room left. */
	uint64_t table = table_bytes_per_client();
	REQUIRE(pixmap_bytes * 3 / 4 > 2 * table, "a table (%llu bytes) is small beside a pixmap",
			(unsigned long long)table);
	process.max[SMT_RES_MEMORY] = pixmap_bytes + THREADS * table + pixmap_bytes / 4;
	struct smt_usage clients[THREADS];
	pthread_t threads[THREADS];
	pthread_barrier_init(&step, NULL, THREADS);
	pthread_t reader;
	REQUIRE(pthread_create(&reader, NULL, stats_thread, NULL) == 0, "reader thread");
	for (int i = 0; i < THREADS; i++) {
		clients[i] = (struct smt_usage){ .parent = &process, .level = SMT_LEVEL_CLIENT };
		REQUIRE(pthread_create(&threads[i], NULL, client_thread, &clients[i]) == 0,
				"thread");
	}
	for (int i = 0; i < THREADS; i++) {
		pthread_join(threads[i], NULL);
	}
	atomic_store(&clients_done, true);
	pthread_join(reader, NULL);
	REQUIRE(atomic_load(&stats_reads) > 0, "the statistics were read");
	pthread_barrier_destroy(&step);
	for (int r = 0; r < SMT_RES_COUNT; r++) {
		REQUIRE(total.used[r] == 0 && uid.used[r] == 0 && process.used[r] == 0,
				"resource %d still charged: total %llu", r,
				(unsigned long long)total.used[r]);
		for (int i = 0; i < THREADS; i++) {
			REQUIRE(clients[i].used[r] == 0, "client %d: resource %d", i, r);
		}
	}
	printf("exec threads: %d clients, %llu pixmaps drawn, %llu refused at the limit\n", THREADS,
			(unsigned long long)atomic_load(&drawn),
			(unsigned long long)atomic_load(&refused));
	/* The free run's counts depend on scheduling; the lock-step rounds'
	 * do not: one grant and THREADS - 1 refusals each. */
	REQUIRE(atomic_load(&lockstep_granted) == LOCKSTEP_ROUNDS,
			"%llu pixmaps granted in %d lock-step rounds: one each",
			(unsigned long long)atomic_load(&lockstep_granted), LOCKSTEP_ROUNDS);
	REQUIRE(atomic_load(&refused) >= (uint64_t)LOCKSTEP_ROUNDS * (THREADS - 1),
			"the others refused at the limit in every lock-step round");
	return 0;
}
