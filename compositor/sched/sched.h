/*
 * The ring scheduler's decisions: whose ring runs next, for how long, and how
 * client priorities move (docs/architecture.md "The design", seed 001, docs/scheduler.md).
 *
 * Pure: no wlroots, no Wayland, no system calls. The caller reads
 * CLOCK_MONOTONIC and passes `now` (nanoseconds) to every call, so the unit
 * tests drive the scheduler with a fake clock. Not thread-safe: with worker
 * threads the glue calls it under one mutex.
 *
 * Workers: up to smt_sched_set_workers() clients run at once (default 1:
 * the one-thread loop below). Each worker picks, runs its client's ring in
 * pieces asking smt_sched_should_yield() about that client between them, and
 * charges it; a client is never picked while it runs, so a ring's commands
 * stay in order. fifo stays single-runner whatever the number of workers:
 * it reproduces the original single-threaded X server.
 *
 * PRIORITY DIRECTION: a higher number is more favoured, as in the seed and
 * the X server ("requests are executed from the client with highest
 * priority"). This is the opposite of Unix nice: priority_max is the most
 * favoured level, priority_min the least.
 *
 * How the glue drives it (one iteration of the main loop):
 *   - report ring transitions with smt_sched_set_ready() and input sent to a
 *     client with smt_sched_input();
 *   - smt_sched_pick(); run that ring with the decision's budget;
 *   - smt_sched_charge() with the real start and end times;
 *   - if the decision says drain_all (fifo mode), pick again without going
 *     back to the event loop; otherwise dispatch events, then loop.
 * With one worker, always call smt_sched_charge() after a successful pick
 * before the next pick (the next pick returns false until then).
 * The glue may end a fair slice early to dispatch events, or because
 * should_yield said so: the client's next pick gives it the rest of its
 * slice (a turn is time, not a pick), unless its ring ran dry.
 */
#ifndef SMTWC_SCHED_H
#define SMTWC_SCHED_H

#include <stdbool.h>
#include <stdint.h>

struct smt_sched_params {
	bool fifo;                         /* the seed's original server instead of fair */
	uint64_t slice_ns;                 /* normal slice; also the run time one penalty costs */
	uint64_t lone_slice_ns;            /* slice of a client that has been busy alone */
	uint64_t lone_after_ns;            /* how long alone before lone_slice_ns applies */
	int prio_base, prio_min, prio_max; /* min <= base <= max */
	int input_boost;                   /* priority gained per boost (0: no boost) */
	uint32_t fifo_commands;            /* fifo: commands per client per turn (seed: 10) */
	/* Each this much time spent idle (ring empty) earns +1 back toward
	 * base. 0: 2 * slice_ns (the X server's "idle" threshold). */
	uint64_t idle_praise_ns;
	/* At most one boost per this interval per client, so pointer motion at
	 * 1000 Hz cannot pin a busy client at max. 0: 2 * slice_ns. */
	uint64_t input_boost_interval_ns;
	/* 1: the boost lane may run a client sent input (smt_sched_pick_lane) */
	int boost_lane;
};

/* The defaults of sched_settings.h (the X server's: fair, 5 ms slice,
 * 15 ms lone slice after 1 s, priorities 0 in -20..+20, boost 1). */
void smt_sched_params_default(struct smt_sched_params *params);
/* slice_ns, lone_slice_ns and fifo_commands nonzero, min <= base <= max,
 * input_boost >= 0. */
bool smt_sched_params_valid(const struct smt_sched_params *params);

struct smt_sched;
struct smt_sched_client;

/* NULL if the parameters are invalid or memory is short. */
struct smt_sched *smt_sched_create(const struct smt_sched_params *params);
/* Clients must be removed first (their owners hold the pointers). */
void smt_sched_destroy(struct smt_sched *sched);
/* Live change (smtctl set). Priorities are clamped into the new range; the
 * slice in progress keeps its deadline. False (nothing changed) if invalid. */
bool smt_sched_set_params(struct smt_sched *sched, const struct smt_sched_params *params);
/* The parameters in force, with the 0 = derived fields resolved. */
void smt_sched_get_params(const struct smt_sched *sched, struct smt_sched_params *out);

/* A new client starts at prio_base, not ready, last in ring order (fifo
 * order). owner is the caller's (the ring). NULL when memory is short. */
struct smt_sched_client *smt_sched_client_add(struct smt_sched *sched, void *owner, uint64_t now);
/* Safe at any time, also for the client that is running or was just picked. */
void smt_sched_client_remove(struct smt_sched *sched, struct smt_sched_client *client);
void *smt_sched_client_owner(const struct smt_sched_client *client);
bool smt_sched_client_ready(const struct smt_sched_client *client);

/* The ring went from empty to having work (ready) or back. Idempotent.
 * Not ready also ends a paused client's kept turn (smt_sched_charge_paused). */
void smt_sched_set_ready(
		struct smt_sched *sched, struct smt_sched_client *client, bool ready, uint64_t now);
/* Pointer or keyboard input was sent to this client. */
void smt_sched_input(struct smt_sched *sched, struct smt_sched_client *client, uint64_t now);

