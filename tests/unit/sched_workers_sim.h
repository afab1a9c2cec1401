/*
 * N simulated workers driving the real scheduler (compositor/sched) on a
 * fake clock: each worker picks a client, runs its ring in pieces of at most
 * piece_ns (asking smt_sched_should_yield between pieces, as the glue does)
 * and charges it. Clients are flooders (always work) or echo-like (a burst
 * every period, with input as the compositor gives it). Pure and
 * deterministic: the unit tests assert on it, the model
 * (tests/bench/sched_model) prints it. Leaves out everything but the
 * scheduler: picks, pieces and wake-ups cost nothing, workers never contend
 * for memory, locks or caches.
 */
#ifndef SMT_SCHED_WORKERS_SIM_H
#define SMT_SCHED_WORKERS_SIM_H

#include "compositor/sched/sched.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WSIM_MAX_CLIENTS 64
#define WSIM_MAX_WORKERS 64

struct wsim_client {
	struct smt_sched_client *sc;
	uint64_t cmd_ns; /* what one command costs */
	bool flood;      /* always has work */
	/* Bursty: burst_commands every period_ns from first_ns, each with
	 * smt_sched_input when input is set. */
	uint64_t period_ns, first_ns;
	uint64_t burst_commands;
	bool input;
	/* Each period is period_ns plus 0..jitter_ns, drawn from a fixed-seed
	 * generator (deterministic), so wake-ups do not lock to the pieces. */
	uint64_t jitter_ns;
	uint64_t rng;

	uint64_t pending;      /* commands queued (not for flooders) */
	uint64_t next_arrival; /* of the next burst */
	uint64_t arrival;      /* of the oldest burst not picked yet */
	bool unserved;         /* a burst arrived and was not picked yet */
	int worker;            /* running on this worker, -1: none */

	/* Results (from the warm-up on). */
	uint64_t run_ns, commands, picks;
	uint64_t *waits; /* arrival to pick of each burst */
	size_t n_waits, cap_waits;
};

struct wsim_worker {
	struct wsim_client *client; /* NULL: idle */
	struct smt_sched_decision d;
	uint64_t start;     /* of the run (the pick) */
	uint64_t piece_end; /* the piece in progress ends here */
	uint64_t commands;  /* run so far in this run */
};

struct wsim {
	struct smt_sched *sched;
	unsigned workers; /* simulated workers (the scheduler's may differ) */
	uint64_t piece_ns;
	uint64_t now, end, warmup;
	struct wsim_client clients[WSIM_MAX_CLIENTS];
	int n_clients;
	struct wsim_worker worker[WSIM_MAX_WORKERS];

	/* Invariants observed (the tests want zero): a client picked while
	 * it runs on another worker, and more runs in progress than the
	 * scheduler allows. */
	uint64_t double_runs, over_runs;
	unsigned max_running;
};

/* A scheduler with the default parameters (fifo as given) and `workers`. */
void wsim_init(struct wsim *sim, bool fifo, unsigned workers, uint64_t piece_ns, uint64_t start,
		uint64_t seconds);
struct wsim_client *wsim_add_flooder(struct wsim *sim, uint64_t cmd_ns);
struct wsim_client *wsim_add_bursty(struct wsim *sim, uint64_t cmd_ns, uint64_t burst_commands,
		uint64_t period_ns, uint64_t first_ns, bool input);
/* Runs until `until` (at most the end). */
void wsim_run_until(struct wsim *sim, uint64_t until);
void wsim_run(struct wsim *sim);
/* The waits of a client, sorted; q in [0, 1]. 0 when it has none. */
uint64_t wsim_wait_quantile(struct wsim_client *c, double q);
void wsim_finish(struct wsim *sim);

#endif
