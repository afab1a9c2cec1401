/*
 * The project's one clock: CLOCK_MONOTONIC in nanoseconds. Execution
 * budgets (the executor), slices (the ring loop and scheduler), render
 * times and the exec/display times sent to clients all compare against
 * each other, so they must come from the same clock; libsmt, the X server
 * half, tests and benchmarks read it through here too. common/ is below
 * every layer: any file may include it.
 */
#ifndef SMT_MONOTONIC_CLOCK_H
#define SMT_MONOTONIC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
