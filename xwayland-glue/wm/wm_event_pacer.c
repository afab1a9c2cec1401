/*
 * wlroots' X window manager, held to a budget on the compositor's main
 * loop (docs/x11.md, "The window manager's events").
 *
 * wlroots 0.15 reads the window manager's X connection in one handler that
 * takes events from libxcb until there are none, and answers every
 * PropertyNotify on a client's window with a synchronous GetProperty. An X
 * client setting its title in a loop (Tk's `wm title . $i`) keeps that
 * handler busy for as long as it floods, and every other client of the
 * compositor waits (session 26: seconds). We cannot change wlroots; we
 * can stand between it and libxcb. The compositor defines
 * xcb_poll_for_event, so wlroots' calls land here (the executable's
 * definition comes first in the lookup order); for the window manager's
 * connection only:
 *
 * - every event libxcb has is taken into a FIFO (wm_event_queue.h) that
 *   merges the PropertyNotify wlroots would read twice and hands out one
 *   per window and property every 50 ms at most, so a flood of title
 *   changes costs two GetProperty (WM_NAME, _NET_WM_NAME) per interval,
 *   not two per change, and nothing piles up; a timer brings the held
 *   ones back when their time comes;
 * - a turn of the handler ends once it has run WM_TURN_BUDGET_NS (after
 *   at least one event): the loop serves everybody else, then the handler
 *   runs again. libxcb's fd is not readable then, the events being in our
 *   FIFO, so a cheap request (GetInputFocus, its reply discarded) makes
 *   the X server write to it; a timer asks again should anything else
 *   have read that reply first;
 * - one turn per turn of the compositor's loop: wlroots marks its source
 *   with wl_event_source_check, so libwayland calls the handler again in
 *   the same dispatch for as long as it handled an event, and a flood that
 *   gave every turn one kept the loop in that dispatch for seconds (the
 *   control socket, Wayland clients and Xwayland's Wayland connection
 *   unread: begin_turn);
 * - a PropertyNotify on a client's window is handed out only once the
 *   GetProperty wlroots will send for it has been answered: the pacer
 *   sends it first (wm_property_fetch.h) and the loop runs while Xwayland
 *   serves it, so wlroots' synchronous read finds its reply there;
 * - likewise a WL_SURFACE_ID message with which wlroots will pair a
 *   window (wm_surface_pairing.h): its eleven GetProperty and X-Resource
 *   query are sent together, and the message handed out once all are
 *   answered; nothing overtakes it meanwhile. When the pairing is made
 *   from the Wayland side instead (the surface created after the
 *   message), the same requests are sent just before wlroots makes them:
 *   it waits for the first answer, not for twelve in turn;
 * - an event an X client sent with SendEvent that only the X server
 *   makes (DestroyNotify, UnmapNotify, MapRequest, ConfigureRequest...:
 *   any client may send them to the root) is dropped before anything
 *   reads it (refuse_synthetic);
 * - a WL_SURFACE_ID message that an X client sent (SendEvent), or that
 *   names a surface gone since (its id may be another object's now), is
 *   not handed out: wlroots would pair the window with whatever object
 *   has the id, asserting it is a wl_surface (refuse_synthetic,
 *   refuse_stale);
 * - a client's MapRequest is announced (before_map) just before wlroots
 *   gets it and maps the window in X: the compositor applies a move its
 *   own pacing still holds for the window first (xwayland.c).
 *
 * Other connections (none today) pass through untouched.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_event_pacer.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>

#include "common/monotonic_clock.h"
#include "common/dlsym_next.h"
#include "compositor/extension.h"
#include "compositor/log_limit.h"
#include "xwayland-glue/wm/wm_event_queue.h"
#include "xwayland-glue/wm/wm_paste_pipe.h"
#include "xwayland-glue/wm/wm_geometry_fetch.h"
#include "xwayland-glue/wm/wm_property_fetch.h"
#include "xwayland-glue/wm/wm_selection_budget.h"
#include "xwayland-glue/wm/wm_surface_pairing.h"
#include "xwayland-glue/wm/wm_window_budget.h"

/* One turn of the window manager's handler, at most (then at least one
 * event more, which may be a round trip). */
#define WM_TURN_BUDGET_NS 1000000u
/* How long a wake-up may go unanswered before it is asked again. */
#define WM_WAKE_RETRY_MS 10
#define WM_LOG_INTERVAL_NS 1000000000u
#define WM_SURFACE_ID_SLOTS 256u

