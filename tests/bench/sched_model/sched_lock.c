/*
 * How long the ring workers' lock is held for the scheduler's own work
 * (issue 28; docs/scheduler.md "The workers' lock"): the real scheduler
 * (compositor/sched) on the real clock, no threads. pick_fair and
 * should_yield scan every client, so each call costs O(clients); the main
 * thread's readiness report (ring_loop.c update_readiness: set_ready for
 * every ring, in one hold) too. N clients flood (always ready), W workers
 * run them in pieces of 0.5 ms of a fake clock: per piece a worker asks
 * should_yield, a free one picks, a run that must yield is charged; once
 * per piece the main thread reports every client's readiness. Each call is
 * timed alone (two clock reads around it; their own cost is printed).
 * Leaves out: the glue's share of a hold (ring_has_work and the idle rings'
 * heads read under the lock, workers' wake-ups), contention itself.
 *
 *   sched-lock [--rounds R] [--pieces P] [--workers W] [--clients N,N,...]
 *
 * Prints, per number of clients, each call's median and p99 in ns: the
 * median over rounds and the range (min-max) of the rounds' figures.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/monotonic_clock.h"
#include "compositor/sched/sched.h"

#define PIECE_NS 500000u /* ring_workers.h RING_WORKERS_PIECE_NS */
#define MAX_WORKERS 64

enum op {
	OP_PICK,
	OP_YIELD,
	OP_CHARGE,
	OP_REPORT,
	OP_CLOCK,
	OP_COUNT
};
static const char *const op_names[OP_COUNT] = { "pick", "should_yield", "charge", "report all",
	"clock pair" };

struct samples {
	uint64_t *v;
	size_t n, cap;
};

static void add(struct samples *s, uint64_t x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (s->v == NULL) {
			perror("sched-lock");
			exit(1);
		}
	}
	s->v[s->n++] = x;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t quantile(struct samples *s, double q)
{
	if (s->n == 0) {
		return 0;
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
	size_t i = (size_t)(q * (double)(s->n - 1));
	return s->v[i];
}

/* One round: the calls' p50 and p99 in out[op][0..1]. */
static void round_of(unsigned clients, unsigned workers, unsigned pieces, uint64_t out[OP_COUNT][2])
{
	struct smt_sched_params p;
	smt_sched_params_default(&p);
	struct smt_sched *sched = smt_sched_create(&p);
	smt_sched_set_workers(sched, workers);
	uint64_t now = 1000000000u;
	struct smt_sched_client **c = calloc(clients, sizeof(*c));
	if (sched == NULL || c == NULL) {
		perror("sched-lock");
		exit(1);
	}
	for (unsigned i = 0; i < clients; i++) {
		c[i] = smt_sched_client_add(sched, c + i, now);
		smt_sched_set_ready(sched, c[i], true, now);
	}
	struct samples s[OP_COUNT] = { 0 };
	struct smt_sched_decision run[MAX_WORKERS];
	bool busy[MAX_WORKERS] = { false };
	uint64_t started[MAX_WORKERS] = { 0 };
	for (unsigned k = 0; k < pieces; k++) {
		for (unsigned w = 0; w < workers; w++) {
			uint64_t t0 = monotonic_now_ns();
			if (!busy[w]) {
				busy[w] = smt_sched_pick(sched, now, &run[w]);
				uint64_t t1 = monotonic_now_ns();
				add(&s[OP_PICK], t1 - t0);
				started[w] = now;
				continue;
			}
			bool yield = smt_sched_should_yield(sched, run[w].client, now);
			uint64_t t1 = monotonic_now_ns();
			add(&s[OP_YIELD], t1 - t0);
			if (yield) {
				t0 = monotonic_now_ns();
				smt_sched_charge(sched, run[w].client, started[w], now, true, 100);
				t1 = monotonic_now_ns();
				add(&s[OP_CHARGE], t1 - t0);
				busy[w] = false;
			}
		}
		uint64_t t0 = monotonic_now_ns();
		for (unsigned i = 0; i < clients; i++) {
			smt_sched_set_ready(sched, c[i], true, now);
		}
		uint64_t t1 = monotonic_now_ns();
		add(&s[OP_REPORT], t1 - t0);
		t0 = monotonic_now_ns();
		t1 = monotonic_now_ns();
		add(&s[OP_CLOCK], t1 - t0);
		now += PIECE_NS;
	}
	for (int op = 0; op < OP_COUNT; op++) {
		out[op][0] = quantile(&s[op], 0.5);
		out[op][1] = quantile(&s[op], 0.99);
		free(s[op].v);
	}
	for (unsigned i = 0; i < clients; i++) {
		smt_sched_client_remove(sched, c[i]);
	}
	free(c);
	smt_sched_destroy(sched);
}

static void print_stat(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	printf(" %5llu (%llu-%llu)", (unsigned long long)v[n / 2], (unsigned long long)v[0],
			(unsigned long long)v[n - 1]);
}

int main(int argc, char **argv)
{
	unsigned rounds = 5, pieces = 20000, workers = 2;
	unsigned counts[16] = { 2, 12, 64, 256 }, n_counts = 4;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
			rounds = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--pieces") && i + 1 < argc) {
			pieces = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc) {
			workers = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--clients") && i + 1 < argc) {
			n_counts = 0;
			for (char *tok = strtok(argv[++i], ","); tok && n_counts < 16;
					tok = strtok(NULL, ",")) {
				counts[n_counts++] = (unsigned)atoi(tok);
			}
		} else {
			fprintf(stderr,
					"usage: sched-lock [--rounds R] [--pieces P] [--workers W] "
					"[--clients N,N,...]\n");
			return 2;
		}
	}
	if (rounds == 0 || pieces == 0 || workers == 0 || workers > MAX_WORKERS || n_counts == 0) {
		fprintf(stderr, "sched-lock: rounds, pieces, workers (1-%d), clients\n",
				MAX_WORKERS);
		return 2;
	}
	printf("# the workers' lock held for one scheduler call, ns: median over %u rounds "
	       "(min-max of the rounds), %u pieces of 0.5 ms each, %u workers\n",
			rounds, pieces, workers);
	printf("| clients | quantile |");
	for (int op = 0; op < OP_COUNT; op++) {
		printf(" %-19s |", op_names[op]);
	}
	printf("\n|---:|---|");
	for (int op = 0; op < OP_COUNT; op++) {
		printf("---:|");
	}
	printf("\n");
	for (unsigned k = 0; k < n_counts; k++) {
		uint64_t(*res)[OP_COUNT][2] = calloc(rounds, sizeof(*res));
		uint64_t *col = calloc(rounds, sizeof(*col));
		if (res == NULL || col == NULL) {
			perror("sched-lock");
			return 1;
		}
		for (unsigned r = 0; r < rounds; r++) {
			round_of(counts[k], workers, pieces, res[r]);
		}
		for (int q = 0; q < 2; q++) {
			printf("| %u | %s |", counts[k], q == 0 ? "p50" : "p99");
			for (int op = 0; op < OP_COUNT; op++) {
				for (unsigned r = 0; r < rounds; r++) {
					col[r] = res[r][op][q];
				}
				print_stat(col, rounds);
				printf(" |");
			}
			printf("\n");
		}
		free(col);
		free(res);
	}
	return 0;
}
