/* Unit tests for compositor/sched with several workers: picks while other
 * runs are outstanding, preemption of less favoured runners, the lone
 * slice, fifo's single runner, removal and live changes; then simulations of
 * N workers (sched_workers_sim.h) asserting fairness and the boost's reach
 * in simulated time. */
#include "compositor/sched/sched.h"
#include "tests/unit/sched_workers_sim.h"
#include "tests/unit/unit_check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define MS(x) ((uint64_t)((x)*1000000.0))
#define US(x) ((uint64_t)((x)*1000.0))
#define T0 MS(1000)
#define PIECE US(500) /* the glue's piece (ring_loop.c PIECE_NS) */

static struct smt_sched *new_sched(bool fifo, unsigned workers)
{
	struct smt_sched_params p;
	smt_sched_params_default(&p);
	p.fifo = fifo;
	struct smt_sched *s = smt_sched_create(&p);
	REQUIRE(s != NULL, "smt_sched_create failed");
	smt_sched_set_workers(s, workers);
	return s;
}

static void add_ready(struct smt_sched *s, struct smt_sched_client **c, int n, uint64_t now)
{
	for (int i = 0; i < n; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		REQUIRE(c[i] != NULL, "client_add failed");
		smt_sched_set_ready(s, c[i], true, now);
	}
}

static void remove_all(struct smt_sched *s, struct smt_sched_client **c, int n)
{
	for (int i = 0; i < n; i++) {
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

static int prio(struct smt_sched *s, struct smt_sched_client *c, uint64_t now)
{
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c, now, &st);
	return st.priority;
}

static void test_no_double_run(void)
{
	current_test = "a running client is never picked again";
	struct smt_sched *s = new_sched(false, 3);
	struct smt_sched_client *c[2];
	uint64_t now = T0;
	add_ready(s, c, 2, now);
	struct smt_sched_decision d1, d2, d3;
	CHECK(smt_sched_pick(s, now, &d1));
	CHECK(smt_sched_pick(s, now, &d2));
	CHECK(d1.client != d2.client);
	CHECK_INT(smt_sched_running_count(s), 2);
	/* A free worker but both ready clients run: nobody to pick. */
	CHECK(!smt_sched_pick(s, now, &d3));
	CHECK(d3.client == NULL);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[0], now, &st);
	CHECK(st.running);
	/* Charged in the other order than picked. */
	smt_sched_charge(s, d2.client, now, now + MS(1), true, 1);
	CHECK_INT(smt_sched_running_count(s), 1);
	CHECK(smt_sched_pick(s, now + MS(1), &d3));
	CHECK(d3.client == d2.client); /* the only one not running */
	CHECK(!smt_sched_pick(s, now + MS(1), &d3));
	smt_sched_charge(s, d1.client, now, now + MS(2), true, 1);
	smt_sched_charge(s, d2.client, now + MS(1), now + MS(2), true, 1);
	CHECK_INT(smt_sched_running_count(s), 0);
	smt_sched_client_stats(s, c[0], now, &st);
	CHECK(!st.running);

	/* Every worker busy: false although a client waits. */
	smt_sched_set_workers(s, 1);
	CHECK(smt_sched_pick(s, now, &d1));
	CHECK(!smt_sched_pick(s, now, &d2));
	CHECK_INT(smt_sched_ready_count(s), 2);
	smt_sched_charge(s, d1.client, now, now + MS(1), true, 1);
	remove_all(s, c, 2);
}

static void test_turn_resumes(void)
{
	current_test = "a turn cut short resumes while others start theirs";
	struct smt_sched *s = new_sched(false, 2);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 3, now);
	struct smt_sched_decision a, b, d;
	CHECK(smt_sched_pick(s, now, &a));
	CHECK(smt_sched_pick(s, now + MS(1), &b)); /* a new turn beside a running one */
	CHECK(a.client == c[0] && b.client == c[1]);
	smt_sched_charge(s, c[0], now, now + MS(2), true, 1); /* cut short */
	CHECK(smt_sched_pick(s, now + MS(2), &d));
	CHECK(d.client == c[0]); /* before c2 among equals: the rest of its turn */
	CHECK_INT(d.deadline_ns - (now + MS(2)), MS(3));
	smt_sched_charge(s, c[0], now + MS(2), now + MS(3), true, 1);
	smt_sched_charge(s, c[1], now + MS(1), now + MS(6), true, 1);
	/* c0 again (2 ms left), then c2's new turn while c0 runs: c0 keeps
	 * the rest of its turn. */
	CHECK(smt_sched_pick(s, now + MS(6), &d));
	CHECK(d.client == c[0]);
	CHECK_INT(d.deadline_ns - (now + MS(6)), MS(2));
	CHECK(smt_sched_pick(s, now + MS(6), &b));
	CHECK(b.client == c[2]);
	CHECK_INT(b.deadline_ns - (now + MS(6)), MS(5));
	smt_sched_charge(s, c[0], now + MS(6), now + MS(7), true, 1);
	CHECK(smt_sched_pick(s, now + MS(7), &d));
	CHECK(d.client == c[0]);
	CHECK_INT(d.deadline_ns - (now + MS(7)), MS(1));
	smt_sched_charge(s, d.client, now + MS(7), now + MS(8), true, 1);
	smt_sched_charge(s, c[2], now + MS(6), now + MS(8), true, 1);
	remove_all(s, c, 3);
}

