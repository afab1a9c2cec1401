/*
 * Ring execution between event dispatches, decided by the scheduler
 * (compositor/sched, pure): it picks one ready ring and a budget; the ring
 * runs; the time it took is charged. Fair mode returns to the event loop
 * after every slice, so input, requests and frames wait at most one slice.
 * Fifo mode reproduces the seed's original server: ring after ring, a few
 * commands each, without polling until every ring is empty.
 */
#include <poll.h>
#include <stdlib.h>
#include "compositor/server.h"
#include "compositor/output/output.h"
#include "compositor/ring/canvas.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/ring.h"
#include "compositor/ring/ring_loop.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/sched/sched_settings.h"
#include "common/cpu_relax.h"
#include "compositor/trace/trace.h"
#include "common/monotonic_clock.h"

static void params_from_config(const struct smtwc_scheduler_config *c, struct smt_sched_params *p)
{
	smt_sched_params_default(p); /* for any parameter no setting names */
	p->fifo = c->fifo;
#define FROM_CONFIG_(key, cfg, def, min, max, check, param, unit) \
	p->param = (int64_t)c->cfg * (unit);
	SMT_SCHED_SETTINGS(FROM_CONFIG_)
#undef FROM_CONFIG_
}

static void ring_loop_handle_client_input(struct wl_listener *listener, void *data);

bool ring_loop_init(struct smtwc_transport *transport)
{
	struct smt_sched_params params;
	params_from_config(&transport->server->config.scheduler, &params);
	transport->sched = smt_sched_create(&params);
	if (transport->sched == NULL) {
		/* The config parser validated each value; a combination may still
		 * be refused. Fall back to the defaults rather than no scheduler. */
		smt_sched_params_default(&params);
		transport->sched = smt_sched_create(&params);
	}
	if (transport->sched == NULL) {
		return false;
	}
	transport->loop.client_input.notify = ring_loop_handle_client_input;
	wl_signal_add(&transport->server->events.client_input, &transport->loop.client_input);
	ring_loop_set_workers(transport, (unsigned)transport->server->config.scheduler.workers);
	return true;
}

/* Worker threads, at start and live (smtctl set workers): the old ones stop
 * after their pieces in progress and what they handed back is settled
 * (ring_workers_end), then the new number starts; 0 leaves the rings to
 * the main thread. Called from the event loop's dispatch, never inside a
 * slice, so no ring is running on the main thread meanwhile. */
bool ring_loop_set_workers(struct smtwc_transport *transport, unsigned n)
{
	/* (a new nice value needs new threads: an unprivileged thread cannot
	 * lower its own again) */
	int nice = transport->server->config.scheduler.worker_nice;
	if (transport->workers != NULL && ring_workers_count(transport->workers) == n &&
			ring_workers_nice(transport->workers) == nice) {
		return true;
	}
	if (transport->workers == NULL && n == 0) {
		return true;
	}
	ring_workers_end(transport->workers);
	transport->workers = NULL;
	/* A spin armed on the main thread reads rings' streams without their
	 * locks: never with workers running them. */
	transport->loop.spin_armed = false;
	transport->loop.spin_for = NULL;
	if (n == 0) {
		return true;
	}
	static const struct ring_workers_ops ops = {
		.run_piece = ring_run_piece,
		.has_work = ring_has_work,
		.handoff_pending = ring_handoff_pending,
		.settle = ring_settle,
		.take_posted = canvases_take_posted,
	};
	/* None could start: the main thread runs the rings (logged). */
	transport->workers = ring_workers_create(transport, n, nice, &ops);
	return transport->workers != NULL && ring_workers_count(transport->workers) == n;
}

void ring_loop_finish(struct smtwc_transport *transport)
{
	if (transport == NULL || transport->sched == NULL) {
		return; /* ring_loop_init did not run or failed */
	}
	wl_list_remove(&transport->loop.client_input.link);
	ring_workers_destroy(transport->workers);
	transport->workers = NULL;
	smt_sched_destroy(transport->sched);
	transport->sched = NULL;
}