static struct {
	struct wlr_xwayland *wlr;
	struct wl_event_source *retry;
	xcb_connection_t *conn; /* whose events the FIFO holds; NULL: none */
	struct wm_event_queue queue;
	bool in_turn;
	uint64_t turn_start_ns;
	/* The main loop's turns (server.h) and the one the last turn of ours
	 * began in. */
	const uint64_t *loop_turns;
	uint64_t turn_loop;
	bool turned; /* a turn has begun since the pacer started */
	uint64_t turns, turns_deferred;
	unsigned handed; /* events given to wlroots this turn */
	uint64_t merged_before, paced_before, ignored_before; /* earlier connections' */
	uint64_t dropped_before, unborn_before, messages_before, messages_ignored_before;
	uint64_t turns_cut, wakes;
	xcb_window_t root;
	/* A PropertyNotify waiting for its GetProperty's reply (the FIFO's
	 * next event: nothing after it is handed out first); NULL: none. */
	xcb_generic_event_t *fetching;
	/* The next event, taken from the FIFO, that may not overtake it. */
	xcb_generic_event_t *parked;
	uint64_t fetched;          /* GetProperty sent ahead of wlroots */
	uint64_t pairings_fetched; /* of which for pairings, held or eager */
	bool fetching_surface_id;  /* `fetching` is a WL_SURFACE_ID message */
	/* Xwayland's surfaces destroyed when a WL_SURFACE_ID message was taken
	 * from libxcb, by window (direct-mapped: a window not found there is
	 * judged without it). */
	struct {
		xcb_window_t window;
		uint64_t destroys;
	} surface_id_read[WM_SURFACE_ID_SLOTS];
	uint64_t surface_ids_forged, surface_ids_stale; /* such messages dropped */
	struct log_limit surface_id_log;
	uint64_t synthetic_dropped; /* X clients' SendEvent of server events */
	struct log_limit synthetic_log;
	xcb_atom_t surface_id_atom;
	xcb_atom_t pairing_atoms[WM_FETCH_PAIRING_MAX];
	unsigned npairing_atoms;
	uint64_t longest_turn_ns; /* since the last log line */
	uint64_t logged_merged, logged_cut, logged_paced, logged_ignored, last_log_ns;
	uint64_t logged_dropped; /* dropped and messages merged, at the last line */
	/* The connection's socket as adopted: xcb_disconnect checks that its
	 * fd still is it (below). */
	dev_t conn_dev;
	ino_t conn_ino;
	uint64_t orphaned; /* connections not closed again (below) */
	void (*before_map)(struct wlr_xwayland_surface *xs);
} pacer;

static xcb_generic_event_t *(*real_poll_for_event)(xcb_connection_t *c);
static void (*real_disconnect)(xcb_connection_t *c);

static bool is_window_manager(xcb_connection_t *c)
{
	if (c != NULL && c == pacer.conn) {
		return true; /* also once Xwayland's end has gone, until wlroots disconnects */
	}
	return pacer.wlr != NULL && pacer.wlr->server != NULL && c != NULL &&
			pacer.wlr->server->wm_fd[0] >= 0 &&
			xcb_get_file_descriptor(c) == pacer.wlr->server->wm_fd[0];
}

static uint64_t merged_total(void)
{
	return pacer.merged_before + (pacer.conn != NULL ? pacer.queue.merged : 0);
}

static uint64_t paced_total(void)
{
	return pacer.paced_before + (pacer.conn != NULL ? pacer.queue.paced : 0);
}

static uint64_t ignored_total(void)
{
	return pacer.ignored_before + (pacer.conn != NULL ? pacer.queue.ignored : 0);
}

static uint64_t dropped_total(void)
{
	return pacer.dropped_before + (pacer.conn != NULL ? pacer.queue.dropped : 0);
}

static uint64_t unborn_total(void)
{
	return pacer.unborn_before + (pacer.conn != NULL ? pacer.queue.unborn : 0);
}

static uint64_t messages_total(void)
{
	return pacer.messages_before + (pacer.conn != NULL ? pacer.queue.messages_merged : 0);
}

static uint64_t messages_ignored_total(void)
{
	return pacer.messages_ignored_before +
			(pacer.conn != NULL ? pacer.queue.messages_ignored : 0);
}

static void log_summary(const char *when)
{
	uint64_t waited_ns;
	uint64_t waits = wm_property_fetch_waits(&waited_ns);
	uint64_t geo_sent, geo_taken, geo_unforeseen;
	wm_geometry_fetch_counts(&geo_sent, &geo_taken, &geo_unforeseen);
	wlr_log(WLR_INFO,
			"X window manager %s: %llu PropertyNotify merged, %llu turns ended "
			"at the budget, %llu PropertyNotify held for their interval, "
			"%llu of properties it does not read, %llu wake-ups, "
			"%zu events waiting (peak %zu), %llu GetProperty sent ahead "
			"(%llu taken by it), %llu waited for in %.1f ms; longest turn %.2f ms; "
			"%llu events of windows already destroyed dropped, %llu windows "
			"never shown, %llu window state and configure requests merged, "
			"%llu ClientMessages and state properties it does nothing with "
			"ignored, %llu windows' pairings read ahead, %llu WL_SURFACE_ID messages "
			"sent by X clients and %llu naming a surface gone dropped; "
			"%llu GetGeometry of new windows sent ahead (%llu taken by it, "
			"%llu asked unforeseen); %llu turns, %llu calls told to wait for "
			"the next turn of the loop",
			when, (unsigned long long)merged_total(),
			(unsigned long long)pacer.turns_cut, (unsigned long long)paced_total(),
			(unsigned long long)ignored_total(), (unsigned long long)pacer.wakes,
			wm_event_queue_length(&pacer.queue), pacer.queue.peak,
			(unsigned long long)pacer.fetched,
			(unsigned long long)wm_property_fetch_taken(), (unsigned long long)waits,
			(double)waited_ns / 1e6, (double)pacer.longest_turn_ns / 1e6,
			(unsigned long long)dropped_total(), (unsigned long long)unborn_total(),
			(unsigned long long)messages_total(),
			(unsigned long long)messages_ignored_total(),
			(unsigned long long)pacer.pairings_fetched,
			(unsigned long long)pacer.surface_ids_forged,
			(unsigned long long)pacer.surface_ids_stale, (unsigned long long)geo_sent,
			(unsigned long long)geo_taken, (unsigned long long)geo_unforeseen,
			(unsigned long long)pacer.turns, (unsigned long long)pacer.turns_deferred);
	pacer.longest_turn_ns = 0;
	pacer.logged_merged = merged_total();
	pacer.logged_cut = pacer.turns_cut;
	pacer.logged_paced = paced_total();
	pacer.logged_ignored = ignored_total();
	pacer.logged_dropped = dropped_total() + messages_total() + messages_ignored_total();
}