/* One worker: a flooder preempted by a boosted client gets the rest of its
 * turn after it, before the next flooder's turn. */
static void test_preempted_turn_kept(void)
{
	current_test = "a turn preempted by a more favoured client goes on afterwards";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 2, now);
	c[2] = smt_sched_client_add(s, (void *)2, now);
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_input(s, c[2], now + MS(2));
	smt_sched_set_ready(s, c[2], true, now + MS(2));
	CHECK(smt_sched_should_yield(s, c[0], now + MS(2)));
	smt_sched_charge(s, c[0], now, now + MS(2), true, 1);
	CHECK(smt_sched_pick(s, now + MS(2), &d));
	CHECK(d.client == c[2]);
	smt_sched_charge(s, c[2], now + MS(2), now + MS(2.1), false, 1);
	CHECK(smt_sched_pick(s, now + MS(2.1), &d));
	CHECK(d.client == c[0]); /* not c1, which has not had a turn yet */
	CHECK_INT(d.deadline_ns - (now + MS(2.1)), MS(3));
	smt_sched_charge(s, c[0], now + MS(2.1), d.deadline_ns, true, 1);
	CHECK(smt_sched_pick(s, d.deadline_ns, &d));
	CHECK(d.client == c[1]);
	CHECK_INT(d.deadline_ns - (now + MS(5.1)), MS(5));
	smt_sched_charge(s, c[1], now + MS(5.1), d.deadline_ns, true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[0], now, &st);
	CHECK_INT(st.slices, 1); /* one turn, in two runs */
	remove_all(s, c, 3);
}

static void test_highest_gets_next_worker(void)
{
	current_test = "the highest-priority waiting client gets the next free worker";
	struct smt_sched *s = new_sched(false, 2);
	struct smt_sched_client *c[4];
	uint64_t now = T0;
	add_ready(s, c, 4, now);
	struct smt_sched_decision a, b, d;
	CHECK(smt_sched_pick(s, now, &a));
	CHECK(smt_sched_pick(s, now, &b));
	CHECK(a.client == c[0] && b.client == c[1]); /* order of add among equals */
	smt_sched_input(s, c[3], now);               /* c3 above c2 */
	smt_sched_charge(s, a.client, now, now + MS(5), true, 1);
	CHECK(smt_sched_pick(s, now + MS(5), &d));
	CHECK(d.client == c[3]);
	smt_sched_charge(s, b.client, now, now + MS(5), true, 1);
	CHECK(smt_sched_pick(s, now + MS(5), &d));
	CHECK(d.client == c[2]); /* then round robin: c2 was never picked */
	smt_sched_charge(s, c[3], now + MS(5), now + MS(6), false, 1);
	smt_sched_charge(s, c[2], now + MS(5), now + MS(6), true, 1);
	remove_all(s, c, 4);
}

