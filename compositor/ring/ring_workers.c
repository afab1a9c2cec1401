/*
 * The worker threads that run rings' commands, one scheduler for all of
 * them (ring_workers.h; docs/architecture.md "Threads").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/server.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/ring/wake_fd.h"
#include "compositor/trace/trace.h"
#include "common/cpu_relax.h"
#include "common/waiter_first.h"
#include "common/monotonic_clock.h"

struct ring_workers {
	struct smtwc_transport *transport;
	struct ring_workers_ops ops;
	/* Guards the scheduler, every ring's run_state and handed_link, and
	 * what follows. Lock order: a ring's exec_lock, then this one. */
	pthread_mutex_t lock;
	pthread_cond_t work;  /* idle workers: rings became ready, or stop */
	pthread_cond_t ended; /* a run ended (ring_workers_forget waits) */
	/* The boost lane (lane_main): a thread at the main thread's nice that
	 * runs only a ring smt_sched_pick_lane gives it; waits on lane_work. */
	pthread_cond_t lane_work;
	pthread_t lane;
	bool lane_started, lane_running;
	uint64_t lane_runs;
	bool stopping;
	/* The main thread is about to block or blocked in its event loop: the
	 * last worker to stop after a run left a ring idle wakes it to look at
	 * the rings again (ring_workers.h says why; worker_main). */
	bool main_sleeping;
	/* ... with an output's frame event to come (ring_workers.h) */
	bool main_frame_coming;
	unsigned threads, started, running;
	int nice; /* every worker thread's OS nice value ([scheduler] worker-nice) */
	pthread_t *thread;
	struct wl_list handed; /* smtwc_ring.handed_link, oldest first */
	int main_fd;           /* eventfd the main thread's loop watches */
	struct wl_event_source *main_source;
	uint64_t runs, pieces, handoffs, main_wakeups, preempts, reported;
	uint64_t posted_wakeups, posted_for_frame;
	uint64_t spins, spins_found, spins_skipped;
	/* The ring sent input whose publish the workers watch for, and until
	 * when (ring_workers_watch_locked; watch_until is read by workers
	 * without the lock, to size a piece). */
	struct smtwc_ring *watch_ring;
	_Atomic uint64_t watch_until_ns;
	uint64_t watches, watch_pieces;
	/* main thread only (ring_workers_lock_ring) */
	uint64_t main_lock_waits, main_lock_wait_ns, main_lock_wait_max_ns;
};

/* why: a trace_wake_reason (trace.h) */
static void wake_main_locked(struct ring_workers *w, enum trace_wake_reason why)
{
	/* Our own eventfd, non-blocking, never full in practice (the main
	 * thread drains it each wake-up); a failed write is a wake-up that
	 * is already pending. */
	uint64_t one = 1;
	if (write(w->main_fd, &one, sizeof(one)) == sizeof(one)) {
		trace_event(TRACE_WAKE_MAIN, 0, why);
		w->main_wakeups++;
	}
}

static void raise_yields_locked(struct ring_workers *w);

/* Every worker (the lane aside) runs a ring. */
static bool workers_all_busy(const struct ring_workers *w)
{
	return w->running - (unsigned)w->lane_running >= w->threads;
}

/* A ring the lane may run is ready while every worker runs: the lane, if
 * idle, is woken to pick it (the runners are asked to yield as well: a
 * worker at a command boundary may take it first). */
static void lane_kick_locked(struct ring_workers *w)
{
	if (w->lane_started && !w->lane_running &&
			smt_sched_lane_waiting(w->transport->sched, monotonic_now_ns())) {
		pthread_cond_signal(&w->lane_work);
	}
}

/* Before a worker takes its ring's exec_lock for the next piece: the main
 * thread waiting for it (ring_workers_lock_ring) goes first. Its hold is
 * short (a request queued, a submit copied, counters read). */
static void give_way_to_main(struct smtwc_ring *ring)
{
	waiter_first_give_way(&ring->main_waiting);
}

/* Under the workers' lock, which guards the transport's list of rings
 * (ring_create, ring_workers_forget) and every ring's run_state: the
 * shared rings nobody runs, not reported ready, whose head moved past
 * their tail to a value not seen before (by the main thread or a worker)
 * are reported ready now, and true returned if there was one. Only the
 * client's head (an atomic load) and the tail are read, under the ring's
 * exec_lock if it is free (before session 29 this ran only while the main
 * thread slept, and read them unlocked). The report is a
 * guess the main thread corrects at its next turn (update_readiness:
 * ring_has_work, which reads what only it writes unlocked): a pick of a
 * ring with nothing to run (dead, or stopped at an ordered request) runs
 * an empty piece or hands the request to the main thread, as any run
 * does. Made here, a boosted client's publish reaches the scheduler at
 * the next piece end of any worker instead of after a wake-up of the
 * main thread, which waited for a CPU beside as many busy workers as
 * CPUs (docs/benchmarks.md, "Ring worker threads"). Socket rings' work
 * arrives by a Wayland request, which wakes the main thread anyway. */