/* Something to say (a flood is being merged or cut), said at most once a
 * second: the first time at once. */
static void maybe_log(uint64_t now)
{
	if (merged_total() == pacer.logged_merged && pacer.turns_cut == pacer.logged_cut &&
			paced_total() == pacer.logged_paced &&
			ignored_total() == pacer.logged_ignored &&
			dropped_total() + messages_total() + messages_ignored_total() ==
					pacer.logged_dropped) {
		return;
	}
	if (pacer.last_log_ns != 0 && now - pacer.last_log_ns < WM_LOG_INTERVAL_NS) {
		return;
	}
	pacer.last_log_ns = now;
	log_summary("under load");
}

static void forget_connection(void)
{
	if (pacer.conn != NULL) {
		pacer.merged_before += pacer.queue.merged;
		pacer.paced_before += pacer.queue.paced;
		pacer.ignored_before += pacer.queue.ignored;
		pacer.dropped_before += pacer.queue.dropped;
		pacer.unborn_before += pacer.queue.unborn;
		pacer.messages_before += pacer.queue.messages_merged;
		pacer.messages_ignored_before += pacer.queue.messages_ignored;
		wm_event_queue_clear(&pacer.queue);
		pacer.conn = NULL;
	}
	wm_property_fetch_forget();
	wm_geometry_fetch_forget();
	free(pacer.fetching);
	free(pacer.parked);
	pacer.fetching = pacer.parked = NULL;
	pacer.fetching_surface_id = false;
	pacer.in_turn = false;
	if (pacer.retry != NULL) {
		wl_event_source_timer_update(pacer.retry, 0);
	}
}

/* The properties wlroots 0.15's window manager reads on a client's window
 * (xwm.c, read_surface_property); it fetches any other with a round trip
 * and drops it. Then the ClientMessages merged per window
 * (wm_event_queue.h), those it acts on at all, and the one that pairs a
 * window with its surface.
 * Asked once, all requests before any reply. */
static void know_atoms(xcb_connection_t *c)
{
	static const char *const names[] = { "WM_CLASS", "WM_NAME", "_NET_WM_NAME",
		"WM_TRANSIENT_FOR", "_NET_WM_PID", "_NET_WM_WINDOW_TYPE", "WM_PROTOCOLS",
		"_NET_WM_STATE", "WM_HINTS", "WM_NORMAL_HINTS", "_MOTIF_WM_HINTS", "WM_WINDOW_ROLE",
		"_NET_STARTUP_ID", "WM_CHANGE_STATE", "_NET_ACTIVE_WINDOW", "WL_SURFACE_ID",
		"_NET_WM_MOVERESIZE", "_NET_STARTUP_INFO", "_NET_STARTUP_INFO_BEGIN", "XdndStatus",
		"XdndFinished", "_NET_WM_PING", "_NET_WM_STATE_MODAL", "_NET_WM_STATE_FULLSCREEN",
		"_NET_WM_STATE_MAXIMIZED_VERT", "_NET_WM_STATE_MAXIMIZED_HORZ",
		"_NET_WM_STATE_HIDDEN" };
	enum {
		N = sizeof(names) / sizeof(names[0]),
		READ = 13, /* the first READ are properties read */
		WM_PROTOCOLS = 6,
		NET_WM_STATE = 7,
		WM_CHANGE_STATE = 13,
		NET_ACTIVE_WINDOW = 14,
		WL_SURFACE_ID = 15,
		NET_WM_PING = 21,
		STATES = 22 /* the last five: _NET_WM_STATE's properties it knows */
	};
	/* The ClientMessage types wlroots 0.15.1 acts on (xwm.c,
	 * xwm_handle_client_message, and selection/dnd.c), by index in
	 * names: any other it only asks the name of, to log it. Not
	 * _NET_STARTUP_INFO(_BEGIN) (17, 18): wlroots keeps a window's
	 * message until its NUL without limit, in a list it walks at each
	 * message (an X client sending them without NUL grew the compositor
	 * by 45 MiB in 5 s, and naming a new window each time left minutes
	 * of backlog: session 35), to say a startup ended, which the compositor
	 * does not listen for (remove_startup_info). */
	static const unsigned handled[] = { 15, 7, 16, 6, 14, 13, 19, 20 };
	/* What wlroots reads when it pairs a window (xwm_map_shell_surface,
	 * 0.15.1), by index in names. */
	static const unsigned pairing_reads[] = { 0, 1, 3, 6, 8, 9, 10, 12, 7, 5, 2 };
	_Static_assert(sizeof(pairing_reads) / sizeof(pairing_reads[0]) <= WM_FETCH_PAIRING_MAX,
			"WM_FETCH_PAIRING_MAX");
	_Static_assert(READ <= WM_KNOWN_ATOMS_MAX, "WM_KNOWN_ATOMS_MAX");
	_Static_assert(sizeof(handled) / sizeof(handled[0]) <= WM_HANDLED_MESSAGES_MAX &&
					N - STATES <= WM_HANDLED_STATES_MAX,
			"WM_HANDLED_MESSAGES_MAX");
	xcb_intern_atom_cookie_t cookie[N];
	for (unsigned i = 0; i < N; i++) {
		cookie[i] = xcb_intern_atom(c, 0, (uint16_t)strlen(names[i]), names[i]);
	}
	uint32_t atoms[N];
	unsigned got = 0;
	for (unsigned i = 0; i < N; i++) {
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, cookie[i], NULL);
		atoms[i] = r != NULL ? r->atom : XCB_ATOM_NONE;
		got += atoms[i] != XCB_ATOM_NONE;
		free(r);
	}
	/* All or none: a property missing from the list would be lost. */
	if (got == N) {
		wm_event_queue_know_atoms(&pacer.queue, atoms, READ);
		wm_event_queue_know_messages(&pacer.queue, atoms[NET_WM_STATE],
				atoms[WM_CHANGE_STATE], atoms[NET_ACTIVE_WINDOW]);
		uint32_t types[sizeof(handled) / sizeof(handled[0])];
		for (unsigned i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
			types[i] = atoms[handled[i]];
		}
		wm_event_queue_know_handled(&pacer.queue, types,
				sizeof(handled) / sizeof(handled[0]), atoms[WM_PROTOCOLS],
				atoms[NET_WM_PING], atoms + STATES, N - STATES);
		pacer.surface_id_atom = atoms[WL_SURFACE_ID];
		pacer.npairing_atoms = sizeof(pairing_reads) / sizeof(pairing_reads[0]);
		for (unsigned i = 0; i < pacer.npairing_atoms; i++) {
			pacer.pairing_atoms[i] = atoms[pairing_reads[i]];
		}
	}
}