/* Tells the scheduler which rings have work now. With workers, under
 * their lock, and only of the rings nobody runs: a worker's run reports
 * its ring when it is charged, and a handed ring waits for ring_settle. */
static void update_readiness(struct smtwc_transport *transport, uint64_t now)
{
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &transport->rings, link) {
		if (ring->sched_client != NULL && ring_workers_ring_idle(ring)) {
			ring_workers_saw_locked(ring);
			bool work = ring_has_work(ring);
			if (work && !smt_sched_client_ready(ring->sched_client)) {
				trace_event(TRACE_READY, ring->pid, 0);
				ring_workers_watch_seen_locked(transport->workers, ring);
			}
			smt_sched_set_ready(transport->sched, ring->sched_client, work, now);
		}
	}
}

/* Fair slices run in pieces of at most PIECE_NS. Between pieces the slice
 * ends early when a more favoured client became ready (smt_sched_should_yield)
 * or the event loop has something to dispatch: input, Wayland requests, the
 * output's frame timer. The seed's server "checks for pending user input
 * before processing each request"; without this, input and a light client's
 * frame waited for the end of a flooder's whole slice (measured with 12
 * smt-plaid flooders and 5 ms slices: echo p50 7.4 ms, p99 190 ms; frame
 * interval sd 7 ms). A piece costs one ready scan and one poll(2). */
#define PIECE_NS 500000u

static bool events_pending(struct smtwc_transport *transport)
{
	struct pollfd p = {
		.fd = wl_event_loop_get_fd(transport->server->event_loop),
		.events = POLLIN,
	};
	return poll(&p, 1, 0) > 0;
}

/* Spinning before a sleep. A client streaming through its ring publishes
 * again a few microseconds after we drained it; blocking in epoll instead
 * makes its next publish write our eventfd, and it sleeps on its own while
 * we sleep (measured: put-image 100x100, one command in six, both sides
 * sleeping and waking; docs/benchmarks.md, "Spinning"). So after running
 * shared-ring commands the loop looks at the rings for up to SPIN_NS
 * before it blocks, and stops when the event loop has anything (input,
 * requests, the frame timer: looked at every microsecond).
 * A spin only follows a slice that ran at least SPIN_ARM_BYTES of one
 * shared ring's commands, never an idle loop or a lone FENCE, and the spins
 * between two sleeps add up to at most SPIN_PER_SLEEP_NS. A client that
 * published an 8-byte NOOP every 40 us (busy-waiting for it) kept the
 * compositor at 89% of a core with any slice arming a spin, against 19%
 * for a compositor that never spins; it now arms none. To keep us spinning
 * a client must publish 4 KiB every 50 us, and still we block at least
 * once per millisecond spun; nobody waits for a spin, and the spin's time
 * is charged to the ring that armed it (charge_spin). (A credit of
 * a few times the time spent running commands bounds such a client more
 * tightly, but a client half as fast as the executor ran out of it and
 * both sides went back to sleeping for whole runs more often: the
 * measurements are in docs/benchmarks.md, "Spinning".) Adaptive, like
 * libsmt's: a spin that ran out of time without finding work makes the
 * next 1, 2, 4 .. 64 chances to spin block at once; one that found work
 * ends that. */
#define SPIN_NS 50000u
#define SPIN_ARM_BYTES 4096u
#define SPIN_POLL_NS 1000u
#define SPIN_BACKOFF_MAX 64u
#define SPIN_PER_SLEEP_NS 1000000u

static bool any_ring_has_work(struct smtwc_transport *transport)
{
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &transport->rings, link) {
		if (ring_has_work(ring)) {
			return true;
		}
	}
	return false;
}

