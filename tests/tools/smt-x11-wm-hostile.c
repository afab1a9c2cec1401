/*
 * smt-x11-wm-hostile CASE [ARGS]: an X client (any uid that reaches the X
 * socket: Xwayland runs without authorisation) asking the window manager
 * (wlroots' xwm inside the compositor) for work, for the red team's
 * measurements and tests (docs/reliability.md, "Red team and real programs
 * (session 28)"). Each case prints what it did on stdout, one line a
 * result, and exits 0 when the X connection lived through it.
 *
 *   steal-focus [TITLE]     maps a window (prints "mapped WINDOW"), then at
 *                           each SIGUSR1 asks for it to be activated
 *                           (_NET_ACTIVE_WINDOW, as a pager would) and
 *                           prints "asked"; until SIGTERM
 *   targets N SECONDS [--primary] [--name-bytes B] [--once] [--silent]
 *                           maps a window and waits for the X focus, interns
 *                           N atoms application/x-smt-I (padded with 'x' to
 *                           B bytes) and for SECONDS
 *                           takes the CLIPBOARD (or PRIMARY) selection again
 *                           each time the window manager has asked for its
 *                           TARGETS (--once: takes it once and keeps it),
 *                           answering each time with the N atoms; prints
 *                           "owner" once it first answered, then at the end
 *                           "asked K owned O" (TARGETS requests answered,
 *                           times taken); 0 seconds: until SIGTERM;
 *                           --silent: every request but TARGETS is left
 *                           unanswered (prints "unanswered TARGET
 *                           requestor WINDOW" each),
 *                           as by an owner that hangs or dies before it
 *                           answers;
 *                           --incr K: every request but TARGETS is answered
 *                           as a large selection is (ICCCM INCR: the INCR
 *                           property, then a chunk of 1000 bytes each time
 *                           the requestor deleted the last one), but after
 *                           K chunks no more comes, nor the empty end
 *                           (prints "incr TARGET requestor WINDOW" at the
 *                           answer, "stalled requestor WINDOW chunks K" when
 *                           the requestor waits for chunk K+1), as by an
 *                           owner that hangs in the middle
 *   long-names TITLE_BYTES CLASS_BYTES
 *                           maps a window whose WM_NAME and _NET_WM_NAME
 *                           are TITLE_BYTES long and whose WM_CLASS class
 *                           is CLASS_BYTES long (wlroots reads 8 KB of
 *                           each); prints "mapped WINDOW", waits for SIGTERM
 *   state-loop SECONDS      toggles its own _NET_WM_STATE fullscreen
 *   iconify-loop SECONDS    WM_CHANGE_STATE iconic, then _NET_ACTIVE_WINDOW,
 *                           in turn
 *   configure-loop SECONDS  moves and resizes its own window
 *   title-delete-loop SECONDS
 *   message-loop SECONDS    sends the root ClientMessages of a type the
 *                           window manager does not know (SMT_NOBODY_KNOWS)
 *   protocols-loop SECONDS  WM_PROTOCOLS messages that are no ping
 *   state-unknown-loop SECONDS
 *                           _NET_WM_STATE add of two properties nobody
 *                           knows, in turn (SMT_STATE_A, SMT_STATE_B)
 *                           (wlroots 0.15 asks the X server each unknown
 *                           atom's name, a round trip: session 35)
 *   startup-loop SECONDS    _NET_STARTUP_INFO messages of 20 bytes with no
 *                           NUL (never ending), each naming another window
 *                           id (wlroots keeps each one's text); these four
 *                           print "sent N" at each 2^20 messages
 *                           sets its WM_NAME and deletes it, in turn
 *   window-churn SECONDS [--or] [--count N]
 *                           creates, maps and destroys windows (override-
 *                           redirect with --or), N at most
 *   windows-hold N [--map] [--or]
 *                           creates N windows (mapped with --map), prints
 *                           "holding N", waits for SIGTERM
 *   windows-burst N         creates N override-redirect windows of 10x10,
 *                           unmapped, window i at (i % 128 * 10,
 *                           i / 128 * 10) with background pixel
 *                           0x800000 | (i / 128) << 16 | (i % 128) << 9 | 0x55;
 *                           prints "created N"; at SIGUSR1 maps them all
 *                           with one MapSubwindows of the root, prints
 *                           "sent", then "mapped N" once the X server
 *                           answered a round trip; waits for SIGTERM
 *   configure-held TRIES    maps a window, prints "mapped WINDOW"; at
 *                           SIGUSR1 (once the compositor shows it where it
 *                           placed it), up to TRIES times: asks a
 *                           geometry and waits for it, asks a move (held
 *                           by the window manager's 50 ms pacing), waits
 *                           until the window manager has configured a new
 *                           unmapped probe window (so the move was handed
 *                           to it in an earlier turn), asks a size only,
 *                           and waits for that size; the try "merged" when
 *                           no ConfigureNotify had the moved place with
 *                           the old size. Prints "not merged try T" or
 *                           "merged try T at X Y W H want X Y W H" (the
 *                           first merged try ends the loop), then
 *                           "done WINDOW"; waits for SIGTERM
 *   selection-hold N [--primary] [--spare K]
 *                           prints "base XID" (its client's resource
 *                           base), maps a window, waits for the X focus,
 *                           makes K child windows that ask for nothing
 *                           (--spare: they reuse an earlier client's
 *                           window ids when it had the same base), then asks
 *                           the CLIPBOARD (or PRIMARY) selection as
 *                           UTF8_STRING from N requestor windows (children
 *                           of its window: no top-level windows), and
 *                           never reads nor deletes what it is sent (an
 *                           INCR transfer then waits for it for good);
 *                           prints "asked N notified K refused R" after
 *                           its requests and whenever K changed (R: with
 *                           property None), until SIGTERM
 *   forge-surface-id ID     maps a window, then sends the root a
 *                           WL_SURFACE_ID ClientMessage for it naming
 *                           Wayland object ID of Xwayland's connection (as
 *                           only the X server itself should: wlroots 0.15
 *                           takes any object by that id for a wl_surface);
 *                           prints "sent", waits for SIGTERM
 *   forge-end WINDOW        sends the root (SendEvent, with the mask the
 *                           window manager selected there) a
 *                           ConfigureRequest, an UnmapNotify and a
 *                           DestroyNotify for X window WINDOW (another
 *                           client's: only the X server should make
 *                           these); prints "sent", waits for SIGTERM
 *   remap-or SECONDS [--windows K] [--pause-us U]
 *                           maps and unmaps K override-redirect windows
 *                           (16 by default) in turn, a round trip and a
 *                           pause of U microseconds (1000) after each:
 *                           Xwayland makes each map a wl_surface and says
 *                           which by a WL_SURFACE_ID message, destroys it
 *                           at the unmap, and the next map's objects take
 *                           the freed Wayland ids again (unpaused,
 *                           Xwayland gives up at once: a wl_shm pool per
 *                           map)
 *   pixmap-churn COUNT      creates and frees COUNT 64x64 pixmaps (each a
 *                           wl_shm pool, an fd, from Xwayland to the
 *                           compositor and two delete_id events back)
 *   resize-or K ROUNDS      maps K 40x40 override-redirect windows, then
 *                           resizes (and fills) each in turn, ROUNDS times
 *                           (each resize a new window pixmap: a wl_shm pool)
 * Loops make a round trip every 64 requests, so that the X server, not the
 * client's buffer, holds the backlog; each prints "count K seconds S".
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "common/monotonic_clock.h"

static xcb_connection_t *conn;
static xcb_screen_t *screen;
static volatile sig_atomic_t stopping;
static volatile sig_atomic_t go;
static const char *window_title = "smt-x11-wm-hostile";

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void drain_events(void);

static xcb_atom_t atom(const char *name)
{
	xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(
			conn, xcb_intern_atom(conn, 0, (uint16_t)strlen(name), name), NULL);
	xcb_atom_t a = r != NULL ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

static void round_trip(void)
{
	free(xcb_get_input_focus_reply(conn, xcb_get_input_focus(conn), NULL));
}

static xcb_window_t make_window(bool override_redirect, int16_t x, int16_t y)
{
	xcb_window_t w = xcb_generate_id(conn);
	uint32_t values[] = { screen->white_pixel, override_redirect ? 1u : 0u,
		XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_PROPERTY_CHANGE |
				XCB_EVENT_MASK_FOCUS_CHANGE };
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, w, screen->root, x, y, 200, 150, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT | XCB_CW_EVENT_MASK, values);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			(uint32_t)strlen(window_title), window_title);
	return w;
}

/* Maps w and waits for its MapNotify (the window manager has let it map). */
static void map_and_wait(xcb_window_t w)
{
	xcb_map_window(conn, w);
	xcb_flush(conn);
	xcb_generic_event_t *ev;
	while ((ev = xcb_wait_for_event(conn)) != NULL) {
		bool mapped = (ev->response_type & 0x7f) == XCB_MAP_NOTIFY &&
				((xcb_map_notify_event_t *)ev)->window == w;
		free(ev);
		if (mapped) {
			return;
		}
	}
	fprintf(stderr, "smt-x11-wm-hostile: the X connection ended\n");
	exit(1);
}