/* The window manager's connection, first seen: its XID range tells its
 * own windows from its clients'. False: pass through (no memory). */
static bool adopt_connection(xcb_connection_t *c)
{
	forget_connection();
	const xcb_setup_t *setup = xcb_get_setup(c);
	if (setup == NULL ||
			!wm_event_queue_init(&pacer.queue, setup->resource_id_base,
					setup->resource_id_mask)) {
		wlr_log(WLR_ERROR,
				"X window manager: no memory for its event queue; "
				"its events are not paced");
		wm_event_queue_clear(&pacer.queue);
		return false;
	}
	pacer.conn = c;
	struct stat st;
	if (fstat(xcb_get_file_descriptor(c), &st) == 0) {
		pacer.conn_dev = st.st_dev;
		pacer.conn_ino = st.st_ino;
	}
	xcb_screen_iterator_t screen = xcb_setup_roots_iterator(setup);
	pacer.root = screen.rem > 0 ? screen.data->root : XCB_WINDOW_NONE;
	know_atoms(c);
	return true;
}

/* Make the X server write to the connection, so that its fd is readable
 * and the loop runs wlroots' handler again. */
static void wake(xcb_connection_t *c)
{
	xcb_discard_reply(c, xcb_get_input_focus(c).sequence);
	xcb_flush(c);
	pacer.wakes++;
	wl_event_source_timer_update(pacer.retry, WM_WAKE_RETRY_MS);
}

/* The timer for the earliest held PropertyNotify, if any. */
static void arm_for_held(uint64_t now)
{
	uint64_t due = wm_event_queue_next_due(&pacer.queue);
	if (due != 0) {
		uint64_t ms = due > now ? (due - now + 999999u) / 1000000u : 1;
		wl_event_source_timer_update(pacer.retry, (int)ms);
	}
}

static int handle_retry(void *data)
{
	(void)data;
	if (pacer.conn == NULL || pacer.in_turn || xcb_connection_has_error(pacer.conn)) {
		return 0;
	}
	uint64_t now = monotonic_now_ns();
	uint64_t due = wm_event_queue_next_due(&pacer.queue);
	if (pacer.fetching != NULL || pacer.parked != NULL ||
			wm_event_queue_length(&pacer.queue) > 0 || wm_paste_pipe_has_ready() ||
			wm_selection_budget_has_ready() || (due != 0 && due <= now)) {
		wake(pacer.conn);
	} else {
		arm_for_held(now);
	}
	return 0;
}

static xcb_generic_event_t *end_turn(uint64_t now)
{
	pacer.in_turn = false;
	if (now - pacer.turn_start_ns > pacer.longest_turn_ns) {
		pacer.longest_turn_ns = now - pacer.turn_start_ns;
	}
	if (pacer.fetching != NULL) {
		/* Its reply makes the fd readable, unless a synchronous request
		 * of wlroots' elsewhere reads it first: the timer looks. */
		wl_event_source_timer_update(pacer.retry, WM_WAKE_RETRY_MS);
	} else if (wm_event_queue_length(&pacer.queue) == 0) {
		arm_for_held(now);
	}
	maybe_log(now);
	return NULL;
}

/* wlroots reads a client window's property at every PropertyNotify of
 * it, a new value or a deletion (a selection chunk an X requestor took
 * from its window too, when the window is one wlroots tracks: fetched
 * ahead, that deletion reaches the transfer one round trip later, with
 * the loop running meanwhile, instead of after wlroots' own synchronous
 * one). The rest go as they are: its own windows' (selection transfers)
 * and the root's (no client's window). */
static bool read_by_window_manager(const xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) != XCB_PROPERTY_NOTIFY) {
		return false;
	}
	/* Deletions since session 29: a title set and deleted in turn stood
	 * the main loop in a synchronous GetProperty per deletion. */
	const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *)ev;
	return pn->window != pacer.root &&
			(pn->window & ~pacer.queue.own_mask) != pacer.queue.own_base;
}

/* A WL_SURFACE_ID message with which wlroots will pair a window now, its
 * reads fetched first. */
