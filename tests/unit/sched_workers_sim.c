/*
 * N simulated workers on the real scheduler, in simulated time
 * (sched_workers_sim.h). Events are burst arrivals and the ends of pieces;
 * between events nothing happens, so a 10 s run takes milliseconds.
 */
#include "tests/unit/sched_workers_sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wsim_init(struct wsim *sim, bool fifo, unsigned workers, uint64_t piece_ns, uint64_t start,
		uint64_t seconds)
{
	memset(sim, 0, sizeof(*sim));
	struct smt_sched_params p;
	smt_sched_params_default(&p);
	p.fifo = fifo;
	sim->sched = smt_sched_create(&p);
	if (sim->sched == NULL || workers == 0 || workers > WSIM_MAX_WORKERS || piece_ns == 0) {
		fprintf(stderr, "wsim_init: bad set-up\n");
		exit(1);
	}
	smt_sched_set_workers(sim->sched, workers);
	sim->workers = workers;
	sim->piece_ns = piece_ns;
	sim->now = start;
	sim->warmup = start;
	sim->end = start + seconds * 1000000000u;
}

static struct wsim_client *add(struct wsim *sim, uint64_t cmd_ns)
{
	if (sim->n_clients >= WSIM_MAX_CLIENTS || cmd_ns == 0) {
		fprintf(stderr, "wsim: bad client\n");
		exit(1);
	}
	struct wsim_client *c = &sim->clients[sim->n_clients++];
	*c = (struct wsim_client){ .cmd_ns = cmd_ns, .worker = -1 };
	c->sc = smt_sched_client_add(sim->sched, c, sim->now);
	if (c->sc == NULL) {
		fprintf(stderr, "wsim: out of memory\n");
		exit(1);
	}
	return c;
}

struct wsim_client *wsim_add_flooder(struct wsim *sim, uint64_t cmd_ns)
{
	struct wsim_client *c = add(sim, cmd_ns);
	c->flood = true;
	smt_sched_set_ready(sim->sched, c->sc, true, sim->now);
	return c;
}

struct wsim_client *wsim_add_bursty(struct wsim *sim, uint64_t cmd_ns, uint64_t burst_commands,
		uint64_t period_ns, uint64_t first_ns, bool input)
{
	struct wsim_client *c = add(sim, cmd_ns);
	c->burst_commands = burst_commands;
	c->period_ns = period_ns;
	c->first_ns = first_ns;
	c->next_arrival = first_ns;
	c->input = input;
	c->rng = 0x9e3779b97f4a7c15u + (uint64_t)sim->n_clients;
	return c;
}

/* xorshift64: the same sequence on every machine. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static bool has_work(const struct wsim_client *c)
{
	return c->flood || c->pending > 0;
}

static void note_wait(struct wsim *sim, struct wsim_client *c, uint64_t arrival)
{
	if (arrival < sim->warmup) {
		return;
	}
	if (c->n_waits == c->cap_waits) {
		c->cap_waits = c->cap_waits ? 2 * c->cap_waits : 256;
		c->waits = realloc(c->waits, c->cap_waits * sizeof(*c->waits));
		if (c->waits == NULL) {
			fprintf(stderr, "wsim: out of memory\n");
			exit(1);
		}
	}
	c->waits[c->n_waits++] = sim->now - arrival;
}

/* The executor checks its budget between commands, so a piece overshoots
 * by less than one command. */
static void start_piece(struct wsim *sim, struct wsim_worker *w)
{
	struct wsim_client *c = w->client;
	uint64_t until = sim->now + sim->piece_ns;
	if (w->d.deadline_ns != 0 && w->d.deadline_ns < until) {
		until = w->d.deadline_ns;
	}
	uint64_t n = until > sim->now ? (until - sim->now + c->cmd_ns - 1) / c->cmd_ns : 1;
	if (!c->flood && n > c->pending) {
		n = c->pending;
	}
	if (w->d.max_commands != 0 && n > w->d.max_commands - w->commands) {
		n = w->d.max_commands - w->commands;
	}
	if (!c->flood) {
		c->pending -= n;
	}
	w->commands += n;
	w->piece_end = sim->now + n * c->cmd_ns;
}

static uint64_t overlap_from(uint64_t from, uint64_t start, uint64_t end)
{
	if (end <= from) {
		return 0;
	}
	return end - (start > from ? start : from);
}

static void end_run(struct wsim *sim, struct wsim_worker *w)
{
	struct wsim_client *c = w->client;
	c->run_ns += overlap_from(sim->warmup, w->start, sim->now);
	if (w->start >= sim->warmup) {
		c->commands += w->commands;
	}
	smt_sched_charge(sim->sched, c->sc, w->start, sim->now, has_work(c), w->commands);
	c->worker = -1;
	w->client = NULL;
}

