#include "xwayland-glue/wm/wm_event_queue.h"

#include <stdlib.h>
#include <string.h>

#define QUEUE_MASK (WM_EVENT_QUEUE_CAP - 1u)

_Static_assert((WM_EVENT_QUEUE_CAP & QUEUE_MASK) == 0, "WM_EVENT_QUEUE_CAP: a power of two");
_Static_assert((WM_EVENT_MERGE_SLOTS & (WM_EVENT_MERGE_SLOTS - 1u)) == 0,
		"WM_EVENT_MERGE_SLOTS: a power of two");

bool wm_event_queue_init(struct wm_event_queue *q, uint32_t own_base, uint32_t own_mask)
{
	memset(q, 0, sizeof(*q));
	q->ring = calloc(WM_EVENT_QUEUE_CAP, sizeof(*q->ring));
	q->own_base = own_base;
	q->own_mask = own_mask;
	/* Slots start in generation 0, the queue in 1: none is valid yet. */
	q->gen = 1;
	return q->ring != NULL;
}

void wm_event_queue_clear(struct wm_event_queue *q)
{
	xcb_generic_event_t *ev;
	while ((ev = wm_event_queue_pop(q)) != NULL) {
		free(ev);
	}
	free(q->ring);
	q->ring = NULL;
}

/* A window the window manager made: its selection transfers count every
 * PropertyNotify. With no XID range known every window is taken as its
 * own, so nothing is merged. */
static bool own_window(const struct wm_event_queue *q, uint32_t window)
{
	return q->own_mask == 0 || (window & ~q->own_mask) == q->own_base;
}

static struct wm_event_merge_slot *merge_slot(
		struct wm_event_queue *q, const xcb_property_notify_event_t *pn)
{
	uint32_t h = pn->window * 0x9e3779b1u ^ pn->atom * 0x85ebca77u ^ pn->state;
	h ^= h >> 15;
	return &q->merge[h & (WM_EVENT_MERGE_SLOTS - 1u)];
}

/* True if ev repeats a PropertyNotify still waiting; otherwise, for a
 * mergeable one, it becomes the one waiting. */
static bool merges(struct wm_event_queue *q, const xcb_generic_event_t *ev)
{
	uint8_t type = ev->response_type & 0x7f;
	if (type == XCB_DESTROY_NOTIFY) {
		q->gen++;
		return false;
	}
	if (type != XCB_PROPERTY_NOTIFY) {
		return false;
	}
	const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *)ev;
	if (own_window(q, pn->window)) {
		return false;
	}
	struct wm_event_merge_slot *slot = merge_slot(q, pn);
	if (slot->gen == q->gen && slot->seq >= q->popped && slot->window == pn->window &&
			slot->atom == pn->atom && slot->state == pn->state) {
		return true;
	}
	*slot = (struct wm_event_merge_slot){
		.window = pn->window,
		.atom = pn->atom,
		.state = pn->state,
		.seq = q->pushed,
		.gen = q->gen,
	};
	return false;
}

void wm_event_queue_push(struct wm_event_queue *q, xcb_generic_event_t *ev)
{
	if (merges(q, ev)) {
		q->merged++;
		free(ev);
		return;
	}
	q->ring[q->pushed & QUEUE_MASK] = ev;
	q->pushed++;
	if (wm_event_queue_length(q) > q->peak) {
		q->peak = wm_event_queue_length(q);
	}
}

xcb_generic_event_t *wm_event_queue_pop(struct wm_event_queue *q)
{
	if (q->popped == q->pushed) {
		return NULL;
	}
	xcb_generic_event_t *ev = q->ring[q->popped & QUEUE_MASK];
	q->ring[q->popped & QUEUE_MASK] = NULL;
	q->popped++;
	return ev;
}