static bool pairs_now(const xcb_generic_event_t *ev)
{
	return pacer.npairing_atoms > 0 && wm_surface_pairing_pairs_now(ev, pacer.surface_id_atom);
}

/* A WL_SURFACE_ID message: Xwayland's word that the window's wl_surface
 * has that id (wlroots 0.15 takes whatever object has it for the
 * window's surface, asserting it is one). */
static bool is_surface_id(const xcb_generic_event_t *ev)
{
	const xcb_client_message_event_t *m = (const xcb_client_message_event_t *)ev;
	return pacer.surface_id_atom != XCB_ATOM_NONE &&
			(ev->response_type & 0x7f) == XCB_CLIENT_MESSAGE && m->format == 32 &&
			m->type == pacer.surface_id_atom;
}

static void say_surface_id_dropped(const xcb_client_message_event_t *m, const char *why)
{
	uint64_t left_out;
	if (log_limit_allow(&pacer.surface_id_log, &left_out)) {
		wlr_log(WLR_INFO,
				"X window manager: WL_SURFACE_ID of X window 0x%x naming Wayland "
				"object %u dropped: %s (%llu sent by X clients, %llu naming a "
				"surface gone, so far; %llu lines left out)",
				(unsigned)m->window, (unsigned)m->data.data32[0], why,
				(unsigned long long)pacer.surface_ids_forged,
				(unsigned long long)pacer.surface_ids_stale,
				(unsigned long long)left_out);
	}
}

/* Any X client may SendEvent any event to the root window with the mask
 * the window manager selected there (SubstructureRedirect/Notify); the X
 * server marks it (the high bit of its type) and changes nothing else.
 * wlroots 0.15 reads the type without the mark, so a forged DestroyNotify
 * or UnmapNotify naming another client's window destroyed or unmapped
 * that window in the compositor (and in wm_doomed_windows' index), a
 * forged MapRequest or ConfigureRequest mapped or moved it. Only two
 * kinds reach a window manager so legitimately: ClientMessage (EWMH and
 * ICCCM requests; but not WL_SURFACE_ID, below) and SelectionNotify (a selection owner's answer is
 * always a SendEvent). ICCCM's synthetic UnmapNotify (a client
 * withdrawing its window) follows the real unmap, which the window
 * manager gets anyway. Freed here, counted, said. */
static bool refuse_synthetic(xcb_generic_event_t *ev)
{
	uint8_t type = ev->response_type & 0x7f;
	if (!(ev->response_type & 0x80)) {
		return false;
	}
	/* Xwayland sends WL_SURFACE_ID itself. Handed to wlroots, a forged one
	 * naming any object of Xwayland's (wl_display is 1) ended the
	 * compositor in an assertion, and one naming another window's surface
	 * gave that surface a second window; dropped here, it also never
	 * stands in for the window's genuine message in surface_id_read. */
	if (is_surface_id(ev)) {
		pacer.surface_ids_forged++;
		say_surface_id_dropped(
				(const xcb_client_message_event_t *)ev, "sent by an X client");
		free(ev);
		return true;
	}
	if (type == XCB_CLIENT_MESSAGE || type == XCB_SELECTION_NOTIFY) {
		return false;
	}
	pacer.synthetic_dropped++;
	uint64_t left_out;
	if (log_limit_allow(&pacer.synthetic_log, &left_out)) {
		wlr_log(WLR_INFO,
				"X window manager: an X client's SendEvent of event type %u dropped "
				"(only the X server makes it; %llu so far, %llu lines left out)",
				(unsigned)type, (unsigned long long)pacer.synthetic_dropped,
				(unsigned long long)left_out);
	}
	free(ev);
	return true;
}

/* An event that may not overtake a fetch under way: one that is to be
 * fetched itself (one at a time), the end of a window whose id may come
 * back as another's, and any event at all behind a pairing (an unmap of
 * the window, or another pairing, would change what wlroots pairs). Any
 * other goes ahead of a PropertyNotify, as past a held one (a property
 * read later is the same as an event that came later): wlroots pairs an
 * X window with its Wayland surface only when it handles the ClientMessage
 * that says which, and a surface that committed its buffer before that is
 * shown only at its next commit (wm_surface_pairing.h). */
static bool waits_for_fetch(const xcb_generic_event_t *ev)
{
	return read_by_window_manager(ev) || pairs_now(ev) ||
			(pacer.fetching != NULL &&
					(pacer.fetching_surface_id ||
							(ev->response_type & 0x7f) ==
									XCB_DESTROY_NOTIFY));
}

/* ev, taken from libxcb, into the FIFO (or refused). */
static void take_event(xcb_connection_t *c, xcb_generic_event_t *ev)
{
	if (refuse_synthetic(ev)) {
		return;
	}
	if ((ev->response_type & 0x7f) == XCB_DESTROY_NOTIFY) {
		wm_geometry_fetch_destroyed(c, ((const xcb_destroy_notify_event_t *)ev)->window);
	}
	if (is_surface_id(ev)) {
		xcb_window_t w = ((const xcb_client_message_event_t *)ev)->window;
		pacer.surface_id_read[w & (WM_SURFACE_ID_SLOTS - 1)].window = w;
		pacer.surface_id_read[w & (WM_SURFACE_ID_SLOTS - 1)].destroys =
				wm_surface_pairing_destroys();
	}
	wm_event_queue_push(&pacer.queue, ev);
}

