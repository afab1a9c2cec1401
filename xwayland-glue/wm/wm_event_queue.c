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
	q->held = calloc(WM_EVENT_HELD_CAP, sizeof(*q->held));
	q->own_base = own_base;
	q->own_mask = own_mask;
	q->gen = 1;
	return q->ring != NULL && q->held != NULL;
}

void wm_event_queue_know_atoms(struct wm_event_queue *q, const uint32_t *atoms, unsigned n)
{
	q->nknown = 0;
	for (unsigned i = 0; i < n && i < WM_KNOWN_ATOMS_MAX; i++) {
		q->known[q->nknown++] = atoms[i];
	}
}

/* A new value nobody reads: the window manager would fetch it and drop it.
 * A deletion always counts (selection transfers wait for them). */
static bool unread(const struct wm_event_queue *q, const xcb_property_notify_event_t *pn)
{
	if (q->nknown == 0 || pn->state != XCB_PROPERTY_NEW_VALUE) {
		return false;
	}
	for (unsigned i = 0; i < q->nknown; i++) {
		if (q->known[i] == pn->atom) {
			return false;
		}
	}
	return true;
}

void wm_event_queue_clear(struct wm_event_queue *q)
{
	if (q->ring != NULL) {
		while (q->popped != q->pushed) {
			free(q->ring[q->popped++ & QUEUE_MASK]);
		}
	}
	for (uint32_t i = 0; i < q->held_count; i++) {
		free(q->held[i].ev);
	}
	free(q->ring);
	free(q->held);
	q->ring = NULL;
	q->held = NULL;
	q->held_count = 0;
}

uint64_t wm_event_queue_next_due(const struct wm_event_queue *q)
{
	uint64_t due = 0;
	for (uint32_t i = 0; i < q->held_count; i++) {
		if (due == 0 || q->held[i].due_ns < due) {
			due = q->held[i].due_ns;
		}
	}
	return due;
}

/* A PropertyNotify on a client's window; NULL for anything else. With no
 * XID range known every window is taken as the manager's own: nothing is
 * merged or paced. */
static const xcb_property_notify_event_t *client_property(
		const struct wm_event_queue *q, const xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) != XCB_PROPERTY_NOTIFY) {
		return NULL;
	}
	const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *)ev;
	if (q->own_mask == 0 || (pn->window & ~q->own_mask) == q->own_base) {
		return NULL;
	}
	return pn;
}

static struct wm_event_slot *slot_of(
		struct wm_event_queue *q, const xcb_property_notify_event_t *pn)
{
	uint32_t h = pn->window * 0x9e3779b1u ^ pn->atom * 0x85ebca77u ^ pn->state;
	h ^= h >> 15;
	return &q->slots[h & (WM_EVENT_MERGE_SLOTS - 1u)];
}

static bool same_key(const struct wm_event_slot *slot, const xcb_property_notify_event_t *pn)
{
	return slot->window == pn->window && slot->atom == pn->atom && slot->state == pn->state;
}

/* Whether the slot's event still waits (in the FIFO or held). */
static bool slot_waits(const struct wm_event_queue *q, const struct wm_event_slot *slot)
{
	return slot->where == WM_EVENT_HELD ||
			(slot->where == WM_EVENT_IN_FIFO && slot->seq >= q->popped);
}

void wm_event_queue_push(struct wm_event_queue *q, xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) == XCB_DESTROY_NOTIFY) {
		q->gen++;
	}
	const xcb_property_notify_event_t *pn = client_property(q, ev);
	if (pn != NULL && unread(q, pn)) {
		q->ignored++;
		free(ev);
		return;
	}
	if (pn != NULL) {
		struct wm_event_slot *slot = slot_of(q, pn);
		bool mine = same_key(slot, pn);
		if (mine && slot->gen == q->gen && slot_waits(q, slot)) {
			q->merged++;
			free(ev);
			return;
		}
		/* Index it unless another key's event waits in the slot. */
		if (mine || !slot_waits(q, slot)) {
			uint64_t handed = mine ? slot->handed_ns : 0;
			*slot = (struct wm_event_slot){
				.window = pn->window,
				.atom = pn->atom,
				.state = pn->state,
				.where = WM_EVENT_IN_FIFO,
				.gen = q->gen,
				.seq = q->pushed,
				.handed_ns = handed,
			};
		}
	}
	q->ring[q->pushed & QUEUE_MASK] = ev;
	q->pushed++;
	if (wm_event_queue_length(q) > q->peak) {
		q->peak = wm_event_queue_length(q);
	}
}

