/*
 * log_limit.h: a per-second window of LOG_LIMIT_PER_SECOND lines.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <wayland-server-core.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>
#include "compositor/log_limit.h"
#include "common/dlsym_next.h"
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

/* wlroots 0.15's X window manager logs every X error its requests get,
 * and its requests on windows a client has already destroyed each get
 * one: a client creating, mapping and destroying windows in a loop made
 * the compositor write 40,000 lines a second (red team, session 28). */
static struct log_limit xcb_error_log;
/* And its "convert selection failed" for every paste from an X program
 * refused (by its owner, or by xwayland-glue/wm/wm_paste_pipe.c past
 * x11-client-pastes): a Wayland client pasting in a loop. */
static struct log_limit convert_failed_log;
static enum wlr_log_importance wlroots_verbosity;
static uint64_t wlroots_log_start_ns;

static void wlroots_log_handler(enum wlr_log_importance importance, const char *fmt, va_list args)
{
	if (importance > wlroots_verbosity) {
		return;
	}
	uint64_t left_out = 0;
	if (strstr(fmt, "xcb error:") != NULL && !log_limit_allow(&xcb_error_log, &left_out)) {
		return;
	}
	if (strstr(fmt, "convert selection failed") != NULL &&
			!log_limit_allow(&convert_failed_log, &left_out)) {
		return;
	}
	static const char *const level[] = {
		[WLR_SILENT] = "",
		[WLR_ERROR] = "[ERROR] ",
		[WLR_INFO] = "[INFO] ",
		[WLR_DEBUG] = "[DEBUG] ",
	};
	unsigned long long ms = (monotonic_now_ns() - wlroots_log_start_ns) / 1000000u;
	fprintf(stderr, "%02llu:%02llu:%02llu.%03llu %s", ms / 3600000u, ms / 60000u % 60u,
			ms / 1000u % 60u, ms % 1000u,
			importance < WLR_LOG_IMPORTANCE_LAST ? level[importance] : "");
	vfprintf(stderr, fmt, args);
	if (left_out > 0) {
		fprintf(stderr, " (%llu such lines not logged before)",
				(unsigned long long)left_out);
	}
	fputc('\n', stderr);
}

void log_limit_wlroots(enum wlr_log_importance verbosity)
{
	wlroots_verbosity = verbosity;
	wlroots_log_start_ns = monotonic_now_ns();
	wlr_log_init(verbosity, wlroots_log_handler);
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

/* xkbcommon writes each of its messages to stderr with no limit: a
 * virtual keyboard's keymap that compiles with errors (an action naming
 * an unknown modifier) cost 3 lines per keymap, as often as a client
 * sent it (session 30). Every xkb_context in the compositor comes from
 * xkb_context_new, ours (input/keyboard.c) and wlroots' (a virtual
 * keyboard's keymap) alike; defined here, the executable's definition
 * comes first in the lookup order, so each context logs through a limit
 * into wlroots' log. */
static struct log_limit xkbcommon_log;

static void xkbcommon_log_handler(struct xkb_context *context, enum xkb_log_level level,
		const char *fmt, va_list args)
{
	(void)context;
	uint64_t left_out;
	if (!log_limit_allow(&xkbcommon_log, &left_out)) {
		return;
	}
	char text[512];
	vsnprintf(text, sizeof(text), fmt, args);
	size_t len = strlen(text);
	while (len > 0 && text[len - 1] == '\n') {
		text[--len] = '\0'; /* wlroots' log ends the line */
	}
	enum wlr_log_importance importance = WLR_DEBUG;
	if (level <= XKB_LOG_LEVEL_ERROR) {
		importance = WLR_ERROR;
	} else if (level <= XKB_LOG_LEVEL_INFO) {
		importance = WLR_INFO;
	}
	if (left_out > 0) {
		wlr_log(importance, "[xkbcommon] %s (%llu messages of xkbcommon not logged before)",
				text, (unsigned long long)left_out);
	} else {
		wlr_log(importance, "[xkbcommon] %s", text);
	}
}

struct xkb_context *xkb_context_new(enum xkb_context_flags flags)
{
	static struct xkb_context *(*real)(enum xkb_context_flags);
	if (real == NULL) {
		dlsym_next(&real, "xkb_context_new");
	}
	struct xkb_context *context = real != NULL ? real(flags) : NULL;
	if (context != NULL) {
		xkb_context_set_log_fn(context, xkbcommon_log_handler);
	}
	return context;
}
