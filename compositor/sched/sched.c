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
	bool boosted;        /* last_boost is valid */
	uint64_t last_input; /* smt_sched_input's last call: the boost lane's window */
	bool had_input;      /* last_input is valid */

	/* Lone streak: since lone_since this client has been ready with no
	 * ready client waiting for a worker (or resting only briefly, with
	 * nobody else becoming ready meanwhile). lone_valid: a streak exists. */
	bool lone_valid;
	uint64_t lone_since;
	uint64_t ready_events_at_rest; /* sched->ready_events when it last went idle */

	/* Fair: how much of its turn is left. The glue ends a slice early
	 * whenever the event loop has something to dispatch; the client then
	 * continues its turn at the next pick. Without this, turns are equal
	 * in number but not in time: with the output's frame timer firing in
	 * the same client's slice every cycle (16.7 ms against four 5 ms
	 * slices), that client got a third of the others' share (measured:
	 * 7-9 % instead of 25 %). A turn cut short by a more favoured client
	 * (preemption) goes on too: when the next pick started a new turn
	 * and dropped the rest, a flooder lost up to a slice at every echo
	 * that preempted it (the model, docs/scheduler.md "Scaling on paper":
	 * shares 0.92-1.12 of fair with one worker and 12 flooders, 0.99-1.04
	 * with the rest kept). */
	uint64_t turn_left_ns;

	/* Its last run was paused for the glue (smt_sched_charge_paused) and
	 * it has not been picked since: it keeps its turn. */
	bool paused;
	/* The run in progress on a worker, between pick and charge. */
	bool running;
	bool on_lane; /* ... picked by smt_sched_pick_lane: not one of running_count */
	uint64_t run_deadline;
	bool run_lone;
	uint64_t run_seq; /* pick order of the runs in progress: ties among the least favoured */

	struct smt_sched_stats stats;
};

struct smt_sched {
	struct smt_sched_params p; /* derived fields resolved */
	struct smt_sched_client *head, *tail;
	unsigned ready_count;
	uint64_t pick_seq;
	uint64_t latest; /* the latest `now` seen: the clock for calls without one */

	/* How many clients may run at once, and how many do (picked, not
	 * charged yet). */
	unsigned workers;
	unsigned running_count;
	uint64_t run_seq;
	/* The boost lane's run in progress (smt_sched_pick_lane): one at most,
	 * beside the workers' runs, never counted among them. */
	bool lane_busy;

	/* Counts every client becoming ready: a client resting through one
	 * of these lost its lone streak (somebody else wanted a worker). */
	uint64_t ready_events;

	struct smt_sched_client *fifo_next; /* fifo: where the next scan starts */
	/* fifo: the client whose run was paused for the glue
	 * (smt_sched_charge_paused): the one runner's turn is still its. */
	struct smt_sched_client *fifo_paused;
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
	sched->workers = 1;
	return sched;
}