/* Waits until w has the X input focus: the window manager gives it when
 * the compositor focuses the window, some time after MapNotify. wlroots
 * takes an X selection only while an X window has the focus. */
static void wait_focus(xcb_window_t w)
{
	for (;;) {
		xcb_get_input_focus_reply_t *r = xcb_get_input_focus_reply(
				conn, xcb_get_input_focus(conn), NULL);
		bool focused = r != NULL && r->focus == w;
		free(r);
		if (focused) {
			return;
		}
		if (xcb_connection_has_error(conn)) {
			fprintf(stderr, "smt-x11-wm-hostile: the X connection ended\n");
			exit(1);
		}
		drain_events();
		usleep(10000);
	}
}

/* A client message to the root, as EWMH asks pagers and clients to send. */
/* Sends the root an event (32 bytes at ev) as any client may: with the
 * mask the window manager selected there. */
static void root_event(const void *ev)
{
	xcb_send_event(conn, 0, screen->root,
			XCB_EVENT_MASK_SUBSTRUCTURE_REDIRECT | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY,
			(const char *)ev);
}

static void root_message(xcb_window_t w, xcb_atom_t type, uint32_t d0, uint32_t d1, uint32_t d2)
{
	xcb_client_message_event_t ev = {
		.response_type = XCB_CLIENT_MESSAGE,
		.format = 32,
		.window = w,
		.type = type,
	};
	ev.data.data32[0] = d0;
	ev.data.data32[1] = d1;
	ev.data.data32[2] = d2;
	root_event(&ev);
}

/* Drops the events queued for us (none of the loops needs them). */
static void drain_events(void)
{
	xcb_generic_event_t *ev;
	while ((ev = xcb_poll_for_event(conn)) != NULL) {
		free(ev);
	}
}

