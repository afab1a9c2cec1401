/* Unit tests for compositor/sched: the scheduler's decisions on a fake clock,
 * then simulations of a compositor loop (fair against the seed's fifo). */
#include "compositor/sched/sched.h"
#include "tests/unit/unit_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MS(x) ((uint64_t)((x)*1000000.0))
#define US(x) ((uint64_t)((x)*1000.0))

/* Fake clock starting well above 0, so "0 = no deadline" is never hit. */
#define T0 MS(1000)

static struct smt_sched *new_sched(bool fifo)
{
	struct smt_sched_params p;
	smt_sched_params_default(&p);
	p.fifo = fifo;
	struct smt_sched *s = smt_sched_create(&p);
	if (s == NULL) {
		fprintf(stderr, "smt_sched_create failed\n");
		exit(1);
	}
	return s;
}

static int prio(struct smt_sched *s, struct smt_sched_client *c, uint64_t now)
{
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c, now, &st);
	return st.priority;
}

/* Picks and runs the chosen client until its deadline: a whole slice with
 * work left. Returns the owner (an index) or -1. */
static int run_whole(struct smt_sched *s, uint64_t *now)
{
	struct smt_sched_decision d;
	if (!smt_sched_pick(s, *now, &d)) {
		return -1;
	}
	uint64_t start = *now;
	*now = d.deadline_ns;
	smt_sched_charge(s, d.client, start, *now, true, 100);
	return (int)(intptr_t)d.owner;
}

static void test_params(void)
{
	current_test = "params";
	struct smt_sched_params p, got;
	smt_sched_params_default(&p);
	CHECK(smt_sched_params_valid(&p));
	CHECK(!p.fifo);
	CHECK_INT(p.slice_ns, MS(5));
	CHECK_INT(p.lone_slice_ns, MS(15));
	CHECK_INT(p.lone_after_ns, MS(1000));
	CHECK_INT(p.prio_base, 0);
	CHECK_INT(p.prio_min, -20);
	CHECK_INT(p.prio_max, 20);
	CHECK_INT(p.input_boost, 1);
	CHECK_INT(p.fifo_commands, 10);

	struct smt_sched *s = smt_sched_create(&p);
	CHECK(s != NULL);
	smt_sched_get_params(s, &got);
	CHECK_INT(got.idle_praise_ns, MS(10)); /* 0 = twice the slice */
	CHECK_INT(got.input_boost_interval_ns, MS(10));

	struct smt_sched_params bad = p;
	bad.prio_base = 21;
	CHECK(!smt_sched_params_valid(&bad));
	CHECK(smt_sched_create(&bad) == NULL);
	CHECK(!smt_sched_set_params(s, &bad));
	bad = p;
	bad.slice_ns = 0;
	CHECK(!smt_sched_params_valid(&bad));
	bad = p;
	bad.fifo_commands = 0;
	CHECK(!smt_sched_params_valid(&bad));
	bad = p;
	bad.input_boost = -1;
	CHECK(!smt_sched_params_valid(&bad));
	smt_sched_get_params(s, &got);
	CHECK_INT(got.slice_ns, MS(5)); /* rejected changes leave the old ones */
	smt_sched_destroy(s);
}

