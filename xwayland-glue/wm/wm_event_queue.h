/*
 * The X window manager's events, held between the X server and wlroots'
 * window manager (wm_event_pacer.c): a FIFO that merges and paces the
 * PropertyNotify events of clients' windows.
 *
 * wlroots 0.15 answers every PropertyNotify on a client's window with a
 * synchronous GetProperty, and reads the property's value as it is when
 * it gets there, not as it was when the event was sent. So:
 * - merged: of two PropertyNotify for the same window, property and state,
 *   the later adds nothing while the earlier still waits: it is dropped;
 * - paced: a new value is handed out at most every WM_PROPERTY_INTERVAL_NS
 *   for the same window and property (the interval views show titles at;
 *   a deletion never waits: a selection transfer to a client waits for
 *   one before each chunk);
 *   one that comes sooner is held until then, while the events behind it
 *   go on (a property read later is the same as a PropertyNotify that came
 *   later). The first change after a quiet spell is handed out at once.
 * - ignored: a new value of a property the window manager does not read
 *   (it would fetch it with a round trip and drop it), once the caller has
 *   said which it reads (wm_event_queue_know_atoms).
 * - dropped: an event about a client's window whose DestroyNotify waits
 *   behind it (wm_doomed_windows.h): wlroots would act on a window that is
 *   gone; a window created and destroyed within what waits is never shown
 *   to wlroots (its CreateNotify and DestroyNotify dropped too);
 * - messages merged: a client's _NET_WM_STATE, WM_CHANGE_STATE and
 *   _NET_ACTIVE_WINDOW ClientMessages for one window, once the caller has
 *   said their atoms (wm_event_queue_know_messages): one that repeats the
 *   window's last such message still waiting (same type, same
 *   properties) is folded into it, which then does what the run would
 *   have done (toggles of a state compose: two toggles do nothing, a
 *   remove or add then toggles is a remove or add); a window's
 *   WM_CHANGE_STATE and _NET_ACTIVE_WINDOW form one run in which the last
 *   asked wins (minimize and activate in turn is one message), except
 *   that NormalState after an activation adds nothing; and a window's
 *   run of ConfigureRequests is one (what any of them asks, each field's
 *   last value).
 * - messages ignored: a ClientMessage wlroots does nothing with but
 *   ask the X server its type's name (an unknown type, a WM_PROTOCOLS
 *   message other than a ping), and a _NET_WM_STATE property it does not
 *   know (made None), once the caller has said what it handles
 *   (wm_event_queue_know_handled): a client sending such messages to the
 *   root in a loop made the window manager wait for one round trip each
 *   (session 35).
 * What stays in order and is never merged nor held: every other event,
 * and every PropertyNotify on the window manager's own windows (selection
 * transfers count them). A DestroyNotify ends merging into what waits
 * (the window's id may come back as another window).
 *
 * Pure: no libxcb calls, only its protocol structs; the clock is the
 * caller's. Unit-tested alone (tests/unit/test_wm_event_queue.c).
 */
#ifndef SMT_WM_EVENT_QUEUE_H
#define SMT_WM_EVENT_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xcb/xcb.h>

#include "xwayland-glue/wm/wm_doomed_windows.h"

/* Slots of the merge and pacing index: direct-mapped, so a collision only
 * merges or paces less, never wrongly. */
#define WM_EVENT_MERGE_SLOTS 4096u
/* Events waiting in order at most (a power of two): with the FIFO full the
 * pacer stops reading from libxcb, and what the X server sends waits
 * there. */
#define WM_EVENT_QUEUE_CAP 16384u
/* PropertyNotify held for their time at most; past it they are handed out
 * unpaced (still merged). */
#define WM_EVENT_HELD_CAP 1024u
#define WM_PROPERTY_INTERVAL_NS 50000000u
#define WM_KNOWN_ATOMS_MAX 16u
/* Direct-mapped by window: a collision merges less, never wrongly. */
#define WM_MESSAGE_SLOTS 4096u
/* The ClientMessage types and _NET_WM_STATE properties wlroots acts on
 * (wm_event_queue_know_handled), at most. */
#define WM_HANDLED_MESSAGES_MAX 12u
#define WM_HANDLED_STATES_MAX 8u
/* _NET_WM_STATE's actions (EWMH), and the one a run of toggles that
 * cancel out becomes: wlroots 0.15 changes nothing for it. */
enum {
	WM_STATE_REMOVE = 0,
	WM_STATE_ADD = 1,
	WM_STATE_TOGGLE = 2,
	WM_STATE_KEEP = 3
};

enum wm_event_where {
	WM_EVENT_GONE,
	WM_EVENT_IN_FIFO,
	WM_EVENT_HELD
};

struct wm_event_slot {
	uint32_t window, atom;
	uint8_t state;
	enum wm_event_where where; /* of the event with this key that waits */
	uint64_t gen;              /* merging into it only in this generation */
	uint64_t seq;              /* its FIFO position (IN_FIFO) */
	uint32_t held_index;       /* its place in held[] (HELD) */
	uint64_t handed_ns;        /* the last one with this key handed out; 0: none */
};

