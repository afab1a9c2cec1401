/*
 * The X window manager's event FIFO (xwayland-glue/wm/wm_event_queue.c),
 * on a fake clock: order kept, a PropertyNotify merged only into an
 * identical one still waiting on a client's window, never across a
 * DestroyNotify, never on the window manager's own windows; paced to one
 * per key and interval, the held ones handed out when due, what comes
 * behind them not held up.
 */
#include <stdlib.h>

#include "tests/unit/unit_check.h"
#include "xwayland-glue/wm/wm_event_queue.h"

/* The window manager's XID range in these tests; clients' windows are
 * outside it. */
#define OWN_BASE 0x00200000u
#define OWN_MASK 0x001fffffu
#define CLIENT_A 0x00400001u
#define CLIENT_B 0x00600001u
#define OWN_WINDOW (OWN_BASE | 7u)
#define WM_NAME 39u
#define NET_WM_NAME 300u

static xcb_generic_event_t *property(uint32_t window, uint32_t atom, uint8_t state)
{
	xcb_property_notify_event_t *pn = calloc(1, 32);
	pn->response_type = XCB_PROPERTY_NOTIFY;
	pn->window = window;
	pn->atom = atom;
	pn->state = state;
	return (xcb_generic_event_t *)pn;
}

static xcb_generic_event_t *other(uint8_t type, uint32_t window)
{
	xcb_destroy_notify_event_t *ev = calloc(1, 32);
	ev->response_type = type;
	ev->window = window;
	return (xcb_generic_event_t *)ev;
}

/* Pops one event, checks its type and window (the window field is at the
 * same offset in the events used here: 4 for PropertyNotify, 8 for
 * DestroyNotify and MapRequest), frees it. */
#define MS 1000000ull
/* The fake clock: far from 0 (0 means "never handed"). */
static uint64_t now = 1000 * MS;

static void expect(struct wm_event_queue *q, uint8_t type, uint32_t window)
{
	xcb_generic_event_t *ev = wm_event_queue_pop(q, now);
	CHECK(ev != NULL);
	if (ev == NULL) {
		return;
	}
	CHECK_INT(ev->response_type & 0x7f, type);
	uint32_t w = type == XCB_PROPERTY_NOTIFY ? ((xcb_property_notify_event_t *)ev)->window :
						   ((xcb_destroy_notify_event_t *)ev)->window;
	CHECK_INT(w, window);
	free(ev);
}

static void test_order_and_merge(void)
{
	current_test = "order_and_merge";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	for (int i = 0; i < 1000; i++) {
		wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
		wm_event_queue_push(&q, property(CLIENT_A, NET_WM_NAME, XCB_PROPERTY_NEW_VALUE));
	}
	/* The first of each kind keeps its place; the rest were merged. */
	CHECK_INT(wm_event_queue_length(&q), 3);
	CHECK_INT(q.merged, 1999);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	/* Once handed out, the next change is queued again. */
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(wm_event_queue_length(&q), 1);
	wm_event_queue_clear(&q);
}

