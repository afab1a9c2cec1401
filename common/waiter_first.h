/*
 * A mutex that one thread takes again and again for short holds (a ring
 * worker, one piece of a run at a time) and another takes now and then
 * (the main thread: a request queued, a submit copied, counters read).
 * A plain mutex lets the first starve the second: it unlocks, wakes the
 * waiter and takes the lock again before the woken thread gets a CPU, so
 * the occasional taker waits until the frequent one stops (measured: the
 * main thread waited for a worker's whole run, 5 ms per ring, and
 * `smtctl stats` among 12 flooders up to 35 ms; docs/benchmarks.md, "Ring
 * worker threads"). Here the occasional taker announces itself in
 * `waiting` and the frequent one gives way before it takes the lock
 * again, so the wait is at most one hold.
 */
#ifndef SMT_WAITER_FIRST_H
#define SMT_WAITER_FIRST_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The occasional taker. True when it had to wait (the lock was held). */
static inline bool waiter_first_lock(pthread_mutex_t *mutex, atomic_uint *waiting)
{
	if (pthread_mutex_trylock(mutex) == 0) {
		return false;
	}
	atomic_fetch_add(waiting, 1);
	pthread_mutex_lock(mutex);
	atomic_fetch_sub(waiting, 1);
	return true;
}

/* The frequent taker, before it takes the lock again (and before a
 * trylock that would keep it from a waiter: `waiter_first_waiting`). */
static inline void waiter_first_give_way(const atomic_uint *waiting)
{
	while (atomic_load(waiting) != 0) {
		sched_yield();
	}
}

static inline bool waiter_first_waiting(const atomic_uint *waiting)
{
	return atomic_load(waiting) != 0;
}

#endif
