/*
 * What the X server spent on each client lately (pure; the X server's half
 * charges it in xserver/input_boost.c, docs/x11.md "Scheduling X
 * clients").
 *
 * Xwayland serves one client per pick and reads that client's requests as
 * it runs out of buffered ones, so the time from one read of a client to
 * the next read (of anyone) or to the next poll is that client's work. It
 * is kept per window of X11_USAGE_WINDOW_NS: the current window and the one
 * before, so "lately" is between one and two windows, with no decay to
 * compute on every read. `now` is whatever clock the caller keeps: the
 * server half uses the X server's own working time (input_boost.c).
 *
 * A client is *light* when it used less than `pct` percent of the mean of
 * the clients that used any time lately: the echo of a program that draws
 * now and then among flooders. Seed 001's fair share with praise for
 * idleness: a light client with requests waiting is served ahead of the
 * others. The server half keeps one of these per connection (statistics)
 * and one per program, the connections of one pid, and judges programs:
 * judged per connection, one program's connections flooding in turn were
 * each idle most of the time, and light (xserver/input_boost.c).
 */
#ifndef SMT_X11_USAGE_H
#define SMT_X11_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#define X11_USAGE_WINDOW_NS 100000000ull /* 100 ms */

struct x11_usage {
	uint64_t cur_ns;  /* charged in window `epoch` */
	uint64_t prev_ns; /* charged in window `epoch` - 1 */
	uint64_t epoch;
	uint64_t total_ns; /* ever (statistics) */
	uint64_t first_ns; /* its first charge: 0, never charged */
};

/* ns of the X server's time spent on the client, at `now`. */
void x11_usage_charge(struct x11_usage *u, uint64_t now, uint64_t ns);
/* What it used in the current and the previous window. */
uint64_t x11_usage_recent(const struct x11_usage *u, uint64_t now);

/* Over all clients: their recent use added up, and how many used any. */
struct x11_usage_sum {
	uint64_t total_ns;
	unsigned used;
};
void x11_usage_add(struct x11_usage_sum *s, const struct x11_usage *u, uint64_t now);
/* Below pct percent of the mean of those that used any time (pct 0: nobody
 * is light), and known for a whole window: a client that just started has
 * no history yet (a new flooder's first requests would look light). */
bool x11_usage_light(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now);

#endif
