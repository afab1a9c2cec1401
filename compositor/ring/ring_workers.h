/*
 * Worker threads that execute rings' commands ([scheduler] workers = N),
 * so the main thread keeps dispatching input and Wayland requests and
 * rendering frames while clients draw (docs/architecture.md, "Threads").
 *
 * One scheduler (compositor/sched, not thread-safe) for all of them, under
 * the workers' lock. A worker picks the most favoured ready ring, runs it
 * in pieces of at most RING_WORKERS_PIECE_NS (holding the ring's
 * exec_lock for one piece at a time) and charges it. A PRESENT's copy is
 * the worker's, and the complete PRESENT is posted to the main thread
 * without stopping the run (canvas.h, present_post.h). What needs the
 * main thread (a protocol error, a socket ring's fence, ordered requests
 * the stream reached, a PRESENT a worker cannot finish) stops the run: the ring is handed
 * to the main thread through a list and an eventfd in the event loop, and
 * not picked again until the main thread settled it. Which rings have
 * work is the main thread's to say (it reads their streams each turn of
 * its loop and before it sleeps). It sleeps with the server-asleep flag
 * up (clients wake it) only while no worker runs; while one does, the
 * flag is down, so a client publishing into a busy compositor makes no
 * system call; between pieces the worker looks at the idle rings' heads
 * and wakes the main thread when one moved, and a worker that finds
 * nothing to pick wakes it when no worker runs after its run left a ring
 * idle: a publish seen by nobody cannot be lost.
 */
#ifndef SMTWC_RING_WORKERS_H
#define SMTWC_RING_WORKERS_H

#include <stdbool.h>
#include <stdint.h>
#include "compositor/ring/ring_types.h"

/* A piece of a run: the longest the main thread waits for a ring's
 * exec_lock (as ring_loop's pieces on the main thread). */
#define RING_WORKERS_PIECE_NS 500000u

/* While a client that was just sent input has not published yet and
 * workers run: their pieces are at most RING_WORKERS_WATCH_PIECE_NS, so its
 * publish is seen (reported, a runner yields) that much after it is made,
 * not up to a whole piece later; for at most RING_WORKERS_WATCH_NS after
 * the first input since its last publish, or until that client's ring is reported or ready
 * (ring_workers_watch_locked). */
#define RING_WORKERS_WATCH_PIECE_NS 100000u
#define RING_WORKERS_WATCH_NS 3000000u
/* A ring whose watch ended without its publish is not watched again for
 * this long, however much input it is sent: short pieces for a tenth of
 * the time at most (session 35). */
#define RING_WORKERS_WATCH_REST_NS 27000000u

/* What the workers call in ring.c (wired by ring_loop.c: ring.c cannot be
 * included here, it includes this). */
struct ring_workers_ops {
	/* One piece under the ring's exec_lock: true when the run may go on. */
	bool (*run_piece)(struct smtwc_ring *ring, const struct smt_exec_budget *budget);
	/* Under exec_lock, after a run: whether it still has commands. */
	bool (*has_work)(struct smtwc_ring *ring);
	/* Whether the run left something for the main thread (ring->handoff). */
	bool (*handoff_pending)(const struct smtwc_ring *ring);
	/* Main thread: acts on the handoff and continues a PRESENT's copy and
	 * ordered requests until deadline_ns; true when nothing is left. */
	bool (*settle)(struct smtwc_ring *ring, uint64_t deadline_ns);
	/* Main thread: shows the PRESENTs workers copied and posted (before
	 * the handed rings are settled: they were posted first). */
	bool (*take_posted)(struct smtwc_transport *transport);
};

/* What the threads are called (/proc/PID/task/TID/comm, at most 15 bytes). */
#define RING_WORKERS_THREAD_NAME "ring-worker"
/* The boost lane's thread (ring_workers.c, lane_main) */
#define RING_WORKERS_LANE_THREAD_NAME "ring-lane"

/* Starts n >= 1 threads, each at OS nice value `nice` (0-19). NULL
 * (logged) if none could start. */
struct ring_workers *ring_workers_create(struct smtwc_transport *transport, unsigned n, int nice,
		const struct ring_workers_ops *ops);
/* Stops and joins them; every ring's run has ended. At shutdown the rings
 * are gone already (their clients were destroyed first, and a ring freed
 * while handed is taken off the list: ring_workers_forget); a handoff
 * holds nothing to free. */
void ring_workers_destroy(struct ring_workers *workers);
/* Main thread, a live change of their number (smtctl set workers): stops
 * them after their pieces in progress, settles what their runs handed
 * back, so the rings carry on on the main thread or the next workers, and
 * destroys them. */
void ring_workers_end(struct ring_workers *workers);
unsigned ring_workers_count(const struct ring_workers *workers);
/* The nice value the threads run at (0 without workers). */
int ring_workers_nice(const struct ring_workers *workers);