static void test_boost_preempts_less_favoured(void)
{
	current_test = "a boosted waiting client makes every less favoured runner yield";
	struct smt_sched *s = new_sched(false, 2);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	for (int i = 0; i < 3; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
	}
	/* c0 alone sinks to -2, then c1 to -1. */
	smt_sched_set_ready(s, c[0], true, now);
	struct smt_sched_decision d;
	for (int k = 0; k < 2; k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK(d.client == c[0]);
		smt_sched_charge(s, c[0], now, now + MS(5), true, 1);
	}
	smt_sched_set_ready(s, c[1], true, now);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[1]);
	smt_sched_charge(s, c[1], now, now + MS(5), true, 1);
	CHECK_INT(prio(s, c[0], now), -2);
	CHECK_INT(prio(s, c[1], now), -1);
	struct smt_sched_decision d0, d1;
	CHECK(smt_sched_pick(s, now, &d1));
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(d1.client == c[1] && d0.client == c[0]);
	/* Nobody waits: neither yields before its deadline. */
	CHECK(!smt_sched_should_yield(s, c[0], now + MS(1)));
	CHECK(!smt_sched_should_yield(s, c[1], now + MS(1)));
	smt_sched_set_ready(s, c[2], true, now + MS(1));
	CHECK_INT(prio(s, c[2], now + MS(1)), 0);
	/* c2 at 0 is above both: either may make room, whichever reaches a
	 * command boundary first (the other's thread may wait for a CPU). */
	CHECK(smt_sched_should_yield(s, c[0], now + MS(1)));
	CHECK(smt_sched_should_yield(s, c[1], now + MS(1)));
	CHECK(smt_sched_should_preempt(s, c[0]) && smt_sched_should_preempt(s, c[1]));
	/* With a free worker c2 takes that; nobody yields. */
	smt_sched_set_workers(s, 3);
	CHECK(!smt_sched_should_yield(s, c[0], now + MS(1)));
	CHECK(!smt_sched_should_preempt(s, c[1]));
	smt_sched_set_workers(s, 2);
	/* The first to yield makes room; the waiting client takes its
	 * worker and the other runner carries on. */
	smt_sched_charge(s, c[0], now, now + MS(1), true, 1);
	CHECK(smt_sched_pick(s, now + MS(1), &d));
	CHECK(d.client == c[2]);
	CHECK(!smt_sched_should_yield(s, c[1], now + MS(1)));
	/* c1 (-1) is now the least favoured runner, but c0 (-2) waiting is
	 * below it: no yield. */
	CHECK(!smt_sched_should_yield(s, c[1], now + MS(2)));
	/* Deadlines still end each run on its own. */
	CHECK(smt_sched_should_yield(s, c[1], d1.deadline_ns));
	CHECK(smt_sched_should_yield(s, c[2], d.deadline_ns));
	smt_sched_charge(s, c[1], now, now + MS(2), true, 1);
	smt_sched_charge(s, c[2], now + MS(1), now + MS(2), true, 1);
	remove_all(s, c, 3);

	s = new_sched(false, 2);
	now = T0;
	add_ready(s, c, 2, now);
	c[2] = smt_sched_client_add(s, (void *)2, now);
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(smt_sched_pick(s, now + MS(1), &d1));
	smt_sched_input(s, c[2], now + MS(2));
	smt_sched_set_ready(s, c[2], true, now + MS(2));
	/* Equal runners below a boosted client: both asked. */
	CHECK(smt_sched_should_yield(s, d0.client, now + MS(2)));
	CHECK(smt_sched_should_yield(s, d1.client, now + MS(2)));
	smt_sched_charge(s, d0.client, now, now + MS(2), true, 1);
	smt_sched_charge(s, d1.client, now + MS(1), now + MS(2), true, 1);
	remove_all(s, c, 3);
}

static void test_lone_generalised(void)
{
	current_test = "lone slices while nobody waits for a worker";
	struct smt_sched *s = new_sched(false, 2);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 2, now);
	c[2] = smt_sched_client_add(s, (void *)2, now);
	/* Two busy clients on two workers: after a second each is lone. */
	struct smt_sched_decision d0, d1, d[3];
	int lone_picks = 0;
	while (now < T0 + MS(1100)) {
		CHECK(smt_sched_pick(s, now, &d0));
		CHECK(smt_sched_pick(s, now, &d1));
		CHECK(d0.lone == d1.lone);
		CHECK(d0.lone == (now >= T0 + MS(1000)));
		lone_picks += d0.lone;
		CHECK(!smt_sched_should_yield(s, d0.client, now + MS(3)));
		uint64_t end = d0.deadline_ns;
		smt_sched_charge(s, d1.client, now, end, true, 1);
		smt_sched_charge(s, d0.client, now, end, true, 1);
		now = end;
	}
	CHECK(lone_picks > 0);
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(smt_sched_pick(s, now, &d1));
	CHECK(d0.lone && d1.lone);
	CHECK_INT(d0.deadline_ns - now, MS(15));
	/* A third client ready: it waits for a worker, both long slices end. */
	smt_sched_set_ready(s, c[2], true, now + MS(2));
	CHECK(smt_sched_should_yield(s, d0.client, now + MS(2)));
	CHECK(smt_sched_should_yield(s, d1.client, now + MS(2)));
	smt_sched_charge(s, d0.client, now, now + MS(2), true, 1);
	smt_sched_charge(s, d1.client, now, now + MS(2), true, 1);
	now += MS(2);
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(!d0.lone);
	CHECK(d0.client == c[2]);
	CHECK_INT(d0.deadline_ns - now, MS(5));
	smt_sched_charge(s, c[2], now, now + MS(1), false, 1);
	now += MS(1);
	/* Two ready on two workers again: alone from now on, not before. */
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(!d0.lone);
	smt_sched_charge(s, d0.client, now, now + MS(1), true, 1);
	/* Three busy clients on two workers: nobody is lone, however long. */
	smt_sched_set_ready(s, c[2], true, now);
	now += MS(1000);
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(!d0.lone);
	smt_sched_charge(s, d0.client, now, now + MS(1), true, 1);
	/* A third worker: nobody waits from the latest time the scheduler
	 * saw (the charge, now + 1 ms) on, and a second later all three are
	 * lone. */
	smt_sched_set_workers(s, 3);
	CHECK(smt_sched_pick(s, now + MS(1000), &d0));
	CHECK(!d0.lone);
	smt_sched_charge(s, d0.client, now + MS(1000), now + MS(1001), true, 1);
	now += MS(1001);
	for (int i = 0; i < 3; i++) {
		CHECK(smt_sched_pick(s, now, &d[i]));
		CHECK(d[i].lone);
	}
	/* Back to two: the third waits, the long slices end. */
	smt_sched_set_workers(s, 2);
	CHECK(smt_sched_should_yield(s, d[0].client, now + MS(1)));
	for (int i = 0; i < 3; i++) {
		smt_sched_charge(s, d[i].client, now, now + MS(1), true, 1);
	}
	CHECK(smt_sched_pick(s, now + MS(1), &d0));
	CHECK(!d0.lone);
	smt_sched_charge(s, d0.client, now + MS(1), now + MS(2), true, 1);
	remove_all(s, c, 3);
}

