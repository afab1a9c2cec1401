/*
 * log_limit.h: a per-second window of LOG_LIMIT_PER_SECOND lines.
 */
#include <time.h>
#include "log_limit.h"

bool log_limit_allow(struct log_limit *limit, uint64_t *left_out)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	limit->events++;
	if (now - limit->window_start_ns >= 1000000000u) {
		limit->window_start_ns = now;
		limit->in_window = 0;
	}
	if (limit->in_window >= LOG_LIMIT_PER_SECOND) {
		limit->left_out++;
		return false;
	}
	limit->in_window++;
	*left_out = limit->left_out;
	limit->left_out = 0;
	return true;
}