static void run_decision(struct smtwc_transport *transport, const struct smt_sched_decision *d)
{
	struct smtwc_ring *ring = d->owner;
	uint64_t start = monotonic_now_ns(), commands_before = ring->commands;
	uint64_t bytes_before = ring->bytes;
	trace_event(TRACE_PICK, ring->pid,
			(d->deadline_ns > start ? (d->deadline_ns - start) / 1000 : 0) |
					(uint64_t)d->lone << 32);
	struct smt_exec_budget budget = {
		.deadline_ns = d->deadline_ns,
		.max_commands = d->max_commands,
	};
	if (d->deadline_ns != 0) {
		/* fair (lone or not): a slice in pieces, as if interrupted */
		for (;;) {
			uint64_t now = monotonic_now_ns();
			budget.deadline_ns = now + PIECE_NS < d->deadline_ns ? now + PIECE_NS :
									       d->deadline_ns;
			if (!ring_run(ring, &budget)) {
				break;
			}
			now = monotonic_now_ns();
			if (now >= d->deadline_ns) {
				break;
			}
			update_readiness(transport, now);
			if (smt_sched_should_yield(transport->sched, ring->sched_client, now) ||
					events_pending(transport)) {
				break;
			}
		}
	} else {
		ring_run(ring, &budget);
	}
	uint64_t end = monotonic_now_ns();
	if (ring->shared && ring->bytes - bytes_before >= SPIN_ARM_BYTES) {
		transport->loop.spin_armed = true;
		transport->loop.spin_for = ring;
	}
	/* The ring may have died (bad command) and been freed only later, at
	 * the idle kill; its scheduler client is still valid here. */
	bool still = ring_has_work(ring);
	trace_event(TRACE_RUN_END, ring->pid, (uint64_t)still << 1);
	smt_sched_charge(transport->sched, ring->sched_client, start, end, still,
			ring->commands - commands_before);
}

/* fifo: what one poll lets a client run, the seed's request buffer ("typically
 * 4KB"): the 1987 server read at most a buffer per client per select(2) and
 * went back to select(2) once every buffer was exhausted of complete
 * requests. A ring is refilled by its client while it runs, so without this
 * bound a client that writes faster than the compositor executes keeps its
 * ring non-empty forever and the loop never polls again (measured: with 12
 * smt-plaid flooders the compositor stopped answering Wayland requests and
 * the control socket). */
#define FIFO_POLL_BYTES 4096u

/* The ring's byte counter when this poll's fifo drain began. */
struct fifo_mark {
	struct smtwc_ring *ring;
	uint64_t bytes;
};

static uint64_t fifo_bytes_at_poll(
		const struct fifo_mark *marks, size_t n, const struct smtwc_ring *ring)
{
	for (size_t i = 0; i < n; i++) {
		if (marks[i].ring == ring) {
			return marks[i].bytes;
		}
	}
	return ring->bytes;
}

/* With workers the main thread runs no commands: it settles what runs
 * handed back (PRESENTs, errors, fences, ordered requests), tells the
 * scheduler which rings got work and wakes idle workers. */
static bool ring_loop_feed_workers(struct smtwc_transport *transport, bool reclaiming)
{
	bool handed = ring_workers_settle(transport->workers);
	ring_workers_lock(transport);
	update_readiness(transport, monotonic_now_ns());
	ring_workers_kick_locked(transport->workers);
	ring_workers_unlock(transport);
	return handed || reclaiming;
}