static bool report_published_locked(struct ring_workers *w, uint64_t now)
{
	bool found = false, light = false;
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &w->transport->rings, link) {
		if (!ring->shared || ring->run_state != RING_IDLE || ring->sched_client == NULL ||
				smt_sched_client_ready(ring->sched_client)) {
			continue;
		}
		/* The main thread changes an idle ring's reader (a request
		 * applied at once: a resize maps a new stream) under its
		 * exec_lock, not this lock. Tried, never waited for (the lock
		 * order is exec_lock first): a ring the main thread holds is
		 * one it is looking at anyway. */
		if (waiter_first_waiting(&ring->main_waiting) ||
				pthread_mutex_trylock(&ring->exec_lock) != 0) {
			continue;
		}
		uint64_t head = smt_server_load_head(&ring->reader.shared);
		bool moved = head != ring->reader.tail && head != ring->head_seen;
		pthread_mutex_unlock(&ring->exec_lock);
		if (moved) {
			ring_workers_watch_seen_locked(w, ring);
			ring->head_seen = head;
			smt_sched_set_ready(w->transport->sched, ring->sched_client, true, now);
			light |= smt_sched_client_unpenalised(
					w->transport->sched, ring->sched_client);
			trace_event(TRACE_REPORTED, ring->pid, 0);
			w->reported++;
			found = true;
		}
	}
	if (found) {
		/* idle workers pick it; busy ones yield if it is favoured */
		if (!workers_all_busy(w)) {
			pthread_cond_broadcast(&w->work);
		} else {
			lane_kick_locked(w);
			raise_yields_locked(w);
		}
	}
	/* A light client's publish (its priority not pushed below base: an
	 * animation's frame, a rubber band's line) wakes the sleeping main
	 * thread; a flooder's does not. Woken at every report, the main
	 * thread woke ~9,000 times a second among 12 put100 clients for
	 * nothing it does (a worker picks what it reports); woken at none,
	 * the animation's frame interval sd among 12 flooders was worse in
	 * 4 of 4 alternating pairs (1.33-2.75 against 1.04-1.66 ms, load ~5;
	 * the main thread then waits longer for a CPU at the handoff that
	 * follows; docs/benchmarks.md, session 31). */
	if (light && w->main_sleeping) {
		wake_main_locked(w, TRACE_WAKE_REPORTED);
	}
	return found;
}

/* A client streaming through its ring publishes again a few microseconds
 * after a worker drained it; a worker that went idle at once would make
 * each publish a wake-up of the main thread (the flag is up when no worker
 * runs) and then of a worker: measured, inline put-image 100x100 from one
 * client ran at 0.3-0.5x of the main thread's rate, which spins before it
 * sleeps for the same reason (ring_loop.c, "Spinning"). So a run that
 * executed at least SPIN_ARM_BYTES looks at its own ring for up to
 * SPIN_NS whenever it runs dry, within the slice, until a spin finds
 * nothing: the time is the run's, charged to that client like its
 * commands. Nobody else may be waiting (anyone_waiting), and a more
 * favoured client waiting for a worker (yield_run) ends it. Spinning once
 * per run (before session 40), a lone put100 client's 40 KB images ended
 * a run every ~4.5 commands (40,000 runs a second, each a pick, a charge
 * and the locks) although its spins found work 99.8% of the time, and ran
 * at 0.95-0.98x of the main thread's rate; spinning until a spin misses,
 * 0.98-1.01x (tests/bench/workers/paired.py; docs/benchmarks.md, session
 * 40). */
#define WORKER_SPIN_NS 50000u
#define WORKER_SPIN_ARM_BYTES 4096u
#define WORKER_FIFO_POLL_BYTES 4096u

/* Whether a ready ring waits for a worker, the rings published since the
 * last piece reported first: then a ring that ran dry ends its run instead
 * of spinning, as the main thread spins only when no ring has work
 * (ring_loop.c). Among 12 put100 clients (each ring dry after 10-17
 * commands) one worker spun 373-462 times per 10k commands waiting for one
 * client's refill while 11 rings waited: its CPU per command 1.2x the main
 * thread's (docs/benchmarks.md, session 31). */