/* The forging cases' end: "sent", then idle until SIGTERM or the
 * connection's end (1 then). */
static int say_sent_and_hold(void)
{
	printf("sent\n");
	fflush(stdout);
	while (!stopping && !xcb_connection_has_error(conn)) {
		drain_events();
		usleep(100000);
	}
	return xcb_connection_has_error(conn) ? 1 : 0;
}

static double monotonic_seconds(void)
{
	return (double)monotonic_now_ns() / 1e9;
}

static double seconds_since(double t0)
{
	return monotonic_seconds() - t0;
}

/* A connection the X server ended (Xwayland killed) ends every loop: xcb
 * then makes each request a no-op, and a loop without a time limit would
 * spin on a CPU for good. */
static bool loop_going(double t0, double seconds)
{
	return !stopping && !xcb_connection_has_error(conn) &&
			(seconds <= 0 || seconds_since(t0) < seconds);
}

static int case_steal_focus(void)
{
	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	printf("mapped %u\n", w);
	fflush(stdout);
	xcb_atom_t active = atom("_NET_ACTIVE_WINDOW");
	while (!stopping) {
		if (go) {
			go = 0;
			root_message(w, active, 1, XCB_CURRENT_TIME, 0);
			round_trip();
			printf("asked\n");
			fflush(stdout);
		}
		drain_events();
		usleep(10000);
	}
	return 0;
}

/* A string of n bytes: a word, then 'x' up to n. */
static char *long_string(const char *word, unsigned n)
{
	char *s = malloc(n + 1);
	if (s == NULL) {
		exit(1);
	}
	size_t w = strlen(word) < n ? strlen(word) : n;
	memcpy(s, word, w);
	memset(s + w, 'x', n - w);
	s[n] = '\0';
	return s;
}

static int case_long_names(unsigned title_bytes, unsigned class_bytes)
{
	xcb_window_t w = make_window(false, 100, 100);
	char *title = long_string("long title ", title_bytes);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			title_bytes, title);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, atom("_NET_WM_NAME"),
			atom("UTF8_STRING"), 8, title_bytes, title);
	free(title);
	/* WM_CLASS: instance NUL class NUL */
	char *class = long_string("longclass", class_bytes);
	size_t len = strlen("instance") + 1 + class_bytes + 1;
	char *value = malloc(len);
	if (value == NULL) {
		return 1;
	}
	memcpy(value, "instance", strlen("instance") + 1);
	memcpy(value + strlen("instance") + 1, class, class_bytes + 1);
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8,
			(uint32_t)len, value);
	free(value);
	free(class);
	map_and_wait(w);
	printf("mapped %u\n", w);
	fflush(stdout);
	while (!stopping) {
		drain_events();
		usleep(100000);
	}
	return 0;
}

/* Answers req: the selection is on its property, or (None) refused. */
static void notify_requestor(const xcb_selection_request_event_t *req, xcb_atom_t property)
{
	xcb_selection_notify_event_t note = {
		.response_type = XCB_SELECTION_NOTIFY,
		.time = req->time,
		.requestor = req->requestor,
		.selection = req->selection,
		.target = req->target,
		.property = property,
	};
	xcb_send_event(conn, 0, req->requestor, 0, (const char *)&note);
}

/* --incr: the transfers answered with INCR, by requestor window. */
#define INCR_TRANSFERS 64
#define INCR_CHUNK_BYTES 1000

struct incr_transfer {
	xcb_window_t requestor;
	xcb_atom_t property;
	xcb_atom_t target;
	unsigned chunks; /* put so far */
};

static struct incr_transfer incr_transfers[INCR_TRANSFERS];

/* Answers req with an INCR transfer: its property says one is coming, and
 * the requestor's deletions of it (PropertyChange, selected here) ask for
 * the chunks. */
static void incr_answer(const xcb_selection_request_event_t *req, xcb_atom_t incr)
{
	struct incr_transfer *t = NULL;
	for (unsigned i = 0; i < INCR_TRANSFERS && t == NULL; i++) {
		if (incr_transfers[i].requestor == XCB_WINDOW_NONE ||
				incr_transfers[i].requestor == req->requestor) {
			t = &incr_transfers[i];
		}
	}
	if (t == NULL) {
		return;
	}
	*t = (struct incr_transfer){ req->requestor, req->property, req->target, 0 };
	uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
	xcb_change_window_attributes(conn, req->requestor, XCB_CW_EVENT_MASK, &mask);
	uint32_t size = 1000000;
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor, req->property, incr, 32, 1,
			&size);
	notify_requestor(req, req->property);
	xcb_flush(conn);
	printf("incr %u requestor %u\n", req->target, req->requestor);
	fflush(stdout);
}

/* A deletion on a requestor of ours: the next chunk, up to chunks of them. */
static void incr_next(const xcb_property_notify_event_t *pn, unsigned chunks)
{
	for (unsigned i = 0; i < INCR_TRANSFERS; i++) {
		struct incr_transfer *t = &incr_transfers[i];
		if (t->requestor != pn->window || t->property != pn->atom ||
				pn->state != XCB_PROPERTY_DELETE) {
			continue;
		}
		if (t->chunks >= chunks) {
			printf("stalled requestor %u chunks %u\n", t->requestor, t->chunks);
			fflush(stdout);
			return;
		}
		char chunk[INCR_CHUNK_BYTES];
		memset(chunk, 'a' + (int)(t->chunks % 26), sizeof(chunk));
		xcb_change_property(conn, XCB_PROP_MODE_REPLACE, t->requestor, t->property,
				t->target, 8, sizeof(chunk), chunk);
		xcb_flush(conn);
		t->chunks++;
		return;
	}
}

