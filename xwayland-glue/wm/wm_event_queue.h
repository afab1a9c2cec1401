/*
 * The X window manager's events, held between the X server and wlroots'
 * window manager (wm_event_pacer.c): a FIFO that merges PropertyNotify
 * events nobody needs twice.
 *
 * wlroots 0.15 answers every PropertyNotify on a client's window with a
 * synchronous GetProperty, and reads the property's value as it is when
 * it gets there, not as it was when the event was sent. So of two
 * PropertyNotify for the same window, property and state, the later adds
 * nothing while the earlier is still waiting: it is dropped. What stays in
 * order: every other event, and every PropertyNotify on the window
 * manager's own windows (selection transfers count them). A DestroyNotify
 * forgets what is waiting (the window's id may come back as another
 * window).
 *
 * Pure: no libxcb calls, only its protocol structs; unit-tested alone
 * (tests/unit/test_wm_event_queue.c).
 */
#ifndef SMT_WM_EVENT_QUEUE_H
#define SMT_WM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

/* Slots of the merge index: direct-mapped, so a collision only merges
 * less, never wrongly. */
#define WM_EVENT_MERGE_SLOTS 4096u
/* Events waiting at most (a power of two): with the FIFO full the pacer
 * stops reading from libxcb, and what the X server sends waits there. */
#define WM_EVENT_QUEUE_CAP 16384u

struct wm_event_merge_slot {
	uint32_t window, atom;
	uint8_t state;
	uint64_t seq; /* the waiting event's place in the FIFO */
	uint64_t gen; /* valid only in the generation it was written in */
};

struct wm_event_queue {
	xcb_generic_event_t **ring; /* WM_EVENT_QUEUE_CAP slots */
	uint64_t pushed, popped;    /* FIFO positions: an event at seq s waits iff s >= popped */
	uint64_t gen;               /* bumped by a DestroyNotify */
	/* Windows the window manager made (its XID range): never merged. */
	uint32_t own_base, own_mask;
	struct wm_event_merge_slot merge[WM_EVENT_MERGE_SLOTS];
	uint64_t merged; /* events dropped as duplicates, ever */
	size_t peak;     /* most events waiting at once */
};

/* False if the FIFO's memory could not be had. */
bool wm_event_queue_init(struct wm_event_queue *q, uint32_t own_base, uint32_t own_mask);

/* Frees every event still waiting and the FIFO's memory. */
void wm_event_queue_clear(struct wm_event_queue *q);

static inline size_t wm_event_queue_length(const struct wm_event_queue *q)
{
	return (size_t)(q->pushed - q->popped);
}

static inline bool wm_event_queue_full(const struct wm_event_queue *q)
{
	return wm_event_queue_length(q) >= WM_EVENT_QUEUE_CAP;
}

/* Takes ownership of ev (malloc'd, as libxcb returns it): queues it, or
 * frees it when a waiting event makes it redundant. The queue must not be
 * full. */
void wm_event_queue_push(struct wm_event_queue *q, xcb_generic_event_t *ev);

/* The oldest waiting event, the caller's to free; NULL when empty. */
xcb_generic_event_t *wm_event_queue_pop(struct wm_event_queue *q);

#endif
