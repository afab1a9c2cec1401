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
	q->messages = calloc(WM_MESSAGE_SLOTS, sizeof(*q->messages));
	q->own_base = own_base;
	q->own_mask = own_mask;
	q->gen = 1;
	bool doomed = wm_doomed_init(&q->doomed);
	return q->ring != NULL && q->held != NULL && q->messages != NULL && doomed;
}

void wm_event_queue_know_messages(struct wm_event_queue *q, uint32_t net_wm_state,
		uint32_t wm_change_state, uint32_t net_active_window)
{
	q->net_wm_state = net_wm_state;
	q->wm_change_state = wm_change_state;
	q->net_active_window = net_active_window;
}

void wm_event_queue_know_handled(struct wm_event_queue *q, const uint32_t *types, unsigned ntypes,
		uint32_t wm_protocols, uint32_t net_wm_ping, const uint32_t *states,
		unsigned nstates)
{
	q->nhandled = 0;
	q->nstates = 0;
	if (ntypes > WM_HANDLED_MESSAGES_MAX || nstates > WM_HANDLED_STATES_MAX) {
		return; /* all or none */
	}
	for (unsigned i = 0; i < ntypes; i++) {
		q->handled[q->nhandled++] = types[i];
	}
	for (unsigned i = 0; i < nstates; i++) {
		q->states[q->nstates++] = states[i];
	}
	q->wm_protocols = wm_protocols;
	q->net_wm_ping = net_wm_ping;
}

static bool atom_in(const uint32_t *atoms, unsigned n, uint32_t atom)
{
	for (unsigned i = 0; i < n; i++) {
		if (atoms[i] == atom) {
			return true;
		}
	}
	return false;
}

/* A ClientMessage wlroots would only ask the name of (dropped: true), or
 * a _NET_WM_STATE message whose unknown properties become None. */
