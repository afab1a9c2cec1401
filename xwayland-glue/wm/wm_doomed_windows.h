/*
 * Which client windows already have their end waiting in the window
 * manager's event FIFO (wm_event_queue.h), so that what comes before it
 * need not be handed to wlroots.
 *
 * An X client that creates, maps and destroys windows in a loop (red
 * team, session 28: `smt-x11-wm-hostile window-churn`) has wlroots 0.15
 * make a surface per CreateNotify (a synchronous GetGeometry: a round trip
 * through Xwayland's scheduler), answer each MapRequest with five
 * requests, pair each WL_SURFACE_ID with eleven GetProperty and an XRes
 * query, one round trip each, for windows that are gone by then. The
 * FIFO asks this index, for each event it hands out, whether a
 * DestroyNotify of the same window is queued behind it: if so, the event
 * tells wlroots nothing it will still act on. A window whose CreateNotify
 * and DestroyNotify are both queued is never shown to wlroots at all
 * (both dropped: wlroots ignores a DestroyNotify of a window it does not
 * know), unless a SelectionRequest names it as requestor in between:
 * wlroots ends an outgoing selection transfer when its requestor window
 * is destroyed, and only for a window it knows.
 *
 * Positions are the FIFO's (monotonic); the index holds at most
 * WM_DOOMED_LOAD windows at once, and what it could not record only drops
 * less (a SelectionRequest not recorded stops pair dropping for the
 * windows created before it). Pure: unit-tested with the FIFO
 * (tests/unit/test_wm_event_queue.c).
 */
#ifndef SMT_WM_DOOMED_WINDOWS_H
#define SMT_WM_DOOMED_WINDOWS_H

#include <stdbool.h>
#include <stdint.h>

/* Open addressing, linear probing: a power of two, kept at most 3/4 full. */
#define WM_DOOMED_SLOTS 32768u
#define WM_DOOMED_LOAD (WM_DOOMED_SLOTS / 4u * 3u)

struct wm_doomed_entry {
	uint32_t window;     /* 0: a free slot (no X window has id 0) */
	bool unborn;         /* its CreateNotify was dropped: so is its next DestroyNotify */
	uint64_t destroy_at; /* position + 1 of its last queued DestroyNotify; 0: none */
	uint64_t request_at; /* position + 1 of its last queued SelectionRequest; 0: none */
};

struct wm_doomed_windows {
	struct wm_doomed_entry *slots; /* WM_DOOMED_SLOTS */
	uint32_t count;
	/* Position + 1 of the last SelectionRequest that found no room: no
	 * window created before it is dropped whole. */
	uint64_t request_untracked_at;
};

bool wm_doomed_init(struct wm_doomed_windows *d);
void wm_doomed_clear(struct wm_doomed_windows *d);

/* Queued at position seq: a DestroyNotify of window, a SelectionRequest
 * naming it as requestor. */
void wm_doomed_destroy_queued(struct wm_doomed_windows *d, uint32_t window, uint64_t seq);
void wm_doomed_request_queued(struct wm_doomed_windows *d, uint32_t window, uint64_t seq);

/* An event about window at position seq, about to be handed out: true if
 * a DestroyNotify of the window is queued after it. */
bool wm_doomed_after(const struct wm_doomed_windows *d, uint32_t window, uint64_t seq);

/* The CreateNotify of window at seq, about to be handed out: true if it
 * is to be dropped with its DestroyNotify (marked so). */
bool wm_doomed_unborn(struct wm_doomed_windows *d, uint32_t window, uint64_t seq);

/* The DestroyNotify / SelectionRequest of window at seq leaves the FIFO.
 * For a DestroyNotify: true if it is to be dropped (its window unborn). */
bool wm_doomed_destroy_leaves(struct wm_doomed_windows *d, uint32_t window, uint64_t seq);
void wm_doomed_request_leaves(struct wm_doomed_windows *d, uint32_t window, uint64_t seq);

#endif