static bool anyone_waiting(struct ring_workers *w)
{
	pthread_mutex_lock(&w->lock);
	report_published_locked(w, monotonic_now_ns());
	bool waiting = smt_sched_anyone_waiting(w->transport->sched);
	w->spins_skipped += waiting;
	pthread_mutex_unlock(&w->lock);
	return waiting;
}

static bool spin_for_more(struct ring_workers *w, struct smtwc_ring *ring, uint64_t deadline_ns)
{
	uint64_t start = monotonic_now_ns(), now = start;
	bool found = false;
	while (now - start < WORKER_SPIN_NS && (deadline_ns == 0 || now < deadline_ns) &&
			!atomic_load(&ring->stop_run) && !atomic_load(&ring->yield_run)) {
		give_way_to_main(ring);
		pthread_mutex_lock(&ring->exec_lock);
		found = w->ops.has_work(ring);
		pthread_mutex_unlock(&ring->exec_lock);
		if (found) {
			break;
		}
		cpu_relax();
		now = monotonic_now_ns();
	}
	return found;
}

/* One run of a picked ring, in pieces. Sets *handed when the run left
 * something for the main thread; returns whether the ring still has
 * commands (for the charge). */
static bool worker_run(struct ring_workers *w, struct smtwc_ring *ring,
		const struct smt_sched_decision *d, bool *handed, uint64_t *commands,
		uint64_t *bytes)
{
	pthread_mutex_lock(&ring->exec_lock);
	uint64_t commands_before = ring->commands, bytes_before = ring->bytes;
	ring->slices++;
	pthread_mutex_unlock(&ring->exec_lock);
	bool work = false, spin_missed = false;
	unsigned spins_found = 0, watch_pieces = 0;
	*handed = false;
	for (;;) {
		uint64_t now = monotonic_now_ns();
		struct smt_exec_budget budget = { .max_commands = d->max_commands,
			.yield = &ring->yield_run };
		if (d->deadline_ns != 0) {
			/* (a client sent input not yet published: short pieces,
			 * so the report between them sees its publish soon) */
			bool watch = now < atomic_load_explicit(&w->watch_until_ns,
							   memory_order_relaxed);
			uint64_t piece = watch ? RING_WORKERS_WATCH_PIECE_NS :
						 RING_WORKERS_PIECE_NS;
			budget.deadline_ns = now + piece < d->deadline_ns ? now + piece :
									    d->deadline_ns;
			watch_pieces += watch;
		}
		give_way_to_main(ring);
		pthread_mutex_lock(&ring->exec_lock);
		bool stopped = atomic_load(&ring->stop_run);
		bool go_on = !stopped && w->ops.run_piece(ring, &budget);
		*handed = w->ops.handoff_pending(ring);
		bool posted = ring->handoff.posted;
		ring->handoff.posted = false;
		/* A ring being freed is charged as empty: no worker picks it
		 * again while the main thread waits to free it. */
		work = !stopped && !*handed && w->ops.has_work(ring);
		*commands = ring->commands - commands_before;
		uint64_t ran = ring->bytes - bytes_before;
		*bytes = ran;
		bool armed = ring->shared && ran >= WORKER_SPIN_ARM_BYTES;
		pthread_mutex_unlock(&ring->exec_lock);
		bool spinning = !work && !go_on && !*handed && !stopped && armed && !spin_missed &&
				d->deadline_ns != 0;
		if (spinning) {
			spinning = !anyone_waiting(w);
			spin_missed = !spinning;
		}
		if (spinning) {
			work = spin_for_more(w, ring, d->deadline_ns);
			spins_found += work;
			spin_missed = !work;
			go_on = work;
		}
		pthread_mutex_lock(&w->lock);
		/* A PRESENT this piece copied and posted to an empty post: a
		 * sleeping main thread is woken to show it, unless an output's
		 * frame event will wake it (it takes the post before it
		 * renders: the PRESENT is in that frame either way, and one
		 * no output shows is reported then, within a refresh
		 * interval); an awake one takes it at its next turn or frame
		 * (prepare_sleep_with_workers looks at the post after it
		 * raised main_sleeping). */
		if (posted && w->main_sleeping && !w->main_frame_coming) {
			wake_main_locked(w, TRACE_WAKE_POSTED);
			w->posted_wakeups++;
		} else if (posted && w->main_sleeping) {
			w->posted_for_frame++;
		}
		w->pieces++;
		w->spins += spinning;
		w->spins_found += spins_found;
		spins_found = 0;
		w->watch_pieces += watch_pieces;
		watch_pieces = 0;
		/* While a worker runs, clients do not wake the sleeping main
		 * thread (the server-asleep flag is down): between pieces the
		 * workers look for rings that got work meanwhile and report
		 * them to the scheduler, as the main thread does between its
		 * own pieces (ring_loop.c); a worker picks them, and the last
		 * worker to find nothing to pick wakes the main thread
		 * (worker_main), which a light client's report also does. */
		report_published_locked(w, monotonic_now_ns());
		/* fifo (no deadline): pieces of fifo_commands until the ring
		 * is empty or ran a request buffer's worth, what the seed's
		 * server read per client per select(2) (ring_loop.c,
		 * FIFO_POLL_BYTES; with one pick of fifo_commands per turn, a
		 * client drawing 100 frames a second among 12 flooders fell
		 * seconds behind); fair: until the slice ends or a more
		 * favoured client waits for this worker. */
		/* A raised yield_run ended the piece early (or was raised
		 * since): should_yield below says whether it still holds; the
		 * next piece starts without it. */
		trace_event(TRACE_PIECE_END, ring->pid, atomic_load(&ring->yield_run));
		atomic_store(&ring->yield_run, false);
		bool fifo_done = d->deadline_ns == 0 &&
				(!d->drain_all ||
						ring->fifo_turn_bytes + ran >=
								WORKER_FIFO_POLL_BYTES);
		bool stop = !go_on || *handed || !work || fifo_done || w->stopping ||
				monotonic_now_ns() >= d->deadline_ns ||
				smt_sched_should_yield(
						w->transport->sched, d->client, monotonic_now_ns());
		pthread_mutex_unlock(&w->lock);
		if (stop) {
			return work;
		}
	}
}

