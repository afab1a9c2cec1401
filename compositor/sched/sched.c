/*
 * Fair-share, input-boosted scheduling of ring clients (seed 001), decision
 * logic only. docs/scheduler.md explains the algorithm; comments here say
 * why the code does what it does.
 */
#include "compositor/sched/sched.h"
#include "compositor/sched/sched_settings.h"

#include <stdlib.h>

struct smt_sched_client {
	struct smt_sched_client *prev, *next; /* ring order = order of add */
	void *owner;
	int priority;
	bool ready;
	uint64_t ready_since;    /* start of the current wait to be picked */
	uint64_t unready_at;     /* when the ring last became empty */
	uint64_t idle_anchor;    /* idle time before this is in idle_credit_ns */
	uint64_t idle_credit_ns; /* idle time not yet turned into praise */
	uint64_t run_debt_ns;    /* run time not yet turned into penalties */
	uint64_t last_pick;      /* pick sequence number: round robin */
	uint64_t last_boost;
	bool boosted; /* last_boost is valid */
	struct smt_sched_stats stats;
};

struct smt_sched {
	struct smt_sched_params p; /* derived fields resolved */
	struct smt_sched_client *head, *tail;
	unsigned ready_count;
	uint64_t pick_seq;
	uint64_t latest; /* the latest `now` seen: the clock for calls without one */

	/* The client that has been the only ready one (whenever any was)
	 * since lone_since; NULL while two or more are ready. */
	struct smt_sched_client *lone;
	uint64_t lone_since;

	struct smt_sched_client *fifo_next; /* fifo: where the next scan starts */

	/* The slice in progress, between pick and charge. */
	struct smt_sched_client *running;
	uint64_t running_deadline;
	bool running_lone;

	/* Fair: whose turn it is and how much of its slice is left. The glue
	 * ends a slice early whenever the event loop has something to
	 * dispatch; the client then continues its turn at the next pick.
	 * Without this, turns are equal in number but not in time: with the
	 * output's frame timer firing in the same client's slice every cycle
	 * (16.7 ms against four 5 ms slices), that client got a third of the
	 * others' share (measured: 7-9 % instead of 25 %). */
	struct smt_sched_client *turn;
	uint64_t turn_left_ns;
};

/* The caller's clock is monotonic, but a late `now` must not wrap. */
static uint64_t elapsed(uint64_t from, uint64_t to)
{
	return to > from ? to - from : 0;
}

static void saw(struct smt_sched *sched, uint64_t now)
{
	if (now > sched->latest) {
		sched->latest = now;
	}
}

void smt_sched_params_default(struct smt_sched_params *params)
{
#define DEFAULT_(key, cfg, def, min, max, check, param, unit) .param = (int64_t)(def) * (unit),
	*params = (struct smt_sched_params){ .fifo = SMT_SCHED_DEFAULT_FIFO,
		SMT_SCHED_SETTINGS(DEFAULT_) };
#undef DEFAULT_
}

bool smt_sched_params_valid(const struct smt_sched_params *params)
{
	return params->slice_ns > 0 && params->lone_slice_ns > 0 && params->fifo_commands > 0 &&
			params->input_boost >= 0 && params->prio_min <= params->prio_base &&
			params->prio_base <= params->prio_max;
}

static void resolve_params(struct smt_sched_params *p)
{
	/* Twice the slice: a client idle for two slices has let everyone
	 * else have a turn, which is what the X server calls idle. */
	uint64_t twice = p->slice_ns > UINT64_MAX / 2 ? UINT64_MAX : 2 * p->slice_ns;
	if (p->idle_praise_ns == 0) {
		p->idle_praise_ns = twice;
	}
	if (p->input_boost_interval_ns == 0) {
		p->input_boost_interval_ns = twice;
	}
}

static int clamp_priority(const struct smt_sched *sched, int priority)
{
	if (priority < sched->p.prio_min) {
		return sched->p.prio_min;
	}
	if (priority > sched->p.prio_max) {
		return sched->p.prio_max;
	}
	return priority;
}