static void test_round_robin(void)
{
	current_test = "round robin among equals";
	struct smt_sched *s = new_sched(false);
	struct smt_sched_client *c[3];
	uint64_t now = T0;
	for (int i = 0; i < 3; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
	}
	/* Made ready in reverse: the order of add breaks the first tie. */
	for (int i = 2; i >= 0; i--) {
		smt_sched_set_ready(s, c[i], true, now);
	}
	CHECK_INT(smt_sched_ready_count(s), 3);
	for (int k = 0; k < 60; k++) {
		CHECK_INT(run_whole(s, &now), k % 3);
	}
	/* Each waited for the two others' slices at most. */
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[2], now, &st);
	CHECK_INT(st.slices, 20);
	CHECK_INT(st.wait_max_ns, MS(10));
	CHECK_INT(st.wait_total_ns, MS(10) * 20);
	CHECK_INT(st.run_ns, MS(5) * 20);
	CHECK_INT(st.commands, 100 * 20);
	/* Turns that end short because the ring ran dry alternate too. */
	struct smt_sched_decision d;
	for (int k = 0; k < 6; k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK_INT((intptr_t)d.owner, k % 3);
		smt_sched_charge(s, d.client, now, now + US(100), false, 1);
		now += US(100);
		smt_sched_set_ready(s, d.client, true, now);
	}
	for (int i = 0; i < 3; i++) {
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

static void test_interrupted_turn(void)
{
	current_test = "a slice cut short continues at the next pick";
	struct smt_sched *s = new_sched(false);
	struct smt_sched_client *c[2];
	uint64_t now = T0;
	for (int i = 0; i < 2; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		smt_sched_set_ready(s, c[i], true, now);
	}
	/* The event loop interrupts every 1 ms: client 0 keeps the turn for
	 * its whole 5 ms, in five pieces, each deadline the rest of the slice. */
	struct smt_sched_decision d;
	for (int k = 0; k < 5; k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK_INT((intptr_t)d.owner, 0);
		CHECK_INT(d.deadline_ns - now, MS(5) - MS(k));
		smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
		now += MS(1);
	}
	CHECK(smt_sched_pick(s, now, &d));
	CHECK_INT((intptr_t)d.owner, 1);
	/* A ring that runs dry ends its turn: ready again, it starts a new
	 * one (client 0 paid a penalty for its 5 ms, so 1 goes first). */
	smt_sched_charge(s, d.client, now, now + MS(1), false, 1);
	now += MS(1);
	smt_sched_set_ready(s, c[1], true, now);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK_INT((intptr_t)d.owner, 1);
	CHECK_INT(d.deadline_ns - now, MS(5));
	smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, c[0], now, &st);
	CHECK_INT(st.slices, 1); /* turns, not pieces */
	smt_sched_client_stats(s, c[1], now, &st);
	CHECK_INT(st.slices, 2);
	for (int i = 0; i < 2; i++) {
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

static void test_penalty_praise(void)
{
	current_test = "penalty and praise";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *a = smt_sched_client_add(s, NULL, now);
	smt_sched_set_ready(s, a, true, now);
	for (int k = 1; k <= 5; k++) {
		run_whole(s, &now);
		CHECK_INT(prio(s, a, now), -k); /* a whole slice with work left: -1 */
	}
	/* Run time is carried across slices: two half slices cost one. */
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	smt_sched_charge(s, a, now, now + MS(2.5), false, 1);
	now += MS(2.5);
	CHECK_INT(prio(s, a, now), -5);
	smt_sched_set_ready(s, a, true, now);
	CHECK(smt_sched_pick(s, now, &d));
	smt_sched_charge(s, a, now, now + MS(2.5), false, 1);
	now += MS(2.5);
	CHECK_INT(prio(s, a, now), -6);

	/* Idle: +1 per 10 ms (2 slices), never above base. */
	CHECK_INT(prio(s, a, now + MS(9)), -6);
	CHECK_INT(prio(s, a, now + MS(10)), -5);
	CHECK_INT(prio(s, a, now + MS(35)), -3);
	CHECK_INT(prio(s, a, now + MS(1000)), 0);
	now += MS(1000);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, a, now, &st);
	CHECK_INT(st.penalties, 6);
	CHECK_INT(st.praises, 6);

	/* Short idle gaps add up: 6 ms + 6 ms idle earns one level. */
	smt_sched_set_ready(s, a, true, now);
	run_whole(s, &now); /* -1 */
	smt_sched_set_ready(s, a, false, now);
	now += MS(6);
	smt_sched_set_ready(s, a, true, now);
	CHECK_INT(prio(s, a, now), -1);
	smt_sched_set_ready(s, a, false, now);
	now += MS(6);
	smt_sched_set_ready(s, a, true, now);
	CHECK_INT(prio(s, a, now), 0);

	/* Waiting while ready earns nothing: a busy client queued behind a
	 * higher one stays down. */
	struct smt_sched_client *b = smt_sched_client_add(s, NULL, now);
	for (int k = 0; k < 3; k++) {
		run_whole(s, &now); /* only a is ready: a goes to -3 */
	}
	smt_sched_set_ready(s, b, true, now);
	for (int k = 0; k < 10; k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK(d.client == b); /* b at 0..-2 stays ahead of a at -3 */
		smt_sched_charge(s, b, now, now + MS(1), true, 1);
		now += MS(1);
	}
	CHECK_INT(prio(s, a, now), -3);
	smt_sched_client_remove(s, a);
	smt_sched_client_remove(s, b);
	smt_sched_destroy(s);
}

static void test_input_boost(void)
{
	current_test = "input boost";
	struct smt_sched_params p;
	smt_sched_params_default(&p);
	p.prio_max = 3;
	struct smt_sched *s = smt_sched_create(&p);
	uint64_t now = T0;
	struct smt_sched_client *a = smt_sched_client_add(s, NULL, now);
	smt_sched_input(s, a, now);
	CHECK_INT(prio(s, a, now), 1);
	/* A burst of motion events within 10 ms is one boost. */
	for (int k = 0; k < 9; k++) {
		now += MS(1);
		smt_sched_input(s, a, now);
	}
	CHECK_INT(prio(s, a, now), 1);
	now += MS(1);
	smt_sched_input(s, a, now);
	CHECK_INT(prio(s, a, now), 2);
	for (int k = 0; k < 10; k++) {
		now += MS(10);
		smt_sched_input(s, a, now);
	}
	CHECK_INT(prio(s, a, now), 3); /* max, and not beyond */
	struct smt_sched_stats st;
	smt_sched_client_stats(s, a, now, &st);
	CHECK_INT(st.boosts, 3);
	CHECK_INT(st.inputs, 21);

	/* The boost works from below base too, and its size is a parameter. */
	smt_sched_set_ready(s, a, true, now);
	for (int k = 0; k < 5; k++) {
		run_whole(s, &now);
	}
	CHECK_INT(prio(s, a, now), -2);
	p.input_boost = 2;
	CHECK(smt_sched_set_params(s, &p));
	smt_sched_input(s, a, now);
	CHECK_INT(prio(s, a, now), 0);
	now += MS(10);
	smt_sched_input(s, a, now);
	now += MS(10);
	smt_sched_input(s, a, now);
	CHECK_INT(prio(s, a, now), 3);
	p.input_boost = 0;
	CHECK(smt_sched_set_params(s, &p));
	run_whole(s, &now);
	now += MS(10);
	smt_sched_input(s, a, now);
	CHECK_INT(prio(s, a, now), 2); /* 0 disables boosting */
	smt_sched_client_remove(s, a);
	smt_sched_destroy(s);
}

static void test_highest_first(void)
{
	current_test = "highest priority first";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *c[3];
	for (int i = 0; i < 3; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		smt_sched_set_ready(s, c[i], true, now);
	}
	smt_sched_input(s, c[2], now);
	smt_sched_input(s, c[1], now);
	smt_sched_input(s, c[1], now + MS(10)); /* c1: 2, c2: 1, c0: 0 */
	now += MS(10);
	struct smt_sched_decision d;
	for (int k = 0; k < 3; k++) { /* short slices: c1 keeps its level */
		CHECK(smt_sched_pick(s, now, &d));
		CHECK(d.client == c[1]);
		smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
		now += MS(1);
	}
	smt_sched_set_ready(s, c[1], false, now);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[2]);
	smt_sched_charge(s, d.client, now, now + MS(1), false, 1);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge(s, d.client, now, now + MS(1), false, 1);
	CHECK(!smt_sched_pick(s, now, &d));
	CHECK(d.client == NULL);
	for (int i = 0; i < 3; i++) {
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

/* A more favoured client that becomes ready ends an equal's slice early;
 * an equal does not. */
static void test_preempt(void)
{
	current_test = "preemption by a more favoured client";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *flood = smt_sched_client_add(s, (void *)1, now);
	struct smt_sched_client *peer = smt_sched_client_add(s, (void *)2, now);
	struct smt_sched_client *light = smt_sched_client_add(s, (void *)3, now);
	smt_sched_set_ready(s, flood, true, now);
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == flood);
	now += MS(1);
	smt_sched_set_ready(s, peer, true, now);
	CHECK(!smt_sched_should_yield(s, flood, now)); /* an equal waits for the slice end */
	smt_sched_input(s, light, now);                /* light is boosted above base */
	smt_sched_set_ready(s, light, true, now);
	CHECK(smt_sched_should_yield(s, flood, now)); /* ...and preempts at once */
	smt_sched_charge(s, flood, now - MS(1), now, true, 10);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == light);
	smt_sched_charge(s, light, now, now + US(100), false, 1);
	smt_sched_client_remove(s, flood);
	smt_sched_client_remove(s, peer);
	smt_sched_client_remove(s, light);
	smt_sched_destroy(s);
}