/* The worker's OS priority: `worker-nice` below the main thread's (nice
 * is per thread on Linux and a new thread starts at its creator's, the
 * main thread's), set by the thread itself. With as many busy workers as
 * CPUs, flooders' workers at the main thread's priority took both CPUs
 * and the main thread, the echo client and the animation waited for one
 * (docs/benchmarks.md, "Ring worker threads"). Raising one's own nice
 * needs no privilege; it is never lowered again (a change of worker-nice
 * starts new threads). */
static void worker_set_priority(struct ring_workers *w)
{
	if (w->nice == 0) {
		return;
	}
	errno = 0;
	int now = getpriority(PRIO_PROCESS, (id_t)gettid());
	if (now == -1 && errno != 0) {
		now = 0;
	}
	int want = now + w->nice > 19 ? 19 : now + w->nice;
	if (setpriority(PRIO_PROCESS, (id_t)gettid(), want) != 0) {
		wlr_log(WLR_ERROR, "ring workers: nice %d: %s", want, strerror(errno));
	}
}

/* A worker's loop, or the lane's (lane: picks with smt_sched_pick_lane,
 * waits on lane_work, keeps the main thread's nice). */
static void runner_loop(struct ring_workers *w, bool lane)
{
	struct smt_sched *sched = w->transport->sched;
	pthread_cond_t *work = lane ? &w->lane_work : &w->work;
	/* This worker's last run left its ring idle while the main thread
	 * slept: the main thread must look at the rings again once no worker
	 * runs (it raises the server-asleep flag only then; while a worker
	 * runs, that worker's reports between pieces see a publish to the
	 * idle ring). Owed until the next pick: a worker that picks again
	 * runs, and waking the main thread at every run's end woke it 1.3
	 * times per handoff among 12 flooders for nothing (trace, session 30). */
	bool owe_wake = false;
	pthread_mutex_lock(&w->lock);
	while (!w->stopping) {
		struct smt_sched_decision d;
		/* (the scheduler returns nobody while every worker runs, and
		 * in fifo mode while anyone runs) */
		bool picked = lane ? smt_sched_pick_lane(sched, monotonic_now_ns(), &d) :
				     smt_sched_pick(sched, monotonic_now_ns(), &d);
		if (!picked) {
			if (owe_wake && w->main_sleeping && w->running == 0) {
				wake_main_locked(w, TRACE_WAKE_RUN_END);
			}
			owe_wake = false;
			pthread_cond_wait(work, &w->lock);
			continue;
		}
		owe_wake = false;
		if (!lane) {
			/* (the pick may have taken the last free worker from a
			 * client sent input that was waiting: now the lane's) */
			lane_kick_locked(w);
		}
		struct smtwc_ring *ring = d.owner;
		if (trace_enabled) {
			uint64_t now = monotonic_now_ns();
			trace_event(TRACE_PICK, ring->pid,
					(d.deadline_ns > now ? (d.deadline_ns - now) / 1000 : 0) |
							(uint64_t)d.lone << 32);
		}
		ring->run_state = RING_RUNNING;
		atomic_store(&ring->yield_run, false);
		if (w->main_sleeping) {
			/* the main thread slept with the flag up; from now on the
			 * workers wake it (worker_run) */
			smt_global_wake(w->transport->global_status);
		}
		w->running++;
		w->runs++;
		w->lane_running = lane;
		w->lane_runs += lane;
		uint64_t start = monotonic_now_ns(), commands = 0, bytes = 0;
		ring->run_start_ns = start;
		pthread_mutex_unlock(&w->lock);

		bool handed = false;
		bool still = worker_run(w, ring, &d, &handed, &commands, &bytes);
		uint64_t end = monotonic_now_ns();

		/* A run handed to the main thread (an ordered request, a
		 * fence, a PRESENT left to it; before session 32 every PRESENT)
		 * is a pause in the client's turn, not its end: on the main
		 * thread a PRESENT's copy is part of the slice and the commands
		 * after it run in the same turn. Ended instead, a
		 * fifo client drawing a frame and a 1x1 mark (smt-rubberband)
		 * waited a whole turn of 12 flooders per PRESENT (echo p99 610
		 * against the main thread's 217 ms, docs/benchmarks.md). fifo
		 * still bounds a turn by its request buffer's worth. */
		bool fifo = d.deadline_ns == 0;
		ring->fifo_turn_bytes = handed && fifo ? ring->fifo_turn_bytes + bytes : 0;
		bool pause = handed && (!fifo || ring->fifo_turn_bytes < WORKER_FIFO_POLL_BYTES);
		if (!pause) {
			ring->fifo_turn_bytes = 0;
		}

		pthread_mutex_lock(&w->lock);
		w->running--;
		if (lane) {
			w->lane_running = false;
		}
		trace_event(TRACE_RUN_END, ring->pid,
				(uint64_t)handed | (uint64_t)still << 1 | (uint64_t)pause << 2);
		/* (ring_workers_forget waits for this run: the client is valid) */
		if (pause) {
			smt_sched_charge_paused(sched, d.client, start, end, commands);
		} else {
			smt_sched_charge(sched, d.client, start, end, still, commands);
		}
		if (handed) {
			ring->run_state = RING_HANDED;
			wl_list_insert(w->handed.prev, &ring->handed_link);
			w->handoffs++;
			wake_main_locked(w, TRACE_WAKE_HANDOFF);
		} else {
			ring->run_state = RING_IDLE;
			owe_wake = true;
		}
		pthread_cond_broadcast(&w->ended);
		/* another worker may wait for the run this one ended */
		pthread_cond_signal(&w->work);
	}
	pthread_mutex_unlock(&w->lock);
	wake_fd_thread_done();
}