struct smt_sched *smt_sched_create(const struct smt_sched_params *params)
{
	if (!smt_sched_params_valid(params)) {
		return NULL;
	}
	struct smt_sched *sched = calloc(1, sizeof(*sched));
	if (sched == NULL) {
		return NULL;
	}
	sched->p = *params;
	resolve_params(&sched->p);
	return sched;
}

void smt_sched_destroy(struct smt_sched *sched)
{
	free(sched);
}

bool smt_sched_set_params(struct smt_sched *sched, const struct smt_sched_params *params)
{
	if (!smt_sched_params_valid(params)) {
		return false;
	}
	bool was_fifo = sched->p.fifo;
	sched->p = *params;
	resolve_params(&sched->p);
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		c->priority = clamp_priority(sched, c->priority);
	}
	if (sched->p.fifo && !was_fifo) {
		sched->fifo_next = sched->head; /* a new fifo pass starts in ring order */
	}
	return true;
}

void smt_sched_get_params(const struct smt_sched *sched, struct smt_sched_params *out)
{
	*out = sched->p;
}

struct smt_sched_client *smt_sched_client_add(struct smt_sched *sched, void *owner, uint64_t now)
{
	struct smt_sched_client *c = calloc(1, sizeof(*c));
	if (c == NULL) {
		return NULL;
	}
	saw(sched, now);
	c->owner = owner;
	c->priority = sched->p.prio_base;
	c->unready_at = now;
	c->idle_anchor = now;
	c->prev = sched->tail;
	if (sched->tail != NULL) {
		sched->tail->next = c;
	} else {
		sched->head = c;
	}
	sched->tail = c;
	return c;
}

void *smt_sched_client_owner(const struct smt_sched_client *client)
{
	return client->owner;
}

bool smt_sched_client_ready(const struct smt_sched_client *client)
{
	return client->ready;
}

unsigned smt_sched_ready_count(const struct smt_sched *sched)
{
	return sched->ready_count;
}

/*
 * Praise: idle time (ring empty) earns +1 per idle_praise_ns, up to base.
 * Credit is kept across short gaps so a light client that idles often but
 * briefly still climbs back, and dropped at base so idleness cannot be banked
 * as a later licence to hog. Waiting while ready earns nothing: otherwise
 * busy clients queued behind each other would climb back as fast as they
 * sink, and a light client could no longer get ahead of them.
 */
static void apply_praise(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now)
{
	if (c->ready) {
		return;
	}
	c->idle_credit_ns += elapsed(c->idle_anchor, now);
	c->idle_anchor = now;
	if (sched->p.fifo || c->priority >= sched->p.prio_base) {
		/* Nothing to climb (fifo has no priorities at all). */
		c->idle_credit_ns = 0;
		return;
	}
	uint64_t earned = c->idle_credit_ns / sched->p.idle_praise_ns;
	uint64_t room = (uint64_t)((int64_t)sched->p.prio_base - c->priority);
	if (earned >= room) {
		c->priority = sched->p.prio_base;
		c->stats.praises += room;
		c->idle_credit_ns = 0;
	} else {
		c->priority += (int)earned;
		c->stats.praises += earned;
		c->idle_credit_ns -= earned * sched->p.idle_praise_ns;
	}
}

/*
 * Penalty: each slice_ns of run time costs -1, down to min. The seed charges
 * one per whole slice only because reading the clock was a system call
 * ("a simplification of discovering precisely how much time a client has
 * used"); with a cheap clock the time is counted exactly, and run time is
 * carried across slices, so a client that always stops just short of its
 * deadline and refills its ring at once pays like one that uses whole slices.
 */
static void apply_penalty(struct smt_sched *sched, struct smt_sched_client *c, uint64_t ran)
{
	c->run_debt_ns += ran;
	uint64_t owed = c->run_debt_ns / sched->p.slice_ns;
	c->run_debt_ns -= owed * sched->p.slice_ns; /* nothing is owed below min */
	uint64_t room = (uint64_t)((int64_t)c->priority - sched->p.prio_min);
	uint64_t paid = owed < room ? owed : room;
	c->priority -= (int)paid;
	c->stats.penalties += paid;
}