static void test_paced(void)
{
	current_test = "paced";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	uint64_t t0 = now;
	/* The first change after a quiet spell goes at once. */
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	CHECK_INT(wm_event_queue_next_due(&q), 0);
	/* The next, 1 ms later, is held until the interval is over; a map
	 * request behind it is not held up; more changes merge into it. */
	now = t0 + 1 * MS;
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(q.paced, 1);
	CHECK_INT(wm_event_queue_next_due(&q), t0 + WM_PROPERTY_INTERVAL_NS);
	for (int i = 0; i < 100; i++) {
		wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	}
	CHECK_INT(q.merged, 100);
	CHECK_INT(wm_event_queue_length(&q), 0);
	/* Another window's first change is not held. */
	wm_event_queue_push(&q, property(CLIENT_B, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_B);
	now = t0 + WM_PROPERTY_INTERVAL_NS - 1;
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	/* Due: handed out once, and the interval starts again from then. */
	now = t0 + WM_PROPERTY_INTERVAL_NS;
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(wm_event_queue_next_due(&q), 0);
	uint64_t t1 = now;
	now = t1 + 10 * MS;
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(wm_event_queue_next_due(&q), t1 + WM_PROPERTY_INTERVAL_NS);
	/* Deletions are never held (a selection transfer to a client waits
	 * for each one), only merged while one waits. */
	for (int i = 0; i < 3; i++) {
		wm_event_queue_push(&q, property(CLIENT_A, NET_WM_NAME, XCB_PROPERTY_DELETE));
		expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	}
	/* A held event is freed with the queue (ASan sees a leak). */
	wm_event_queue_clear(&q);
	now = t0 + 1000 * MS;
}

/* Held events: the earliest due first; the one moved in the held list to
 * fill the place of one handed out keeps merging. */
static void test_held_order(void)
{
	current_test = "held_order";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	uint64_t t0 = now;
	wm_event_queue_push(&q, property(CLIENT_B, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_B);
	now = t0 + 20 * MS;
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	now = t0 + 30 * MS;
	/* B's change held first (due t0+50), A's second (due t0+70). */
	wm_event_queue_push(&q, property(CLIENT_B, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(q.held_count, 2);
	CHECK_INT(wm_event_queue_next_due(&q), t0 + 50 * MS);
	now = t0 + 60 * MS;
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_B);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	now = t0 + 100 * MS;
	/* A's moved into B's place in the list: still merged into. */
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(q.merged, 1);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	wm_event_queue_clear(&q);
	now = t0 + 1000 * MS;
}

static void test_what_is_not_merged(void)
{
	current_test = "not_merged";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_DELETE));
	wm_event_queue_push(&q, property(CLIENT_B, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	/* The window manager's own windows: selection transfers count these. */
	wm_event_queue_push(&q, property(OWN_WINDOW, WM_NAME, XCB_PROPERTY_DELETE));
	wm_event_queue_push(&q, property(OWN_WINDOW, WM_NAME, XCB_PROPERTY_DELETE));
	CHECK_INT(wm_event_queue_length(&q), 5);
	CHECK_INT(q.merged, 0);
	/* A window's id may come back as another window after DestroyNotify:
	 * what waited before it takes nothing after it (and is dropped: the
	 * window is gone, test_destroyed_windows). */
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_A));
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(wm_event_queue_length(&q), 7);
	CHECK_INT(q.merged, 0);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_B);
	expect(&q, XCB_PROPERTY_NOTIFY, OWN_WINDOW);
	expect(&q, XCB_PROPERTY_NOTIFY, OWN_WINDOW);
	CHECK_INT(q.dropped, 2);
	expect(&q, XCB_DESTROY_NOTIFY, CLIENT_A);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	/* Paced (the same key was handed out just now), not merged: it comes
	 * when its interval is over. */
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(q.held_count, 1);
	now += WM_PROPERTY_INTERVAL_NS;
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	wm_event_queue_clear(&q);

	/* No XID range known: every window is taken as the manager's own. */
	REQUIRE(wm_event_queue_init(&q, 0, 0), "init");
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, property(CLIENT_A, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(wm_event_queue_length(&q), 2);
	wm_event_queue_clear(&q);
}

/* Once told which properties the window manager reads, new values of the
 * others go; deletions of any stay (selection transfers); the manager's
 * own windows are left alone. */
static void test_unread_properties(void)
{
	current_test = "unread_properties";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	wm_event_queue_push(&q, property(CLIENT_A, 1234, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(wm_event_queue_length(&q), 1); /* nothing known yet: kept */
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	uint32_t known[] = { WM_NAME, NET_WM_NAME };
	wm_event_queue_know_atoms(&q, known, 2);
	wm_event_queue_push(&q, property(CLIENT_A, 1234, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, property(CLIENT_A, 1235, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(q.ignored, 2);
	wm_event_queue_push(&q, property(CLIENT_A, 1234, XCB_PROPERTY_DELETE));
	wm_event_queue_push(&q, property(OWN_WINDOW, 1234, XCB_PROPERTY_NEW_VALUE));
	wm_event_queue_push(&q, property(CLIENT_B, NET_WM_NAME, XCB_PROPERTY_NEW_VALUE));
	CHECK_INT(wm_event_queue_length(&q), 3);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A);
	expect(&q, XCB_PROPERTY_NOTIFY, OWN_WINDOW);
	expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_B);
	wm_event_queue_clear(&q);
}

/* More windows than merge slots: collisions merge less, never wrongly
 * (each window's first change is kept), and the FIFO stops at its cap. */
static void test_many_windows_and_cap(void)
{
	current_test = "many_windows_and_cap";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	uint32_t n = WM_EVENT_QUEUE_CAP;
	for (uint32_t i = 0; i < n; i++) {
		wm_event_queue_push(&q, property(CLIENT_A + i, WM_NAME, XCB_PROPERTY_NEW_VALUE));
	}
	CHECK_INT(q.merged, 0);
	CHECK(wm_event_queue_full(&q));
	CHECK_INT(q.peak, n);
	for (uint32_t i = 0; i < n; i++) {
		expect(&q, XCB_PROPERTY_NOTIFY, CLIENT_A + i);
	}
	CHECK(!wm_event_queue_full(&q));
	/* Events still waiting are freed with the queue (ASan sees a leak). */
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	wm_event_queue_clear(&q);
}

static xcb_generic_event_t *created(uint32_t window)
{
	xcb_create_notify_event_t *ev = calloc(1, 32);
	ev->response_type = XCB_CREATE_NOTIFY;
	ev->parent = 0x100u;
	ev->window = window;
	return (xcb_generic_event_t *)ev;
}

static xcb_generic_event_t *selection_request(uint32_t requestor)
{
	xcb_selection_request_event_t *ev = calloc(1, 32);
	ev->response_type = XCB_SELECTION_REQUEST;
	ev->owner = OWN_WINDOW;
	ev->requestor = requestor;
	return (xcb_generic_event_t *)ev;
}

#define NET_WM_STATE 301u
#define WM_CHANGE_STATE 302u
#define NET_ACTIVE_WINDOW 303u
#define FULLSCREEN 310u
#define MAXIMIZED_VERT 311u

static xcb_generic_event_t *message(
		uint32_t window, uint32_t type, uint32_t d0, uint32_t d1, uint32_t d2)
{
	xcb_client_message_event_t *ev = calloc(1, 32);
	ev->response_type = XCB_CLIENT_MESSAGE;
	ev->format = 32;
	ev->window = window;
	ev->type = type;
	ev->data.data32[0] = d0;
	ev->data.data32[1] = d1;
	ev->data.data32[2] = d2;
	return (xcb_generic_event_t *)ev;
}

/* Pops a ClientMessage and returns its first datum (its action), freed. */
static uint32_t expect_message(struct wm_event_queue *q, uint32_t window, uint32_t type)
{
	xcb_generic_event_t *ev = wm_event_queue_pop(q, now);
	CHECK(ev != NULL);
	if (ev == NULL) {
		return 0xffffffffu;
	}
	xcb_client_message_event_t *cm = (xcb_client_message_event_t *)ev;
	CHECK_INT(ev->response_type & 0x7f, XCB_CLIENT_MESSAGE);
	CHECK_INT(cm->window, window);
	CHECK_INT(cm->type, type);
	uint32_t d0 = cm->data.data32[0];
	free(ev);
	return d0;
}

/* Window churn (window-churn): what comes before a window's queued
 * DestroyNotify goes to nobody; a window created and destroyed within the
 * FIFO is never shown (both ends dropped), unless a SelectionRequest names
 * it as requestor in between; its id coming back as a new window is a new
 * window; other windows and the manager's own are untouched. */
static void test_destroyed_windows(void)
{
	current_test = "destroyed_windows";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	/* 1000 windows made, mapped, destroyed: none reaches the manager. */
	for (uint32_t i = 0; i < 1000; i++) {
		uint32_t w = CLIENT_A + i;
		wm_event_queue_push(&q, created(w));
		wm_event_queue_push(&q, other(XCB_MAP_REQUEST, w));
		wm_event_queue_push(&q, property(w, WM_NAME, XCB_PROPERTY_NEW_VALUE));
		wm_event_queue_push(&q, message(w, 999u, 0, 0, 0)); /* WL_SURFACE_ID, say */
		wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, w));
	}
	/* B was created earlier (the manager knows it) and goes now: only its
	 * DestroyNotify is left. */
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	wm_event_queue_push(&q, other(XCB_CONFIGURE_REQUEST, CLIENT_B));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_B));
	/* The manager's own windows are never dropped. */
	wm_event_queue_push(&q, created(OWN_WINDOW));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, OWN_WINDOW));
	expect(&q, XCB_DESTROY_NOTIFY, CLIENT_B);
	expect(&q, XCB_CREATE_NOTIFY, OWN_WINDOW);
	expect(&q, XCB_DESTROY_NOTIFY, OWN_WINDOW);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(q.unborn, 1000);
	CHECK_INT(q.dropped, 3000 + 2);
	CHECK_INT(q.doomed.count, 0);

	/* The same id made twice: the first life is dropped whole, the second
	 * (not destroyed yet) handed out whole. */
	wm_event_queue_push(&q, created(CLIENT_A));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_A));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_A));
	wm_event_queue_push(&q, created(CLIENT_A));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_A));
	expect(&q, XCB_CREATE_NOTIFY, CLIENT_A);
	expect(&q, XCB_MAP_REQUEST, CLIENT_A);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	/* Its end comes later, after the manager had it: handed out. */
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_A));
	expect(&q, XCB_DESTROY_NOTIFY, CLIENT_A);
	CHECK_INT(q.doomed.count, 0);

	/* A requestor window of a selection transfer: wlroots ends the
	 * transfer at its DestroyNotify, so it is shown; what it does
	 * between is still dropped. */
	wm_event_queue_push(&q, created(CLIENT_B + 5));
	wm_event_queue_push(&q, selection_request(CLIENT_B + 5));
	wm_event_queue_push(&q, property(CLIENT_B + 5, WM_NAME, XCB_PROPERTY_DELETE));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_B + 5));
	expect(&q, XCB_CREATE_NOTIFY, CLIENT_B + 5);
	xcb_generic_event_t *ev = wm_event_queue_pop(&q, now);
	CHECK(ev != NULL && (ev->response_type & 0x7f) == XCB_SELECTION_REQUEST);
	free(ev);
	expect(&q, XCB_DESTROY_NOTIFY, CLIENT_B + 5);
	CHECK(wm_event_queue_pop(&q, now) == NULL);
	CHECK_INT(q.doomed.count, 0);
	/* Freed with the queue when still waiting (ASan sees a leak). */
	wm_event_queue_push(&q, created(CLIENT_A + 7));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_A + 7));
	wm_event_queue_clear(&q);
}