static void *worker_main(void *data)
{
	struct ring_workers *w = data;
	worker_set_priority(w);
	runner_loop(w, false);
	return NULL;
}

/* The boost lane's thread: the main thread's nice, not worker-nice, so a
 * client answering input runs as soon as a CPU is free instead of waiting
 * for the one worker in (or descheduled during) a flooder's slice. */
static void *lane_main(void *data)
{
	runner_loop(data, true);
	return NULL;
}

static int handle_main_wakeup(int fd, uint32_t mask, void *data)
{
	(void)mask;
	(void)data;
	wake_fd_take(fd); /* the loop's turn after this dispatch settles */
	return 0;
}

struct ring_workers *ring_workers_create(struct smtwc_transport *transport, unsigned n, int nice,
		const struct ring_workers_ops *ops)
{
	struct ring_workers *w = calloc(1, sizeof(*w));
	if (w == NULL || n == 0) {
		free(w);
		return NULL;
	}
	w->transport = transport;
	w->ops = *ops;
	w->threads = n;
	w->nice = nice;
	wl_list_init(&w->handed);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->ended, NULL);
	pthread_cond_init(&w->lane_work, NULL);
	w->main_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	w->thread = calloc(n, sizeof(*w->thread));
	if (w->main_fd >= 0) {
		w->main_source = wl_event_loop_add_fd(transport->server->event_loop, w->main_fd,
				WL_EVENT_READABLE, handle_main_wakeup, w);
	}
	if (w->thread == NULL || w->main_source == NULL) {
		wlr_log(WLR_ERROR, "ring workers: no memory or eventfd");
		ring_workers_destroy(w);
		return NULL;
	}
	/* Workers take no signals but their own guard's (wake_fd.c): the
	 * main thread handles SIGTERM and friends through the event loop. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (unsigned i = 0; i < n; i++) {
		int err = pthread_create(&w->thread[i], NULL, worker_main, w);
		if (err != 0) {
			wlr_log(WLR_ERROR, "ring workers: thread %u of %u: %s", i + 1, n,
					strerror(err));
			break;
		}
		/* (named for ps, top and tests: /proc/PID/task/TID/comm) */
		pthread_setname_np(w->thread[i], RING_WORKERS_THREAD_NAME);
		w->started++;
	}
	bool lane = w->started > 0 && pthread_create(&w->lane, NULL, lane_main, w) == 0;
	if (lane) {
		pthread_setname_np(w->lane, RING_WORKERS_LANE_THREAD_NAME);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (w->started == 0) {
		ring_workers_destroy(w);
		return NULL;
	}
	/* Under the lock: the threads already started read it there (a
	 * worker reporting a publish: ThreadSanitizer saw the two at once;
	 * and lane_started, read by a worker's pick, session 42). */
	pthread_mutex_lock(&w->lock);
	w->threads = w->started;
	w->lane_started = lane;
	smt_sched_set_workers(transport->sched, w->started);
	pthread_mutex_unlock(&w->lock);
	wlr_log(WLR_INFO, "ring commands run on %u worker threads (nice %d)", w->started, nice);
	return w;
}