static bool ignore_message(struct wm_event_queue *q, xcb_client_message_event_t *cm)
{
	if (q->nhandled == 0) {
		return false;
	}
	if (!atom_in(q->handled, q->nhandled, cm->type) ||
			(cm->type == q->wm_protocols && cm->data.data32[0] != q->net_wm_ping)) {
		q->messages_ignored++;
		return true;
	}
	if (cm->type == q->net_wm_state && cm->format == 32 && q->nstates > 0) {
		for (unsigned i = 1; i <= 2; i++) {
			uint32_t p = cm->data.data32[i];
			if (p != XCB_ATOM_NONE && !atom_in(q->states, q->nstates, p)) {
				cm->data.data32[i] = XCB_ATOM_NONE;
				q->messages_ignored++;
			}
		}
	}
	return false;
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
	free(q->messages);
	wm_doomed_clear(&q->doomed);
	q->ring = NULL;
	q->held = NULL;
	q->messages = NULL;
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

/* A client's window: not the window manager's own (nor any, with no XID
 * range known). */
static bool client_window(const struct wm_event_queue *q, uint32_t window)
{
	return q->own_mask != 0 && (window & ~q->own_mask) != q->own_base;
}

static uint32_t u32_at(const xcb_generic_event_t *ev, unsigned offset)
{
	uint32_t v;
	memcpy(&v, (const uint8_t *)ev + offset, sizeof(v));
	return v;
}

/* The window an event is about, for the kinds wlroots 0.15 looks its
 * surface up by (0: another kind: never dropped). The window field is at
 * 8 in the structure events (4 is the parent or the window selected on),
 * at 4 in PropertyNotify and ClientMessage. */
static uint32_t window_of(const xcb_generic_event_t *ev)
{
	switch (ev->response_type & 0x7f) {
	case XCB_MAP_REQUEST:
	case XCB_MAP_NOTIFY:
	case XCB_UNMAP_NOTIFY:
	case XCB_CONFIGURE_REQUEST:
	case XCB_CONFIGURE_NOTIFY:
		return u32_at(ev, 8);
	case XCB_PROPERTY_NOTIFY:
	case XCB_CLIENT_MESSAGE:
		return u32_at(ev, 4);
	default:
		return 0;
	}
}

bool wm_event_queue_ends_window(const struct wm_event_queue *q, uint32_t window)
{
	for (uint64_t seq = q->popped; seq != q->pushed; seq++) {
		const xcb_generic_event_t *ev = q->ring[seq & QUEUE_MASK];
		/* Not an X client's SendEvent of one (its type marked so). */
		uint8_t type = ev != NULL ? ev->response_type : 0;
		if ((type == XCB_UNMAP_NOTIFY || type == XCB_DESTROY_NOTIFY) &&
				u32_at(ev, 8) == window) {
			return true;
		}
	}
	return false;
}

/* The event at seq, leaving the FIFO: true if it goes to nobody (the
 * caller frees it). */
static bool drop_doomed(struct wm_event_queue *q, const xcb_generic_event_t *ev, uint64_t seq)
{
	uint8_t type = ev->response_type & 0x7f;
	if (type == XCB_CREATE_NOTIFY) {
		uint32_t w = u32_at(ev, 8);
		if (client_window(q, w) && wm_doomed_unborn(&q->doomed, w, seq)) {
			q->unborn++;
			return true;
		}
		return false;
	}
	if (type == XCB_DESTROY_NOTIFY) {
		uint32_t w = u32_at(ev, 8);
		return client_window(q, w) && wm_doomed_destroy_leaves(&q->doomed, w, seq);
	}
	if (type == XCB_SELECTION_REQUEST) {
		wm_doomed_request_leaves(&q->doomed, u32_at(ev, 12), seq);
		return false;
	}
	uint32_t w = window_of(ev);
	if (w != 0 && client_window(q, w) && wm_doomed_after(&q->doomed, w, seq)) {
		q->dropped++;
		return true;
	}
	return false;
}

/* Applying a then b to one state, as one action. */
static uint32_t compose_state_actions(uint32_t a, uint32_t b)
{
	if (b == WM_STATE_REMOVE || b == WM_STATE_ADD) {
		return b;
	}
	if (b == WM_STATE_KEEP) {
		return a;
	}
	switch (a) {
	case WM_STATE_REMOVE:
		return WM_STATE_ADD;
	case WM_STATE_ADD:
		return WM_STATE_REMOVE;
	case WM_STATE_TOGGLE:
		return WM_STATE_KEEP;
	default:
		return WM_STATE_TOGGLE;
	}
}

/* What one _NET_WM_STATE message does to each property it names: wlroots
 * applies its action to both, so naming one twice toggles it twice. An
 * action EWMH does not define does nothing. */
static uint32_t state_action(const xcb_client_message_event_t *cm)
{
	uint32_t a = cm->data.data32[0];
	if (a > WM_STATE_TOGGLE) {
		return WM_STATE_KEEP;
	}
	if (a == WM_STATE_TOGGLE && cm->data.data32[1] == cm->data.data32[2]) {
		return WM_STATE_KEEP;
	}
	return a;
}

/* WM_CHANGE_STATE and _NET_ACTIVE_WINDOW share a run: each decides
 * whether the window is shown, minimized or focused, so the last asked
 * wins (xwayland.c applies them so too), with one exception: a
 * WM_CHANGE_STATE to NormalState after an activation adds nothing (the
 * activation shows the window) and must not undo the focus. */
#define WM_ICONIC_STATE 3u
#define WM_MESSAGE_ACTIVITY 0xffffffffu /* the run's key in place of a type */

static bool merge_activity(const struct wm_event_queue *q, xcb_client_message_event_t *last,
		const xcb_client_message_event_t *cm)
{
	bool normal = cm->type == q->wm_change_state && cm->data.data32[0] != WM_ICONIC_STATE;
	if (!(normal && last->type == q->net_active_window)) {
		last->type = cm->type;
		last->data = cm->data;
	}
	return true;
}

#define WM_MESSAGE_CONFIGURE 0xfffffffeu /* a ConfigureRequest's key */

/* A later ConfigureRequest of the same window, folded into one: what
 * either asks, the later's values where both ask. */
static void merge_configure(
		xcb_configure_request_event_t *last, const xcb_configure_request_event_t *cr)
{
	uint16_t m = cr->value_mask;
	if (m & XCB_CONFIG_WINDOW_X) {
		last->x = cr->x;
	}
	if (m & XCB_CONFIG_WINDOW_Y) {
		last->y = cr->y;
	}
	if (m & XCB_CONFIG_WINDOW_WIDTH) {
		last->width = cr->width;
	}
	if (m & XCB_CONFIG_WINDOW_HEIGHT) {
		last->height = cr->height;
	}
	if (m & XCB_CONFIG_WINDOW_BORDER_WIDTH) {
		last->border_width = cr->border_width;
	}
	if (m & XCB_CONFIG_WINDOW_SIBLING) {
		last->sibling = cr->sibling;
	}
	if (m & XCB_CONFIG_WINDOW_STACK_MODE) {
		last->stack_mode = cr->stack_mode;
	}
	last->value_mask |= m;
}

/* A client's window-state message or ConfigureRequest, folded into the
 * window's last one still waiting when it continues its run (true: ev
 * freed). */
static bool merge_message(struct wm_event_queue *q, xcb_generic_event_t *ev)
{
	if (q->messages == NULL) {
		return false;
	}
	uint8_t type = ev->response_type & 0x7f;
	uint32_t window, key, p1 = 0, p2 = 0;
	if (type == XCB_CONFIGURE_REQUEST) {
		window = ((xcb_configure_request_event_t *)ev)->window;
		key = WM_MESSAGE_CONFIGURE;
	} else if (type == XCB_CLIENT_MESSAGE) {
		xcb_client_message_event_t *cm = (xcb_client_message_event_t *)ev;
		if (cm->format != 32 || cm->type == 0 ||
				(cm->type != q->net_wm_state && cm->type != q->wm_change_state &&
						cm->type != q->net_active_window)) {
			return false;
		}
		window = cm->window;
		key = WM_MESSAGE_ACTIVITY;
		if (cm->type == q->net_wm_state) {
			key = cm->type;
			p1 = cm->data.data32[1];
			p2 = cm->data.data32[2];
			cm->data.data32[0] = state_action(cm);
		}
	} else {
		return false;
	}
	if (!client_window(q, window)) {
		return false;
	}
	uint32_t h = window * 0x9e3779b1u;
	struct wm_message_slot *slot = &q->messages[(h ^ (h >> 16)) & (WM_MESSAGE_SLOTS - 1u)];
	if (slot->window == window && slot->gen == q->gen && slot->seq >= q->popped &&
			slot->seq < q->pushed && slot->type == key && slot->p1 == p1 &&
			slot->p2 == p2) {
		xcb_generic_event_t *last = q->ring[slot->seq & QUEUE_MASK];
		if (key == WM_MESSAGE_CONFIGURE) {
			merge_configure((xcb_configure_request_event_t *)last,
					(const xcb_configure_request_event_t *)ev);
		} else if (key == WM_MESSAGE_ACTIVITY) {
			merge_activity(q, (xcb_client_message_event_t *)last,
					(const xcb_client_message_event_t *)ev);
		} else {
			xcb_client_message_event_t *lm = (xcb_client_message_event_t *)last;
			lm->data.data32[0] = compose_state_actions(lm->data.data32[0],
					((const xcb_client_message_event_t *)ev)->data.data32[0]);
		}
		q->messages_merged++;
		free(ev);
		return true;
	}
	*slot = (struct wm_message_slot){
		.window = window,
		.type = key,
		.p1 = p1,
		.p2 = p2,
		.gen = q->gen,
		.seq = q->pushed,
	};
	return false;
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
	uint8_t type = ev->response_type & 0x7f;
	if (type == XCB_DESTROY_NOTIFY) {
		q->gen++;
		if (client_window(q, u32_at(ev, 8))) {
			wm_doomed_destroy_queued(&q->doomed, u32_at(ev, 8), q->pushed);
		}
	} else if (type == XCB_SELECTION_REQUEST) {
		wm_doomed_request_queued(&q->doomed, u32_at(ev, 12), q->pushed);
	} else if (type == XCB_CLIENT_MESSAGE &&
			ignore_message(q, (xcb_client_message_event_t *)ev)) {
		free(ev);
		return;
	} else if (merge_message(q, ev)) {
		return;
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

unsigned wm_event_queue_next_created(
		const struct wm_event_queue *q, uint32_t *windows, unsigned max)
{
	unsigned n = 0;
	uint64_t end = q->pushed - q->popped > WM_EVENT_LOOKAHEAD ? q->popped + WM_EVENT_LOOKAHEAD :
								    q->pushed;
	for (uint64_t seq = q->popped; seq != end && n < max; seq++) {
		const xcb_generic_event_t *ev = q->ring[seq & QUEUE_MASK];
		if (ev == NULL || (ev->response_type & 0x7f) != XCB_CREATE_NOTIFY) {
			continue;
		}
		uint32_t w = u32_at(ev, 8);
		if (client_window(q, w) && !wm_doomed_after(&q->doomed, w, seq)) {
			windows[n++] = w;
		}
	}
	return n;
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
		uint64_t seq = q->held[due].seq;
		xcb_generic_event_t *ev = take_held(q, due, now_ns);
		if (!drop_doomed(q, ev, seq)) {
			return ev;
		}
		free(ev);
		return wm_event_queue_pop(q, now_ns);
	}
	while (q->popped != q->pushed) {
		uint64_t seq = q->popped;
		xcb_generic_event_t *ev = q->ring[seq & QUEUE_MASK];
		q->ring[seq & QUEUE_MASK] = NULL;
		q->popped++;
		if (drop_doomed(q, ev, seq)) {
			free(ev);
			continue;
		}
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