bool ring_loop_run_slice(struct smtwc_transport *transport)
{
	struct smt_sched *sched = transport->sched;
	/* Events queued by the dispatch that just ran (pointer motion, frame
	 * done, presented) go out before a slice, not after it. */
	wl_display_flush_clients(transport->server->display);
	/* A piece of a gone ring's teardown per turn of the loop, like a
	 * piece of a slice (heap_reclaim.h). */
	bool reclaiming = heap_reclaim_pending(&transport->reclaims);
	if (reclaiming) {
		heap_reclaim_step(&transport->reclaims, monotonic_now_ns() + PIECE_NS);
		reclaiming = heap_reclaim_pending(&transport->reclaims);
	}
	if (transport->workers != NULL) {
		return ring_loop_feed_workers(transport, reclaiming);
	}
	uint64_t now = monotonic_now_ns();
	update_readiness(transport, now);
	struct smt_sched_decision d;
	if (!smt_sched_pick(sched, now, &d)) {
		return reclaiming;
	}
	struct fifo_mark marks_small[64], *marks = marks_small;
	size_t n_marks = 0;
	if (d.drain_all) {
		size_t n = (size_t)wl_list_length(&transport->rings);
		if (n > sizeof(marks_small) / sizeof(marks_small[0])) {
			marks = calloc(n, sizeof(*marks));
		}
		struct smtwc_ring *ring;
		wl_list_for_each (ring, &transport->rings, link) {
			if (marks != NULL && n_marks < n) {
				marks[n_marks++] = (struct fifo_mark){ ring, ring->bytes };
			}
		}
	}
	run_decision(transport, &d);
	while (d.drain_all) {
		/* fifo: only the ring that ran is re-examined until all are empty
		 * or have run a request buffer's worth since the poll; rings that
		 * got work meanwhile wait for the next poll. */
		struct smtwc_ring *ran = d.owner;
		bool more = ring_has_work(ran) &&
				ran->bytes - fifo_bytes_at_poll(marks, n_marks, ran) <
						FIFO_POLL_BYTES;
		smt_sched_set_ready(sched, ran->sched_client, more, monotonic_now_ns());
		if (!smt_sched_pick(sched, monotonic_now_ns(), &d)) {
			break;
		}
		run_decision(transport, &d);
	}
	if (marks != marks_small) {
		free(marks);
	}
	/* Rings held back by FIFO_POLL_BYTES are not ready now but have work:
	 * ring_loop_prepare_sleep sees that and the poll does not block. */
	return smt_sched_ready_count(sched) > 0 || reclaiming;
}

/* The spin was for the client whose stream armed it: its CPU time is
 * charged to that ring like the time its commands ran, so a client that
 * keeps the compositor spinning pays for it in the fair share. A ring
 * freed since it armed the spin left spin_for NULL (ring_free); nothing
 * that could free one runs during the spin (no dispatch). */
static void charge_spin(struct smtwc_transport *transport, struct smtwc_ring *armed_by,
		uint64_t start, uint64_t end)
{
	if (armed_by != NULL && armed_by->sched_client != NULL) {
		smt_sched_charge(transport->sched, armed_by->sched_client, start, end,
				ring_has_work(armed_by), 0);
	}
}

bool ring_loop_spin(struct smtwc_transport *transport)
{
	struct ring_loop_state *loop = &transport->loop;
	uint64_t left = SPIN_PER_SLEEP_NS - loop->spun_since_sleep_ns;
	uint64_t budget = left < SPIN_NS ? left : SPIN_NS;
	struct smtwc_ring *armed_by = loop->spin_for;
	loop->spin_for = NULL;
	/* (with workers nothing arms it: the main thread runs no commands) */
	if (!loop->spin_armed || budget == 0) {
		return false;
	}
	loop->spin_armed = false;
	if (loop->spin_skip > 0) {
		loop->spin_skip--;
		return false;
	}
	loop->spins++;
	uint64_t start = monotonic_now_ns(), polled = start, now = start;
	bool found = false;
	/* Every turn the rings (a load of each head) and the clock; the event
	 * loop's fd (a poll(2)) every SPIN_POLL_NS. By time, not by turns: a
	 * turn over 300 rings' heads in 300 clients' memory takes tens of
	 * microseconds (counted in turns, a 50 us spin lasted ~0.5 ms there). */
	for (;;) {
		if (any_ring_has_work(transport)) {
			found = true;
			break;
		}
		now = monotonic_now_ns();
		if (now - start >= budget) {
			break;
		}
		if (now - polled >= SPIN_POLL_NS) {
			polled = now;
			if (events_pending(transport)) {
				break;
			}
		}
		cpu_relax();
	}
	uint64_t end = monotonic_now_ns(), spent = end - start;
	loop->spun_since_sleep_ns += spent < left ? spent : left;
	charge_spin(transport, armed_by, start, end);
	loop->spins_found_work += found;
	if (found) {
		loop->spin_backoff = 0;
	} else if (spent >= budget) {
		loop->spin_backoff = loop->spin_backoff ? loop->spin_backoff * 2 : 1;
		if (loop->spin_backoff > SPIN_BACKOFF_MAX) {
			loop->spin_backoff = SPIN_BACKOFF_MAX;
		}
		loop->spin_skip = loop->spin_backoff;
	}
	return found;
}