/* Many windows' ends queued at once (more than the index's load): every
 * window's events still come out right, the index only drops less. */
static void test_destroyed_many(void)
{
	current_test = "destroyed_many";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	uint32_t n = WM_EVENT_QUEUE_CAP / 2;
	for (uint32_t i = 0; i < n; i++) {
		wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_A + i * 3));
		wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_A + i * 3));
	}
	CHECK_INT(q.doomed.count, n);
	for (uint32_t i = 0; i < n; i++) {
		expect(&q, XCB_DESTROY_NOTIFY, CLIENT_A + i * 3);
	}
	CHECK_INT(q.dropped, n);
	CHECK_INT(q.doomed.count, 0);
	wm_event_queue_clear(&q);

	struct wm_doomed_windows d;
	REQUIRE(wm_doomed_init(&d), "init");
	for (uint32_t i = 0; i < WM_DOOMED_SLOTS; i++) {
		wm_doomed_destroy_queued(&d, 1000u + i * 7u, i);
	}
	CHECK_INT(d.count, WM_DOOMED_LOAD);
	/* Recorded ones are found; one past the load is not (drops less). */
	CHECK(wm_doomed_after(&d, 1000u, 0) == false); /* its own position */
	for (uint32_t i = 0; i < WM_DOOMED_LOAD; i++) {
		if (!wm_doomed_after(&d, 1000u + i * 7u, 0) && i > 0) {
			CHECK(!"a recorded window lost");
			break;
		}
	}
	CHECK(!wm_doomed_after(&d, 1000u + WM_DOOMED_LOAD * 7u, 0));
	/* A SelectionRequest with no room: no window created before it is
	 * dropped whole. */
	wm_doomed_request_queued(&d, 5u, WM_DOOMED_SLOTS);
	CHECK(!wm_doomed_unborn(&d, 1000u + 7u, 0));
	/* Leaving in any order keeps the rest reachable. */
	for (uint32_t i = WM_DOOMED_LOAD; i-- > 0;) {
		if (i % 2 == 0) {
			wm_doomed_destroy_leaves(&d, 1000u + i * 7u, i);
		}
	}
	for (uint32_t i = 1; i < WM_DOOMED_LOAD; i += 2) {
		if (!wm_doomed_after(&d, 1000u + i * 7u, 0)) {
			CHECK(!"a window lost after others left");
			break;
		}
	}
	wm_doomed_clear(&d);
}