static void test_lone(void)
{
	current_test = "lone busy client";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *a = smt_sched_client_add(s, NULL, now);
	struct smt_sched_client *b = smt_sched_client_add(s, NULL, now);
	smt_sched_set_ready(s, a, true, now);
	uint64_t alone_from = now;
	struct smt_sched_decision d;
	/* Normal slices for the first second alone, with a short blip of
	 * an empty ring on the way (not a rest: the streak goes on). */
	while (now - alone_from < MS(1000)) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK(!d.lone);
		CHECK_INT(d.deadline_ns - now, MS(5));
		smt_sched_charge(s, a, now, d.deadline_ns, true, 1);
		now = d.deadline_ns;
		if (now - alone_from == MS(500)) {
			smt_sched_set_ready(s, a, false, now);
			now += MS(1);
			smt_sched_set_ready(s, a, true, now);
		}
	}
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.lone);
	CHECK_INT(d.deadline_ns - now, MS(15));
	CHECK(!smt_sched_should_yield(s, a, now + MS(3)));
	/* Another client becomes ready: the long slice ends at once. */
	smt_sched_set_ready(s, b, true, now + MS(3));
	CHECK(smt_sched_should_yield(s, a, now + MS(3)));
	smt_sched_charge(s, a, now, now + MS(3), true, 1);
	now += MS(3);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(!d.lone);
	CHECK(d.client == b); /* a was picked more recently */
	CHECK_INT(d.deadline_ns - now, MS(5));
	CHECK(!smt_sched_should_yield(s, b, now + MS(4)));
	CHECK(smt_sched_should_yield(s, b, now + MS(5)));
	smt_sched_charge(s, b, now, now + MS(1), false, 1);
	now += MS(1);
	/* Alone again: the second starts over. */
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(!d.lone);
	smt_sched_charge(s, a, now, now + MS(999), true, 1);
	now += MS(999);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(!d.lone);
	smt_sched_charge(s, a, now, now + MS(1), true, 1);
	now += MS(1);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.lone);
	smt_sched_charge(s, a, now, now + MS(15), true, 1);
	now += MS(15);
	/* A real rest (not a blip) ends the streak too. */
	smt_sched_set_ready(s, a, false, now);
	now += MS(50);
	smt_sched_set_ready(s, a, true, now);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(!d.lone);
	smt_sched_charge(s, a, now, now + MS(5), true, 1);
	struct smt_sched_stats st;
	smt_sched_client_stats(s, a, now, &st);
	CHECK_INT(st.lone_slices, 2);
	smt_sched_client_remove(s, a);
	smt_sched_client_remove(s, b);
	smt_sched_destroy(s);
}

