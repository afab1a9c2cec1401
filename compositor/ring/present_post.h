/*
 * PRESENTs a ring worker copied into a canvas's front buffer itself,
 * posted to the main thread: it damages the outputs that show them and
 * sends `presented` (the scene and libwayland are its alone), at its next
 * turn, while the worker runs the ring on (docs/architecture.md,
 * "Threads"). Each ring has an outbox of at most PRESENT_OUTBOX_MAX; a
 * worker that finds its ring's full hands the PRESENT to the main thread as
 * before, so what waits is bounded by the rings. Pure (pixman and
 * pthreads): tests/unit/test_present_post.c checks order, loss and drops
 * with workers posting while the main thread takes, also under TSan.
 */
#ifndef SMTWC_RING_PRESENT_POST_H
#define SMTWC_RING_PRESENT_POST_H

#include <pixman.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define PRESENT_OUTBOX_MAX 8

struct present_posted {
	void *canvas;
	uint32_t serial;
	uint64_t exec_ns; /* when the worker executed it */
	pixman_region32_t damage;
	uint64_t charged; /* the client's memory the damage is charged */
};

/* One ring's posted PRESENTs, in stream order; zero-initialised. The
 * post's lock guards all of it. */
struct present_outbox {
	struct present_posted posted[PRESENT_OUTBOX_MAX];
	unsigned count;
	struct present_outbox *next, *prev; /* listed in the post while count > 0 */
};

struct present_post {
	/* Nothing is locked while it is held but the accounts' lock
	 * (resource_usage.c, a leaf): take's fn releases a damage's charge. */
	pthread_mutex_t lock;
	struct present_outbox *first, *last; /* in the order of their first post */
	uint64_t posted, taken, dropped, refused;
};

void present_post_init(struct present_post *post);
/* Every outbox was dropped before. */
void present_post_finish(struct present_post *post);

/* Worker: posts a PRESENT of its ring, taking *damage over (it is left
 * empty and initialised). false when the outbox is full (nothing taken).
 * *was_empty: nothing else waited in the post (a sleeping main thread must
 * be woken for it). */
bool present_post_put(struct present_post *post, struct present_outbox *box, void *canvas,
		uint32_t serial, uint64_t exec_ns, pixman_region32_t *damage, uint64_t charged,
		bool *was_empty);

typedef void (*present_taken_fn)(void *data, const struct present_posted *posted);
/* Main thread: calls fn for every posted PRESENT (under the post's lock:
 * fn must not post or drop), outbox by outbox in the order they were
 * first posted to, each in stream order, and empties the post. Returns
 * how many. */
unsigned present_post_take(struct present_post *post, present_taken_fn fn, void *data);
/* Main thread: drops the outbox's PRESENTs of canvas (NULL: all of them),
 * a canvas or ring being freed; the others keep their order. Returns what
 * the dropped damage was charged (the caller releases it). */
uint64_t present_post_drop(
		struct present_post *post, struct present_outbox *box, const void *canvas);
bool present_post_pending(struct present_post *post);

#endif