static int case_targets(unsigned n, double seconds, bool primary, unsigned name_bytes, bool once,
		bool silent, int incr_chunks)
{
	xcb_atom_t incr = atom("INCR");
	xcb_atom_t selection = primary ? XCB_ATOM_PRIMARY : atom("CLIPBOARD");
	xcb_atom_t targets_atom = atom("TARGETS");
	xcb_atom_t *targets = calloc(n + 1, sizeof(*targets));
	xcb_intern_atom_cookie_t *cookies = calloc(n + 1, sizeof(*cookies));
	if (targets == NULL || cookies == NULL) {
		return 1;
	}
	if (name_bytes > 65535) {
		name_bytes = 65535;
	}
	char *name = malloc(name_bytes + 64);
	if (name == NULL) {
		return 1;
	}
	for (unsigned i = 0; i < n; i++) {
		int len = snprintf(name, 64, "application/x-smt-%u", i);
		while ((unsigned)len < name_bytes) {
			name[len++] = 'x';
		}
		cookies[i] = xcb_intern_atom(conn, 0, (uint16_t)len, name);
	}
	free(name);
	for (unsigned i = 0; i < n; i++) {
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(conn, cookies[i], NULL);
		targets[i] = r != NULL ? r->atom : XCB_ATOM_NONE;
		free(r);
	}
	free(cookies);

	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	wait_focus(w);
	printf("mapped %u\n", w);
	fflush(stdout);

	unsigned asked = 0;
	unsigned owned = 0;
	double t0 = monotonic_seconds();
	xcb_set_selection_owner(conn, w, selection, XCB_CURRENT_TIME);
	owned++;
	xcb_flush(conn);
	while (loop_going(t0, seconds)) {
		xcb_generic_event_t *ev = xcb_poll_for_event(conn);
		if (ev == NULL) {
			if (xcb_connection_has_error(conn)) {
				break;
			}
			usleep(200);
			continue;
		}
		if ((ev->response_type & 0x7f) == XCB_SELECTION_REQUEST) {
			xcb_selection_request_event_t *req = (xcb_selection_request_event_t *)ev;
			xcb_atom_t property = XCB_ATOM_NONE;
			if (req->target == targets_atom) {
				xcb_change_property(conn, XCB_PROP_MODE_REPLACE, req->requestor,
						req->property, XCB_ATOM_ATOM, 32, n, targets);
				property = req->property;
				if (asked++ == 0) {
					printf("owner\n");
					fflush(stdout);
				}
			} else if (incr_chunks >= 0) {
				incr_answer(req, incr);
				free(ev);
				continue;
			} else if (silent) {
				printf("unanswered %u requestor %u\n", req->target, req->requestor);
				fflush(stdout);
				free(ev);
				continue;
			}
			notify_requestor(req, property);
			if (!once) {
				/* Taken again: the window manager asks for the targets anew. */
				xcb_set_selection_owner(conn, w, selection, XCB_CURRENT_TIME);
				owned++;
			}
			xcb_flush(conn);
		} else if ((ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY && incr_chunks >= 0) {
			incr_next((const xcb_property_notify_event_t *)ev, (unsigned)incr_chunks);
		}
		free(ev);
	}
	printf("asked %u owned %u seconds %.3f\n", asked, owned, seconds_since(t0));
	fflush(stdout);
	free(targets);
	return xcb_connection_has_error(conn) ? 1 : 0;
}

static int case_loop(const char *name, double seconds)
{
	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	printf("mapped %u\n", w);
	fflush(stdout);
	xcb_atom_t net_wm_state = atom("_NET_WM_STATE");
	xcb_atom_t fullscreen = atom("_NET_WM_STATE_FULLSCREEN");
	xcb_atom_t change_state = atom("WM_CHANGE_STATE");
	xcb_atom_t active = atom("_NET_ACTIVE_WINDOW");
	xcb_atom_t unknown = atom("SMT_NOBODY_KNOWS");
	xcb_atom_t protocols = atom("WM_PROTOCOLS");
	xcb_atom_t state_a = atom("SMT_STATE_A"), state_b = atom("SMT_STATE_B");
	/* (the message loops say each 2^20 sent: "sent N") */
	bool messages = strcmp(name, "message-loop") == 0 || strcmp(name, "protocols-loop") == 0 ||
			strcmp(name, "state-unknown-loop") == 0 ||
			strcmp(name, "startup-loop") == 0;
	xcb_atom_t startup_info = atom("_NET_STARTUP_INFO");
	unsigned long count = 0;
	double t0 = monotonic_seconds();
	while (loop_going(t0, seconds)) {
		if (strcmp(name, "state-loop") == 0) {
			root_message(w, net_wm_state, 2 /* toggle */, fullscreen, 0);
		} else if (strcmp(name, "title-delete-loop") == 0) {
			/* The window manager reads WM_NAME after each change (ahead,
			 * wm_property_fetch.c); a deletion is never left out. */
			if (count % 2 == 0) {
				char title[32];
				int len = snprintf(title, sizeof(title), "title %lu", count);
				xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w,
						XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, (uint32_t)len,
						title);
			} else {
				xcb_delete_property(conn, w, XCB_ATOM_WM_NAME);
			}
		} else if (strcmp(name, "message-loop") == 0) {
			root_message(w, unknown, (uint32_t)count, 0, 0);
		} else if (strcmp(name, "protocols-loop") == 0) {
			root_message(w, protocols, unknown, XCB_CURRENT_TIME, w);
		} else if (strcmp(name, "startup-loop") == 0) {
			xcb_client_message_event_t ev = {
				.response_type = XCB_CLIENT_MESSAGE,
				.format = 8,
				.window = (xcb_window_t)(0x3000000u + count),
				.type = startup_info,
			};
			memset(ev.data.data8, 'x', sizeof(ev.data.data8));
			root_event(&ev);
		} else if (strcmp(name, "state-unknown-loop") == 0) {
			root_message(w, net_wm_state, 1 /* add */, count % 2 ? state_a : state_b,
					0);
		} else if (strcmp(name, "iconify-loop") == 0) {
			if (count % 2 == 0) {
				root_message(w, change_state, 3 /* IconicState */, 0, 0);
			} else {
				root_message(w, active, 1, XCB_CURRENT_TIME, 0);
			}
		} else {
			uint32_t v[] = { (uint32_t)(50 + count % 200), (uint32_t)(50 + count % 150),
				(uint32_t)(100 + count % 300), (uint32_t)(80 + count % 200) };
			xcb_configure_window(conn, w,
					XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y |
							XCB_CONFIG_WINDOW_WIDTH |
							XCB_CONFIG_WINDOW_HEIGHT,
					v);
		}
		count++;
		if (count % 64 == 0) {
			round_trip();
			drain_events();
		}
		if (count % (1u << 20) == 0 && messages) {
			printf("sent %lu\n", count);
			fflush(stdout);
		}
	}
	round_trip();
	printf("count %lu seconds %.3f\n", count, seconds_since(t0));
	fflush(stdout);
	return xcb_connection_has_error(conn) ? 1 : 0;
}