/* pn is handed out now: its key's slot no longer points at a waiting event
 * (if it pointed at this one) and remembers when. */
static void note_handed(struct wm_event_queue *q, const xcb_property_notify_event_t *pn,
		uint64_t seq, uint64_t now_ns)
{
	struct wm_event_slot *slot = slot_of(q, pn);
	if (!same_key(slot, pn)) {
		if (slot_waits(q, slot)) {
			return; /* another key's: pacing this one is lost, not wrong */
		}
		*slot = (struct wm_event_slot){
			.window = pn->window, .atom = pn->atom, .state = pn->state
		};
	}
	bool this_one = (slot->where == WM_EVENT_HELD && q->held[slot->held_index].seq == seq) ||
			(slot->where == WM_EVENT_IN_FIFO && slot->seq == seq);
	if (this_one || !slot_waits(q, slot)) {
		slot->where = WM_EVENT_GONE;
	}
	slot->handed_ns = now_ns != 0 ? now_ns : 1;
}

static xcb_generic_event_t *take_held(struct wm_event_queue *q, uint32_t i, uint64_t now_ns)
{
	struct wm_held_event h = q->held[i];
	const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *)h.ev;
	note_handed(q, pn, h.seq, now_ns);
	/* The last entry moves into i; its slot follows it. */
	q->held_count--;
	if (i != q->held_count) {
		q->held[i] = q->held[q->held_count];
		const xcb_property_notify_event_t *moved =
				(const xcb_property_notify_event_t *)q->held[i].ev;
		struct wm_event_slot *slot = slot_of(q, moved);
		if (same_key(slot, moved) && slot->where == WM_EVENT_HELD &&
				slot->held_index == q->held_count) {
			slot->held_index = i;
		}
	}
	return h.ev;
}

/* pn, just taken from the FIFO at seq, came within the interval of the
 * last one with its key: held until then (true), unless there is no room. */
static bool hold(struct wm_event_queue *q, xcb_generic_event_t *ev,
		const xcb_property_notify_event_t *pn, uint64_t seq, uint64_t now_ns)
{
	/* A deletion is what a selection transfer to a client (INCR) waits
	 * for before each chunk: never held, or a paste would crawl. */
	if (pn->state != XCB_PROPERTY_NEW_VALUE) {
		return false;
	}
	struct wm_event_slot *slot = slot_of(q, pn);
	if (!same_key(slot, pn) || slot->handed_ns == 0 ||
			now_ns - slot->handed_ns >= WM_PROPERTY_INTERVAL_NS ||
			q->held_count >= WM_EVENT_HELD_CAP) {
		return false;
	}
	q->held[q->held_count] = (struct wm_held_event){
		.ev = ev,
		.due_ns = slot->handed_ns + WM_PROPERTY_INTERVAL_NS,
		.seq = seq,
	};
	if (slot->where == WM_EVENT_IN_FIFO && slot->seq == seq) {
		slot->where = WM_EVENT_HELD;
		slot->held_index = q->held_count;
	}
	q->held_count++;
	q->paced++;
	return true;
}

xcb_generic_event_t *wm_event_queue_pop(struct wm_event_queue *q, uint64_t now_ns)
{
	uint32_t due = q->held_count;
	for (uint32_t i = 0; i < q->held_count; i++) {
		if (q->held[i].due_ns <= now_ns &&
				(due == q->held_count || q->held[i].due_ns < q->held[due].due_ns)) {
			due = i;
		}
	}
	if (due < q->held_count) {
		return take_held(q, due, now_ns);
	}
	while (q->popped != q->pushed) {
		uint64_t seq = q->popped;
		xcb_generic_event_t *ev = q->ring[seq & QUEUE_MASK];
		q->ring[seq & QUEUE_MASK] = NULL;
		q->popped++;
		const xcb_property_notify_event_t *pn = client_property(q, ev);
		if (pn == NULL) {
			return ev;
		}
		if (!hold(q, ev, pn, seq, now_ns)) {
			note_handed(q, pn, seq, now_ns);
			return ev;
		}
	}
	return NULL;
}