struct smt_sched_decision {
	struct smt_sched_client *client;
	void *owner;
	/* Same conventions as struct smt_exec_budget: 0 = no limit. */
	uint64_t deadline_ns;
	uint32_t max_commands;
	/* A lone client's long slice: it must end as soon as another client is
	 * ready. Run it in pieces no longer than slice_ns, report the other
	 * rings' readiness between pieces and stop when smt_sched_should_yield(). */
	bool lone;
	/* fifo: pick again without polling until pick returns false. Report
	 * rings that fill meanwhile only at the next poll: the seed's server
	 * did not select() again until every buffer was empty. */
	bool drain_all;
};

/* How many clients may run at once (picked and not charged yet); 0 counts
 * as 1. A live change: with fewer workers than runs in progress, pick
 * refuses until enough of them are charged. */
void smt_sched_set_workers(struct smt_sched *sched, unsigned workers);
unsigned smt_sched_running_count(const struct smt_sched *sched);

/* Chooses the next client for a free worker: the highest-priority ready
 * client that is not running. False (out->client NULL): no ready client is
 * waiting, or every worker is busy (fifo: one client is running). */
bool smt_sched_pick(struct smt_sched *sched, uint64_t now, struct smt_sched_decision *out);
/* The boost lane (docs/scheduler.md "The boost lane"): one more runner,
 * beside the workers and never counted among them, for a client that sent
 * input within the last input-boost interval and is not penalised below
 * base, so its answer need not wait for a worker busy with (or descheduled
 * in) a flooder's slice. A lane pick is an ordinary run: its slice, charged
 * with smt_sched_charge or _paused, the client not picked elsewhere until
 * then. False: the lane runs already, fifo, or nobody is eligible. */
bool smt_sched_pick_lane(struct smt_sched *sched, uint64_t now, struct smt_sched_decision *out);
/* Whether smt_sched_pick_lane would pick someone now. */
bool smt_sched_lane_waiting(const struct smt_sched *sched, uint64_t now);
/* True when `running`'s slice should end now: its deadline passed; or it is
 * a lone slice and a ready client waits for a worker; or (fair mode) a ready
 * client of higher priority is waiting, no worker is free and `running` is
 * the least favoured running client (ties: the one running longest). The
 * glue asks between short pieces of a slice, so a light or boosted client
 * waits at most one piece. NULL or a client not running: true. */
bool smt_sched_should_yield(const struct smt_sched *sched, const struct smt_sched_client *running,
		uint64_t now);
/* should_yield without the deadline: true when a more favoured client (or,
 * for a lone slice, any client) waits for `running`'s worker. The glue
 * asks it when readiness or priorities change while every worker runs,
 * to end the running piece early. */
bool smt_sched_should_preempt(
		const struct smt_sched *sched, const struct smt_sched_client *running);
/* Ends the client's run (any order among running clients): it ran from
 * start to end and executed `commands`; still_ready says whether its ring
 * still has work. Also charges time spent for a client that is not
 * running (the spin), without ending anything. */
void smt_sched_charge(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end, bool still_ready, uint64_t commands);

/* Ends the client's run because the glue must finish part of it first (a
 * worker's PRESENT, error or ordered request handed to the main thread):
 * charged like smt_sched_charge, the client is not ready until the glue
 * reports it again, and it keeps its turn. Fair: the rest of its slice
 * (picked first among equals, as a turn cut short). fifo: the one runner's
 * turn goes on with it: nobody else is picked until it is ready again and
 * picked, or reported empty (the seed's single-threaded server did that
 * work inside the client's turn). */
void smt_sched_charge_paused(struct smt_sched *sched, struct smt_sched_client *client,
		uint64_t start, uint64_t end, uint64_t commands);
/* Time the glue spent for a client outside a run (the main thread copying
 * a PRESENT a worker handed over): its run time and, fair, its penalty,
 * counted against the turn it keeps. Readiness unchanged. */
void smt_sched_charge_for(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end);

/* For smtctl (like xrestop). Times in nanoseconds. */
struct smt_sched_stats {
	int priority;
	bool ready;
	uint64_t slices; /* turns: a slice cut short and continued counts once */
	uint64_t run_ns; /* time charged */
	uint64_t commands;
	uint64_t inputs;    /* smt_sched_input calls */
	uint64_t boosts;    /* priority levels gained from input */
	uint64_t penalties; /* levels lost to run time */
	uint64_t praises;   /* levels regained by idleness */
	uint64_t lone_slices;
	uint64_t wait_max_ns;   /* longest ready-to-picked wait */
	uint64_t wait_total_ns; /* sum of those waits (mean = total / slices) */
	bool running;           /* picked and not charged yet */
};
/* Brings pending idle praise up to date (hence not const). */
void smt_sched_client_stats(struct smt_sched *sched, struct smt_sched_client *client, uint64_t now,
		struct smt_sched_stats *out);
unsigned smt_sched_ready_count(const struct smt_sched *sched);
/* True when a ready client is not running: it waits for a worker. A worker
 * whose ring ran dry spins on it for more only when nobody does. */
bool smt_sched_anyone_waiting(const struct smt_sched *sched);
/* Fair: the client's priority is at or above prio_base (a light, idle or
 * boosted client, not a flooder run time has pushed down). fifo: false. */
bool smt_sched_client_unpenalised(
		const struct smt_sched *sched, const struct smt_sched_client *client);

#endif