static int case_window_churn(double seconds, bool override_redirect, unsigned long most)
{
	unsigned long count = 0;
	double t0 = monotonic_seconds();
	while (loop_going(t0, seconds) && (most == 0 || count < most)) {
		xcb_window_t w = make_window(
				override_redirect, (int16_t)(count % 800), (int16_t)(count % 500));
		xcb_map_window(conn, w);
		xcb_destroy_window(conn, w);
		count++;
		if (count % 64 == 0) {
			round_trip();
			drain_events();
		}
	}
	round_trip();
	printf("count %lu seconds %.3f\n", count, seconds_since(t0));
	fflush(stdout);
	return xcb_connection_has_error(conn) ? 1 : 0;
}

/* Until `most` steps are made or the connection breaks (Xwayland gave up):
 * prints "count K seconds S". */
static int counted_end(unsigned long count, double t0)
{
	round_trip();
	printf("count %lu seconds %.3f\n", count, seconds_since(t0));
	fflush(stdout);
	return xcb_connection_has_error(conn) ? 1 : 0;
}

static int case_pixmap_churn(unsigned long most)
{
	unsigned long count = 0;
	double t0 = monotonic_seconds();
	while (!stopping && !xcb_connection_has_error(conn) && count < most) {
		xcb_pixmap_t p = xcb_generate_id(conn);
		xcb_create_pixmap(conn, screen->root_depth, p, screen->root, 64, 64);
		xcb_free_pixmap(conn, p);
		if (++count % 64 == 0) {
			round_trip();
		}
	}
	return counted_end(count, t0);
}

static int case_resize_or(unsigned k, unsigned long rounds)
{
	xcb_window_t w[256];
	k = k == 0 ? 16 : k > 256 ? 256 : k;
	xcb_gcontext_t gc = xcb_generate_id(conn);
	xcb_create_gc(conn, gc, screen->root, XCB_GC_FOREGROUND, &screen->black_pixel);
	for (unsigned i = 0; i < k; i++) {
		w[i] = make_window(true, (int16_t)(i * 37 % 1100), (int16_t)(i * 53 % 600));
		xcb_map_window(conn, w[i]);
	}
	round_trip();
	unsigned long count = 0;
	double t0 = monotonic_seconds();
	for (unsigned long r = 0; r < rounds && !stopping && !xcb_connection_has_error(conn); r++) {
		for (unsigned i = 0; i < k; i++) {
			uint32_t size[] = { (uint32_t)(40 + r % 64 + i % 7),
				(uint32_t)(40 + r * 3 % 64) };
			xcb_configure_window(conn, w[i],
					XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, size);
			xcb_rectangle_t all = { 0, 0, (uint16_t)size[0], (uint16_t)size[1] };
			xcb_poly_fill_rectangle(conn, w[i], gc, 1, &all);
			if (++count % 64 == 0) {
				round_trip();
				drain_events();
			}
		}
	}
	return counted_end(count, t0);
}

static int case_forge_surface_id(uint32_t id)
{
	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	round_trip();
	root_message(w, atom("WL_SURFACE_ID"), id, 0, 0);
	round_trip();
	return say_sent_and_hold();
}