static void test_fifo(void)
{
	current_test = "fifo";
	struct smt_sched *s = new_sched(true);
	uint64_t now = T0;
	struct smt_sched_client *c[4];
	for (int i = 0; i < 4; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
	}
	smt_sched_set_ready(s, c[2], true, now);
	smt_sched_set_ready(s, c[0], true, now);
	smt_sched_set_ready(s, c[3], true, now);
	smt_sched_input(s, c[3], now); /* no priorities in fifo */
	struct smt_sched_decision d;
	static const int order[] = { 0, 2, 3, 0, 2, 3, 0, 2 };
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK_INT((intptr_t)d.owner, order[k]);
		CHECK_INT(d.max_commands, 10);
		CHECK(d.drain_all);
		CHECK_INT(d.deadline_ns, 0); /* counted in commands, not time */
		CHECK(!smt_sched_should_yield(s, d.client, now + MS(1000)));
		smt_sched_charge(s, d.client, now, now + MS(20), true, 10);
		now += MS(20);
	}
	/* Ring order, not readiness order: c1 joins between c0 and c2. */
	smt_sched_set_ready(s, c[1], true, now);
	static const int order2[] = { 3, 0, 1, 2, 0 }; /* c3 emptied on its turn */
	for (size_t k = 0; k < sizeof(order2) / sizeof(order2[0]); k++) {
		CHECK(smt_sched_pick(s, now, &d));
		CHECK_INT((intptr_t)d.owner, order2[k]);
		smt_sched_charge(s, d.client, now, now + MS(20), k != 0, 10);
		now += MS(20);
	}
	/* Drained one by one until every ring is empty: then back to polling. */
	int picks = 0;
	while (smt_sched_pick(s, now, &d)) {
		smt_sched_charge(s, d.client, now, now + MS(1), false, 3);
		picks++;
	}
	CHECK_INT(picks, 3);
	CHECK_INT(smt_sched_ready_count(s), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_INT(prio(s, c[i], now), 0); /* no penalty, praise or boost */
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

static void test_param_change(void)
{
	current_test = "parameter changes";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *a = smt_sched_client_add(s, (void *)1, now);
	struct smt_sched_client *b = smt_sched_client_add(s, (void *)2, now);
	smt_sched_set_ready(s, a, true, now);
	smt_sched_set_ready(s, b, true, now);
	for (int k = 0; k < 10; k++) {
		run_whole(s, &now);
	}
	CHECK_INT(prio(s, a, now), -5);

	struct smt_sched_params p;
	smt_sched_get_params(s, &p);
	p.slice_ns = MS(2);
	p.prio_min = -2;
	p.idle_praise_ns = 0; /* re-derived from the new slice */
	p.input_boost_interval_ns = 0;
	CHECK(smt_sched_set_params(s, &p));
	CHECK_INT(prio(s, a, now), -2); /* clamped into the new range */
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK_INT(d.deadline_ns - now, MS(2));
	smt_sched_charge(s, d.client, now, d.deadline_ns, false, 1);
	now = d.deadline_ns;
	struct smt_sched_params got;
	smt_sched_get_params(s, &got);
	CHECK_INT(got.idle_praise_ns, MS(4));

	p.fifo = true;
	CHECK(smt_sched_set_params(s, &p));
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.drain_all);
	CHECK_INT(d.max_commands, 10);
	smt_sched_charge(s, d.client, now, now + MS(1), true, 10);
	p.fifo = false;
	p.lone_after_ns = 0;
	p.lone_slice_ns = MS(30);
	CHECK(smt_sched_set_params(s, &p));
	smt_sched_set_ready(s, a, false, now);
	smt_sched_set_ready(s, b, false, now);
	smt_sched_set_ready(s, b, true, now);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(!d.drain_all);
	CHECK(d.lone); /* lone_after 0: at once */
	CHECK_INT(d.deadline_ns - now, MS(30));
	smt_sched_charge(s, d.client, now, now + MS(1), true, 1);
	smt_sched_client_remove(s, a);
	smt_sched_client_remove(s, b);
	smt_sched_destroy(s);
}

