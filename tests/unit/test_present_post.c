/*
 * compositor/ring/present_post.h: PRESENTs ring workers copied, posted to
 * the main thread. Alone: a full outbox refuses (nothing lost), a drop of
 * one canvas keeps the others' order, take empties the post in stream
 * order. Then WORKERS threads post to their own outboxes, alternating two
 * canvases, while the main thread takes and now and then drops one
 * canvas's PRESENTs: every PRESENT is taken or dropped exactly once, each
 * canvas's serials arrive in order, the kept canvas's without a gap, each
 * with its own damage. Also run under ThreadSanitizer (scripts/test.sh).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include "compositor/ring/present_post.h"
#include "tests/unit/unit_check.h"

#define WORKERS 3
#define POSTS 20000u

static struct present_post post;
static struct present_outbox boxes[WORKERS];
/* per worker: canvas [0] is kept, [1] is dropped now and then */
static int canvases[WORKERS][2];
static atomic_uint refused, done_workers;

static void post_one(int w, int which, uint32_t serial)
{
	pixman_region32_t damage;
	pixman_region32_init_rect(&damage, (int)(serial % 1000), w, 1, 1);
	bool was_empty;
	while (!present_post_put(&post, &boxes[w], &canvases[w][which], serial, serial, &damage, 0,
			&was_empty)) {
		atomic_fetch_add(&refused, 1);
		sched_yield();
	}
	REQUIRE(!pixman_region32_not_empty(&damage), "put took the damage over");
	pixman_region32_fini(&damage);
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	for (uint32_t s = 1; s <= POSTS; s++) {
		post_one(w, (int)(s % 2), s);
	}
	atomic_fetch_add(&done_workers, 1);
	return NULL;
}

struct seen {
	uint32_t last[WORKERS][2];
	uint64_t taken;
	int bad_order, gaps, bad_damage;
};

static void check_taken(void *data, const struct present_posted *p)
{
	struct seen *seen = data;
	int *c = p->canvas;
	int w = (int)((c - &canvases[0][0]) / 2), which = (int)((c - &canvases[0][0]) % 2);
	if (p->serial <= seen->last[w][which]) {
		seen->bad_order++;
	}
	if (which == 0 && p->serial != seen->last[w][0] + 2 &&
			!(seen->last[w][0] == 0 && p->serial == 2)) {
		seen->gaps++;
	}
	seen->last[w][which] = p->serial;
	pixman_box32_t *e = pixman_region32_extents((pixman_region32_t *)&p->damage);
	if (e->x1 != (int)(p->serial % 1000) || e->y1 != w || e->x2 != e->x1 + 1 ||
			p->exec_ns != p->serial) {
		seen->bad_damage++;
	}
	seen->taken++;
}

struct order {
	uint32_t serials[32];
	unsigned n;
};

static void record(void *data, const struct present_posted *p)
{
	struct order *o = data;
	if (o->n < 32) {
		o->serials[o->n++] = p->serial;
	}
}

static void alone(void)
{
	current_test = "present_post alone";
	present_post_init(&post);
	pixman_region32_t d;
	bool was_empty = false;
	for (uint32_t s = 1; s <= PRESENT_OUTBOX_MAX; s++) {
		pixman_region32_init_rect(&d, 0, 0, 2, 2);
		CHECK(present_post_put(
				&post, &boxes[0], &canvases[0][s % 2], s, 0, &d, s, &was_empty));
		CHECK(was_empty == (s == 1));
		pixman_region32_fini(&d);
	}
	pixman_region32_init_rect(&d, 0, 0, 2, 2);
	CHECK(!present_post_put(&post, &boxes[0], &canvases[0][0], 99, 0, &d, 99, &was_empty));
	CHECK(pixman_region32_not_empty(&d)); /* refused: still the caller's */
	pixman_region32_fini(&d);
	pixman_region32_init_rect(&d, 0, 0, 2, 2);
	CHECK(present_post_put(&post, &boxes[1], &canvases[1][0], 50, 0, &d, 50, &was_empty));
	pixman_region32_fini(&d);
	/* canvas [0][1] had the odd serials, each charged its serial: the
	 * drop hands their charges back to be released */
	uint64_t odd = 0;
	for (uint32_t s = 1; s <= PRESENT_OUTBOX_MAX; s += 2)
		odd += s;
	CHECK(present_post_drop(&post, &boxes[0], &canvases[0][1]) == odd);
	struct order o = { .n = 0 };
	CHECK_INT(present_post_take(&post, record, &o), PRESENT_OUTBOX_MAX / 2 + 1);
	CHECK_INT(o.n, PRESENT_OUTBOX_MAX / 2 + 1);
	for (unsigned i = 0; i < PRESENT_OUTBOX_MAX / 2; i++) {
		CHECK_INT(o.serials[i], 2 * (i + 1));
	}
	CHECK_INT(o.serials[PRESENT_OUTBOX_MAX / 2], 50); /* the outbox posted to second */
	CHECK(!present_post_pending(&post));
	/* a drop of everything unlists the outbox */
	pixman_region32_init_rect(&d, 0, 0, 2, 2);
	CHECK(present_post_put(&post, &boxes[2], &canvases[2][0], 7, 0, &d, 7, &was_empty));
	pixman_region32_fini(&d);
	CHECK(present_post_drop(&post, &boxes[2], NULL) == 7);
	CHECK(!present_post_pending(&post));
	CHECK_INT(post.posted, PRESENT_OUTBOX_MAX + 2);
	CHECK_INT(post.taken + post.dropped, post.posted);
	present_post_finish(&post);
}

static void threads(void)
{
	current_test = "present_post threads";
	present_post_init(&post);
	pthread_t t[WORKERS];
	for (int w = 0; w < WORKERS; w++) {
		REQUIRE(pthread_create(&t[w], NULL, worker, (void *)(intptr_t)w) == 0,
				"pthread_create");
	}
	struct seen seen = { .taken = 0 };
	unsigned turn = 0;
	for (;;) {
		bool last = atomic_load(&done_workers) == WORKERS;
		present_post_take(&post, check_taken, &seen);
		if (++turn % 7 == 0) {
			int w = (int)(turn / 7 % WORKERS);
			present_post_drop(&post, &boxes[w], &canvases[w][1]);
		}
		if (last) {
			break;
		}
		sched_yield();
	}
	for (int w = 0; w < WORKERS; w++) {
		pthread_join(t[w], NULL);
		CHECK_INT(seen.last[w][0], POSTS); /* the kept canvas's last serial */
	}
	present_post_take(&post, check_taken, &seen);
	CHECK_INT(seen.bad_order, 0);
	CHECK_INT(seen.gaps, 0);
	CHECK_INT(seen.bad_damage, 0);
	CHECK_INT(post.posted, (uint64_t)WORKERS * POSTS);
	CHECK_INT(seen.taken, post.taken);
	CHECK_INT(post.taken + post.dropped, post.posted);
	CHECK(!present_post_pending(&post));
	printf("present_post: %llu posted, %llu taken, %llu dropped, %u refused (outbox full)\n",
			(unsigned long long)post.posted, (unsigned long long)post.taken,
			(unsigned long long)post.dropped, atomic_load(&refused));
	present_post_finish(&post);
}

int main(void)
{
	alone();
	threads();
	return failures != 0;
}