static int case_forge_end(xcb_window_t victim)
{
	/* (xcb_send_event sends 32 bytes from each: padded events) */
	union {
		xcb_configure_request_event_t configure;
		xcb_unmap_notify_event_t unmap;
		xcb_destroy_notify_event_t destroy;
		char pad[32];
	} ev;
	memset(&ev, 0, sizeof(ev));
	ev.configure.response_type = XCB_CONFIGURE_REQUEST;
	ev.configure.parent = screen->root;
	ev.configure.window = victim;
	ev.configure.width = 1;
	ev.configure.height = 1;
	ev.configure.value_mask = XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y |
			XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT;
	root_event(&ev);
	memset(&ev, 0, sizeof(ev));
	ev.unmap.response_type = XCB_UNMAP_NOTIFY;
	ev.unmap.event = screen->root;
	ev.unmap.window = victim;
	root_event(&ev);
	memset(&ev, 0, sizeof(ev));
	ev.destroy.response_type = XCB_DESTROY_NOTIFY;
	ev.destroy.event = screen->root;
	ev.destroy.window = victim;
	root_event(&ev);
	round_trip();
	return say_sent_and_hold();
}

static int case_remap_or(double seconds, unsigned k, unsigned pause_us)
{
	xcb_window_t w[256];
	k = k == 0 ? 16 : k > 256 ? 256 : k;
	for (unsigned i = 0; i < k; i++) {
		w[i] = make_window(true, (int16_t)(i * 10), (int16_t)(i * 10));
	}
	unsigned long count = 0;
	double t0 = monotonic_seconds();
	while (loop_going(t0, seconds)) {
		xcb_window_t one = w[count % k];
		xcb_map_window(conn, one);
		xcb_unmap_window(conn, one);
		count++;
		round_trip();
		drain_events();
		usleep(pause_us);
	}
	round_trip();
	printf("count %lu seconds %.3f\n", count, seconds_since(t0));
	fflush(stdout);
	return xcb_connection_has_error(conn) ? 1 : 0;
}

static int case_windows_hold(unsigned n, bool map, bool override_redirect)
{
	for (unsigned i = 0; i < n; i++) {
		xcb_window_t w = make_window(
				override_redirect, (int16_t)(i % 800), (int16_t)(i % 500));
		if (map) {
			xcb_map_window(conn, w);
		}
		if (i % 64 == 63) {
			round_trip();
			drain_events();
		}
	}
	round_trip();
	printf("holding %u\n", n);
	fflush(stdout);
	while (!stopping) {
		drain_events();
		usleep(100000);
	}
	return 0;
}

/* One request that makes the X server realise n top-level windows: their
 * Wayland requests (a surface, and a wl_shm pool with its fd for each
 * window's pixmap) are sent in that one request's time, before the X
 * server reads anything more from any client (docs/x11.md "Xwayland's own
 * Wayland connection"). MapSubwindows of the root maps every unmapped
 * top-level window, the session's others too: the test runs no other. */