static void test_remove(void)
{
	current_test = "remove during use";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0;
	struct smt_sched_client *c[3];
	for (int i = 0; i < 3; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		smt_sched_set_ready(s, c[i], true, now);
	}
	struct smt_sched_decision d;
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_client_remove(s, c[0]); /* dies while running */
	CHECK(smt_sched_should_yield(s, NULL, now));
	CHECK_INT(smt_sched_ready_count(s), 2);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[1]);
	smt_sched_charge(s, d.client, now, now + MS(5), true, 1);
	now += MS(5);
	smt_sched_client_remove(s, c[2]); /* the next in line goes */
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[1]);
	/* Alone from the removal on, not from before it. */
	CHECK(!d.lone);
	smt_sched_charge(s, d.client, now, now + MS(5), true, 1);
	smt_sched_client_remove(s, c[1]);
	CHECK_INT(smt_sched_ready_count(s), 0);
	CHECK(!smt_sched_pick(s, now, &d));

	/* Fifo: removing the client the next scan starts from. */
	struct smt_sched_params p;
	smt_sched_get_params(s, &p);
	p.fifo = true;
	CHECK(smt_sched_set_params(s, &p));
	for (int i = 0; i < 3; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		smt_sched_set_ready(s, c[i], true, now);
	}
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_charge(s, d.client, now, now, true, 10);
	smt_sched_client_remove(s, c[1]);
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[2]);
	smt_sched_charge(s, d.client, now, now, true, 10);
	smt_sched_client_remove(s, c[2]); /* the last one: wrap around */
	CHECK(smt_sched_pick(s, now, &d));
	CHECK(d.client == c[0]);
	smt_sched_client_remove(s, c[0]);
	CHECK(!smt_sched_pick(s, now, &d));
	smt_sched_destroy(s);
}

/* ---- Simulation of the compositor loop on the fake clock ---- */

enum sim_kind {
	SIM_BUSY,
	SIM_BATCH,
	SIM_BURST
};