/* A flood of _NET_WM_STATE toggles (state-loop) is folded per window and
 * properties into the first still waiting, so a MapRequest behind them is
 * reached at once; what the run does is kept. */
static void test_state_messages(void)
{
	current_test = "state_messages";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	/* Not merged before the atoms are known. */
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	CHECK_INT(wm_event_queue_length(&q), 2);
	expect_message(&q, CLIENT_A, NET_WM_STATE);
	expect_message(&q, CLIENT_A, NET_WM_STATE);
	wm_event_queue_know_messages(&q, NET_WM_STATE, WM_CHANGE_STATE, NET_ACTIVE_WINDOW);

	/* 10,001 toggles, a new window's MapRequest behind them. */
	for (int i = 0; i < 10001; i++) {
		wm_event_queue_push(&q,
				message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	}
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	CHECK_INT(wm_event_queue_length(&q), 2);
	CHECK_INT(q.messages_merged, 10000);
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_TOGGLE); /* odd */
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);
	/* An even run does nothing; add then toggles is a set. */
	for (int i = 0; i < 4; i++) {
		wm_event_queue_push(&q,
				message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	}
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_KEEP);
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_ADD, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_REMOVE);
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_REMOVE, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_ADD);
	/* One naming a property twice toggles it twice. */
	wm_event_queue_push(&q,
			message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, FULLSCREEN));
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_KEEP);

	/* Not merged: other properties, other windows, the manager's own,
	 * another kind of message between, across a DestroyNotify. */
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(
			&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, MAXIMIZED_VERT, 0));
	wm_event_queue_push(&q, message(CLIENT_B, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(OWN_WINDOW, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(OWN_WINDOW, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	CHECK_INT(wm_event_queue_length(&q), 5);
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_TOGGLE);
	CHECK_INT(expect_message(&q, CLIENT_A, NET_WM_STATE), WM_STATE_TOGGLE);
	CHECK_INT(expect_message(&q, CLIENT_B, NET_WM_STATE), WM_STATE_TOGGLE);
	expect_message(&q, OWN_WINDOW, NET_WM_STATE);
	expect_message(&q, OWN_WINDOW, NET_WM_STATE);

	/* Minimize and activate in turn (iconify-loop): one message, the
	 * last asked. */
	for (int i = 0; i < 1000; i++) {
		wm_event_queue_push(&q, message(CLIENT_A, WM_CHANGE_STATE, 3, 0, 0));
		wm_event_queue_push(&q, message(CLIENT_A, NET_ACTIVE_WINDOW, 1, 0, 0));
	}
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	CHECK_INT(wm_event_queue_length(&q), 2);
	expect_message(&q, CLIENT_A, NET_ACTIVE_WINDOW);
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);
	wm_event_queue_push(&q, message(CLIENT_A, NET_ACTIVE_WINDOW, 1, 0, 0));
	wm_event_queue_push(&q, message(CLIENT_A, WM_CHANGE_STATE, 3, 0, 0));
	CHECK_INT(expect_message(&q, CLIENT_A, WM_CHANGE_STATE), 3);
	/* The last WM_CHANGE_STATE wins; NormalState after an activation
	 * leaves the activation (it shows the window anyway). */
	wm_event_queue_push(&q, message(CLIENT_A, WM_CHANGE_STATE, 3, 0, 0));
	wm_event_queue_push(&q, message(CLIENT_A, WM_CHANGE_STATE, 1, 0, 0));
	wm_event_queue_push(&q, message(CLIENT_B, NET_ACTIVE_WINDOW, 1, 0, 0));
	wm_event_queue_push(&q, message(CLIENT_B, WM_CHANGE_STATE, 1, 0, 0));
	CHECK_INT(wm_event_queue_length(&q), 2);
	CHECK_INT(expect_message(&q, CLIENT_A, WM_CHANGE_STATE), 1);
	expect_message(&q, CLIENT_B, NET_ACTIVE_WINDOW);
	/* A state message between ends the run. */
	wm_event_queue_push(&q, message(CLIENT_A, WM_CHANGE_STATE, 3, 0, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_ADD, FULLSCREEN, 0));
	wm_event_queue_push(&q, message(CLIENT_A, NET_ACTIVE_WINDOW, 1, 0, 0));
	CHECK_INT(wm_event_queue_length(&q), 3);
	expect_message(&q, CLIENT_A, WM_CHANGE_STATE);
	expect_message(&q, CLIENT_A, NET_WM_STATE);
	expect_message(&q, CLIENT_A, NET_ACTIVE_WINDOW);
	/* A run of ConfigureRequests (configure-loop) is one: what any asks,
	 * each field's last value. */
	for (uint16_t i = 0; i < 100; i++) {
		xcb_configure_request_event_t *cr = calloc(1, 32);
		cr->response_type = XCB_CONFIGURE_REQUEST;
		cr->window = CLIENT_A;
		cr->value_mask = i == 0 ? XCB_CONFIG_WINDOW_STACK_MODE :
					  (XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_WIDTH);
		cr->stack_mode = XCB_STACK_MODE_ABOVE;
		cr->x = (int16_t)i;
		cr->width = (uint16_t)(100 + i);
		wm_event_queue_push(&q, (xcb_generic_event_t *)cr);
	}
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	CHECK_INT(wm_event_queue_length(&q), 2);
	xcb_configure_request_event_t *cr = (xcb_configure_request_event_t *)wm_event_queue_pop(
			&q, now);
	CHECK(cr != NULL && (cr->response_type & 0x7f) == XCB_CONFIGURE_REQUEST);
	if (cr != NULL) {
		CHECK_INT(cr->value_mask,
				XCB_CONFIG_WINDOW_STACK_MODE | XCB_CONFIG_WINDOW_X |
						XCB_CONFIG_WINDOW_WIDTH);
		CHECK_INT(cr->x, 99);
		CHECK_INT(cr->width, 199);
		CHECK_INT(cr->stack_mode, XCB_STACK_MODE_ABOVE);
		free(cr);
	}
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);
	/* Across a DestroyNotify (of another window: the id may come back). */
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_B));
	wm_event_queue_push(&q, message(CLIENT_A, NET_WM_STATE, WM_STATE_TOGGLE, FULLSCREEN, 0));
	CHECK_INT(wm_event_queue_length(&q), 3);
	wm_event_queue_clear(&q);
}

