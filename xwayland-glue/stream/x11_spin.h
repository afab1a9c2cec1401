/*
 * Whether the X server half spins before it sleeps, and for how long
 * (pure; xserver/interpose.c runs the loop, docs/x11.md "The
 * server-asleep flag, the spin, and wake-ups").
 *
 * A server that just served ring bytes looks at the rings for up to
 * budget_ns before it blocks in epoll_wait, so that a client streaming
 * requests, or one that makes round trips, needs no eventfd write. That
 * pays only while the client runs on another CPU at the same time. With
 * more runnable tasks than CPUs the spin holds a CPU the client, or
 * anybody else, needs; and since the kernel charges the spin to the X
 * server, it loses its place as a sleeper that is run at once when woken.
 * So:
 *  - a spin that ends without finding input (ran out of budget) makes
 *    the next 1, 2, 4 .. X11_SPIN_BACKOFF_MAX chances to spin sleep at
 *    once; one that finds input ends that (the compositor's ring loop
 *    does the same, compositor/ring/ring_loop.c);
 *  - a spin in which two looks at the clock lie more than preempt_gap_ns
 *    apart was descheduled: the kernel gave this CPU to another task,
 *    i.e. something else was waiting for it. It stops at once, unless
 *    that same look finds input, and backs off as a miss does.
 * A client that keeps the server spinning gets nothing a socket client
 * could not: the spin serves nobody's requests ahead of others, it only
 * replaces a sleep.
 */
#ifndef SMT_X11_SPIN_H
#define SMT_X11_SPIN_H

#include <stdbool.h>
#include <stdint.h>

#define X11_SPIN_BACKOFF_MAX 64u
/* Two looks at the clock in a spin are well under a microsecond apart;
 * a gap this long means the thread did not run in between. */
#define X11_SPIN_PREEMPT_GAP_NS 20000u

struct x11_spin_config {
	uint64_t budget_ns;      /* longest spin; 0: never spin */
	uint64_t preempt_gap_ns; /* see above */
};

enum x11_spin_step {
	X11_SPIN_GO_ON,    /* keep looking */
	X11_SPIN_FOUND,    /* input: serve it (no sleep) */
	X11_SPIN_MISSED,   /* the budget ran out: sleep */
	X11_SPIN_PREEMPTED /* descheduled while spinning: sleep */
};

struct x11_spin {
	unsigned skip;    /* chances left to sleep without spinning */
	unsigned backoff; /* what the next miss makes skip: 1, 2, 4 .. MAX */
	uint64_t start_ns, last_ns;
	/* statistics, since the server started */
	uint64_t spins, found, missed, preempted, skipped;
	uint64_t spun_ns; /* time spent spinning, found or not */
};

/* A chance to spin at `now`: the server is about to sleep, and `armed`
 * says a ring client sent bytes within the budget. True: spin, calling
 * x11_spin_look until it says otherwise. */
bool x11_spin_begin(
		struct x11_spin *s, const struct x11_spin_config *cfg, uint64_t now, bool armed);

/* One look during the spin at `now`: `input` is whether some ring has
 * bytes. Anything but GO_ON ends the spin. */
enum x11_spin_step x11_spin_look(
		struct x11_spin *s, const struct x11_spin_config *cfg, uint64_t now, bool input);

#endif