struct sim_client {
	struct smt_sched_client *sc;
	enum sim_kind kind;
	uint64_t cmd_ns;  /* cost of one command */
	uint64_t pending; /* queued commands (SIM_BUSY: endless) */
	uint64_t batch;   /* SIM_BATCH: refilled when the loop polls */
	/* SIM_BURST: `batch` commands every period, with input if `input`. */
	uint64_t period, next_arrival;
	bool input;
	uint64_t arrival; /* when the burst being served arrived */
	bool unserved;    /* not picked since it arrived */
	uint64_t waits, wait_sum, wait_max;
	uint64_t echo_sum, echo_max, bursts_done;
	uint64_t run_ns;
};

#define SIM_MAX 16
#define SIM_LOOP_NS US(20) /* one dispatch of the event loop */

struct sim {
	struct smt_sched *s;
	struct sim_client c[SIM_MAX];
	int n;
	uint64_t now, end, warmup;
	/* An output frame every frame_period (0: none) that costs frame_ns and,
	 * like any event, ends the slice running when it comes due. */
	uint64_t frame_period, frame_ns, next_frame;
};

static void sim_init(struct sim *sim, bool fifo, uint64_t seconds)
{
	*sim = (struct sim){ .s = new_sched(fifo), .now = T0 };
	sim->end = T0 + seconds * MS(1000);
}

static struct sim_client *sim_add(struct sim *sim, enum sim_kind kind, uint64_t cmd_ns)
{
	struct sim_client *c = &sim->c[sim->n];
	*c = (struct sim_client){ .kind = kind, .cmd_ns = cmd_ns };
	c->sc = smt_sched_client_add(sim->s, c, sim->now);
	sim->n++;
	return c;
}

static bool sim_has_work(const struct sim_client *c)
{
	return c->kind == SIM_BUSY || c->pending > 0;
}

/* What the event loop learns when it polls: rings that filled, input. */
static void sim_poll(struct sim *sim)
{
	for (int i = 0; i < sim->n; i++) {
		struct sim_client *c = &sim->c[i];
		if (c->kind == SIM_BATCH && c->pending == 0) {
			c->pending = c->batch; /* its "done" event arrives: next frame */
		}
		while (c->kind == SIM_BURST && c->next_arrival <= sim->now) {
			if (c->pending == 0) {
				c->arrival = c->next_arrival;
				c->unserved = true;
			}
			c->pending += c->batch;
			if (c->input) {
				smt_sched_input(sim->s, c->sc, sim->now);
			}
			c->next_arrival += c->period;
		}
		smt_sched_set_ready(sim->s, c->sc, sim_has_work(c), sim->now);
	}
	sim->now += SIM_LOOP_NS;
	if (sim->frame_period != 0 && sim->now >= sim->next_frame) {
		sim->now += sim->frame_ns;
		while (sim->next_frame <= sim->now) {
			sim->next_frame += sim->frame_period;
		}
	}
}

static void sim_run_one(struct sim *sim, const struct smt_sched_decision *d)
{
	struct sim_client *c = d->owner;
	uint64_t start = sim->now, n = 0;
	if (c->unserved) {
		c->unserved = false;
		if (c->arrival >= sim->warmup) {
			uint64_t wait = start - c->arrival;
			c->waits++;
			c->wait_sum += wait;
			c->wait_max = wait > c->wait_max ? wait : c->wait_max;
		}
	}
	/* The executor checks the deadline between commands. */
	while (sim_has_work(c) && (d->deadline_ns == 0 || sim->now < d->deadline_ns) &&
			(d->max_commands == 0 || n < d->max_commands) &&
			(sim->frame_period == 0 || sim->now < sim->next_frame)) {
		sim->now += c->cmd_ns;
		n++;
		if (c->kind != SIM_BUSY) {
			c->pending--;
		}
	}
	if (c->kind == SIM_BURST && c->pending == 0 && c->arrival >= sim->warmup) {
		uint64_t echo = sim->now - c->arrival;
		c->bursts_done++;
		c->echo_sum += echo;
		c->echo_max = echo > c->echo_max ? echo : c->echo_max;
	}
	c->run_ns += sim->now - start;
	smt_sched_charge(sim->s, c->sc, start, sim->now, sim_has_work(c), n);
}

