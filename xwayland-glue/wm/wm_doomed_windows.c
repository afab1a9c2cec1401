#include "xwayland-glue/wm/wm_doomed_windows.h"

#include <stdlib.h>

#define DOOMED_MASK (WM_DOOMED_SLOTS - 1u)

_Static_assert((WM_DOOMED_SLOTS & DOOMED_MASK) == 0, "WM_DOOMED_SLOTS: a power of two");

bool wm_doomed_init(struct wm_doomed_windows *d)
{
	d->slots = calloc(WM_DOOMED_SLOTS, sizeof(*d->slots));
	d->count = 0;
	d->request_untracked_at = 0;
	return d->slots != NULL;
}

void wm_doomed_clear(struct wm_doomed_windows *d)
{
	free(d->slots);
	d->slots = NULL;
	d->count = 0;
}

static uint32_t home(uint32_t window)
{
	uint32_t h = window * 0x9e3779b1u;
	return (h ^ (h >> 16)) & DOOMED_MASK;
}

static struct wm_doomed_entry *find(const struct wm_doomed_windows *d, uint32_t window)
{
	if (d->slots == NULL || window == 0) {
		return NULL;
	}
	for (uint32_t i = home(window);; i = (i + 1) & DOOMED_MASK) {
		struct wm_doomed_entry *e = &d->slots[i];
		if (e->window == window) {
			return e;
		}
		if (e->window == 0) {
			return NULL; /* never all full: count <= WM_DOOMED_LOAD */
		}
	}
}

/* NULL when the index is at its load. */
static struct wm_doomed_entry *find_or_add(struct wm_doomed_windows *d, uint32_t window)
{
	struct wm_doomed_entry *e = find(d, window);
	if (e != NULL || d->slots == NULL || window == 0 || d->count >= WM_DOOMED_LOAD) {
		return e;
	}
	uint32_t i = home(window);
	while (d->slots[i].window != 0) {
		i = (i + 1) & DOOMED_MASK;
	}
	d->slots[i] = (struct wm_doomed_entry){ .window = window };
	d->count++;
	return &d->slots[i];
}

/* An entry with nothing left to say goes; the ones after it in its probe
 * run move back so that every entry stays reachable from its home. */
static void forget_if_empty(struct wm_doomed_windows *d, struct wm_doomed_entry *e)
{
	if (e->unborn || e->destroy_at != 0 || e->request_at != 0) {
		return;
	}
	uint32_t hole = (uint32_t)(e - d->slots);
	d->slots[hole].window = 0;
	d->count--;
	for (uint32_t i = (hole + 1) & DOOMED_MASK; d->slots[i].window != 0;
			i = (i + 1) & DOOMED_MASK) {
		uint32_t h = home(d->slots[i].window);
		/* Movable into the hole if its home is not within (hole, i]. */
		bool home_between = hole < i ? (h > hole && h <= i) : (h > hole || h <= i);
		if (!home_between) {
			d->slots[hole] = d->slots[i];
			d->slots[i].window = 0;
			hole = i;
		}
	}
}

void wm_doomed_destroy_queued(struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	struct wm_doomed_entry *e = find_or_add(d, window);
	if (e != NULL) {
		e->destroy_at = seq + 1;
	}
}

void wm_doomed_request_queued(struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	struct wm_doomed_entry *e = find_or_add(d, window);
	if (e != NULL) {
		e->request_at = seq + 1;
	} else {
		d->request_untracked_at = seq + 1;
	}
}

bool wm_doomed_after(const struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	const struct wm_doomed_entry *e = find(d, window);
	return e != NULL && e->destroy_at > seq + 1;
}

bool wm_doomed_unborn(struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	struct wm_doomed_entry *e = find(d, window);
	if (e == NULL || e->destroy_at <= seq + 1 || e->request_at > seq + 1 ||
			d->request_untracked_at > seq + 1) {
		return false;
	}
	e->unborn = true;
	return true;
}

bool wm_doomed_destroy_leaves(struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	struct wm_doomed_entry *e = find(d, window);
	if (e == NULL) {
		return false;
	}
	bool drop = e->unborn;
	e->unborn = false;
	if (e->destroy_at == seq + 1) {
		e->destroy_at = 0;
	}
	forget_if_empty(d, e);
	return drop;
}

void wm_doomed_request_leaves(struct wm_doomed_windows *d, uint32_t window, uint64_t seq)
{
	struct wm_doomed_entry *e = find(d, window);
	if (e != NULL && e->request_at == seq + 1) {
		e->request_at = 0;
		forget_if_empty(d, e);
	}
}