static int case_windows_burst(unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		xcb_window_t w = xcb_generate_id(conn);
		uint32_t pixel = 0x800000u | (i / 128) << 16 | (i % 128) << 9 | 0x55u;
		uint32_t values[] = { pixel, 1u };
		xcb_create_window(conn, XCB_COPY_FROM_PARENT, w, screen->root,
				(int16_t)(i % 128 * 10), (int16_t)(i / 128 * 10), 10, 10, 0,
				XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
				XCB_CW_BACK_PIXEL | XCB_CW_OVERRIDE_REDIRECT, values);
		if (i % 256 == 255) {
			round_trip();
		}
	}
	round_trip();
	printf("created %u\n", n);
	fflush(stdout);
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	while (!go && !stopping) {
		sigsuspend(&old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (stopping) {
		return 0;
	}
	xcb_map_subwindows(conn, screen->root);
	xcb_flush(conn);
	printf("sent\n");
	fflush(stdout);
	round_trip();
	printf("mapped %u\n", n);
	fflush(stdout);
	while (!stopping && !xcb_connection_has_error(conn)) {
		drain_events();
		usleep(100000);
	}
	return 0;
}

struct geometry {
	int x, y, w, h;
};

/* Waits (10 s at most) for a ConfigureNotify of w with width and height
 * (x, y too unless any_place); every ConfigureNotify of watch seen meanwhile
 * goes to seen(), the last one's geometry to *last. */
static bool wait_configured(xcb_window_t w, struct geometry want, bool any_place,
		xcb_window_t watch, void (*seen)(struct geometry), struct geometry *last)
{
	uint64_t end = monotonic_now_ns() + 10000000000ull;
	xcb_flush(conn);
	while (!stopping && !xcb_connection_has_error(conn) && monotonic_now_ns() < end) {
		xcb_generic_event_t *ev = xcb_poll_for_event(conn);
		if (ev == NULL) {
			struct pollfd p = { .fd = xcb_get_file_descriptor(conn), .events = POLLIN };
			poll(&p, 1, 100);
			continue;
		}
		bool done = false;
		if ((ev->response_type & 0x7f) == XCB_CONFIGURE_NOTIFY) {
			xcb_configure_notify_event_t *c = (xcb_configure_notify_event_t *)ev;
			struct geometry g = { c->x, c->y, c->width, c->height };
			if (c->window == watch && seen != NULL) {
				seen(g);
			}
			if (c->window == w && g.w == want.w && g.h == want.h &&
					(any_place || (g.x == want.x && g.y == want.y))) {
				if (last != NULL) {
					*last = g;
				}
				done = true;
			}
		}
		free(ev);
		if (done) {
			return true;
		}
	}
	return false;
}

static void configure(xcb_window_t w, uint16_t mask, struct geometry g)
{
	uint32_t values[4];
	unsigned n = 0;
	if (mask & XCB_CONFIG_WINDOW_X) {
		values[n++] = (uint32_t)g.x;
	}
	if (mask & XCB_CONFIG_WINDOW_Y) {
		values[n++] = (uint32_t)g.y;
	}
	if (mask & XCB_CONFIG_WINDOW_WIDTH) {
		values[n++] = (uint32_t)g.w;
	}
	if (mask & XCB_CONFIG_WINDOW_HEIGHT) {
		values[n++] = (uint32_t)g.h;
	}
	xcb_configure_window(conn, w, mask, values);
}

static struct geometry moved_old_size;
static bool split;

/* A ConfigureNotify of the tried window: the held move applied on its own. */
static void seen_on_tried(struct geometry g)
{
	if (g.x == moved_old_size.x && g.y == moved_old_size.y && g.w == moved_old_size.w &&
			g.h == moved_old_size.h) {
		split = true;
	}
}

/* docs/x11.md "Paced per window": a ConfigureRequest that asks only some
 * fields, arriving while an earlier one is held, keeps the held values of
 * the others (session 34). */
static int case_configure_held(unsigned tries)
{
	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	printf("mapped %u\n", w);
	fflush(stdout);
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	while (!go && !stopping) {
		sigsuspend(&old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	drain_events();
	const uint16_t place = XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y;
	const uint16_t size = XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT;
	for (unsigned t = 0; t < tries && !stopping; t++) {
		struct geometry first = { 100, 100, 210 + (int)(t % 50) * 2, 160 };
		struct geometry moved = { 300 + (int)(t % 50), 200, 0, 0 };
		struct geometry sized = { 0, 0, 260 + (int)(t % 50) * 2, 190 };
		configure(w, place | size, first);
		if (!wait_configured(w, first, false, XCB_NONE, NULL, NULL)) {
			fprintf(stderr, "smt-x11-wm-hostile: the first geometry never came\n");
			return 1;
		}
		moved_old_size = (struct geometry){ moved.x, moved.y, first.w, first.h };
		split = false;
		configure(w, place, moved);
		/* A new window's first ConfigureRequest is applied at once: once
		 * it is, the window manager has read the move before it. */
		xcb_window_t probe = xcb_generate_id(conn);
		uint32_t mask_values[] = { XCB_EVENT_MASK_STRUCTURE_NOTIFY };
		xcb_create_window(conn, XCB_COPY_FROM_PARENT, probe, screen->root, 0, 0, 20, 20, 0,
				XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual,
				XCB_CW_EVENT_MASK, mask_values);
		struct geometry probe_size = { 0, 0, 40 + (int)t, 30 };
		configure(probe, size, probe_size);
		bool probed = wait_configured(probe, probe_size, true, w, seen_on_tried, NULL);
		configure(w, size, sized);
		struct geometry got = { 0 };
		bool sized_ok = wait_configured(w, sized, true, w, seen_on_tried, &got);
		xcb_destroy_window(conn, probe);
		if (!probed || !sized_ok) {
			fprintf(stderr, "smt-x11-wm-hostile: try %u: no ConfigureNotify (%s)\n", t,
					probed ? "size" : "probe");
			return 1;
		}
		if (split) {
			printf("not merged try %u\n", t);
			fflush(stdout);
			continue;
		}
		printf("merged try %u at %d %d %d %d want %d %d %d %d\n", t, got.x, got.y, got.w,
				got.h, moved.x, moved.y, sized.w, sized.h);
		fflush(stdout);
		break;
	}
	round_trip();
	printf("done %u\n", w);
	fflush(stdout);
	while (!stopping && !xcb_connection_has_error(conn)) {
		drain_events();
		usleep(100000);
	}
	return 0;
}

static int case_selection_hold(unsigned n, bool primary, unsigned spare)
{
	printf("base 0x%x\n", xcb_get_setup(conn)->resource_id_base);
	fflush(stdout);
	xcb_window_t w = make_window(false, 100, 100);
	map_and_wait(w);
	wait_focus(w);
	xcb_atom_t selection = primary ? XCB_ATOM_PRIMARY : atom("CLIPBOARD");
	xcb_atom_t target = atom("UTF8_STRING");
	xcb_atom_t property = atom("SMT_SELECTION_HOLD");
	/* Windows that ask for nothing, made first: they take the ids an
	 * earlier client with the same client bits gave its requestors. */
	for (unsigned i = 0; i < spare; i++) {
		xcb_create_window(conn, XCB_COPY_FROM_PARENT, xcb_generate_id(conn), w, 0, 0, 1, 1,
				0, XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, 0, NULL);
	}
	for (unsigned i = 0; i < n; i++) {
		xcb_window_t r = xcb_generate_id(conn);
		xcb_create_window(conn, XCB_COPY_FROM_PARENT, r, w, 0, 0, 1, 1, 0,
				XCB_WINDOW_CLASS_INPUT_ONLY, XCB_COPY_FROM_PARENT, 0, NULL);
		xcb_convert_selection(conn, r, selection, target, property, XCB_CURRENT_TIME);
		if (i % 64 == 63) {
			round_trip();
		}
	}
	round_trip();
	unsigned notified = 0, refused = 0, said = ~0u;
	while (!stopping && !xcb_connection_has_error(conn)) {
		xcb_generic_event_t *ev;
		while ((ev = xcb_poll_for_event(conn)) != NULL) {
			if ((ev->response_type & 0x7f) == XCB_SELECTION_NOTIFY) {
				notified++;
				refused += ((xcb_selection_notify_event_t *)ev)->property ==
						XCB_ATOM_NONE;
			}
			free(ev);
		}
		if (notified != said) {
			said = notified;
			printf("asked %u notified %u refused %u\n", n, notified, refused);
			fflush(stdout);
		}
		usleep(10000);
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
			"usage: smt-x11-wm-hostile steal-focus [TITLE] | targets N SECONDS [--primary]\n"
			"  [--name-bytes B] [--once] [--silent | --incr K] |\n"
			"  long-names TITLE_BYTES CLASS_BYTES |\n"
			"  state-loop|iconify-loop|configure-loop|title-delete-loop|message-loop|\n"
			"  protocols-loop|state-unknown-loop|startup-loop SECONDS |\n"
			"  window-churn SECONDS [--or] [--count N] | windows-hold N [--map] [--or] |\n"
			"  windows-burst N | configure-held TRIES |\n"
			"  selection-hold N [--primary] [--spare K] | forge-surface-id ID |\n"
			"  forge-end WINDOW | remap-or SECONDS [--windows K] [--pause-us U] |\n"
			"  pixmap-churn COUNT | resize-or K ROUNDS\n");
	return 2;
}

static bool has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], flag) == 0) {
			return true;
		}
	}
	return false;
}