static void sim_run(struct sim *sim)
{
	while (sim->now < sim->end) {
		sim_poll(sim);
		struct smt_sched_decision d;
		if (!smt_sched_pick(sim->s, sim->now, &d)) {
			uint64_t next = sim->end;
			for (int i = 0; i < sim->n; i++) {
				if (sim->c[i].kind == SIM_BURST && sim->c[i].next_arrival < next) {
					next = sim->c[i].next_arrival;
				}
			}
			sim->now = next > sim->now ? next : sim->now;
			continue;
		}
		sim_run_one(sim, &d);
		/* fifo: the seed's server did not poll until every buffer was empty. */
		while (d.drain_all && sim->now < sim->end && smt_sched_pick(sim->s, sim->now, &d)) {
			sim_run_one(sim, &d);
		}
	}
	/* A burst still unserved at the end (or one the loop never even
	 * polled for) has waited at least until the end. */
	for (int i = 0; i < sim->n; i++) {
		struct sim_client *c = &sim->c[i];
		uint64_t oldest = c->unserved   ? c->arrival :
				c->pending == 0 ? c->next_arrival :
						  sim->end;
		if (c->kind == SIM_BURST && oldest >= sim->warmup && oldest < sim->end &&
				sim->end - oldest > c->wait_max) {
			c->wait_max = sim->end - oldest;
		}
	}
}

static void sim_finish(struct sim *sim)
{
	for (int i = 0; i < sim->n; i++) {
		smt_sched_client_remove(sim->s, sim->c[i].sc);
	}
	smt_sched_destroy(sim->s);
}

static void sim_share(const char *name, const uint64_t cmd_ns[4], uint64_t frame_period)
{
	struct sim sim;
	sim_init(&sim, false, 10);
	sim.frame_period = frame_period;
	sim.frame_ns = US(1000);
	sim.next_frame = sim.now + frame_period;
	for (int i = 0; i < 4; i++) {
		sim_add(&sim, SIM_BUSY, cmd_ns[i]);
	}
	sim_run(&sim);
	uint64_t total = 0;
	for (int i = 0; i < 4; i++) {
		total += sim.c[i].run_ns;
	}
	printf("  %s: shares", name);
	for (int i = 0; i < 4; i++) {
		double share = 100.0 * (double)sim.c[i].run_ns / (double)total;
		printf(" %.1f%%", share);
		CHECK(share >= 20.0 && share <= 30.0);
	}
	printf("\n");
	sim_finish(&sim);
}

static void test_sim_share(void)
{
	current_test = "simulation: 4 busy clients share";
	printf("4 always-busy clients, 10 simulated seconds, fair:\n");
	static const uint64_t same[4] = { US(300), US(300), US(300), US(300) };
	sim_share("identical (0.3 ms commands)", same, 0);
	/* Long commands overshoot the deadline; counting time still shares. */
	static const uint64_t mixed[4] = { US(100), US(700), US(1300), US(2900) };
	sim_share("commands of 0.1/0.7/1.3/2.9 ms", mixed, 0);
	/* A 60 Hz frame (1 ms each) that ends whichever slice it falls in:
	 * 16.7 ms against four 5 ms slices puts it in the same client's slice
	 * every cycle. Measured in smtwc before turns were kept: that client
	 * got 7-9 %, the others about 30 %. */
	static const uint64_t fine[4] = { US(20), US(20), US(20), US(20) };
	sim_share("0.02 ms commands, 60 Hz frames", fine, 16666667u);
}

/* A busy client that keeps receiving input (pointer motion at 1000 Hz over
 * a flooding window) must not starve the others: boosts are rate-limited to
 * one per 2 slices while run time costs one per slice. */
static void test_sim_input_hog(void)
{
	current_test = "simulation: busy client under continuous input";
	struct smt_sched *s = new_sched(false);
	uint64_t now = T0, end = T0 + MS(10000), next_input = T0;
	struct smt_sched_client *c[5];
	uint64_t run[5] = { 0 };
	for (int i = 0; i < 5; i++) {
		c[i] = smt_sched_client_add(s, (void *)(intptr_t)i, now);
		smt_sched_set_ready(s, c[i], true, now);
	}
	while (now < end) {
		for (; next_input <= now; next_input += MS(1)) {
			smt_sched_input(s, c[0], now);
		}
		struct smt_sched_decision d;
		CHECK(smt_sched_pick(s, now, &d));
		CHECK(smt_sched_client_owner(d.client) == d.owner);
		uint64_t start = now;
		now = d.deadline_ns;
		run[(intptr_t)d.owner] += now - start;
		smt_sched_charge(s, d.client, start, now, true, 1);
	}
	printf("busy client receiving input every 1 ms among 4 busy ones: %.1f%%, others",
			100.0 * (double)run[0] / (double)(end - T0));
	for (int i = 1; i < 5; i++) {
		printf(" %.1f%%", 100.0 * (double)run[i] / (double)(end - T0));
		CHECK(run[i] >= (end - T0) / 10);
	}
	printf("\n");
	CHECK(run[0] <= (end - T0) * 6 / 10);
	for (int i = 0; i < 5; i++) {
		smt_sched_client_remove(s, c[i]);
	}
	smt_sched_destroy(s);
}