static void test_fifo_single_runner(void)
{
	current_test = "fifo runs one client at a time whatever the workers";
	struct smt_sched *s = new_sched(true, 4);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 3, now);
	struct smt_sched_decision d;
	for (int k = 0; k < 6; k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK_INT((intptr_t)d.owner, k % 3);
		CHECK(d.drain_all);
		struct smt_sched_decision no;
		CHECK(!smt_sched_pick(s, now, &no));
		CHECK_INT(smt_sched_running_count(s), 1);
		smt_sched_charge(s, d.client, now, now + MS(1), true, 10);
		now += MS(1);
	}
	remove_all(s, c, 3);
}

/* A run paused for the glue (a worker's PRESENT handed to the main
 * thread): fifo keeps the one runner's turn with that client, nobody else
 * runs until it is ready again and picked; reported empty instead, the
 * rotation goes on. */
static void test_fifo_pause_keeps_turn(void)
{
	current_test = "fifo: a run paused for the main thread keeps the turn";
	struct smt_sched *s = new_sched(true, 2);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 3, now);
	struct smt_sched_decision d, no;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge_paused(s, c[0], now, now + US(50), 3);
	CHECK(!smt_sched_client_ready(c[0]));
	CHECK_INT(smt_sched_running_count(s), 0);
	/* c1 and c2 are ready, the runner is free: its turn is still c0's */
	CHECK(!smt_sched_pick(s, now + US(60), &no));
	smt_sched_charge_for(s, c[0], now + US(60), now + US(160)); /* the copy */
	smt_sched_set_ready(s, c[0], true, now + US(170));
	CHECK(smt_sched_pick(s, now + US(170), &d));
	CHECK(d.client == c[0]);
	smt_sched_charge(s, c[0], now + US(170), now + US(300), true, 7);
	CHECK(smt_sched_pick(s, now + US(300), &d));
	CHECK(d.client == c[1]); /* then the rotation, in ring order */
	smt_sched_charge_paused(s, c[1], now + US(300), now + US(400), 1);
	CHECK(!smt_sched_pick(s, now + US(400), &no));
	smt_sched_set_ready(s, c[1], false, now + US(450)); /* nothing after it */
	CHECK(smt_sched_pick(s, now + US(450), &d));
	CHECK(d.client == c[2]);
	smt_sched_charge(s, c[2], now + US(450), now + US(500), true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[0], now + US(500), &st);
	CHECK_INT(st.run_ns, US(50) + US(100) + US(130)); /* both runs and the copy */
	CHECK_INT(st.commands, 10);
	/* A paused client removed: the runner is free again. */
	CHECK(smt_sched_pick(s, now + US(500), &d));
	CHECK(d.client == c[0]);
	smt_sched_charge_paused(s, c[0], now + US(500), now + US(600), 1);
	smt_sched_client_remove(s, c[0]);
	CHECK(smt_sched_pick(s, now + US(600), &d));
	CHECK(d.client == c[1] || d.client == c[2]);
	smt_sched_charge(s, d.client, now + US(600), now + US(700), true, 1);
	c[0] = smt_sched_client_add(s, (void *)0, now + US(700));
	remove_all(s, c, 3);
}

/* Fair: a paused run keeps the rest of its slice, less the glue's time
 * charged for it, and is picked first among equals when ready again. */
