/*
 * common/waiter_first.h: a thread that takes a mutex again and again for
 * short holds (as a ring worker does, one piece at a time) lets a thread
 * that asks for it now and then (the main thread) in between two holds,
 * instead of after it stopped. The looper runs until the main thread is
 * done or LOOPS holds went by. The looper counts the holds it began while
 * the main thread waited (announced in `waiting`): at most one per
 * acquisition, the one it may have begun as the main thread announced
 * itself (counted, not timed: the same on a loaded machine). Without the
 * looper's give-way the woken main thread found the lock taken again:
 * 1,191-12,050 holds began during the longest of its 1,000 waits (four
 * runs of four, 2-CPU machine; docs/benchmarks.md, "Ring worker threads": the
 * main thread waited for a worker's whole run).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <time.h>
#include "common/waiter_first.h"
#include "common/monotonic_clock.h"
#include "tests/unit/unit_check.h"

#define LOOPS 200000u /* ~4 s of 20 us holds: far longer than the main thread needs */
#define HOLD_NS 20000u
#define ROUNDS 1000

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint waiting;
static atomic_bool stop, started;
static atomic_uint holds;     /* every hold */
static atomic_uint overtakes; /* holds begun while the main thread waited */

static void *looper(void *arg)
{
	(void)arg;
	for (unsigned i = 0; i < LOOPS && !atomic_load(&stop); i++) {
		waiter_first_give_way(&waiting);
		pthread_mutex_lock(&mutex);
		if (waiter_first_waiting(&waiting)) {
			atomic_fetch_add(&overtakes, 1);
		}
		atomic_store(&started, true);
		uint64_t until = monotonic_now_ns() + HOLD_NS;
		while (monotonic_now_ns() < until) {
		}
		atomic_fetch_add(&holds, 1);
		pthread_mutex_unlock(&mutex);
	}
	return NULL;
}

int main(void)
{
	current_test = "waiter_first";
	pthread_t t;
	REQUIRE(pthread_create(&t, NULL, looper, NULL) == 0, "pthread_create");
	while (!atomic_load(&started)) {
		sched_yield();
	}
	unsigned waited = 0, passed[ROUNDS], worst = 0;
	for (int r = 0; r < ROUNDS; r++) {
		unsigned before = atomic_load(&overtakes);
		waited += waiter_first_lock(&mutex, &waiting);
		passed[r] = atomic_load(&overtakes) - before;
		pthread_mutex_unlock(&mutex);
		/* (a pause, so that the looper holds the lock at the next try) */
		struct timespec pause = { 0, 200000 };
		nanosleep(&pause, NULL);
	}
	atomic_store(&stop, true);
	pthread_join(t, NULL);
	for (int r = 0; r < ROUNDS; r++) {
		/* (one the looper may have begun as the main thread asked) */
		CHECK(passed[r] <= 1);
		worst = passed[r] > worst ? passed[r] : worst;
	}
	CHECK(atomic_load(&holds) < LOOPS);
	printf("waiter_first: %d acquisitions (%u found the lock held), at most %u of the "
	       "looper's holds begun during one wait; %u holds in all\n",
			ROUNDS, waited, worst, atomic_load(&holds));
	return failures != 0;
}
