/*
 * Screen captures (wlr-screencopy) bounded per output frame, shared fairly
 * and counted against whoever asked.
 *
 * wlroots 0.15 copies every waiting screencopy frame of an output at that
 * output's next commit, on the main thread: one client keeping 16 copies
 * waiting made every frame 16 copies of the whole output, and another
 * client's round trip p50 0.036 -> 1.8 ms (session 26's red team); 16
 * connections per process and 256 per uid multiply it. Here, before each
 * commit with a buffer, at most `frame-screencopy-copies` waiting frames
 * of that output (and at most that many whole outputs' bytes; a larger
 * region alone) are let copy; the others wait for a later frame, which is
 * asked for at once. Who goes first is round robin: the uid served least
 * recently, then its connection served least recently, then that
 * connection's oldest frame; a newcomer joins at the back. A capture that
 * waits is legal; another client's frame late because of it is not.
 */
#ifndef SMTWC_SCREENCOPY_BUDGET_H
#define SMTWC_SCREENCOPY_BUDGET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "compositor/server.h"

struct screencopy_stats {
	int budget_copies;          /* frame-screencopy-copies */
	uint64_t copies;            /* frames copied (ready or failed at the copy) */
	uint64_t bytes;             /* their buffers' bytes */
	uint64_t held_back;         /* a waiting frame held back from a commit */
	uint64_t max_frame_copies;  /* most frames copied at one output commit */
	uint64_t commits_with_copy; /* output commits that copied any */
};

/* What one connection's captures cost. */
struct screencopy_client_stats {
	pid_t pid;
	uid_t uid;
	uint64_t copies, bytes, held_back;
};

/* Creates the wlr-screencopy global with the budget on every output. */
void screencopy_budget_init(struct smtwc_server *server);
void screencopy_budget_finish(struct smtwc_server *server);

void screencopy_budget_stats(const struct smtwc_server *server, struct screencopy_stats *out);
/* Calls `fn` with each connection that asked for a copy since it came. */
void screencopy_budget_for_each_client(const struct smtwc_server *server,
		void (*fn)(const struct screencopy_client_stats *stats, void *data), void *data);

#endif