/* A window's last mergeable ClientMessage in the FIFO. */
struct wm_message_slot {
	uint32_t window, type, p1, p2;
	uint64_t gen;
	uint64_t seq; /* its FIFO position: merged into while >= popped */
};

struct wm_held_event {
	xcb_generic_event_t *ev;
	uint64_t due_ns;
	uint64_t seq; /* as it was in the FIFO: tells it from a newer one */
};

struct wm_event_queue {
	xcb_generic_event_t **ring; /* WM_EVENT_QUEUE_CAP slots */
	uint64_t pushed, popped;    /* FIFO positions */
	uint64_t gen;               /* bumped by a DestroyNotify */
	/* Windows the window manager made (its XID range): never merged. */
	uint32_t own_base, own_mask;
	struct wm_event_slot slots[WM_EVENT_MERGE_SLOTS];
	struct wm_held_event *held; /* WM_EVENT_HELD_CAP entries */
	uint32_t held_count;
	uint32_t known[WM_KNOWN_ATOMS_MAX]; /* properties the window manager reads */
	unsigned nknown;                    /* 0: all, as far as we know */
	uint64_t merged, paced;             /* events dropped as repeats; held for their time */
	uint64_t ignored;                   /* new values of properties it does not read */
	struct wm_doomed_windows doomed;
	uint64_t dropped; /* events about windows whose DestroyNotify waited behind them */
	uint64_t unborn;  /* windows created and destroyed in the FIFO: never shown */
	/* _NET_WM_STATE, WM_CHANGE_STATE, _NET_ACTIVE_WINDOW; 0: not known */
	uint32_t net_wm_state, wm_change_state, net_active_window;
	struct wm_message_slot *messages; /* WM_MESSAGE_SLOTS */
	uint64_t messages_merged;
	/* ClientMessages wlroots acts on (0 types: all, as far as we know) */
	uint32_t handled[WM_HANDLED_MESSAGES_MAX];
	unsigned nhandled;
	uint32_t wm_protocols, net_wm_ping;
	uint32_t states[WM_HANDLED_STATES_MAX];
	unsigned nstates;
	uint64_t messages_ignored; /* ClientMessages and state properties it does nothing with */
	size_t peak;               /* most events in the FIFO at once */
};

/* False if memory could not be had. */
bool wm_event_queue_init(struct wm_event_queue *q, uint32_t own_base, uint32_t own_mask);

/* The properties the window manager reads (at most WM_KNOWN_ATOMS_MAX;
 * the rest are ignored as well: pass them all or none). */
void wm_event_queue_know_atoms(struct wm_event_queue *q, const uint32_t *atoms, unsigned n);

/* The atoms of the ClientMessages merged per window (0: that kind not
 * merged). */
void wm_event_queue_know_messages(struct wm_event_queue *q, uint32_t net_wm_state,
		uint32_t wm_change_state, uint32_t net_active_window);

/* What wlroots 0.15 does something with, past which it asks the X server
 * an atom's name (a round trip, to log it) and does nothing: ClientMessage
 * types (types, all of them: a missing one would be lost), WM_PROTOCOLS
 * messages only of _NET_WM_PING, and _NET_WM_STATE's properties (states).
 * Other messages are dropped as they come, other properties of a
 * _NET_WM_STATE message made None (counted in messages_ignored). */
void wm_event_queue_know_handled(struct wm_event_queue *q, const uint32_t *types, unsigned ntypes,
		uint32_t wm_protocols, uint32_t net_wm_ping, const uint32_t *states,
		unsigned nstates);

/* Frees every event still waiting or held, and the queue's memory. */
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
 * frees it when a waiting event makes it redundant. The FIFO must not be
 * full. */
void wm_event_queue_push(struct wm_event_queue *q, xcb_generic_event_t *ev);

/* The next event to hand out at now_ns, the caller's to free: a held one
 * whose time has come, else the FIFO's oldest (holding the PropertyNotify
 * that come too soon on the way). NULL: nothing to hand out now. */
xcb_generic_event_t *wm_event_queue_pop(struct wm_event_queue *q, uint64_t now_ns);

/* The X server's UnmapNotify or DestroyNotify of window (not an X
 * client's SendEvent of one) waits in the FIFO (a scan of what waits: at
 * most WM_EVENT_QUEUE_CAP events). */
bool wm_event_queue_ends_window(const struct wm_event_queue *q, uint32_t window);

/* Windows of the next CreateNotify waiting in the FIFO whose DestroyNotify
 * does not wait behind them (what the window manager will make surfaces
 * for next), at most max, looking at WM_EVENT_LOOKAHEAD events at most. */
#define WM_EVENT_LOOKAHEAD 4096u
unsigned wm_event_queue_next_created(
		const struct wm_event_queue *q, uint32_t *windows, unsigned max);

/* When the earliest held event is due; 0 if none is held. */
uint64_t wm_event_queue_next_due(const struct wm_event_queue *q);

#endif