static void test_fair_pause_keeps_rest(void)
{
	current_test = "fair: a run paused for the main thread keeps the rest of its slice";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[2];
	uint64_t now = T0;
	add_ready(s, c, 2, now);
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge_paused(s, c[0], now, now + MS(1), 2);
	/* another worker may run meanwhile (fair is not single-runner) */
	CHECK(smt_sched_pick(s, now + MS(1), &d));
	CHECK(d.client == c[1]);
	smt_sched_charge_for(s, c[0], now + MS(1), now + MS(1.5)); /* the copy */
	smt_sched_set_ready(s, c[0], true, now + MS(1.5));
	smt_sched_charge(s, c[1], now + MS(1), now + MS(6), true, 1);
	CHECK(smt_sched_pick(s, now + MS(6), &d));
	CHECK(d.client == c[0]);
	CHECK_INT(d.deadline_ns - (now + MS(6)), MS(3.5)); /* 5 - 1 - 0.5 */
	smt_sched_charge(s, c[0], now + MS(6), d.deadline_ns, true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[0], now + MS(9.5), &st);
	CHECK_INT(st.slices, 1);
	CHECK_INT(st.run_ns, MS(5));
	/* Paused and then found empty: its turn is over. (c0 was picked
	 * longer ago than c1, both at priority -1 now.) */
	CHECK_INT(prio(s, c[0], now + MS(9.5)), prio(s, c[1], now + MS(9.5)));
	CHECK(smt_sched_pick(s, now + MS(9.5), &d));
	CHECK(d.client == c[0]);
	smt_sched_charge_paused(s, c[0], now + MS(9.5), now + MS(10.5), 1);
	smt_sched_set_ready(s, c[0], false, now + MS(10.5));
	smt_sched_set_ready(s, c[0], true, now + MS(11));
	CHECK(smt_sched_pick(s, now + MS(11), &d));
	CHECK(d.client == c[1]); /* c0 has no turn left to resume */
	smt_sched_charge(s, c[1], now + MS(11), now + MS(12), true, 1);
	remove_all(s, c, 2);
}

static void test_remove_running(void)
{
	current_test = "removing a running client";
	struct smt_sched *s = new_sched(false, 2);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 3, now);
	struct smt_sched_decision d0, d1, d;
	CHECK(smt_sched_pick(s, now, &d0));
	CHECK(smt_sched_pick(s, now, &d1));
	CHECK(!smt_sched_pick(s, now, &d));
	smt_sched_client_remove(s, c[0]); /* dies on its worker */
	CHECK_INT(smt_sched_running_count(s), 1);
	CHECK_INT(smt_sched_ready_count(s), 2);
	CHECK(smt_sched_should_yield(s, NULL, now));
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[2]);
	smt_sched_client_remove(s, c[2]);
	smt_sched_charge(s, c[1], now, now + MS(5), true, 1);
	CHECK_INT(smt_sched_running_count(s), 0);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[1]);
	smt_sched_client_remove(s, c[1]);
	CHECK_INT(smt_sched_running_count(s), 0);
	CHECK(!smt_sched_pick(s, now, &d));
	smt_sched_destroy(s);
}

static void test_anyone_waiting(void)
{
	current_test = "a ready client that is not running waits for a worker";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[2];
	uint64_t now = T0;
	c[0] = smt_sched_client_add(s, (void *)(intptr_t)0, now);
	c[1] = smt_sched_client_add(s, (void *)(intptr_t)1, now);
	CHECK(!smt_sched_anyone_waiting(s));
	smt_sched_set_ready(s, c[0], true, now);
	CHECK(smt_sched_anyone_waiting(s));
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	/* The one ready client runs: nobody waits (its worker may spin on
	 * its ring when it runs dry). */
	CHECK(!smt_sched_anyone_waiting(s));
	/* Another ring's publish reported: it waits (the worker ends its run
	 * instead). */
	smt_sched_set_ready(s, c[1], true, now + US(10));
	CHECK(smt_sched_anyone_waiting(s));
	smt_sched_charge(s, c[0], now, now + US(100), false, 1);
	CHECK(smt_sched_anyone_waiting(s));
	CHECK(smt_sched_pick(s, now + US(100), &d));
	CHECK(d.client == c[1]);
	CHECK(!smt_sched_anyone_waiting(s));
	smt_sched_charge(s, c[1], now + US(100), now + US(200), false, 1);
	CHECK(!smt_sched_anyone_waiting(s));
	remove_all(s, c, 2);
}

static void test_unpenalised(void)
{
	current_test = "a client at or above prio_base is unpenalised";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[2];
	uint64_t now = T0;
	add_ready(s, c, 2, now);
	CHECK(smt_sched_client_unpenalised(s, c[0]));
	/* c0 floods: its run time pushes it below base. */
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge(s, c[0], now, now + MS(5), true, 1);
	CHECK(prio(s, c[0], now + MS(5)) < 0);
	CHECK(!smt_sched_client_unpenalised(s, c[0]));
	CHECK(smt_sched_client_unpenalised(s, c[1]));
	/* Input lifts it above base again. */
	smt_sched_input(s, c[0], now + MS(5));
	CHECK(smt_sched_client_unpenalised(s, c[0]));
	remove_all(s, c, 2);

	/* fifo has no priorities: never. */
	s = new_sched(true, 1);
	add_ready(s, c, 1, now);
	CHECK(!smt_sched_client_unpenalised(s, c[0]));
	remove_all(s, c, 1);
}