static struct smt_sched_client *only_ready(const struct smt_sched *sched)
{
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (c->ready) {
			return c;
		}
	}
	return NULL;
}

static void become_ready(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now)
{
	apply_praise(sched, c, now);
	if (c == sched->lone) {
		/* Still the only one; a real rest (not a blip between two
		 * refills of its ring) makes it a new lone streak. */
		if (elapsed(c->unready_at, now) >= sched->p.idle_praise_ns) {
			sched->lone_since = now;
		}
	} else if (sched->ready_count == 0) {
		sched->lone = c;
		sched->lone_since = now;
	} else {
		sched->lone = NULL; /* two are ready: nobody is alone */
	}
	c->ready = true;
	c->ready_since = now;
	sched->ready_count++;
}

static void become_unready(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now)
{
	c->ready = false;
	c->unready_at = now;
	c->idle_anchor = now;
	sched->ready_count--;
	if (sched->ready_count == 1) {
		/* The one left has been alone from now on. */
		sched->lone = only_ready(sched);
		sched->lone_since = now;
	}
}

void smt_sched_set_ready(
		struct smt_sched *sched, struct smt_sched_client *client, bool ready, uint64_t now)
{
	saw(sched, now);
	if (ready && !client->ready) {
		become_ready(sched, client, now);
	} else if (!ready && client->ready) {
		become_unready(sched, client, now);
	}
}

void smt_sched_client_remove(struct smt_sched *sched, struct smt_sched_client *client)
{
	if (client->ready) {
		become_unready(sched, client, sched->latest);
	}
	if (sched->lone == client) {
		sched->lone = NULL;
	}
	if (sched->running == client) {
		sched->running = NULL;
	}
	if (sched->turn == client) {
		sched->turn = NULL;
	}
	if (sched->fifo_next == client) {
		sched->fifo_next = client->next;
	}
	if (client->prev != NULL) {
		client->prev->next = client->next;
	} else {
		sched->head = client->next;
	}
	if (client->next != NULL) {
		client->next->prev = client->prev;
	} else {
		sched->tail = client->prev;
	}
	free(client);
}

void smt_sched_input(struct smt_sched *sched, struct smt_sched_client *client, uint64_t now)
{
	saw(sched, now);
	client->stats.inputs++;
	if (sched->p.fifo || sched->p.input_boost == 0) {
		return; /* fifo has no priorities */
	}
	if (client->boosted &&
			elapsed(client->last_boost, now) < sched->p.input_boost_interval_ns) {
		return;
	}
	/* Praise first, so a boost adds to the level idleness has earned. */
	apply_praise(sched, client, now);
	int64_t room = (int64_t)sched->p.prio_max - client->priority;
	int64_t gain = sched->p.input_boost < room ? sched->p.input_boost : room;
	if (gain <= 0) {
		return; /* at max already: the interval does not restart */
	}
	client->priority += (int)gain;
	client->stats.boosts += (uint64_t)gain;
	client->last_boost = now;
	client->boosted = true;
}

/* Fair: the highest priority wins; among equals, the one picked least
 * recently (the order clients were added breaks the tie between clients
 * never picked). That is round robin among equals, deterministic, O(clients). */
static struct smt_sched_client *pick_fair(const struct smt_sched *sched)
{
	struct smt_sched_client *best = NULL;
	const struct smt_sched_client *turn = sched->turn_left_ns > 0 ? sched->turn : NULL;
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (!c->ready) {
			continue;
		}
		/* Among equals the client whose turn was cut short comes first. */
		bool before = best == NULL || c->priority > best->priority ||
				(c->priority == best->priority && best != turn &&
						(c == turn || c->last_pick < best->last_pick));
		if (before) {
			best = c;
		}
	}
	return best;
}

/* Fifo: the next ready client in ring order after the previous one, as the
 * seed's server walked its ready file descriptors. */