/* Takes events from libxcb into the FIFO, until it has none or the FIFO
 * is full (then false: more may wait). Reading the socket too, until the
 * turn's budget is spent (then false); or, queued_only, only what libxcb
 * has read already: however fast the X server writes, that ends (a read
 * of the socket without a budget, while a window paired during a
 * configure flood, held the loop for seconds in the ASan build: merged
 * into one, the flood never filled the FIFO). */
static bool pull_events(xcb_connection_t *c, bool queued_only, uint64_t *now)
{
	for (unsigned pulled = 1; !wm_event_queue_full(&pacer.queue); pulled++) {
		if (!queued_only && pulled % 256 == 0) {
			*now = monotonic_now_ns();
			if (*now - pacer.turn_start_ns >= WM_TURN_BUDGET_NS) {
				return false;
			}
		}
		xcb_generic_event_t *ev = queued_only ? xcb_poll_for_queued_event(c) :
							real_poll_for_event(c);
		if (ev == NULL) {
			return true;
		}
		take_event(c, ev);
	}
	return false;
}

/* ev, a MapRequest about to be handed out (synthetic ones were dropped
 * before): whoever asked is told first, while the window is still
 * unmapped in X. */
static void announce_map(const xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) != XCB_MAP_REQUEST || pacer.before_map == NULL) {
		return;
	}
	struct wlr_xwayland_surface *xs = wm_surface_pairing_find(
			((const xcb_map_request_event_t *)ev)->window);
	if (xs != NULL) {
		pacer.before_map(xs);
	}
}

/* A turn begins (true), or the handler is told there is nothing (false)
 * because one has begun in this turn of the compositor's loop already.
 * wlroots 0.15 marks its source with wl_event_source_check, and
 * libwayland 1.21 calls such a handler again after every dispatch, in a
 * loop, until it returns 0; wlroots' returns how many events it handled.
 * A turn ended at its budget has handed out at least one, so under a
 * flood that gave each turn an event the loop never left that dispatch:
 * seconds without the control socket, a Wayland client or Xwayland's
 * Wayland connection read (configure-loop in the ASan build beside two
 * busy loops: 6.5 s). Every turn's end has arranged its next (a wake-up,
 * a fetch's reply, the held events' timer), bar one case: events that
 * wlroots' synchronous requests, made while it handled this turn's,
 * read into libxcb after the turn's last pull. The socket may then be
 * empty and its fd not readable, so one is looked for in libxcb's queue
 * (no read) and the loop woken for it. */
static bool begin_turn(xcb_connection_t *c)
{
	uint64_t loop = *pacer.loop_turns;
	if (pacer.turned && loop == pacer.turn_loop) {
		pacer.turns_deferred++;
		xcb_generic_event_t *ev = wm_event_queue_full(&pacer.queue) ?
				NULL :
				xcb_poll_for_queued_event(c);
		if (ev != NULL) {
			take_event(c, ev);
			wake(c);
		}
		return false;
	}
	pacer.turned = true;
	pacer.turn_loop = loop;
	pacer.turns++;
	return true;
}

/* ev, a CreateNotify about to be handed out whose GetGeometry was not
 * sent ahead: it is sent now with those of the next windows the window
 * manager will make surfaces for (not those whose DestroyNotify waits
 * behind: they are never shown), all together (wm_geometry_fetch.h). */
#define WM_GEOMETRY_AHEAD 64u

/* A window of the window manager's own connection (its XID from the
 * connection's resource range): wlroots makes no surface for those (its
 * selection and check windows), so no GetGeometry is sent for them (four
 * per session were, never taken). */
static bool wm_own_window(xcb_connection_t *c, xcb_window_t window)
{
	const xcb_setup_t *setup = xcb_get_setup(c);
	return setup != NULL && (window & ~setup->resource_id_mask) == setup->resource_id_base;
}

static void fetch_geometry_ahead(xcb_connection_t *c, const xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) != XCB_CREATE_NOTIFY) {
		return;
	}
	xcb_window_t window = ((const xcb_create_notify_event_t *)ev)->window;
	if (wm_geometry_fetch_has(c, window) || wm_own_window(c, window)) {
		return;
	}
	uint32_t next[WM_GEOMETRY_AHEAD];
	next[0] = window;
	unsigned n = 1 + wm_event_queue_next_created(&pacer.queue, next + 1, WM_GEOMETRY_AHEAD - 1);
	for (unsigned i = 0; i < n; i++) {
		if (!wm_geometry_fetch_has(c, next[i]) && !wm_own_window(c, next[i])) {
			wm_geometry_fetch_created(c, next[i]);
		}
	}
	xcb_flush(c);
}

/* The X server's UnmapNotify or DestroyNotify of window (an X client's
 * SendEvent of one, marked so, would let it drop another's pairing). */
static bool ends_window(const xcb_generic_event_t *ev, xcb_window_t window)
{
	uint8_t type = ev != NULL ? ev->response_type : 0;
	return (type == XCB_UNMAP_NOTIFY &&
			       ((const xcb_unmap_notify_event_t *)ev)->window == window) ||
			(type == XCB_DESTROY_NOTIFY &&
					((const xcb_destroy_notify_event_t *)ev)->window == window);
}