/* Stops the threads: each ends its run after the piece in progress (the
 * run is charged and its ring left idle or handed, as at any run's end). */
static void workers_stop(struct ring_workers *w)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_broadcast(&w->work);
	pthread_cond_broadcast(&w->lane_work);
	pthread_mutex_unlock(&w->lock);
	for (unsigned i = 0; i < w->started; i++) {
		pthread_join(w->thread[i], NULL);
	}
	w->started = 0;
	if (w->lane_started) {
		pthread_join(w->lane, NULL);
		w->lane_started = false;
	}
}

void ring_workers_end(struct ring_workers *w)
{
	if (w == NULL) {
		return;
	}
	workers_stop(w);
	w->ops.take_posted(w->transport);
	/* What the last runs handed back: settled now, its Wayland part
	 * (errors, fences, the PRESENT taken) whole; a copy or ordered
	 * request not finished in a piece goes on where the rings run next
	 * (ring_run on the main thread, or the next workers' settle). */
	while (!wl_list_empty(&w->handed)) {
		struct smtwc_ring *ring = wl_container_of(w->handed.next, ring, handed_link);
		wl_list_remove(&ring->handed_link);
		wl_list_init(&ring->handed_link);
		uint64_t start = monotonic_now_ns();
		w->ops.settle(ring, start + RING_WORKERS_PIECE_NS);
		if (ring->sched_client != NULL) {
			smt_sched_charge_for(w->transport->sched, ring->sched_client, start,
					monotonic_now_ns());
		}
		ring->run_state = RING_IDLE;
	}
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &w->transport->rings, link) {
		ring->fifo_turn_bytes = 0; /* (a paused fifo turn ends with them) */
	}
	smt_sched_set_workers(w->transport->sched, 1);
	ring_workers_destroy(w);
}

void ring_workers_destroy(struct ring_workers *w)
{
	if (w == NULL) {
		return;
	}
	workers_stop(w);
	/* At shutdown every ring was freed before (server_finish destroys the
	 * clients first; ring_free's ring_workers_forget took each one off
	 * this list), so nothing is left here: a handoff owns no memory (the
	 * damage is the executor's, ordered requests and a PRESENT's copy are
	 * the ring's, freed with it) and the charges go with the ring. A ring
	 * still listed would point into this struct: off the list, idle. */
	while (!wl_list_empty(&w->handed)) {
		struct smtwc_ring *ring = wl_container_of(w->handed.next, ring, handed_link);
		wl_list_remove(&ring->handed_link);
		wl_list_init(&ring->handed_link);
		ring->run_state = RING_IDLE;
	}
	if (w->main_source != NULL) {
		wl_event_source_remove(w->main_source);
	}
	if (w->main_fd >= 0) {
		close(w->main_fd);
	}
	pthread_cond_destroy(&w->ended);
	pthread_cond_destroy(&w->lane_work);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->lock);
	free(w->thread);
	free(w);
}

unsigned ring_workers_count(const struct ring_workers *w)
{
	return w != NULL ? w->threads : 0;
}

int ring_workers_nice(const struct ring_workers *w)
{
	return w != NULL ? w->nice : 0;
}

void ring_workers_lock(struct smtwc_transport *transport)
{
	if (transport->workers != NULL) {
		pthread_mutex_lock(&transport->workers->lock);
	}
}

void ring_workers_unlock(struct smtwc_transport *transport)
{
	if (transport->workers != NULL) {
		pthread_mutex_unlock(&transport->workers->lock);
	}
}