struct sim_result {
	uint64_t wait_max, wait_mean, echo_max, echo_mean, waits, bursts;
};

/* One light client (3 commands of 0.1 ms every 16.7 ms, like a rubber band
 * following the pointer) among 12 flooders (seed 001's test). */
static struct sim_result sim_interactive(
		bool fifo, enum sim_kind flood, bool input, uint64_t warmup)
{
	struct sim sim;
	sim_init(&sim, fifo, 10);
	sim.warmup = T0 + warmup;
	for (int i = 0; i < 12; i++) {
		struct sim_client *f = sim_add(&sim, flood, US(100));
		f->batch = 100; /* SIM_BATCH: a 10 ms frame, then wait for the loop */
	}
	struct sim_client *ic = sim_add(&sim, SIM_BURST, US(100));
	ic->batch = 3;
	ic->period = US(16700);
	ic->next_arrival = T0 + MS(3.1);
	ic->input = input;
	sim_run(&sim);
	struct sim_result r = {
		.wait_max = ic->wait_max,
		.wait_mean = ic->waits ? ic->wait_sum / ic->waits : 0,
		.echo_max = ic->echo_max,
		.echo_mean = ic->bursts_done ? ic->echo_sum / ic->bursts_done : 0,
		.waits = ic->waits,
		.bursts = ic->bursts_done,
	};
	sim_finish(&sim);
	return r;
}

static void print_result(const char *name, const struct sim_result *r)
{
	printf("  %-44s wait max %8.2f ms mean %7.2f ms | echo max %8.2f ms mean %7.2f ms"
	       " | %" PRIu64 " bursts\n",
			name, (double)r->wait_max / 1e6, (double)r->wait_mean / 1e6,
			(double)r->echo_max / 1e6, (double)r->echo_mean / 1e6, r->bursts);
}

static void test_sim_interactive(void)
{
	current_test = "simulation: interactive among 12 flooders";
	/* From arrival to pick: the end of the slice running when the burst
	 * arrived, one command of overshoot, two loop dispatches. */
	const uint64_t bound = MS(5) + US(100) + 2 * SIM_LOOP_NS;
	printf("interactive client among 12 flooders, 10 simulated seconds "
	       "(wait: arrival to first pick; echo: arrival to burst done):\n");

	struct sim_result r = sim_interactive(false, SIM_BUSY, true, 0);
	print_result("fair, always-busy flooders, input", &r);
	CHECK(r.waits > 500);
	CHECK(r.wait_max <= bound);
	r = sim_interactive(false, SIM_BATCH, true, 0);
	print_result("fair, 10 ms-frame flooders, input", &r);
	CHECK(r.waits > 500);
	CHECK(r.wait_max <= bound);
	/* Without input the light client is still ahead once the flooders
	 * have paid for their first slices (praise for idleness). */
	r = sim_interactive(false, SIM_BUSY, false, MS(200));
	print_result("fair, always-busy flooders, no input", &r);
	CHECK(r.waits > 500);
	CHECK(r.wait_max <= bound);

	/* The seed's server, for comparison (printed, not asserted). */
	r = sim_interactive(true, SIM_BUSY, true, 0);
	print_result("fifo, always-busy flooders, input", &r);
	if (r.bursts == 0) {
		printf("  %-44s (never polled again: the light client starved;\n"
		       "  %-44s  wait max is the whole run)\n",
				"", "");
	}
	r = sim_interactive(true, SIM_BATCH, true, 0);
	print_result("fifo, 10 ms-frame flooders, input", &r);
}

int main(void)
{
	test_params();
	test_round_robin();
	test_interrupted_turn();
	test_penalty_praise();
	test_input_boost();
	test_highest_first();
	test_preempt();
	test_lone();
	test_fifo();
	test_param_change();
	test_remove();
	test_sim_share();
	test_sim_input_hog();
	test_sim_interactive();
	if (failures > 0) {
		fprintf(stderr, "test_sched: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_sched: all passed\n");
	return 0;
}