/* A WL_SURFACE_ID message about to be handed out names a surface that is
 * not (or soon not) its window's. Xwayland destroys a window's surface
 * when the window is unmapped, and the freed id goes to its next Wayland
 * object, maybe the next window's surface: wlroots would pair the window
 * with that (its role taken, the other window's contents shown for it),
 * or end in an assertion if it is no surface. Said by: the window's
 * unmap or destruction waiting behind the message; a surface by that id
 * destroyed since the message was read (Xwayland had sent it while its
 * surface lived, so that was the one); the id naming something else.
 * With `pulled`, a round trip made after the message has been answered,
 * and every event the X server sent before that answer (an unmap of the
 * window that came before the surface's destruction reached the
 * compositor) is first taken from libxcb, as the FIFO has room: libxcb
 * parsed them before that answer, so they are in its queue already, and
 * nothing more is read from the socket. */
static bool surface_id_stale(
		xcb_connection_t *c, const xcb_generic_event_t *ev, bool pulled, bool *more)
{
	const xcb_client_message_event_t *m = (const xcb_client_message_event_t *)ev;
	if (!wm_surface_pairing_knows(m->window)) {
		return false; /* wlroots ignores it */
	}
	if (pulled) {
		uint64_t now;
		*more = !pull_events(c, true, &now) || *more;
	}
	unsigned slot = m->window & (WM_SURFACE_ID_SLOTS - 1);
	uint64_t destroys = pacer.surface_id_read[slot].window == m->window ?
			pacer.surface_id_read[slot].destroys :
			UINT64_MAX;
	return ends_window(pacer.parked, m->window) ||
			wm_event_queue_ends_window(&pacer.queue, m->window) ||
			wm_surface_pairing_stale(m, destroys);
}

/* ev (a WL_SURFACE_ID message, the pairing's round trip answered if
 * pulled) is not for wlroots: counted, said, freed. */
static bool refuse_stale(xcb_connection_t *c, xcb_generic_event_t *ev, bool pulled, bool *more)
{
	if (!is_surface_id(ev) || !surface_id_stale(c, ev, pulled, more)) {
		return false;
	}
	pacer.surface_ids_stale++;
	say_surface_id_dropped((const xcb_client_message_event_t *)ev,
			"the surface it names is gone, or goes with the window's unmap");
	free(ev);
	return true;
}

/* The event waiting for its fetch, if the replies are here (else NULL,
 * and `fetching` stays); a WL_SURFACE_ID message found stale then is
 * dropped (NULL, and `fetching` is NULL). */
static xcb_generic_event_t *hand_out_fetched(xcb_connection_t *c, bool *more)
{
	if (!wm_property_fetch_ready(c)) {
		return NULL;
	}
	xcb_generic_event_t *ev = pacer.fetching;
	pacer.fetching = NULL;
	bool surface_id = pacer.fetching_surface_id;
	pacer.fetching_surface_id = false;
	wm_property_fetch_offer();
	if (surface_id && refuse_stale(c, ev, true, more)) {
		wm_property_fetch_forget_offered(); /* its reads: wlroots will not ask */
		return NULL;
	}
	pacer.handed++;
	wm_surface_pairing_handed(ev);
	return ev;
}

xcb_generic_event_t *xcb_poll_for_event(xcb_connection_t *c)
{
	if (real_poll_for_event == NULL) {
		dlsym_next(&real_poll_for_event, "xcb_poll_for_event");
	}
	if (!is_window_manager(c) || (pacer.conn != c && !adopt_connection(c))) {
		return real_poll_for_event(c);
	}
	/* wlroots handled the event handed out last before it polls again. */
	wm_surface_pairing_settle();
	if (!pacer.in_turn && !begin_turn(c)) {
		return NULL;
	}
	uint64_t now = monotonic_now_ns();
	if (!pacer.in_turn) {
		pacer.in_turn = true;
		pacer.turn_start_ns = now;
		pacer.handed = 0;
	}
	/* wlroots asks for what the event handed out last made it read before
	 * it polls again: an offer still there was not wanted (no surface). */
	wm_property_fetch_forget_offered();
	/* Reading is bounded too: a flood can write faster than a turn reads.
	 * What libxcb still has (read from the socket or not) is left for the
	 * next turn, which a wake-up makes sure of. */
	bool more = !pull_events(c, false, &now);
	for (;;) {
		if (pacer.fetching != NULL) {
			xcb_generic_event_t *ev = hand_out_fetched(c, &more);
			if (ev != NULL) {
				return ev;
			}
			if (pacer.fetching != NULL && pacer.parked != NULL) {
				return end_turn(now); /* the reply wakes the next turn */
			}
		}
		if (pacer.handed > 0 && now - pacer.turn_start_ns >= WM_TURN_BUDGET_NS &&
				(more || pacer.parked != NULL ||
						wm_event_queue_length(&pacer.queue) > 0)) {
			pacer.turns_cut++;
			wake(c);
			return end_turn(now);
		}
		xcb_generic_event_t *ev = pacer.parked;
		pacer.parked = NULL;
		if (ev == NULL) {
			/* A paste's chunk held for room in its pipe (wm_paste_pipe.h). */
			ev = wm_paste_pipe_take_ready();
		}
		if (ev == NULL) {
			/* The end of a transfer to a gone requestor (wm_selection_budget.h). */
			ev = wm_selection_budget_take_ready();
		}
		while (ev == NULL && (ev = wm_event_queue_pop(&pacer.queue, now)) != NULL &&
				(wm_paste_pipe_hold(c, ev) || wm_window_budget_refuse(c, ev) ||
						wm_selection_budget_refuse(c, ev))) {
			ev = NULL;
		}
		if (ev == NULL) {
			if (more) {
				pacer.turns_cut++;
				wake(c);
			}
			return end_turn(now);
		}
		if (!waits_for_fetch(ev)) {
			if (refuse_stale(c, ev, false, &more)) {
				continue;
			}
			fetch_geometry_ahead(c, ev);
			announce_map(ev);
			pacer.handed++;
			wm_surface_pairing_handed(ev);
			return ev;
		}
		if (pacer.fetching != NULL) {
			pacer.parked = ev;
			return end_turn(now);
		}
		pacer.fetching = ev;
		if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY) {
			pacer.fetched++;
			wm_property_fetch_start(c, (const xcb_property_notify_event_t *)ev);
			continue;
		}
		/* A WL_SURFACE_ID message with which wlroots pairs now: judged
		 * again once its reads are answered (refuse_stale). */
		pacer.fetching_surface_id = true;
		const xcb_client_message_event_t *m = (const xcb_client_message_event_t *)ev;
		pacer.fetched += pacer.npairing_atoms;
		pacer.pairings_fetched++;
		wm_property_fetch_pairing(
				c, m->window, pacer.pairing_atoms, pacer.npairing_atoms, false);
	}
}

