/*
 * log_limit.h: a per-second window of LOG_LIMIT_PER_SECOND lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include "compositor/log_limit.h"
#include "common/monotonic_clock.h"

bool log_limit_allow(struct log_limit *limit, uint64_t *left_out)
{
	uint64_t now = monotonic_now_ns();
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

static struct log_limit wayland_log;

static void wayland_log_handler(const char *fmt, va_list args)
{
	uint64_t left_out;
	if (!log_limit_allow(&wayland_log, &left_out)) {
		return;
	}
	char text[512];
	vsnprintf(text, sizeof(text), fmt, args);
	if (left_out > 0) {
		wlr_log(WLR_INFO, "[wayland] %s (%llu messages of libwayland not logged before)",
				text, (unsigned long long)left_out);
	} else {
		wlr_log(WLR_INFO, "[wayland] %s", text);
	}
}

void log_limit_wayland(void)
{
	wl_log_set_handler_server(wayland_log_handler);
}