static void test_set_workers_live(void)
{
	current_test = "the number of workers changed live";
	struct smt_sched *s = new_sched(false, 3);
	struct smt_sched_client *c[4];
	uint64_t now = T0;
	add_ready(s, c, 4, now);
	struct smt_sched_decision d[4];
	for (int i = 0; i < 3; i++) {
		CHECK(smt_sched_pick(s, now, &d[i]));
	}
	CHECK(!smt_sched_pick(s, now, &d[3]));
	smt_sched_set_workers(s, 1); /* fewer than runs in progress */
	/* Whole slices, so no turn is left to resume. */
	now += MS(5);
	smt_sched_charge(s, d[0].client, T0, now, true, 1);
	CHECK(!smt_sched_pick(s, now, &d[3]));
	smt_sched_charge(s, d[1].client, T0, now, true, 1);
	CHECK(!smt_sched_pick(s, now, &d[3]));
	smt_sched_charge(s, d[2].client, T0, now, true, 1);
	CHECK(smt_sched_pick(s, now, &d[3]));
	CHECK(d[3].client == c[3]);
	CHECK(!smt_sched_pick(s, now + MS(1), &d[0]));
	smt_sched_set_workers(s, 0); /* counts as one */
	CHECK(!smt_sched_pick(s, now + MS(1), &d[0]));
	smt_sched_set_workers(s, 4);
	for (int i = 0; i < 3; i++) {
		CHECK(smt_sched_pick(s, now + MS(1), &d[i]));
	}
	CHECK_INT(smt_sched_running_count(s), 4);
	for (int i = 0; i < 4; i++) {
		smt_sched_charge(s, d[i].client, now + MS(1), now + MS(2), true, 1);
	}
	remove_all(s, c, 4);
}

/* M flooders on N workers for 10 simulated seconds: each gets N/M of the
 * time within 10 %, all workers stay busy, no client ever runs twice. */
static void sim_fair(unsigned workers, int flooders)
{
	struct wsim sim;
	wsim_init(&sim, false, workers, PIECE, T0, 10);
	sim.warmup = T0 + MS(1000);
	for (int i = 0; i < flooders; i++) {
		/* Commands of 0.05 .. 0.6 ms: overshoots differ. */
		wsim_add_flooder(&sim, US(50) + US(50) * (uint64_t)(i % 12));
	}
	wsim_run(&sim);
	double span = (double)(sim.end - sim.warmup), fair = span * workers / flooders;
	double lo = 1e9, hi = 0, total = 0;
	for (int i = 0; i < flooders; i++) {
		double share = (double)sim.clients[i].run_ns / fair;
		lo = share < lo ? share : lo;
		hi = share > hi ? share : hi;
		total += (double)sim.clients[i].run_ns;
	}
	printf("  %u workers, %2d flooders: share of fair %.3f .. %.3f, busy %.3f\n", workers,
			flooders, lo, hi, total / (span * workers));
	CHECK(lo >= 0.9);
	CHECK(hi <= 1.1);
	CHECK(total >= 0.99 * span * workers);
	CHECK_INT(sim.double_runs, 0);
	CHECK_INT(sim.over_runs, 0);
	CHECK_INT(sim.max_running, workers);
	wsim_finish(&sim);
}

static void test_sim_fair(void)
{
	current_test = "simulation: fair shares with N workers";
	printf("flooders on N workers, 9 simulated seconds after a second's warm-up:\n");
	sim_fair(2, 3);
	sim_fair(2, 12);
	sim_fair(3, 7);
	sim_fair(4, 12);
	sim_fair(8, 12);
	sim_fair(16, 32);
}

/* An echo client (one 50 us command every 10 ms, with input) among flooders
 * that keep every worker busy: it waits at most one piece plus one command
 * of overshoot, on any number of workers. Without input it still gets in,
 * later. */
static void test_sim_boost_reach(void)
{
	current_test = "simulation: input boost reaches a waiting client within a piece";
	printf("echo (50 us every 10 ms) among 12 flooders, 10 simulated seconds:\n");
	for (unsigned workers = 1; workers <= 8; workers *= 2) {
		struct wsim sim;
		wsim_init(&sim, false, workers, PIECE, T0, 10);
		sim.warmup = T0 + MS(1000);
		for (int i = 0; i < 12; i++) {
			wsim_add_flooder(&sim, US(100));
		}
		struct wsim_client *echo = wsim_add_bursty(
				&sim, US(50), 1, MS(10), T0 + MS(3.3), true);
		wsim_run(&sim);
		uint64_t p50 = wsim_wait_quantile(echo, 0.5), max = wsim_wait_quantile(echo, 1);
		printf("  %u workers: %zu echoes, wait p50 %.3f ms max %.3f ms\n", workers,
				echo->n_waits, (double)p50 / 1e6, (double)max / 1e6);
		CHECK(echo->n_waits >= 890);
		CHECK(max <= PIECE + US(100));
		CHECK_INT(sim.double_runs, 0);
		wsim_finish(&sim);
	}
}