/* The scheduler's lock, for every smt_sched_* call the main thread makes
 * while workers exist (no-op without workers). */
void ring_workers_lock(struct smtwc_transport *transport);
void ring_workers_unlock(struct smtwc_transport *transport);
/* Under ring_workers_lock, main thread: input was sent to the client of
 * this idle ring, which is not ready: while a worker runs, its publish is
 * seen only between pieces; the pieces are short until it is, for
 * RING_WORKERS_WATCH_NS from the first input since its last publish seen,
 * then none for RING_WORKERS_WATCH_REST_NS. Rings ready or running are
 * not watched. */
void ring_workers_watch_locked(struct ring_workers *workers, struct smtwc_ring *ring, uint64_t now);
/* Under ring_workers_lock (a worker's report, the main thread's readiness,
 * the ring forgotten): the watched ring's publish was seen, the pieces are
 * long again. No-op for another ring, or without workers (NULL). */
void ring_workers_watch_seen_locked(struct ring_workers *workers, struct smtwc_ring *ring);
/* Under ring_workers_lock: ready rings were reported; idle workers wake. */
void ring_workers_kick_locked(struct ring_workers *workers);
/* Under ring_workers_lock: the main thread is about to block (true) or
 * woke (false); a worker that leaves a ring idle meanwhile wakes it.
 * frame_coming: an output's frame event will wake it anyway (a PRESENT a
 * worker posts then waits for that frame). */
void ring_workers_main_sleeping_locked(
		struct ring_workers *workers, bool sleeping, bool frame_coming);
/* Under ring_workers_lock, main thread: it looked at this idle ring's
 * stream (workers wake it for a head it has not seen). */
void ring_workers_saw_locked(struct smtwc_ring *ring);
/* Under ring_workers_lock: how many rings workers run now. */
unsigned ring_workers_running_locked(const struct ring_workers *workers);
/* Whether the scheduler may look at this ring's stream now (nobody runs
 * it and no handoff waits); under ring_workers_lock. */
bool ring_workers_ring_idle(const struct smtwc_ring *ring);
/* Under ring_workers_lock: how long a worker's run of the ring has been
 * going (0: none), the time its client is charged when it ends; what it
 * did (commands, PRESENTs' copies) shows in the ring's counters already. */
uint64_t ring_workers_run_ns_locked(const struct smtwc_ring *ring, uint64_t now);

/* Main thread: takes the ring's exec_lock (to change what a worker reads:
 * a request, a submit, stats), waiting for at most the piece in progress.
 * A plain pthread_mutex_lock could wait for the worker's whole run: the
 * worker took the lock again for its next piece before the woken main
 * thread got a CPU (measured: `smtctl stats` took up to 35 ms with one
 * worker among 12 flooders, against 2.5-4.6 ms with the main thread
 * running the rings, and the echo and the animation waited as long:
 * docs/benchmarks.md, "Ring worker threads"). Without workers, a lock. */
void ring_workers_lock_ring(struct smtwc_ring *ring);
void ring_workers_unlock_ring(struct smtwc_ring *ring);

/* Main thread, each turn of its loop: settles handed rings for up to one
 * piece. True when some are left (the loop must not block). */
bool ring_workers_settle(struct ring_workers *workers);

/* Main thread, before a ring is freed: ends its run (waiting for at most
 * the piece in progress), drops its handoff and its scheduler client, and
 * takes it off the transport's list of rings (which workers read). */
void ring_workers_forget(struct smtwc_transport *transport, struct smtwc_ring *ring);

/* Counters for smtctl stats and the tests: runs, pieces, handoffs. */
struct ring_workers_stats {
	unsigned threads;
	uint64_t runs, pieces, handoffs, main_wakeups;
	/* runs asked to end early for a more favoured ready ring */
	uint64_t preempts;
	/* idle rings a worker reported ready (their head moved) */
	uint64_t reported;
	/* main_wakeups for a PRESENT a worker copied and posted, and posts
	 * that woke nobody: the main thread slept with a frame coming */
	uint64_t posted_wakeups, posted_for_frame;
	/* spins on a dry ring before a run ends, and those that found work */
	uint64_t spins, spins_found, spins_skipped; /* skipped: a ring waited */
	/* input watched for (ring_workers_watch_locked), and the pieces made
	 * short for it */
	uint64_t watches, watch_pieces;
	/* runs on the boost lane (a client sent input, every worker busy) */
	uint64_t lane_runs;
	/* the main thread's waits for a ring's exec_lock a worker held
	 * (ring_workers_lock_ring): how many, their sum and the longest */
	uint64_t main_lock_waits, main_lock_wait_ns, main_lock_wait_max_ns;
};
void ring_workers_stats(struct ring_workers *workers, struct ring_workers_stats *out);

#endif