/* What says a window's WL_SURFACE_ID message is stale: the X server's
 * unmap or destruction of it waiting, not an X client's SendEvent of an
 * unmap, nor another window's, nor one already handed out. */
static void test_ends_window(void)
{
	struct wm_event_queue q;
	CHECK(wm_event_queue_init(&q, OWN_BASE, OWN_MASK));
	CHECK(!wm_event_queue_ends_window(&q, CLIENT_A));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_A));
	wm_event_queue_push(&q, other(XCB_UNMAP_NOTIFY | 0x80, CLIENT_A));
	wm_event_queue_push(&q, other(XCB_UNMAP_NOTIFY, CLIENT_B));
	CHECK(!wm_event_queue_ends_window(&q, CLIENT_A));
	CHECK(wm_event_queue_ends_window(&q, CLIENT_B));
	wm_event_queue_push(&q, other(XCB_UNMAP_NOTIFY, CLIENT_A));
	CHECK(wm_event_queue_ends_window(&q, CLIENT_A));
	expect(&q, XCB_MAP_REQUEST, CLIENT_A);
	expect(&q, XCB_UNMAP_NOTIFY, CLIENT_A); /* the SendEvent one */
	expect(&q, XCB_UNMAP_NOTIFY, CLIENT_B);
	CHECK(!wm_event_queue_ends_window(&q, CLIENT_B));
	CHECK(wm_event_queue_ends_window(&q, CLIENT_A));
	expect(&q, XCB_UNMAP_NOTIFY, CLIENT_A);
	CHECK(!wm_event_queue_ends_window(&q, CLIENT_A));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_B));
	CHECK(wm_event_queue_ends_window(&q, CLIENT_B));
	wm_event_queue_clear(&q);
}