/* Fifo on 4 simulated workers: one runs, the rest idle. */
static void test_sim_fifo(void)
{
	current_test = "simulation: fifo keeps one runner";
	struct wsim sim;
	wsim_init(&sim, true, 4, PIECE, T0, 2);
	for (int i = 0; i < 6; i++) {
		wsim_add_flooder(&sim, US(100));
	}
	wsim_run(&sim);
	CHECK_INT(sim.max_running, 1);
	uint64_t total = 0;
	for (int i = 0; i < 6; i++) {
		total += sim.clients[i].run_ns;
		CHECK(sim.clients[i].picks > 0);
	}
	CHECK(total <= sim.end - sim.warmup);
	CHECK(total >= (sim.end - sim.warmup) * 99 / 100);
	wsim_finish(&sim);
}

/* Workers taken away and given back in the middle of a run. */
static void test_sim_workers_change(void)
{
	current_test = "simulation: workers changed during a run";
	struct wsim sim;
	wsim_init(&sim, false, 4, PIECE, T0, 3);
	for (int i = 0; i < 6; i++) {
		wsim_add_flooder(&sim, US(100));
	}
	wsim_run_until(&sim, T0 + MS(1000));
	smt_sched_set_workers(sim.sched, 2);
	/* The simulation still has 4 workers: only 2 may run from now on,
	 * once the runs in progress end (a slice at most). */
	sim.max_running = 0;
	wsim_run_until(&sim, T0 + MS(1006));
	sim.max_running = 0;
	wsim_run_until(&sim, T0 + MS(2000));
	CHECK_INT(sim.max_running, 2);
	smt_sched_set_workers(sim.sched, 4);
	wsim_run(&sim);
	CHECK_INT(sim.max_running, 4);
	CHECK_INT(sim.double_runs, 0);
	wsim_finish(&sim);
}

static void test_boost_lane(void)
{
	current_test = "the boost lane runs a client sent input while every worker runs";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 2, now); /* c0, c1: flooders */
	c[2] = smt_sched_client_add(s, (void *)2, now);
	struct smt_sched_decision d, lane;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	/* Ready but sent no input: the ordinary pool's. */
	smt_sched_set_ready(s, c[2], true, now);
	CHECK(!smt_sched_lane_waiting(s, now));
	CHECK(!smt_sched_pick_lane(s, now, &lane));
	/* Sent input: the lane takes it beside the busy worker, within a slice. */
	smt_sched_input(s, c[2], now + MS(1));
	CHECK(smt_sched_lane_waiting(s, now + MS(1)));
	CHECK(smt_sched_pick_lane(s, now + MS(1), &lane));
	CHECK(lane.client == c[2]);
	CHECK(lane.deadline_ns > now + MS(1) && lane.deadline_ns <= now + MS(1) + MS(5));
	/* Not one of the workers' runs; one lane run at a time; the ring runs
	 * on one thread at a time: the worker's next pick is a flooder. */
	CHECK_INT(smt_sched_running_count(s), 1);
	CHECK(!smt_sched_pick_lane(s, now + MS(1), &d));
	CHECK(!smt_sched_pick(s, now + MS(1), &d)); /* the one worker runs c0 */
	/* The lane's run does not make the flooder yield (it is not waiting). */
	CHECK(!smt_sched_should_yield(s, c[0], now + MS(1)));
	smt_sched_charge(s, c[0], now - MS(3), now + MS(2), true, 1); /* a whole slice */
	CHECK(smt_sched_pick(s, now + MS(2), &d));
	CHECK(d.client == c[1]);
	/* Charged like any run (its run time counted); the lane is free again. */
	smt_sched_charge(s, c[2], now + MS(1), now + MS(2), true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[2], now + MS(2), &st);
	CHECK(st.run_ns == MS(1));
	CHECK_INT(smt_sched_running_count(s), 1);
	/* Mid-stream between lanes: still ready, still within the input's
	 * interval: the lane again while the worker runs c1 ... */
	CHECK(smt_sched_pick_lane(s, now + MS(2), &lane));
	CHECK(lane.client == c[2]);
	smt_sched_charge(s, c[2], now + MS(2), now + MS(3), true, 1);
	/* ... then, the interval (twice the slice) over, the ordinary pool's:
	 * the worker picks it at its next pick (its priority above the
	 * flooders'). */
	CHECK(!smt_sched_lane_waiting(s, now + MS(12)));
	smt_sched_charge(s, c[1], now + MS(2), now + MS(12), true, 1);
	CHECK(smt_sched_pick(s, now + MS(12), &d));
	CHECK(d.client == c[2]);
	CHECK(!smt_sched_pick_lane(s, now + MS(12), &lane)); /* running: never twice */
	smt_sched_charge(s, c[2], now + MS(12), now + MS(13), true, 1);
	/* A free worker takes it itself: no lane then. */
	smt_sched_input(s, c[2], now + MS(13));
	CHECK(!smt_sched_lane_waiting(s, now + MS(13)));
	CHECK(smt_sched_pick(s, now + MS(13), &d));
	CHECK(d.client == c[2]);
	smt_sched_charge(s, c[2], now + MS(13), now + MS(14), true, 1);
	remove_all(s, c, 3);
}