/* With workers the main thread may block while rings have work: what it
 * finds after raising the server-asleep flag goes to the scheduler and
 * the workers, not to this thread. The server-asleep flag goes up only
 * while no worker runs (ring_workers.h: otherwise the workers wake us);
 * a handed ring kept ring_loop_run_slice busy. */
static bool prepare_sleep_with_workers(struct smtwc_transport *transport)
{
	ring_workers_lock(transport);
	ring_workers_main_sleeping_locked(
			transport->workers, true, outputs_frame_coming(transport->server));
	if (ring_workers_running_locked(transport->workers) == 0) {
		smt_global_prepare_sleep(transport->global_status);
	}
	uint64_t now = monotonic_now_ns();
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &transport->rings, link) {
		if (ring->sched_client == NULL || !ring_workers_ring_idle(ring)) {
			continue;
		}
		ring_workers_saw_locked(ring);
		if (!smt_sched_client_ready(ring->sched_client) && ring_has_work(ring)) {
			trace_event(TRACE_READY, ring->pid, 1);
			ring_workers_watch_seen_locked(transport->workers, ring);
			smt_sched_set_ready(transport->sched, ring->sched_client, true, now);
		}
	}
	ring_workers_kick_locked(transport->workers);
	ring_workers_unlock(transport);
	/* A PRESENT posted before main_sleeping went up woke nobody (the
	 * worker saw the main thread awake): taken at the next turn. */
	if (present_post_pending(&transport->presents)) {
		return false;
	}
	transport->loop.sleeps++;
	transport->loop.spun_since_sleep_ns = 0;
	return true;
}

bool ring_loop_prepare_sleep(struct smtwc_transport *transport)
{
	if (heap_reclaim_pending(&transport->reclaims)) {
		return false;
	}
	if (transport->workers != NULL) {
		return prepare_sleep_with_workers(transport);
	}
	smt_global_prepare_sleep(transport->global_status);
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &transport->rings, link) {
		if (ring_has_work(ring)) {
			smt_global_wake(transport->global_status);
			transport->loop.sleeps_avoided++;
			return false;
		}
	}
	transport->loop.sleeps++;
	transport->loop.spun_since_sleep_ns = 0;
	return true;
}

void ring_loop_woke(struct smtwc_transport *transport)
{
	smt_global_wake(transport->global_status);
	ring_workers_lock(transport);
	if (transport->workers != NULL) {
		ring_workers_main_sleeping_locked(transport->workers, false, false);
	}
	ring_workers_unlock(transport);
}

/* server->events.client_input: pointer or keyboard input was sent to this
 * client; its rings get the scheduler's input boost. */
static void ring_loop_handle_client_input(struct wl_listener *listener, void *data)
{
	struct smtwc_transport *transport = wl_container_of(listener, transport, loop.client_input);
	struct wl_client *client = data;
	if (client == NULL) {
		return;
	}
	uint64_t now = monotonic_now_ns();
	struct smtwc_ring *ring;
	ring_workers_lock(transport);
	wl_list_for_each (ring, &transport->rings, link) {
		if (ring->client == client && ring->sched_client != NULL) {
			trace_event(TRACE_INPUT, ring->pid, 0);
			smt_sched_input(transport->sched, ring->sched_client, now);
			/* (its publish, while workers run, is seen between
			 * their pieces: short ones until it is) */
			if (transport->workers != NULL) {
				ring_workers_watch_locked(transport->workers, ring, now);
			}
		}
	}
	ring_workers_unlock(transport);
}

bool ring_loop_config_changed(struct smtwc_transport *transport)
{
	struct smt_sched_params params;
	params_from_config(&transport->server->config.scheduler, &params);
	ring_workers_lock(transport);
	smt_sched_set_params(transport->sched, &params);
	ring_workers_unlock(transport);
	return ring_loop_set_workers(
			transport, (unsigned)transport->server->config.scheduler.workers);
}