/* The windows the window manager will make surfaces for next: created,
 * in order, not those whose DestroyNotify waits behind, at most max. */
static void test_next_created(void)
{
	current_test = "next_created";
	struct wm_event_queue q;
	CHECK(wm_event_queue_init(&q, OWN_BASE, OWN_MASK));
	uint32_t w[4];
	CHECK_INT(wm_event_queue_next_created(&q, w, 4), 0);
	wm_event_queue_push(&q, created(CLIENT_A));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_A));
	wm_event_queue_push(&q, created(CLIENT_B));
	wm_event_queue_push(&q, created(CLIENT_B + 1));
	wm_event_queue_push(&q, other(XCB_DESTROY_NOTIFY, CLIENT_B));
	wm_event_queue_push(&q, created(CLIENT_B + 2));
	CHECK_INT(wm_event_queue_next_created(&q, w, 4), 3);
	CHECK_INT(w[0], CLIENT_A);
	CHECK_INT(w[1], CLIENT_B + 1);
	CHECK_INT(w[2], CLIENT_B + 2);
	CHECK_INT(wm_event_queue_next_created(&q, w, 2), 2);
	CHECK_INT(w[1], CLIENT_B + 1);
	expect(&q, XCB_CREATE_NOTIFY, CLIENT_A);
	CHECK_INT(wm_event_queue_next_created(&q, w, 4), 2);
	CHECK_INT(w[0], CLIENT_B + 1);
	wm_event_queue_clear(&q);
}

