/*
 * Ring execution between event dispatches, decided by the scheduler
 * (compositor/sched, pure): it picks one ready ring and a budget; the ring
 * runs; the time it took is charged. Fair mode returns to the event loop
 * after every slice, so input, requests and frames wait at most one slice.
 * Fifo mode reproduces the seed's original server: ring after ring, a few
 * commands each, without polling until every ring is empty.
 */
#include <time.h>
#include "control/json_writer.h"
#include "server.h"
#include "transport/ring.h"
#include "transport/ring_loop.h"

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void params_from_config(const struct smtwc_scheduler_config *c,
		struct smt_sched_params *p) {
	smt_sched_params_default(p);
	const uint64_t ms = 1000000u;
	p->fifo = c->fifo;
	p->slice_ns = (uint64_t)c->slice_ms * ms;
	p->lone_slice_ns = (uint64_t)c->lone_slice_ms * ms;
	p->lone_after_ns = (uint64_t)c->lone_after_ms * ms;
	p->prio_base = c->priority_base;
	p->prio_min = c->priority_min;
	p->prio_max = c->priority_max;
	p->input_boost = c->input_boost;
	p->fifo_commands = (uint32_t)c->fifo_commands;
	p->idle_praise_ns = (uint64_t)c->idle_praise_ms * ms;
	p->input_boost_interval_ns = (uint64_t)c->input_boost_interval_ms * ms;
}

bool ring_loop_init(struct smtwc_transport *transport) {
	struct smt_sched_params params;
	params_from_config(&transport->server->config.scheduler, &params);
	transport->sched = smt_sched_create(&params);
	if (transport->sched == NULL) {
		/* The config parser validated each value; a combination may still
		 * be refused. Fall back to the defaults rather than no scheduler. */
		smt_sched_params_default(&params);
		transport->sched = smt_sched_create(&params);
	}
	return transport->sched != NULL;
}

void ring_loop_finish(struct smtwc_transport *transport) {
	smt_sched_destroy(transport->sched);
	transport->sched = NULL;
}

/* Tells the scheduler which rings have work now. */
static void update_readiness(struct smtwc_transport *transport, uint64_t now) {
	struct smtwc_ring *ring;
	wl_list_for_each(ring, &transport->rings, link) {
		if (ring->sched_client != NULL) {
			smt_sched_set_ready(transport->sched, ring->sched_client,
				ring_has_work(ring), now);
		}
	}
}

static void run_decision(struct smtwc_transport *transport,
		const struct smt_sched_decision *d) {
	struct smtwc_ring *ring = d->owner;
	uint64_t start = now_ns(), commands_before = ring->commands;
	struct smt_exec_budget budget = {
		.deadline_ns = d->deadline_ns,
		.max_commands = d->max_commands,
	};
	if (d->lone) {
		/* A long slice in short pieces: it ends as soon as another ring
		 * has work, as if that ring had interrupted it. */
		uint64_t slice = transport->sched_slice_ns;
		for (;;) {
			uint64_t now = now_ns();
			budget.deadline_ns = now + slice < d->deadline_ns ? now + slice
				: d->deadline_ns;
			if (!ring_run(ring, &budget)) {
				break;
			}
			now = now_ns();
			update_readiness(transport, now);
			if (smt_sched_should_yield(transport->sched, now)) {
				break;
			}
		}
	} else {
		ring_run(ring, &budget);
	}
	uint64_t end = now_ns();
	/* The ring may have died (bad command) and been freed only later, at
	 * the idle kill; its scheduler client is still valid here. */
	smt_sched_charge(transport->sched, ring->sched_client, start, end,
		ring_has_work(ring), ring->commands - commands_before);
}

bool ring_loop_run_slice(struct smtwc_transport *transport) {
	struct smt_sched *sched = transport->sched;
	uint64_t now = now_ns();
	update_readiness(transport, now);
	struct smt_sched_decision d;
	if (!smt_sched_pick(sched, now, &d)) {
		return false;
	}
	run_decision(transport, &d);
	while (d.drain_all) {
		/* fifo: only the ring that ran is re-examined until all are empty;
		 * rings that got work meanwhile wait for the next poll. */
		struct smtwc_ring *ran = d.owner;
		smt_sched_set_ready(sched, ran->sched_client, ring_has_work(ran), now_ns());
		if (!smt_sched_pick(sched, now_ns(), &d)) {
			break;
		}
		run_decision(transport, &d);
	}
	return smt_sched_ready_count(sched) > 0;
}

bool ring_loop_prepare_sleep(struct smtwc_transport *transport) {
	smt_global_prepare_sleep(transport->global_status);
	struct smtwc_ring *ring;
	wl_list_for_each(ring, &transport->rings, link) {
		if (ring_has_work(ring)) {
			smt_global_wake(transport->global_status);
			transport->sleeps_avoided++;
			return false;
		}
	}
	transport->sleeps++;
	return true;
}

void ring_loop_woke(struct smtwc_transport *transport) {
	smt_global_wake(transport->global_status);
}

void ring_loop_client_input(struct smtwc_transport *transport, struct wl_client *client) {
	if (client == NULL) {
		return;
	}
	uint64_t now = now_ns();
	struct smtwc_ring *ring;
	wl_list_for_each(ring, &transport->rings, link) {
		if (ring->client == client && ring->sched_client != NULL) {
			smt_sched_input(transport->sched, ring->sched_client, now);
		}
	}
}

void ring_loop_write_client_sched(struct smtwc_ring *ring, struct json_writer *w) {
	struct smt_sched_stats st;
	smt_sched_client_stats(ring->transport->sched, ring->sched_client, now_ns(), &st);
	json_int(w, "priority", st.priority);
	json_bool(w, "ready", st.ready);
	json_uint(w, "inputs", st.inputs);
	json_uint(w, "boosts", st.boosts);
	json_uint(w, "penalties", st.penalties);
	json_uint(w, "praises", st.praises);
	json_uint(w, "lone_slices", st.lone_slices);
	json_double(w, "wait_max_ms", (double)st.wait_max_ns / 1e6);
	json_double(w, "wait_mean_ms", st.slices != 0
		? (double)st.wait_total_ns / (double)st.slices / 1e6 : 0.0);
	json_double(w, "sched_time_ms", (double)st.run_ns / 1e6);
}

void ring_loop_config_changed(struct smtwc_transport *transport) {
	struct smt_sched_params params;
	params_from_config(&transport->server->config.scheduler, &params);
	smt_sched_set_params(transport->sched, &params);
	transport->sched_slice_ns = params.slice_ns;
}