/* Every worker runs: a more favoured ring that became ready (input boost,
 * praise for idleness, a publish) makes a less favoured runner yield. The
 * worker would see it when its piece ends (up to RING_WORKERS_PIECE_NS,
 * longer while its thread waits for a CPU); raised here, the piece ends at
 * the executor's next clock check. Slice ends are the workers' own (their
 * pieces' deadlines). */
static void raise_yields_locked(struct ring_workers *w)
{
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &w->transport->rings, link) {
		if (ring->run_state == RING_RUNNING && ring->sched_client != NULL &&
				!atomic_load(&ring->yield_run) &&
				smt_sched_should_preempt(w->transport->sched, ring->sched_client)) {
			atomic_store(&ring->yield_run, true);
			trace_event(TRACE_YIELD_RAISED, ring->pid, 0);
			w->preempts++;
		}
	}
}

void ring_workers_watch_locked(struct ring_workers *w, struct smtwc_ring *ring, uint64_t now)
{
	if (w->running == 0 || ring->run_state != RING_IDLE || ring->sched_client == NULL ||
			smt_sched_client_ready(ring->sched_client)) {
		return;
	}
	/* A client that does not answer its input is watched for 3 ms of
	 * every 30 at most, not 3 ms after every event: a pointer moving
	 * over a window that draws nothing for it kept every other ring's
	 * pieces short for as long as it moved (session 35). Its publish
	 * seen ends the watch and the rest: the next input is watched. */
	bool fresh = ring->watch_since_ns == 0 ||
			now - ring->watch_since_ns >=
					RING_WORKERS_WATCH_NS + RING_WORKERS_WATCH_REST_NS;
	if (fresh) {
		ring->watch_since_ns = now;
	}
	uint64_t until = ring->watch_since_ns + RING_WORKERS_WATCH_NS;
	if (until <= now || (!fresh && w->watch_ring == ring)) {
		return; /* resting, or watched already */
	}
	w->watch_ring = ring;
	atomic_store(&w->watch_until_ns, until);
	w->watches++;
	/* The pieces in progress began long: ended at their next clock
	 * check, the runs go on in short ones (should_yield decides, as for
	 * any raised yield; nobody more favoured is ready yet). */
	struct smtwc_ring *r;
	wl_list_for_each (r, &w->transport->rings, link) {
		if (r->run_state == RING_RUNNING) {
			atomic_store(&r->yield_run, true);
		}
	}
}

void ring_workers_watch_seen_locked(struct ring_workers *w, struct smtwc_ring *ring)
{
	ring->watch_since_ns = 0;
	if (w != NULL && w->watch_ring == ring) {
		w->watch_ring = NULL;
		atomic_store(&w->watch_until_ns, 0);
	}
}

void ring_workers_kick_locked(struct ring_workers *w)
{
	if (smt_sched_ready_count(w->transport->sched) == 0) {
		return;
	}
	if (!workers_all_busy(w)) {
		pthread_cond_broadcast(&w->work);
		return;
	}
	lane_kick_locked(w);
	raise_yields_locked(w);
}

void ring_workers_saw_locked(struct smtwc_ring *ring)
{
	if (ring->shared) {
		ring->head_seen = smt_server_load_head(&ring->reader.shared);
	}
}

void ring_workers_main_sleeping_locked(struct ring_workers *w, bool sleeping, bool frame_coming)
{
	w->main_sleeping = sleeping;
	w->main_frame_coming = sleeping && frame_coming;
}

unsigned ring_workers_running_locked(const struct ring_workers *w)
{
	return w->running;
}

bool ring_workers_ring_idle(const struct smtwc_ring *ring)
{
	return ring->run_state == RING_IDLE;
}

uint64_t ring_workers_run_ns_locked(const struct smtwc_ring *ring, uint64_t now)
{
	return ring->run_state == RING_RUNNING && now > ring->run_start_ns ?
			now - ring->run_start_ns :
			0;
}