static void dispatch_idle(struct wsim *sim)
{
	for (unsigned i = 0; i < sim->workers; i++) {
		struct wsim_worker *w = &sim->worker[i];
		if (w->client != NULL) {
			continue;
		}
		if (!smt_sched_pick(sim->sched, sim->now, &w->d)) {
			return;
		}
		unsigned running = smt_sched_running_count(sim->sched);
		if (running > sim->max_running) {
			sim->max_running = running;
		}
		if (running > sim->workers) {
			sim->over_runs++;
		}
		struct wsim_client *c = w->d.owner;
		if (c->worker >= 0) {
			/* Picked while it runs elsewhere: a broken invariant. Not
			 * run twice; the tests count it. */
			sim->double_runs++;
			smt_sched_charge(sim->sched, c->sc, sim->now, sim->now, true, 0);
			continue;
		}
		if (c->unserved) {
			c->unserved = false;
			note_wait(sim, c, c->arrival);
		}
		c->picks++;
		c->worker = (int)i;
		w->client = c;
		w->start = sim->now;
		w->commands = 0;
		start_piece(sim, w);
	}
}

static void arrivals(struct wsim *sim)
{
	for (int i = 0; i < sim->n_clients; i++) {
		struct wsim_client *c = &sim->clients[i];
		while (c->period_ns != 0 && c->next_arrival <= sim->now) {
			if (c->input) {
				smt_sched_input(sim->sched, c->sc, sim->now);
			}
			if (c->worker >= 0) {
				note_wait(sim, c, sim->now); /* its run goes on into the burst */
			} else if (!c->unserved) {
				c->unserved = true;
				c->arrival = c->next_arrival;
			}
			c->pending += c->burst_commands;
			smt_sched_set_ready(sim->sched, c->sc, true, sim->now);
			c->next_arrival += c->period_ns;
			if (c->jitter_ns != 0) {
				c->next_arrival += next_random(&c->rng) % (c->jitter_ns + 1);
			}
		}
	}
}

static void piece_ends(struct wsim *sim)
{
	for (unsigned i = 0; i < sim->workers; i++) {
		struct wsim_worker *w = &sim->worker[i];
		if (w->client == NULL || w->piece_end != sim->now) {
			continue;
		}
		const struct smt_sched_decision *d = &w->d;
		if (!has_work(w->client) || (d->deadline_ns != 0 && sim->now >= d->deadline_ns) ||
				(d->max_commands != 0 && w->commands >= d->max_commands) ||
				smt_sched_should_yield(sim->sched, w->client->sc, sim->now)) {
			end_run(sim, w);
		} else {
			start_piece(sim, w);
		}
	}
}

static uint64_t next_event(const struct wsim *sim)
{
	uint64_t t = UINT64_MAX;
	for (int i = 0; i < sim->n_clients; i++) {
		const struct wsim_client *c = &sim->clients[i];
		if (c->period_ns != 0 && c->next_arrival < t) {
			t = c->next_arrival;
		}
	}
	for (unsigned i = 0; i < sim->workers; i++) {
		if (sim->worker[i].client != NULL && sim->worker[i].piece_end < t) {
			t = sim->worker[i].piece_end;
		}
	}
	return t;
}

void wsim_run_until(struct wsim *sim, uint64_t until)
{
	if (until > sim->end) {
		until = sim->end;
	}
	for (;;) {
		dispatch_idle(sim);
		uint64_t t = next_event(sim);
		if (t >= until) {
			sim->now = until > sim->now ? until : sim->now;
			return;
		}
		sim->now = t > sim->now ? t : sim->now;
		arrivals(sim);
		piece_ends(sim);
	}
}

void wsim_run(struct wsim *sim)
{
	wsim_run_until(sim, sim->end);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t wsim_wait_quantile(struct wsim_client *c, double q)
{
	if (c->n_waits == 0) {
		return 0;
	}
	qsort(c->waits, c->n_waits, sizeof(*c->waits), cmp_u64);
	/* Nearest rank: the smallest wait with at least q of them at or below. */
	size_t rank = (size_t)(q * (double)c->n_waits + 0.999999);
	rank = rank == 0 ? 1 : rank > c->n_waits ? c->n_waits : rank;
	return c->waits[rank - 1];
}

void wsim_finish(struct wsim *sim)
{
	for (int i = 0; i < sim->n_clients; i++) {
		smt_sched_client_remove(sim->sched, sim->clients[i].sc);
		free(sim->clients[i].waits);
	}
	smt_sched_destroy(sim->sched);
	sim->sched = NULL;
}
