/*
 * Logs that a client can cause, bounded: at most a few lines a second for
 * each kind, and the first line after a quiet spell says how many were
 * left out. A client that makes the compositor refuse it a million times
 * costs a few lines of log, not a disk (issue 24: 3.2 million lines of
 * "failed to accept" in 10 s).
 */
#ifndef SMTWC_LOG_LIMIT_H
#define SMTWC_LOG_LIMIT_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/util/log.h>

#define LOG_LIMIT_PER_SECOND 5

struct log_limit {
	uint64_t window_start_ns;
	unsigned in_window;
	uint64_t left_out; /* since the last line written */
	uint64_t events;   /* all, written or not */
};

/* true: write this line; *left_out is how many were left out before it. */
bool log_limit_allow(struct log_limit *limit, uint64_t *left_out);

/* wlroots' own lines, printed as its default handler prints them (time
 * since the start, level, the line; without its terminal colours), with
 * the ones an X client causes at will through a limit: its window
 * manager's "xcb error: ..." (log_limit.c). Instead of wlr_log_init. */
void log_limit_wlroots(enum wlr_log_importance verbosity);

/* libwayland's own messages ("error in client communication (pid N)",
 * one per misbehaving connection) through a limit, into wlroots' log.
 * After wlr_log_init, which installs wlroots' handler. */
void log_limit_wayland(void);

/* xkbcommon's messages go through a limit too, into wlroots' log:
 * log_limit.c defines xkb_context_new for the whole compositor (wlroots'
 * contexts included) and gives each context a log function. */

#endif