bool ring_workers_settle(struct ring_workers *w)
{
	/* What workers posted without handing anything back. */
	w->ops.take_posted(w->transport);
	uint64_t deadline = monotonic_now_ns() + RING_WORKERS_PIECE_NS;
	struct wl_list again;
	wl_list_init(&again);
	pthread_mutex_lock(&w->lock);
	while (!wl_list_empty(&w->handed)) {
		struct smtwc_ring *ring = wl_container_of(w->handed.next, ring, handed_link);
		wl_list_remove(&ring->handed_link);
		wl_list_init(&ring->handed_link);
		pthread_mutex_unlock(&w->lock);
		/* The ring's PRESENTs posted before its handoff come first, so
		 * its events keep its stream's order. Taken again here, not
		 * only above: a worker may have posted and handed this ring
		 * after the take above (its posts precede its handoff under
		 * the workers' lock, which this thread took since); settled
		 * first, a PRESENT the full outbox refused was reported
		 * before the eight posted ahead of it (CI, session 33). */
		w->ops.take_posted(w->transport);
		/* HANDED: no worker picks it; nothing here frees a ring (a
		 * client ended by the handoff is destroyed from an idle
		 * callback). */
		uint64_t start = monotonic_now_ns();
		trace_event(TRACE_SETTLE_BEGIN, ring->pid, 0);
		bool done = w->ops.settle(ring, deadline);
		uint64_t end = monotonic_now_ns();
		trace_event(TRACE_SETTLE_END, ring->pid, done);
		pthread_mutex_lock(&w->lock);
		/* The main thread's part of the client's run (a PRESENT's copy,
		 * ordered requests) is the client's time, as it is inside a
		 * slice when the main thread runs the rings. */
		if (ring->sched_client != NULL) {
			smt_sched_charge_for(w->transport->sched, ring->sched_client, start, end);
		}
		if (done) {
			ring->run_state = RING_IDLE;
		} else {
			wl_list_insert(again.prev, &ring->handed_link);
		}
		if (monotonic_now_ns() >= deadline) {
			break;
		}
	}
	/* What is left waits for the next turn, in its order. */
	wl_list_insert_list(&w->handed, &again);
	bool left = !wl_list_empty(&w->handed);
	pthread_mutex_unlock(&w->lock);
	return left;
}

void ring_workers_lock_ring(struct smtwc_ring *ring)
{
	struct ring_workers *w = ring->transport->workers;
	uint64_t start = monotonic_now_ns();
	if (!waiter_first_lock(&ring->exec_lock, &ring->main_waiting) || w == NULL) {
		return;
	}
	uint64_t waited = monotonic_now_ns() - start;
	w->main_lock_waits++;
	w->main_lock_wait_ns += waited;
	if (waited > w->main_lock_wait_max_ns) {
		w->main_lock_wait_max_ns = waited;
	}
}

void ring_workers_unlock_ring(struct smtwc_ring *ring)
{
	pthread_mutex_unlock(&ring->exec_lock);
}

void ring_workers_forget(struct smtwc_transport *transport, struct smtwc_ring *ring)
{
	struct ring_workers *w = transport->workers;
	if (w == NULL) {
		if (ring->sched_client != NULL) {
			smt_sched_client_remove(transport->sched, ring->sched_client);
			ring->sched_client = NULL;
		}
		wl_list_remove(&ring->link);
		wl_list_init(&ring->link);
		return;
	}
	pthread_mutex_lock(&w->lock);
	atomic_store(&ring->stop_run, true);
	while (ring->run_state == RING_RUNNING) {
		pthread_cond_wait(&w->ended, &w->lock);
	}
	if (ring->run_state == RING_HANDED) {
		wl_list_remove(&ring->handed_link);
		wl_list_init(&ring->handed_link);
		ring->run_state = RING_IDLE;
	}
	if (ring->sched_client != NULL) {
		smt_sched_client_remove(transport->sched, ring->sched_client);
		ring->sched_client = NULL;
	}
	ring_workers_watch_seen_locked(w, ring);
	/* (workers read the list between pieces: report_published_locked) */
	wl_list_remove(&ring->link);
	wl_list_init(&ring->link);
	pthread_mutex_unlock(&w->lock);
}

void ring_workers_stats(struct ring_workers *w, struct ring_workers_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (w == NULL) {
		return;
	}
	pthread_mutex_lock(&w->lock);
	out->threads = w->threads;
	out->runs = w->runs;
	out->pieces = w->pieces;
	out->handoffs = w->handoffs;
	out->main_wakeups = w->main_wakeups;
	out->preempts = w->preempts;
	out->lane_runs = w->lane_runs;
	out->reported = w->reported;
	out->posted_wakeups = w->posted_wakeups;
	out->posted_for_frame = w->posted_for_frame;
	out->spins = w->spins;
	out->spins_found = w->spins_found;
	out->spins_skipped = w->spins_skipped;
	out->watches = w->watches;
	out->watch_pieces = w->watch_pieces;
	pthread_mutex_unlock(&w->lock);
	out->main_lock_waits = w->main_lock_waits;
	out->main_lock_wait_ns = w->main_lock_wait_ns;
	out->main_lock_wait_max_ns = w->main_lock_wait_max_ns;
}