static unsigned flag_value(int argc, char **argv, const char *flag)
{
	for (int i = 2; i + 1 < argc; i++) {
		if (strcmp(argv[i], flag) == 0) {
			return (unsigned)strtoul(argv[i + 1], NULL, 10);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		return usage();
	}
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct sigaction su = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &su, NULL);
	int screen_no = 0;
	conn = xcb_connect(NULL, &screen_no);
	if (xcb_connection_has_error(conn)) {
		fprintf(stderr, "smt-x11-wm-hostile: cannot connect to the X display\n");
		return 1;
	}
	xcb_screen_iterator_t it = xcb_setup_roots_iterator(xcb_get_setup(conn));
	for (int i = 0; i < screen_no; i++) {
		xcb_screen_next(&it);
	}
	screen = it.data;

	const char *name = argv[1];
	int rc;
	if (strcmp(name, "steal-focus") == 0) {
		if (argc >= 3) {
			window_title = argv[2];
		}
		rc = case_steal_focus();
	} else if (strcmp(name, "targets") == 0 && argc >= 4) {
		rc = case_targets((unsigned)strtoul(argv[2], NULL, 10), atof(argv[3]),
				has_flag(argc, argv, "--primary"),
				flag_value(argc, argv, "--name-bytes"),
				has_flag(argc, argv, "--once"), has_flag(argc, argv, "--silent"),
				has_flag(argc, argv, "--incr") ?
						(int)flag_value(argc, argv, "--incr") :
						-1);
	} else if ((strcmp(name, "state-loop") == 0 || strcmp(name, "iconify-loop") == 0 ||
				   strcmp(name, "configure-loop") == 0 ||
				   strcmp(name, "title-delete-loop") == 0 ||
				   strcmp(name, "message-loop") == 0 ||
				   strcmp(name, "protocols-loop") == 0 ||
				   strcmp(name, "state-unknown-loop") == 0 ||
				   strcmp(name, "startup-loop") == 0) &&
			argc >= 3) {
		rc = case_loop(name, atof(argv[2]));
	} else if (strcmp(name, "long-names") == 0 && argc >= 4) {
		rc = case_long_names((unsigned)strtoul(argv[2], NULL, 10),
				(unsigned)strtoul(argv[3], NULL, 10));
	} else if (strcmp(name, "window-churn") == 0 && argc >= 3) {
		rc = case_window_churn(atof(argv[2]), has_flag(argc, argv, "--or"),
				flag_value(argc, argv, "--count"));
	} else if (strcmp(name, "forge-surface-id") == 0 && argc >= 3) {
		rc = case_forge_surface_id((uint32_t)strtoul(argv[2], NULL, 10));
	} else if (strcmp(name, "forge-end") == 0 && argc >= 3) {
		rc = case_forge_end((xcb_window_t)strtoul(argv[2], NULL, 0));
	} else if (strcmp(name, "remap-or") == 0 && argc >= 3) {
		rc = case_remap_or(atof(argv[2]), flag_value(argc, argv, "--windows"),
				has_flag(argc, argv, "--pause-us") ?
						flag_value(argc, argv, "--pause-us") :
						1000);
	} else if (strcmp(name, "pixmap-churn") == 0 && argc >= 3) {
		rc = case_pixmap_churn(strtoul(argv[2], NULL, 10));
	} else if (strcmp(name, "resize-or") == 0 && argc >= 4) {
		rc = case_resize_or(
				(unsigned)strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
	} else if (strcmp(name, "windows-hold") == 0 && argc >= 3) {
		rc = case_windows_hold((unsigned)strtoul(argv[2], NULL, 10),
				has_flag(argc, argv, "--map"), has_flag(argc, argv, "--or"));
	} else if (strcmp(name, "configure-held") == 0 && argc >= 3) {
		rc = case_configure_held((unsigned)strtoul(argv[2], NULL, 10));
	} else if (strcmp(name, "windows-burst") == 0 && argc >= 3) {
		rc = case_windows_burst((unsigned)strtoul(argv[2], NULL, 10));
	} else if (strcmp(name, "selection-hold") == 0 && argc >= 3) {
		rc = case_selection_hold((unsigned)strtoul(argv[2], NULL, 10),
				has_flag(argc, argv, "--primary"),
				flag_value(argc, argv, "--spare"));
	} else {
		rc = usage();
	}
	xcb_disconnect(conn);
	return rc;
}
