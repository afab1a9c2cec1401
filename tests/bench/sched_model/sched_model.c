/*
 * The scheduler on paper (docs/scheduler.md, "Scaling on paper"): the real
 * scheduler (compositor/sched) driven by N simulated workers
 * (tests/unit/sched_workers_sim.h) in simulated time, for 1, 2, 4, 8 and 16
 * workers with K flooders (12, and twice the workers) and one echo client
 * (seed 001's: wakes every 10 ms (plus 0-0.5 ms), runs 50 us, with the input boost the
 * compositor gives it). A model, not a measurement: picks, pieces, wake-ups
 * and the scheduler's lock cost nothing, and workers share no memory
 * bandwidth or caches. Deterministic: the same output on every machine.
 *
 * Prints CSV on stdout, one row per configuration (run.py makes the table).
 *   sched-model [--seconds S]   (simulated seconds after a second's warm-up)
 */
#include "tests/unit/sched_workers_sim.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define US(x) ((uint64_t)(x)*1000u)
#define MS(x) ((uint64_t)(x)*1000000u)
#define T0 MS(1000) /* well above 0: 0 means "no deadline" */

/* ring_loop.c's piece: runs ask should_yield this often. */
#define PIECE_NS US(500)
/* Flooders' commands cost 20 us (small rects) to 400 us (large images),
 * so their pieces and overshoots differ as smt-perf's cases do. */
static const uint64_t flood_cmd_ns[] = { US(20), US(50), US(100), US(200), US(400) };
#define N_COSTS (sizeof(flood_cmd_ns) / sizeof(flood_cmd_ns[0]))
#define ECHO_CMD_NS US(50)
#define ECHO_PERIOD_NS MS(10)
#define ECHO_JITTER_NS US(500)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void model(unsigned workers, int flooders, uint64_t seconds)
{
	struct wsim sim;
	wsim_init(&sim, false, workers, PIECE_NS, T0, seconds + 1);
	sim.warmup = T0 + MS(1000);
	for (int i = 0; i < flooders; i++) {
		wsim_add_flooder(&sim, flood_cmd_ns[(size_t)i % N_COSTS]);
	}
	/* Wake-ups 10 to 10.5 ms apart, so they fall anywhere in the pieces. */
	struct wsim_client *echo = wsim_add_bursty(
			&sim, ECHO_CMD_NS, 1, ECHO_PERIOD_NS, T0 + US(3333), true);
	echo->jitter_ns = ECHO_JITTER_NS;
	wsim_run(&sim);

	double span = (double)(sim.end - sim.warmup);
	/* A flooder's fair share: an equal part of what the echo leaves, and
	 * never more than one worker's whole time (a ring runs on one worker). */
	double flood_total = 0, fair = (span * workers - (double)echo->run_ns) / flooders;
	fair = fair < span ? fair : span;
	double *share = calloc((size_t)flooders, sizeof(*share));
	if (share == NULL) {
		exit(1);
	}
	for (int i = 0; i < flooders; i++) {
		share[i] = (double)sim.clients[i].run_ns / fair;
		flood_total += (double)sim.clients[i].run_ns;
	}
	qsort(share, (size_t)flooders, sizeof(*share), cmp_double);
	double median = flooders % 2 ? share[flooders / 2] :
				       (share[flooders / 2 - 1] + share[flooders / 2]) / 2;
	double work = (flood_total + (double)echo->run_ns) / span; /* workers' worth busy */
	printf("%u,%d,%.4f,%.4f,%.4f,%.3f,%.3f,%zu,%.1f,%.1f,%.1f,%" PRIu64 ",%" PRIu64 "\n",
			workers, flooders, share[0], median, share[flooders - 1], work, fair / span,
			echo->n_waits, (double)wsim_wait_quantile(echo, 0.5) / 1e3,
			(double)wsim_wait_quantile(echo, 0.99) / 1e3,
			(double)wsim_wait_quantile(echo, 1.0) / 1e3, sim.double_runs,
			(uint64_t)sim.max_running);
	free(share);
	wsim_finish(&sim);
}

int main(int argc, char **argv)
{
	uint64_t seconds = 10;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
			char *end;
			unsigned long long s = strtoull(argv[++i], &end, 10);
			if (*end != '\0' || s == 0 || s > 3600) {
				fprintf(stderr, "sched-model: --seconds takes 1..3600\n");
				return 2;
			}
			seconds = s;
		} else {
			fprintf(stderr, "usage: sched-model [--seconds S]\n");
			return 2;
		}
	}
	printf("workers,flooders,share_min,share_median,share_max,work,fair,echoes,"
	       "wait_p50_us,wait_p99_us,wait_max_us,double_runs,max_running\n");
	static const unsigned workers[] = { 1, 2, 4, 8, 16 };
	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		model(workers[w], 12, seconds);
		if (2 * workers[w] != 12) {
			model(workers[w], (int)(2 * workers[w]), seconds);
		}
	}
	return 0;
}