static struct smt_sched_client *pick_fifo(struct smt_sched *sched)
{
	struct smt_sched_client *start = sched->fifo_next != NULL ? sched->fifo_next : sched->head;
	struct smt_sched_client *c = start;
	while (c != NULL) {
		if (c->ready) {
			sched->fifo_next = c->next;
			return c;
		}
		c = c->next != NULL ? c->next : sched->head;
		if (c == start) {
			break;
		}
	}
	return NULL;
}

bool smt_sched_pick(struct smt_sched *sched, uint64_t now, struct smt_sched_decision *out)
{
	*out = (struct smt_sched_decision){ 0 };
	saw(sched, now);
	sched->running = NULL;
	struct smt_sched_client *c = sched->p.fifo ? pick_fifo(sched) : pick_fair(sched);
	if (c == NULL) {
		return false;
	}
	out->client = c;
	out->owner = c->owner;
	bool resumed = false;
	if (sched->p.fifo) {
		/* No clock at all: the seed counted requests, not time. */
		out->max_commands = sched->p.fifo_commands;
		out->drain_all = true;
	} else {
		/* A lone busy client pays for select-like overhead on every slice
		 * for nothing; a longer slice cuts that, and ends when anyone
		 * else is ready (ready_count > 1 clears sched->lone). */
		out->lone = sched->ready_count == 1 && c == sched->lone &&
				elapsed(sched->lone_since, now) >= sched->p.lone_after_ns;
		uint64_t slice = out->lone ? sched->p.lone_slice_ns : sched->p.slice_ns;
		resumed = !out->lone && c == sched->turn && sched->turn_left_ns > 0;
		if (resumed) {
			slice = sched->turn_left_ns;
		} else {
			sched->turn = out->lone ? NULL : c;
			sched->turn_left_ns = out->lone ? 0 : slice;
		}
		out->deadline_ns = now > UINT64_MAX - slice ? UINT64_MAX : now + slice;
	}

	uint64_t wait = elapsed(c->ready_since, now);
	c->stats.wait_total_ns += wait;
	if (wait > c->stats.wait_max_ns) {
		c->stats.wait_max_ns = wait;
	}
	if (!resumed) {
		c->stats.slices++;
		c->last_pick = ++sched->pick_seq;
	}
	c->stats.lone_slices += out->lone;
	sched->running = c;
	sched->running_deadline = out->deadline_ns;
	sched->running_lone = out->lone;
	return true;
}

bool smt_sched_should_yield(const struct smt_sched *sched, uint64_t now)
{
	if (sched->running == NULL) {
		return true;
	}
	if (sched->running_deadline != 0 && now >= sched->running_deadline) {
		return true;
	}
	if (sched->p.fifo) {
		return false;
	}
	if (sched->running_lone && sched->ready_count > 1) {
		return true;
	}
	/* Preemption at command boundaries: a more favoured client (a light
	 * or boosted one) that became ready does not wait for the end of a
	 * flooder's slice. Equals still take turns only at slice ends. */
	for (const struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (c != sched->running && c->ready && c->priority > sched->running->priority) {
			return true;
		}
	}
	return false;
}

void smt_sched_charge(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end, bool still_ready, uint64_t commands)
{
	saw(sched, end);
	if (sched->running == client) {
		sched->running = NULL;
	}
	uint64_t ran = elapsed(start, end);
	client->stats.run_ns += ran;
	if (client == sched->turn) {
		/* A ring that ran dry has had its turn; else it keeps the rest. */
		sched->turn_left_ns = still_ready && ran < sched->turn_left_ns ?
				sched->turn_left_ns - ran :
				0;
	}
	client->stats.commands += commands;
	if (!sched->p.fifo) {
		apply_penalty(sched, client, ran); /* fifo has no priorities */
	}
	if (still_ready) {
		if (client->ready) {
			client->ready_since = end; /* its next wait starts now */
		} else {
			become_ready(sched, client, end);
		}
	} else if (client->ready) {
		become_unready(sched, client, end);
	}
}

void smt_sched_client_stats(struct smt_sched *sched, struct smt_sched_client *client, uint64_t now,
		struct smt_sched_stats *out)
{
	saw(sched, now);
	apply_praise(sched, client, now);
	*out = client->stats;
	out->priority = client->priority;
	out->ready = client->ready;
}
