/*
 * The project's one clock: CLOCK_MONOTONIC in nanoseconds. Execution
 * budgets (the executor), slices (the ring loop and scheduler), render
 * times and the exec/display times sent to clients all compare against
 * each other, so they must come from the same clock; libsmt, the X server
 * half, tests and benchmarks read it through here too. common/ is below
 * every layer: any file may include it.
 *
 * Beside it, a thread's CPU time in the same unit, for costs that must not
 * count the time a thread waited for a CPU on a loaded machine (a keymap
 * compile's budget, the X server half's working clock, the trace).
 */
#ifndef SMT_MONOTONIC_CLOCK_H
#define SMT_MONOTONIC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t timespec_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

static inline uint64_t monotonic_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_ns(&ts);
}

/* The calling thread's CPU time; 0 if it cannot be read (never so on
 * Linux for a thread that runs this). CLOCK_THREAD_CPUTIME_ID is a
 * syscall (about 0.4 us here, against 0.03 for CLOCK_MONOTONIC through
 * the vDSO): read it per batch or per event, not per byte. */
static inline uint64_t thread_cpu_now_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return timespec_ns(&ts);
}

#endif