static void test_boost_lane_penalised_removed_fifo(void)
{
	current_test = "the boost lane: not a penalised client; removal frees it; never in fifo";
	struct smt_sched *s = new_sched(false, 1);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	add_ready(s, c, 3, now);
	struct smt_sched_decision d, lane;
	/* c0 runs a long run and sinks below base ... */
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge(s, c[0], now, now + MS(20), true, 1);
	CHECK(prio(s, c[0], now + MS(20)) < 0);
	CHECK(smt_sched_pick(s, now + MS(20), &d));
	CHECK(d.client == c[1]);
	/* ... so input to it does not put it on the lane (the boost lifts
	 * it by one level, still below base); input to c2 does. */
	smt_sched_input(s, c[0], now + MS(20));
	CHECK(prio(s, c[0], now + MS(20)) < 0);
	CHECK(!smt_sched_lane_waiting(s, now + MS(20)));
	smt_sched_input(s, c[2], now + MS(20));
	CHECK(smt_sched_pick_lane(s, now + MS(20), &lane));
	CHECK(lane.client == c[2]);
	/* Ended while on the lane: the lane is free, the worker's run counted
	 * as before. */
	smt_sched_client_remove(s, c[2]);
	CHECK_INT(smt_sched_running_count(s), 1);
	c[2] = smt_sched_client_add(s, (void *)2, now + MS(21));
	smt_sched_set_ready(s, c[2], true, now + MS(21));
	smt_sched_input(s, c[2], now + MS(21));
	CHECK(smt_sched_pick_lane(s, now + MS(21), &lane));
	CHECK(lane.client == c[2]);
	smt_sched_charge(s, c[2], now + MS(21), now + MS(22), false, 1);
	smt_sched_charge(s, c[1], now + MS(20), now + MS(22), true, 1);
	remove_all(s, c, 3);

	s = new_sched(true, 1);
	add_ready(s, c, 2, now);
	c[2] = smt_sched_client_add(s, (void *)2, now);
	CHECK(smt_sched_pick(s, now, &d));
	smt_sched_set_ready(s, c[2], true, now);
	smt_sched_input(s, c[2], now);
	CHECK(!smt_sched_lane_waiting(s, now)); /* the seed's one runner */
	CHECK(!smt_sched_pick_lane(s, now, &lane));
	smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
	remove_all(s, c, 3);

	/* [scheduler] boost-lane = 0: no lane; 1 again (live): the lane. */
	s = new_sched(false, 1);
	add_ready(s, c, 2, now);
	c[2] = smt_sched_client_add(s, (void *)2, now);
	CHECK(smt_sched_pick(s, now, &d));
	smt_sched_set_ready(s, c[2], true, now);
	smt_sched_input(s, c[2], now);
	struct smt_sched_params p;
	smt_sched_get_params(s, &p);
	CHECK_INT(p.boost_lane, 1); /* the default */
	p.boost_lane = 0;
	CHECK(smt_sched_set_params(s, &p));
	CHECK(!smt_sched_lane_waiting(s, now));
	CHECK(!smt_sched_pick_lane(s, now, &lane));
	p.boost_lane = 1;
	CHECK(smt_sched_set_params(s, &p));
	CHECK(smt_sched_pick_lane(s, now, &lane));
	CHECK(lane.client == c[2]);
	smt_sched_charge(s, c[2], now, now + MS(1), true, 1);
	smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
	remove_all(s, c, 3);
}

int main(void)
{
	test_no_double_run();
	test_turn_resumes();
	test_preempted_turn_kept();
	test_highest_gets_next_worker();
	test_boost_preempts_less_favoured();
	test_lone_generalised();
	test_fifo_single_runner();
	test_fifo_pause_keeps_turn();
	test_fair_pause_keeps_rest();
	test_remove_running();
	test_boost_lane();
	test_boost_lane_penalised_removed_fifo();
	test_anyone_waiting();
	test_unpenalised();
	test_set_workers_live();
	test_sim_fair();
	test_sim_boost_reach();
	test_sim_fifo();
	test_sim_workers_change();
	if (failures > 0) {
		fprintf(stderr, "test_sched_workers: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_sched_workers: all passed\n");
	return 0;
}