unsigned smt_sched_running_count(const struct smt_sched *sched)
{
	return sched->running_count;
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
	if (!sched->p.fifo) {
		sched->fifo_paused = NULL; /* fair keeps a paused turn as time */
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

bool smt_sched_client_unpenalised(
		const struct smt_sched *sched, const struct smt_sched_client *client)
{
	return !sched->p.fifo && client->priority >= sched->p.prio_base;
}

bool smt_sched_anyone_waiting(const struct smt_sched *sched)
{
	for (const struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (c->ready && !c->running) {
			return true;
		}
	}
	return false;
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

/* Contended: more clients are ready than there are workers, so one of
 * them waits for a worker. Clients running are ready (their rings have
 * work) unless the glue just found them empty. */
static bool contended(const struct smt_sched *sched, unsigned ready_count)
{
	return ready_count > sched->workers;
}

static void end_lone_streaks(struct smt_sched *sched)
{
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		c->lone_valid = false;
	}
}

static void start_lone_streaks(struct smt_sched *sched, uint64_t now)
{
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (c->ready) {
			c->lone_valid = true;
			c->lone_since = now;
		}
	}
}

static void become_ready(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now)
{
	apply_praise(sched, c, now);
	sched->ready_events++;
	if (contended(sched, sched->ready_count + 1)) {
		end_lone_streaks(sched); /* somebody waits for a worker: nobody is alone */
	} else {
		/* A blip between two refills of its ring, with nobody else
		 * wanting a worker meanwhile, continues the streak; a real rest
		 * makes a new one. */
		bool blip = c->lone_valid && c->ready_events_at_rest + 1 == sched->ready_events &&
				elapsed(c->unready_at, now) < sched->p.idle_praise_ns;
		if (!blip) {
			c->lone_valid = true;
			c->lone_since = now;
		}
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
	c->ready_events_at_rest = sched->ready_events;
	sched->ready_count--;
	if (contended(sched, sched->ready_count + 1) && !contended(sched, sched->ready_count)) {
		/* Nobody waits for a worker any more: those left have been
		 * alone from now on. */
		start_lone_streaks(sched, now);
	}
}

void smt_sched_set_workers(struct smt_sched *sched, unsigned workers)
{
	/* Fewer workers than runs in progress: those runs end as charged,
	 * and pick refuses until the count is below the new number. */
	bool was_contended = contended(sched, sched->ready_count);
	sched->workers = workers > 0 ? workers : 1;
	if (was_contended && !contended(sched, sched->ready_count)) {
		start_lone_streaks(sched, sched->latest); /* nobody waits any more */
	} else if (!was_contended && contended(sched, sched->ready_count)) {
		end_lone_streaks(sched);
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
	if (!ready && client->paused) {
		/* Found empty after a pause: its turn is over. */
		client->paused = false;
		client->turn_left_ns = 0;
		if (sched->fifo_paused == client) {
			sched->fifo_paused = NULL;
		}
	}
}

void smt_sched_client_remove(struct smt_sched *sched, struct smt_sched_client *client)
{
	if (client->ready) {
		become_unready(sched, client, sched->latest);
	}
	if (client->running && client->on_lane) {
		sched->lane_busy = false; /* its outstanding run is forgotten */
	} else if (client->running) {
		sched->running_count--; /* its outstanding run is forgotten */
	}
	if (sched->fifo_next == client) {
		sched->fifo_next = client->next;
	}
	if (sched->fifo_paused == client) {
		sched->fifo_paused = NULL;
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
	client->last_input = now;
	client->had_input = true;
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

/* Fair: the highest priority among the ready clients not running wins;
 * among equals, the one picked least recently (the order clients were added
 * breaks the tie between clients never picked). That is round robin among
 * equals, deterministic, O(clients). */
static struct smt_sched_client *pick_fair(const struct smt_sched *sched)
{
	struct smt_sched_client *best = NULL;
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (!c->ready || c->running) {
			continue; /* a ring runs on one worker at a time: its order holds */
		}
		/* Among equals the client whose turn was cut short comes first. */
		bool before = best == NULL || c->priority > best->priority ||
				(c->priority == best->priority && best->turn_left_ns == 0 &&
						(c->turn_left_ns > 0 ||
								c->last_pick < best->last_pick));
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
	if (sched->fifo_paused != NULL) {
		/* Its turn goes on once the glue has finished its part. */
		struct smt_sched_client *c = sched->fifo_paused;
		if (!c->ready) {
			return NULL;
		}
		sched->fifo_paused = NULL;
		sched->fifo_next = c->next;
		return c;
	}
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

/* Decides the slice of a fair pick: a lone slice, the rest of a turn cut
 * short, or a new turn. Returns the slice; *resumed when a turn goes on. */
static uint64_t fair_slice(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now,
		bool *lone, bool *resumed)
{
	/* A lone busy client pays for select-like overhead on every slice
	 * for nothing; a longer slice cuts that, and ends when anyone is
	 * left waiting for a worker (which also ends every streak). */
	*lone = !contended(sched, sched->ready_count) && c->lone_valid &&
			elapsed(c->lone_since, now) >= sched->p.lone_after_ns;
	*resumed = !*lone && c->turn_left_ns > 0;
	if (*resumed) {
		return c->turn_left_ns;
	}
	uint64_t slice = *lone ? sched->p.lone_slice_ns : sched->p.slice_ns;
	c->turn_left_ns = *lone ? 0 : slice;
	return slice;
}

/* A run of c starts: its slice, its wait's statistics, running. */
static void start_run(struct smt_sched *sched, struct smt_sched_client *c, uint64_t now,
		struct smt_sched_decision *out)
{
	out->client = c;
	out->owner = c->owner;
	bool resumed = false;
	if (sched->p.fifo) {
		/* No clock at all: the seed counted requests, not time. */
		out->max_commands = sched->p.fifo_commands;
		out->drain_all = true;
	} else {
		uint64_t slice = fair_slice(sched, c, now, &out->lone, &resumed);
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
	c->paused = false;
	c->running = true;
	c->run_deadline = out->deadline_ns;
	c->run_lone = out->lone;
	c->run_seq = ++sched->run_seq;
}

bool smt_sched_pick(struct smt_sched *sched, uint64_t now, struct smt_sched_decision *out)
{
	*out = (struct smt_sched_decision){ 0 };
	saw(sched, now);
	/* fifo reproduces the original single-threaded X server: one runner. */
	unsigned runners = sched->p.fifo ? 1 : sched->workers;
	if (sched->running_count >= runners) {
		return false;
	}
	struct smt_sched_client *c = sched->p.fifo ? pick_fifo(sched) : pick_fair(sched);
	if (c == NULL) {
		return false;
	}
	start_run(sched, c, now, out);
	sched->running_count++;
	return true;
}

/* Sent input within the last input-boost interval and not penalised below
 * base: a client answering its user, not a flooder the pointer is over. */
static bool lane_eligible(
		const struct smt_sched *sched, const struct smt_sched_client *c, uint64_t now)
{
	return c->ready && !c->running && c->had_input &&
			elapsed(c->last_input, now) < sched->p.input_boost_interval_ns &&
			c->priority >= sched->p.prio_base;
}

/* The best lane-eligible client, as pick_fair orders them. */
static struct smt_sched_client *lane_candidate(const struct smt_sched *sched, uint64_t now)
{
	/* fifo: the seed's one runner, no lane; a free worker takes it itself */
	if (sched->p.fifo || !sched->p.boost_lane || sched->lane_busy ||
			sched->running_count < sched->workers) {
		return NULL;
	}
	struct smt_sched_client *best = NULL;
	for (struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (lane_eligible(sched, c, now) &&
				(best == NULL || c->priority > best->priority ||
						(c->priority == best->priority &&
								c->last_pick < best->last_pick))) {
			best = c;
		}
	}
	return best;
}

bool smt_sched_lane_waiting(const struct smt_sched *sched, uint64_t now)
{
	return lane_candidate(sched, now) != NULL;
}

bool smt_sched_pick_lane(struct smt_sched *sched, uint64_t now, struct smt_sched_decision *out)
{
	*out = (struct smt_sched_decision){ 0 };
	saw(sched, now);
	struct smt_sched_client *c = lane_candidate(sched, now);
	if (c == NULL) {
		return false;
	}
	start_run(sched, c, now, out);
	c->on_lane = true;
	sched->lane_busy = true;
	return true;
}

bool smt_sched_should_preempt(const struct smt_sched *sched, const struct smt_sched_client *running)
{
	if (running == NULL || !running->running || sched->p.fifo) {
		return false;
	}
	if (running->run_lone && contended(sched, sched->ready_count)) {
		return true;
	}
	/* Preemption at command boundaries: a more favoured client (a light
	 * or boosted one) that became ready does not wait for the end of a
	 * flooder's slice. It takes a free worker if there is one; otherwise
	 * every less favoured runner is asked and the first to reach a
	 * command boundary makes room (its worker charges it and picks the
	 * waiting client in one hold of the lock, so the others carry on).
	 * Asking only the least favoured made the client wait whenever that
	 * runner's thread waited for a CPU (12 flooders, 2 workers on 2 CPUs:
	 * docs/benchmarks.md). Equals still take turns only at slice ends. */
	if (sched->running_count < sched->workers) {
		return false;
	}
	for (const struct smt_sched_client *c = sched->head; c != NULL; c = c->next) {
		if (!c->running && c->ready && c->priority > running->priority) {
			return true;
		}
	}
	return false;
}

bool smt_sched_should_yield(
		const struct smt_sched *sched, const struct smt_sched_client *running, uint64_t now)
{
	if (running == NULL || !running->running) {
		return true; /* no run in progress (removed, or charged already) */
	}
	if (running->run_deadline != 0 && now >= running->run_deadline) {
		return true;
	}
	return smt_sched_should_preempt(sched, running);
}

/* Time run for a client, charged: its run time, its turn (kept, less the
 * time, or over), and (fair) its penalty. */
static void charge_time(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end, bool keep_turn)
{
	saw(sched, end);
	uint64_t ran = elapsed(start, end);
	client->stats.run_ns += ran;
	client->turn_left_ns = keep_turn && ran < client->turn_left_ns ?
			client->turn_left_ns - ran :
			0;
	if (!sched->p.fifo) {
		apply_penalty(sched, client, ran); /* fifo has no priorities */
	}
}

static void end_run(struct smt_sched *sched, struct smt_sched_client *client, uint64_t commands)
{
	if (client->running && client->on_lane) {
		client->running = false;
		client->on_lane = false;
		sched->lane_busy = false;
	} else if (client->running) {
		client->running = false;
		sched->running_count--;
	}
	client->stats.commands += commands;
}

void smt_sched_charge(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end, bool still_ready, uint64_t commands)
{
	end_run(sched, client, commands);
	/* A ring that ran dry has had its turn; else it keeps the rest. */
	charge_time(sched, client, start, end, still_ready);
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

void smt_sched_charge_paused(struct smt_sched *sched, struct smt_sched_client *client,
		uint64_t start, uint64_t end, uint64_t commands)
{
	end_run(sched, client, commands);
	charge_time(sched, client, start, end, true);
	client->paused = true;
	if (sched->p.fifo) {
		sched->fifo_paused = client;
	}
	if (client->ready) {
		become_unready(sched, client, end);
	}
}

void smt_sched_charge_for(struct smt_sched *sched, struct smt_sched_client *client, uint64_t start,
		uint64_t end)
{
	charge_time(sched, client, start, end, true);
}

void smt_sched_client_stats(struct smt_sched *sched, struct smt_sched_client *client, uint64_t now,
		struct smt_sched_stats *out)
{
	saw(sched, now);
	apply_praise(sched, client, now);
	*out = client->stats;
	out->priority = client->priority;
	out->ready = client->ready;
	out->running = client->running;
}