/* ClientMessages wlroots does nothing with but ask their type's name
 * (session 35): dropped as they come, once what it handles is known; a
 * _NET_WM_STATE message keeps its known property, an unknown one is made
 * None (and two that then look alike merge); the window manager's own
 * windows are no exception (wlroots asks there too); what it handles, and
 * a WM_PROTOCOLS ping, stay in order. */
#define WL_SURFACE_ID 320u
#define WM_PROTOCOLS 321u
#define NET_WM_PING 322u
#define UNKNOWN 323u
#define UNKNOWN_STATE 324u

static void test_ignored_messages(void)
{
	current_test = "ignored_messages";
	struct wm_event_queue q;
	REQUIRE(wm_event_queue_init(&q, OWN_BASE, OWN_MASK), "init");
	/* Nothing dropped before what it handles is known. */
	wm_event_queue_push(&q, message(CLIENT_A, UNKNOWN, 0, 0, 0));
	CHECK_INT(wm_event_queue_length(&q), 1);
	expect_message(&q, CLIENT_A, UNKNOWN);
	wm_event_queue_know_messages(&q, NET_WM_STATE, WM_CHANGE_STATE, NET_ACTIVE_WINDOW);
	const uint32_t types[] = { WL_SURFACE_ID, NET_WM_STATE, WM_PROTOCOLS, WM_CHANGE_STATE,
		NET_ACTIVE_WINDOW };
	const uint32_t states[] = { FULLSCREEN, MAXIMIZED_VERT };
	wm_event_queue_know_handled(&q, types, 5, WM_PROTOCOLS, NET_WM_PING, states, 2);

	for (int i = 0; i < 1000; i++) {
		wm_event_queue_push(&q, message(CLIENT_A, UNKNOWN, (uint32_t)i, 0, 0));
		wm_event_queue_push(&q, message(OWN_WINDOW, UNKNOWN, 0, 0, 0));
		wm_event_queue_push(&q, message(CLIENT_A, WM_PROTOCOLS, UNKNOWN, 0, 0));
	}
	wm_event_queue_push(&q, message(CLIENT_A, WM_PROTOCOLS, NET_WM_PING, 0, CLIENT_A));
	wm_event_queue_push(&q, message(CLIENT_B, WL_SURFACE_ID, 5, 0, 0));
	wm_event_queue_push(&q, other(XCB_MAP_REQUEST, CLIENT_B));
	CHECK_INT(wm_event_queue_length(&q), 3);
	CHECK_INT(q.messages_ignored, 3000);
	CHECK_INT(expect_message(&q, CLIENT_A, WM_PROTOCOLS), NET_WM_PING);
	CHECK_INT(expect_message(&q, CLIENT_B, WL_SURFACE_ID), 5);
	expect(&q, XCB_MAP_REQUEST, CLIENT_B);

	/* Unknown state properties made None: in turn with two of them, the
	 * messages then alike and merged; a known one kept. */
	for (int i = 0; i < 100; i++) {
		wm_event_queue_push(&q,
				message(CLIENT_A, NET_WM_STATE, WM_STATE_ADD,
						i % 2 ? UNKNOWN_STATE : UNKNOWN, 0));
	}
	wm_event_queue_push(&q, message(CLIENT_B, NET_WM_STATE, WM_STATE_ADD, UNKNOWN, FULLSCREEN));
	CHECK_INT(wm_event_queue_length(&q), 2);
	CHECK_INT(q.messages_ignored, 3101);
	xcb_client_message_event_t *cm = (xcb_client_message_event_t *)wm_event_queue_pop(&q, now);
	REQUIRE(cm != NULL, "pop");
	CHECK_INT(cm->data.data32[1], XCB_ATOM_NONE);
	CHECK_INT(cm->data.data32[2], XCB_ATOM_NONE);
	free(cm);
	cm = (xcb_client_message_event_t *)wm_event_queue_pop(&q, now);
	REQUIRE(cm != NULL, "pop");
	CHECK_INT(cm->window, CLIENT_B);
	CHECK_INT(cm->data.data32[1], XCB_ATOM_NONE);
	CHECK_INT(cm->data.data32[2], FULLSCREEN);
	free(cm);
	wm_event_queue_clear(&q);
}

int main(void)
{
	test_ignored_messages();
	test_next_created();
	test_order_and_merge();
	test_paced();
	test_held_order();
	test_what_is_not_merged();
	test_unread_properties();
	test_many_windows_and_cap();
	test_destroyed_windows();
	test_destroyed_many();
	test_state_messages();
	test_ends_window();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
	}
	return failures ? 1 : 0;
}
