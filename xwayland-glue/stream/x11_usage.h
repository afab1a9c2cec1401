/*
 * What the X server spent on each client lately, and how long the client
 * had nothing waiting (pure; the X server's half keeps it in
 * xserver/input_boost.c, docs/x11.md "Scheduling X clients").
 *
 * Xwayland serves one client per pick and reads that client's requests as
 * it runs out of buffered ones, so the time from one read of a client to
 * the next read (of anyone) or to the next poll is that client's work. It
 * is kept per window of X11_USAGE_WINDOW_NS: the current window and the one
 * before, so "lately" is between one and two windows, with no decay to
 * compute on every read. `now` is whatever clock the caller keeps (never
 * 0): the server half uses the X server's own working time
 * (input_boost.c).
 *
 * A client is *light* when the X server's time it used lately is below
 * `pct` percent of the time it was idle (had no request waiting, neither
 * read nor unread) in the same windows: seed 001's praise for idleness,
 * the ring scheduler's rule (docs/scheduler.md "The fair mode"), not a
 * share of what the others use. Time spent waiting with requests unread
 * counts as neither, so a flooder, which always has requests waiting, is
 * never light however many flooders share the X server, and an echo that
 * needs 1% of it stays light among any number of them. Until session 28
 * a client was light below `pct` percent of the mean of the clients that
 * used any time: among 76 flooders that mean is about what an echo uses,
 * and the echo fell into their round robin (docs/x11.md "Light clients").
 *
 * The server half keeps one of these per connection (statistics) and one
 * per program, the connections of one pid (idle only while none of them
 * has requests waiting), and judges programs: judged per connection, one
 * program's connections flooding in turn were each idle most of the time,
 * and light (xserver/input_boost.c).
 */
#ifndef SMT_X11_USAGE_H
#define SMT_X11_USAGE_H

#include <stdbool.h>
#include <stdint.h>

#define X11_USAGE_WINDOW_NS 100000000ull /* 100 ms */

struct x11_usage {
	uint64_t cur_ns;  /* charged in window `epoch` */
	uint64_t prev_ns; /* charged in window `epoch` - 1 */
	/* Idle in the same two windows, of the idle spans that ended (the
	 * one under way, since idle_since, is added when asked). */
	uint64_t idle_cur_ns, idle_prev_ns;
	uint64_t epoch;
	uint64_t total_ns;      /* ever (statistics) */
	uint64_t idle_total_ns; /* ever, of the spans that ended (statistics) */
	uint64_t first_ns;      /* its first charge: 0, never charged */
	uint64_t idle_since;    /* nothing waiting since; 0: requests waiting */
};

/* ns of the X server's time spent on the client, at `now`. */
void x11_usage_charge(struct x11_usage *u, uint64_t now, uint64_t ns);
/* What it used in the current and the previous window. */
uint64_t x11_usage_recent(const struct x11_usage *u, uint64_t now);

/* From `now` the client has nothing waiting (x11_usage_idle; nothing if
 * it is idle already) or has requests waiting (x11_usage_waiting: the
 * idle span since is counted in the windows it covers). */
void x11_usage_idle(struct x11_usage *u, uint64_t now);
void x11_usage_waiting(struct x11_usage *u, uint64_t now);
/* How long it was idle in the current and the previous window, the span
 * under way included. */
uint64_t x11_usage_idle_recent(const struct x11_usage *u, uint64_t now);

/* Over all clients: how many used any time lately. */
struct x11_usage_sum {
	unsigned used;
};
void x11_usage_add(struct x11_usage_sum *s, const struct x11_usage *u, uint64_t now);
/* Used less than pct percent of its idle time lately (pct 0: nobody is
 * light), some other client used time lately (alone, nobody to be served
 * ahead of), and known for a whole window: a client that just started
 * has no history yet (a new flooder's first requests would look light).
 * A client that used nothing and was idle not at all in both windows (it
 * waited with requests unread all along: refused grants) is judged by the
 * last windows it was charged or idle in (session 42: until then `0 < 0`
 * judged it heavy whatever it had been). */
bool x11_usage_light(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now);

/* What a program may use of the X server in all while it is a newcomer:
 * a start-up's round trips (connect, InternAtom, GetProperty, a window
 * mapped and drawn) are a few hundred microseconds to a few milliseconds
 * of it. */
#define X11_USAGE_NEW_BUDGET_NS 10000000ull /* 10 ms */
/* A newcomer: used less than X11_USAGE_NEW_BUDGET_NS in all, within a
 * window of its first charge (never charged, or younger than
 * x11_usage_light asks for), and some other client used time lately (pct
 * 0: no newcomers either). It has no
 * window of history for x11_usage_light to judge, and until session 41
 * its start-up waited in the flooders' round robin at every round trip
 * (docs/x11.md "Newcomers"); the server half gives it light grants within
 * the budget, paid from the time light clients leave spare, so a flooder
 * that is new gets one read of them (input_boost.c). */
bool x11_usage_newcomer(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now);

#endif