/* wlroots 0.15 closes the window manager's fd itself when Xwayland's
 * Wayland connection ends first (server.c, server_finish_process closes
 * wm_fd[0]), and its window manager disconnects later: by then the fd's
 * number may be another's. Seen when Xwayland gave up during a flood
 * (red team's configure-loop): the number had gone to libwayland's
 * duplicate of the X listening socket (the lazy restart's watch), which
 * libxcb then shut down and closed; the watch's removal failed, its epoll
 * entry stayed with a freed source, and the compositor crashed at the
 * next X connection (SIGSEGV in wl_event_loop_dispatch). So a connection
 * whose fd is no longer its socket is not disconnected: its memory is kept
 * (reachable, a few KiB per Xwayland that died so) and its fd left to its
 * new owner. */
static bool fd_still_ours(xcb_connection_t *c)
{
	struct stat st;
	return fstat(xcb_get_file_descriptor(c), &st) == 0 && st.st_dev == pacer.conn_dev &&
			st.st_ino == pacer.conn_ino;
}

#define WM_ORPHANS_KEPT 64u
static xcb_connection_t *orphans[WM_ORPHANS_KEPT];

void xcb_disconnect(xcb_connection_t *c)
{
	if (real_disconnect == NULL) {
		dlsym_next(&real_disconnect, "xcb_disconnect");
	}
	if (c != NULL && c == pacer.conn) {
		bool ours = fd_still_ours(c);
		forget_connection();
		if (!ours) {
			wm_paste_pipe_forget(c);
			wm_selection_budget_forget(c);
			orphans[pacer.orphaned++ % WM_ORPHANS_KEPT] = c;
			wlr_log(WLR_ERROR,
					"X window manager: its connection's fd was closed "
					"before it was disconnected (Xwayland's end first); "
					"not closed again (%llu so far)",
					(unsigned long long)pacer.orphaned);
			return;
		}
	}
	wm_paste_pipe_forget(c);
	wm_selection_budget_forget(c);
	real_disconnect(c);
}

/* wlroots is about to pair window from the Wayland side (in the
 * compositor's new_surface signal, after this): what it reads is sent
 * now, all at once. */
static void pairing_from_surface(xcb_window_t window)
{
	if (pacer.conn == NULL || pacer.npairing_atoms == 0 ||
			xcb_connection_has_error(pacer.conn)) {
		return;
	}
	pacer.fetched += pacer.npairing_atoms;
	pacer.pairings_fetched++;
	wm_property_fetch_pairing(
			pacer.conn, window, pacer.pairing_atoms, pacer.npairing_atoms, true);
}

void wm_event_pacer_wake(void)
{
	if (pacer.conn != NULL && !xcb_connection_has_error(pacer.conn)) {
		wake(pacer.conn);
	}
}

bool wm_event_pacer_init(struct wl_event_loop *loop, struct wlr_xwayland *wlr,
		const uint64_t *loop_turns, void (*before_map)(struct wlr_xwayland_surface *xs))
{
	pacer.retry = wl_event_loop_add_timer(loop, handle_retry, NULL);
	if (pacer.retry == NULL) {
		return false;
	}
	pacer.wlr = wlr;
	pacer.before_map = before_map;
	pacer.loop_turns = loop_turns;
	wm_surface_pairing_init(wlr, pairing_from_surface);
	return true;
}

void wm_event_pacer_stats(const struct smtwc_stats_out *out)
{
	out->begin_object(out->ctx, "x11_window_manager");
	out->number(out->ctx, "turns", pacer.turns);
	out->number(out->ctx, "turns_cut", pacer.turns_cut);
	out->number(out->ctx, "turns_deferred", pacer.turns_deferred);
	out->number(out->ctx, "events_waiting", wm_event_queue_length(&pacer.queue));
	out->number(out->ctx, "messages_ignored", messages_ignored_total());
	out->end_object(out->ctx);
}

void wm_event_pacer_finish(void)
{
	uint64_t waited_ns;
	if (pacer.turns_cut > 0 || merged_total() > 0 || paced_total() > 0 || ignored_total() > 0 ||
			dropped_total() > 0 || messages_total() > 0 ||
			messages_ignored_total() > 0 || pacer.fetched > 0 ||
			wm_property_fetch_waits(&waited_ns) > 0) {
		log_summary("at the end");
	}
	forget_connection();
	if (pacer.retry != NULL) {
		wl_event_source_remove(pacer.retry);
	}
	memset(&pacer, 0, sizeof(pacer));
}
