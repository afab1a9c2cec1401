/*
 * A paste from an X program into a Wayland client, held back while the
 * client's pipe is full (docs/x11.md "The clipboard between X and
 * Wayland").
 *
 * wlroots 0.15 (xwayland/selection/incoming.c) asks the X owner for the
 * selection on a window of its own, one per paste, and writes what it
 * gets to the pipe the Wayland client gave it, made non-blocking: a small
 * selection when the SelectionNotify comes, each chunk of a large one
 * (ICCCM INCR) when a PropertyNotify says the owner has put it on that
 * window. A partial write it finishes later from the event loop; but a
 * write that finds the pipe full (-1, EAGAIN) it takes for an error: it
 * ends the transfer and closes the pipe, and the client has pasted a
 * prefix of the selection, and the owner is left waiting in the middle of
 * its INCR transfer. The pipe is full at the start of a chunk whenever the
 * client has not yet read what the last chunk filled it with: a reader
 * slower than the X round trip (a loaded machine, a program that inserts
 * as it reads) loses the rest of the paste.
 *
 * So the event that makes wlroots write (the PropertyNotify of a new
 * chunk, or the SelectionNotify of a small selection) is given to it only
 * once its pipe can take a byte: while the pipe is full, it is kept here
 * and the pipe watched; every other event of the window manager goes on
 * meanwhile (nothing else concerns that window: the owner waits for the
 * deletion that follows the chunk). A pipe whose reader has gone is
 * "ready" too: wlroots meets the error and ends the transfer, as before.
 *
 * Which pipe belongs to which window: wlroots' data sources for X
 * selections call xcb_convert_selection (requestor = the window made for
 * this paste) inside their send, which is given the pipe; both calls
 * cross a library boundary, so the compositor's definitions of
 * wlr_data_source_send, wlr_primary_selection_source_send and
 * xcb_convert_selection see them (wm_event_pacer.c does the same with
 * xcb_poll_for_event). The transfer ends when wlroots destroys its window
 * (xcb_destroy_window, also defined here), right after closing the pipe;
 * a descriptor number is also checked to still be the pipe it was
 * (device and inode) before it is looked at.
 *
 * When wlroots gives an INCR transfer up half-way (its write met EPIPE: the
 * client closed its pipe), it destroys the window while the owner waits
 * for the deletion of the chunk it put there; xclip then answers no other
 * paste. So the window of a transfer that has had chunks is kept: its
 * chunks are taken here (GetProperty with delete, the reply dropped) until
 * the owner puts the empty last one, and then destroyed. After a transfer
 * that ended well, that costs one GetProperty of the empty property.
 *
 * When the owner goes in the middle of a paste (its window destroyed, its
 * client gone: XFixes tells wlroots, and so this module, as the selection's
 * owner change), wlroots keeps waiting for the answer or the next chunk,
 * and the Wayland client with it, for good (red team, session 29: the
 * reader of a paste from a killed xclip never saw the end of its pipe). So
 * each paste remembers which owner of its selection it asked (a count of
 * the selection's owner changes), and when that owner goes, wlroots is
 * given the end it waits for: a SelectionNotify with no property (the
 * owner refused) before the answer, or after it a NewValue of the paste's
 * property, whose GetProperty finds nothing (the INCR transfer's empty
 * last chunk). While wlroots still writes a chunk it ignores a NewValue
 * (its "X11 client offered a new property before we deleted"), so the end
 * is given again once it deletes the chunk (xcb_delete_property, also
 * defined here). The client has pasted what came before.
 *
 * Each paste is charged to the X client that owns the selection it asks
 * (its owner window's client bits, from XFixes, as wm_window_budget.c
 * tells clients apart): an owner that never answers, or never finishes
 * its INCR transfers while the readers wait, holds a slot per paste, and
 * one such owner took all 64 from every other (session 29's audit). Past
 * `x11-client-pastes` pastes of one owner under way, a new one is refused
 * before the owner is asked: wlroots is given the owner's refusal
 * (SelectionNotify, property None), the reader an empty paste, the log a
 * line naming the limit. A paste being drained (wlroots has given it up)
 * is not counted: its slot goes to the next paste that needs one.
 *
 * A Wayland client that stops reading its paste in the middle of an INCR
 * transfer keeps the owner waiting for the deletion of a chunk that is
 * never written whole, and an owner that serves one transfer at a time
 * (xclip) answers no other paste meanwhile (red team, session 29: every
 * later paste waited for good). So a paste whose pipe has taken nothing
 * for PASTE_STALL_MS while an INCR transfer is under way is abandoned:
 * wlroots is given the owner's refusal (SelectionNotify, property None),
 * on which it ends the transfer whatever it was doing (waiting for room to
 * write the rest of a chunk, or for a chunk held here), closes the pipe and
 * destroys its window; the owner's chunks are then taken here to its end
 * (draining, above), and the reader keeps what it was sent. (Growing the
 * pipe, F_SETPIPE_SZ, lets wlroots finish the chunk, but the next one then
 * finds room for a few bytes and waits again.)
 *
 * An owner that answers with INCR and then sends no chunk (or stops after
 * some) kept its paste's slot and the reader waiting for good, bounded
 * only by `x11-client-pastes` (session 30). wlroots waits for the owner's
 * next chunk from its reading of the answer (GetProperty with delete,
 * whose reply has the type INCR: seen through wm_property_fetch.c's
 * definitions of xcb_get_property and its reply) and from each deletion of
 * a chunk it has written (xcb_delete_property, below) until the next
 * chunk's PropertyNotify comes. A paste whose owner has let wlroots wait so
 * for PASTE_STALL_MS is ended as a stalled reader's is: the reader keeps
 * what came, and the owner's later chunks are taken here.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_paste_pipe.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_primary_selection.h>
#include <wlr/util/log.h>
#include <xcb/xcbext.h>
#include <xcb/xfixes.h>

#include "common/dlsym_next.h"
#include "common/monotonic_clock.h"
#include "compositor/config/config.h"
#include "compositor/log_limit.h"
#include "xwayland-glue/wm/wm_selection_budget.h"

#define PASTE_LOG_INTERVAL_NS 1000000000u
/* How long a paste's pipe may take nothing while its owner waits (X
 * toolkits give an INCR requestor 5-30 s), and how often it is looked at. */
#define PASTE_STALL_MS 5000u
#define PASTE_STALL_CHECK_MS 1000
/* Times an owner that has not answered is asked again. */
#define PASTE_ASK_AGAIN 5u

struct paste_pipe {
	xcb_connection_t *conn; /* NULL: a free slot */
	xcb_window_t window;    /* wlroots' requestor window for this paste */
	xcb_atom_t property;    /* where the owner puts the selection */
	int fd;                 /* wlroots' descriptor of the client's pipe */
	dev_t dev;              /* what it was when the paste began */
	ino_t ino;
	xcb_generic_event_t *held; /* would make wlroots write; waits for room */
	struct wl_event_source *watch;
	bool ready;            /* held may go */
	unsigned chunks;       /* chunks wlroots was given: an INCR transfer is under way */
	bool draining;         /* wlroots has given it up: the owner's chunks are taken here */
	bool asking;           /* a GetProperty of ours waits for its reply */
	unsigned asked;        /* its sequence number */
	xcb_atom_t selection;  /* CLIPBOARD or PRIMARY */
	uint32_t owner;        /* the selection's owner change it was asked after */
	uint32_t owner_client; /* its client bits; 0: not known (not charged) */
	bool refused;          /* past its owner's budget: only its refusal is to go */
	bool answered;         /* the owner's SelectionNotify went to wlroots */
	bool owner_gone;       /* that owner's window or client went */
	bool end_due;          /* wlroots is to be given the paste's end */
	xcb_atom_t target;     /* what was asked, to ask again */
	uint64_t asked_ns;     /* when the owner was asked (again) */
	unsigned asked_again;
	uint64_t full_since_ns; /* its pipe had no room at every look since; 0: it had */
	bool abandoned;         /* its reader (or INCR owner) stalled: to be ended */
	bool answer_reading;    /* wlroots reads the owner's answer (GetProperty) */
	unsigned answer_read;   /* that request's sequence number */
	bool incr;              /* the answer was INCR: chunks are to come */
	uint64_t chunk_wait_ns; /* wlroots waits for the owner's next chunk since; 0: not */
};

/* Owner changes seen per selection (XFixes SelectionNotify): which owner a
 * paste asked is the count when it began. */
#define SELECTIONS_TRACKED 4

static xcb_void_cookie_t (*real_destroy_window)(xcb_connection_t *, xcb_window_t);
static xcb_void_cookie_t (*real_convert_selection)(xcb_connection_t *, xcb_window_t, xcb_atom_t,
		xcb_atom_t, xcb_atom_t, xcb_timestamp_t);

static struct {
	struct wl_event_loop *loop;
	struct wl_event_source *log_timer; /* says what the interval held back */
	void (*wake)(void);
	struct paste_pipe pipes[WM_PASTE_PIPES_MAX];
	int sending_fd; /* inside a data source's send: its pipe; else -1 */
	struct {
		xcb_atom_t selection;
		uint32_t changes;
		xcb_window_t owner; /* the last owner XFixes named; None: none */
	} owners[SELECTIONS_TRACKED];
	const struct smtwc_limits_config *limits;
	struct log_limit refusal_log, stall_log;
	struct wl_event_source *stall_timer; /* looks at pastes under way */
	bool stall_armed;
	/* The INCR atom of a connection: asked at its first paste, read at
	 * the first answer (its reply came before that answer's). */
	xcb_connection_t *incr_conn;
	xcb_atom_t incr_atom;
	bool incr_asking;
	unsigned incr_asked;
	uint64_t followed, refused, abandoned, owner_stalled, asked_again, unanswered;
	uint64_t held, unguarded, drained, orphaned;
	uint64_t logged_held, logged_unguarded, logged_drained, logged_orphaned, last_log_ns;
} paste = { .sending_fd = -1 };

static void arm_stall_check(void)
{
	if (!paste.stall_armed && paste.stall_timer != NULL) {
		paste.stall_armed = true;
		wl_event_source_timer_update(paste.stall_timer, PASTE_STALL_CHECK_MS);
	}
}

static void forget(struct paste_pipe *p)
{
	if (p->watch != NULL) {
		wl_event_source_remove(p->watch);
	}
	free(p->held);
	memset(p, 0, sizeof(*p));
}

static unsigned waiting(void)
{
	unsigned n = 0;
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		n += paste.pipes[i].held != NULL;
	}
	return n;
}

/* Something new to say, at most once a second (the first at once, the
 * rest when the second is over): a client that never reads costs a line
 * a second, not a line a chunk. */
static void maybe_log(void)
{
	if (paste.held == paste.logged_held && paste.unguarded == paste.logged_unguarded &&
			paste.drained == paste.logged_drained &&
			paste.orphaned == paste.logged_orphaned) {
		return;
	}
	uint64_t now = monotonic_now_ns();
	if (paste.last_log_ns != 0 && now - paste.last_log_ns < PASTE_LOG_INTERVAL_NS) {
		if (paste.log_timer != NULL) {
			uint64_t left = PASTE_LOG_INTERVAL_NS - (now - paste.last_log_ns);
			wl_event_source_timer_update(paste.log_timer, (int)(left / 1000000u) + 1);
		}
		return;
	}
	paste.last_log_ns = now;
	paste.logged_held = paste.held;
	paste.logged_unguarded = paste.unguarded;
	paste.logged_drained = paste.drained;
	paste.logged_orphaned = paste.orphaned;
	wlr_log(WLR_INFO,
			"X paste to Wayland: %llu X events held until the client's pipe had "
			"room, %u waiting now, %llu pastes unguarded (more than %d at once), "
			"%llu INCR transfers taken to their end after wlroots, %llu pastes "
			"ended because their owner went",
			(unsigned long long)paste.held, waiting(),
			(unsigned long long)paste.unguarded, WM_PASTE_PIPES_MAX,
			(unsigned long long)paste.drained, (unsigned long long)paste.orphaned);
}

static struct paste_pipe *find(xcb_connection_t *c, xcb_window_t window)
{
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		struct paste_pipe *p = &paste.pipes[i];
		if (p->conn != NULL && p->conn == c && p->window == window) {
			return p;
		}
	}
	return NULL;
}

/* The owner is done (or gone): the window wlroots meant to destroy goes. */
static void end_drain(struct paste_pipe *p)
{
	if (p->asking) {
		xcb_discard_reply(p->conn, p->asked);
	}
	real_destroy_window(p->conn, p->window);
	xcb_flush(p->conn);
	forget(p);
}

/* Take the chunk the owner has put on the window (GetProperty with
 * delete): the deletion tells the owner to put the next one. */
static void ask(struct paste_pipe *p)
{
	if (p->asking) {
		xcb_discard_reply(p->conn, p->asked); /* not come: a later chunk followed it */
	}
	p->asked = xcb_get_property(p->conn, 1, p->window, p->property, XCB_GET_PROPERTY_TYPE_ANY,
			0, 0x1fffffff)
				   .sequence;
	p->asking = true;
	xcb_flush(p->conn);
}

/* The reply to our last GetProperty, if it has come: an empty property (or
 * none) was the owner's last. */
static void check_drained(struct paste_pipe *p)
{
	void *reply = NULL;
	xcb_generic_error_t *error = NULL;
	if (!p->asking || !xcb_poll_for_reply(p->conn, p->asked, &reply, &error)) {
		return;
	}
	p->asking = false;
	xcb_get_property_reply_t *r = reply;
	bool last = r == NULL || r->type == XCB_ATOM_NONE || xcb_get_property_value_length(r) == 0;
	free(reply);
	free(error);
	if (last) {
		paste.drained++;
		end_drain(p);
		maybe_log();
	}
}

/* What is known of selection's owners (its slot made if need be; past
 * SELECTIONS_TRACKED selections, the last slot is shared: wlroots bridges
 * two). */
static unsigned owner_slot(xcb_atom_t selection)
{
	unsigned i = 0;
	while (i + 1 < SELECTIONS_TRACKED && paste.owners[i].selection != XCB_ATOM_NONE &&
			paste.owners[i].selection != selection) {
		i++;
	}
	paste.owners[i].selection = selection;
	return i;
}

/* The count of selection's owner changes seen so far. */
static uint32_t *owner_changes(xcb_atom_t selection)
{
	return &paste.owners[owner_slot(selection)].changes;
}

/* The client bits of selection's owner on c; 0: not known. */
static uint32_t owner_client(xcb_connection_t *c, xcb_atom_t selection)
{
	xcb_window_t owner = paste.owners[owner_slot(selection)].owner;
	const xcb_setup_t *setup = xcb_get_setup(c);
	if (owner == XCB_WINDOW_NONE || setup == NULL || setup->resource_id_mask == 0) {
		return 0;
	}
	return owner & ~setup->resource_id_mask;
}

/* Pastes of client's selections on c that hold a slot (not given up by
 * wlroots, not refused). */
static unsigned pastes_of(xcb_connection_t *c, uint32_t client)
{
	unsigned n = 0;
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		const struct paste_pipe *p = &paste.pipes[i];
		n += p->conn == c && p->owner_client == client && !p->draining && !p->refused;
	}
	return n;
}

/* p, a paste of client's, is past its budget: only its refusal goes to
 * wlroots (take_ready), and the owner is not asked. */
static void refuse(struct paste_pipe *p, uint32_t client, unsigned under_way)
{
	p->refused = true;
	p->end_due = true;
	paste.refused++;
	uint64_t left_out;
	if (log_limit_allow(&paste.refusal_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"X client 0x%x owns a selection with %u pastes into Wayland "
				"clients under way: limit x11-client-pastes=%d reached; a new "
				"paste is answered refused, the owner not asked (%llu refused in "
				"all, %llu such lines not logged before)",
				(unsigned)client, under_way, paste.limits->x11_client_pastes,
				(unsigned long long)paste.refused, (unsigned long long)left_out);
	}
	if (paste.wake != NULL) {
		paste.wake();
	}
}

/* wlroots begins a paste: window will receive the selection for fd.
 * True: the paste is refused (its owner is not to be asked). */
static bool follow(xcb_connection_t *c, xcb_window_t window, xcb_atom_t selection,
		xcb_atom_t target, xcb_atom_t property, int fd)
{
	struct paste_pipe *p = find(c, window);
	if (p != NULL) {
		forget(p); /* an id wlroots has reused: the old paste is over */
	}
	struct stat st;
	if (paste.loop == NULL || fstat(fd, &st) != 0) {
		return false;
	}
	for (unsigned i = 0; p == NULL && i < WM_PASTE_PIPES_MAX; i++) {
		if (paste.pipes[i].conn == NULL) {
			p = &paste.pipes[i];
		}
	}
	for (unsigned i = 0; p == NULL && i < WM_PASTE_PIPES_MAX; i++) {
		if (paste.pipes[i].draining) {
			p = &paste.pipes[i]; /* its owner has stopped: a paste now comes first */
			end_drain(p);
		}
	}
	if (p == NULL) {
		paste.unguarded++;
		maybe_log();
		return false;
	}
	uint32_t client = owner_client(c, selection);
	unsigned under_way = client != 0 ? pastes_of(c, client) : 0;
	*p = (struct paste_pipe){
		.conn = c,
		.window = window,
		.property = property,
		.fd = fd,
		.dev = st.st_dev,
		.ino = st.st_ino,
		.selection = selection,
		.owner = *owner_changes(selection),
		.owner_client = client,
		.target = target,
		.asked_ns = monotonic_now_ns(),
	};
	arm_stall_check();
	if (paste.incr_conn != c) {
		if (paste.incr_asking) {
			xcb_discard_reply(paste.incr_conn, paste.incr_asked);
		}
		paste.incr_conn = c;
		paste.incr_atom = XCB_ATOM_NONE;
		paste.incr_asked = xcb_intern_atom(c, 0, 4, "INCR").sequence;
		paste.incr_asking = true;
	}
	if (paste.limits != NULL && client != 0 &&
			under_way >= (unsigned)paste.limits->x11_client_pastes) {
		refuse(p, client, under_way);
		return true;
	}
	paste.followed++;
	return false;
}

/* c's INCR atom (None until known). Asked at c's first paste, before
 * wlroots converted the selection: its reply came before the owner's
 * answer, hence before any reply to wlroots' reading of it. */
static xcb_atom_t incr_atom(xcb_connection_t *c)
{
	if (paste.incr_conn == c && paste.incr_asking) {
		paste.incr_asking = false;
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(
				c, (xcb_intern_atom_cookie_t){ paste.incr_asked }, NULL);
		paste.incr_atom = r != NULL ? r->atom : XCB_ATOM_NONE;
		free(r);
	}
	return paste.incr_conn == c ? paste.incr_atom : XCB_ATOM_NONE;
}

void wm_paste_pipe_property_asked(xcb_connection_t *c, uint8_t delete_, xcb_window_t window,
		xcb_atom_t property, xcb_get_property_cookie_t cookie)
{
	struct paste_pipe *p = c != NULL && delete_ ? find(c, window) : NULL;
	if (p != NULL && !p->draining && !p->incr && property == p->property) {
		p->answer_reading = true;
		p->answer_read = cookie.sequence;
	}
}

void wm_paste_pipe_property_reply(xcb_connection_t *c, xcb_get_property_cookie_t cookie,
		const xcb_get_property_reply_t *reply)
{
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		struct paste_pipe *p = &paste.pipes[i];
		if (p->conn != c || !p->answer_reading || p->answer_read != cookie.sequence) {
			continue;
		}
		p->answer_reading = false;
		if (reply != NULL && reply->type != XCB_ATOM_NONE && reply->type == incr_atom(c)) {
			p->incr = true; /* wlroots now waits for the first chunk */
			p->chunk_wait_ns = monotonic_now_ns();
			arm_stall_check();
		}
		return;
	}
}

void wlr_data_source_send(struct wlr_data_source *source, const char *mime_type, int32_t fd)
{
	static void (*real)(struct wlr_data_source *, const char *, int32_t);
	if (real == NULL) {
		dlsym_next(&real, "wlr_data_source_send");
	}
	wm_selection_budget_sending(fd);
	int outer = paste.sending_fd;
	paste.sending_fd = fd;
	real(source, mime_type, fd);
	paste.sending_fd = outer;
}

void wlr_primary_selection_source_send(
		struct wlr_primary_selection_source *source, const char *mime_type, int fd)
{
	static void (*real)(struct wlr_primary_selection_source *, const char *, int);
	if (real == NULL) {
		dlsym_next(&real, "wlr_primary_selection_source_send");
	}
	wm_selection_budget_sending(fd);
	int outer = paste.sending_fd;
	paste.sending_fd = fd;
	real(source, mime_type, fd);
	paste.sending_fd = outer;
}

xcb_void_cookie_t xcb_convert_selection(xcb_connection_t *c, xcb_window_t requestor,
		xcb_atom_t selection, xcb_atom_t target, xcb_atom_t property, xcb_timestamp_t time)
{
	if (real_convert_selection == NULL) {
		dlsym_next(&real_convert_selection, "xcb_convert_selection");
	}
	/* Only a paste into a Wayland client converts inside a send: the
	 * other way, wlroots reads a Wayland client's pipe and converts
	 * nothing. */
	if (paste.sending_fd >= 0 && c != NULL &&
			follow(c, requestor, selection, target, property, paste.sending_fd)) {
		return (xcb_void_cookie_t){ 0 }; /* refused: the owner is not asked */
	}
	return real_convert_selection(c, requestor, selection, target, property, time);
}

xcb_void_cookie_t xcb_destroy_window(xcb_connection_t *c, xcb_window_t window)
{
	if (real_destroy_window == NULL) {
		dlsym_next(&real_destroy_window, "xcb_destroy_window");
	}
	struct paste_pipe *p = c != NULL ? find(c, window) : NULL;
	if (p != NULL && p->chunks > 0 && !p->draining) {
		/* wlroots ends an INCR paste: after its last chunk, or half-way
		 * because its reader went (EPIPE), and then the owner waits for a
		 * deletion that would never come (xclip serves nobody else
		 * meanwhile). The window stays until the owner has put its
		 * empty last chunk; ours to take and to destroy then. */
		if (p->watch != NULL) {
			wl_event_source_remove(p->watch);
			p->watch = NULL;
		}
		free(p->held);
		p->held = NULL;
		p->ready = false;
		p->end_due = false; /* wlroots has no transfer left to end */
		p->draining = true;
		ask(p);
		return (xcb_void_cookie_t){ 0 };
	}
	if (p != NULL) {
		forget(p);
	}
	return real_destroy_window(c, window);
}

xcb_void_cookie_t xcb_delete_property(xcb_connection_t *c, xcb_window_t window, xcb_atom_t property)
{
	static xcb_void_cookie_t (*real)(xcb_connection_t *, xcb_window_t, xcb_atom_t);
	if (real == NULL) {
		dlsym_next(&real, "xcb_delete_property");
	}
	xcb_void_cookie_t cookie = real(c, window, property);
	/* wlroots has written a chunk and asks for the next: from an owner
	 * that has gone, none comes. */
	struct paste_pipe *p = c != NULL ? find(c, window) : NULL;
	if (p != NULL && p->incr && !p->draining && property == p->property) {
		p->chunk_wait_ns = monotonic_now_ns();
	}
	if (p != NULL && p->owner_gone && !p->draining && property == p->property) {
		p->end_due = true;
		if (paste.wake != NULL) {
			paste.wake();
		}
	}
	return cookie;
}

/* The owner whose pastes p asked for has gone: its transfer ends. */
static void orphan(struct paste_pipe *p)
{
	if (p->owner_gone) {
		return;
	}
	p->owner_gone = true;
	paste.orphaned++;
	if (p->draining) {
		end_drain(p); /* no chunk will come to take */
	} else if (p->held == NULL) {
		p->end_due = true; /* a held chunk is the owner's last: it goes first */
	}
	maybe_log();
	if (paste.wake != NULL) {
		paste.wake();
	}
}

/* An XFixes SelectionNotify (wlroots selects them for the selections it
 * bridges): the selection's owner changed; if its window or client went,
 * the pastes it was asked for end. */
static void note_owner_change(xcb_connection_t *c, const xcb_generic_event_t *ev)
{
	const xcb_query_extension_reply_t *xfixes = xcb_get_extension_data(c, &xcb_xfixes_id);
	if (xfixes == NULL || !xfixes->present ||
			(ev->response_type & 0x7f) !=
					xfixes->first_event + XCB_XFIXES_SELECTION_NOTIFY) {
		return;
	}
	const xcb_xfixes_selection_notify_event_t *sn =
			(const xcb_xfixes_selection_notify_event_t *)ev;
	uint32_t *changes = owner_changes(sn->selection);
	paste.owners[owner_slot(sn->selection)].owner = sn->owner;
	if (sn->subtype == XCB_XFIXES_SELECTION_EVENT_SELECTION_WINDOW_DESTROY ||
			sn->subtype == XCB_XFIXES_SELECTION_EVENT_SELECTION_CLIENT_CLOSE) {
		for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
			struct paste_pipe *p = &paste.pipes[i];
			if (p->conn == c && p->selection == sn->selection && p->owner == *changes &&
					!p->refused) {
				orphan(p);
			}
		}
	}
	(*changes)++;
}

/* What wlroots waits for from an owner that has gone: before the answer,
 * the owner's refusal; after it, a NewValue whose GetProperty finds the
 * property gone (the empty last chunk). */
static xcb_generic_event_t *end_event(struct paste_pipe *p)
{
	xcb_generic_event_t *ev = calloc(1, sizeof(*ev));
	if (ev == NULL) {
		return NULL;
	}
	if (!p->answered || p->abandoned) {
		xcb_selection_notify_event_t *sn = (xcb_selection_notify_event_t *)ev;
		sn->response_type = XCB_SELECTION_NOTIFY;
		sn->requestor = p->window;
		sn->selection = p->selection;
		sn->property = XCB_ATOM_NONE;
	} else {
		xcb_property_notify_event_t *pn = (xcb_property_notify_event_t *)ev;
		pn->response_type = XCB_PROPERTY_NOTIFY;
		pn->window = p->window;
		pn->atom = p->property;
		pn->state = XCB_PROPERTY_NEW_VALUE;
	}
	return ev;
}

/* The paste an event would make wlroots write for, if any. */
static struct paste_pipe *paste_of(xcb_connection_t *c, const xcb_generic_event_t *ev)
{
	struct paste_pipe *p = NULL;
	switch (ev->response_type & 0x7f) {
	case XCB_PROPERTY_NOTIFY: {
		const xcb_property_notify_event_t *pn = (const xcb_property_notify_event_t *)ev;
		if (pn->state == XCB_PROPERTY_NEW_VALUE) {
			p = find(c, pn->window);
			if (p != NULL && p->property != pn->atom) {
				p = NULL;
			}
		}
		break;
	}
	case XCB_SELECTION_NOTIFY: {
		const xcb_selection_notify_event_t *sn = (const xcb_selection_notify_event_t *)ev;
		/* property None: the owner refused, wlroots ends the paste. */
		if (sn->property != XCB_ATOM_NONE) {
			p = find(c, sn->requestor);
		}
		break;
	}
	default:
		break;
	}
	return p;
}

/* Whether a write to p's pipe would get anywhere now: room for a byte, or
 * an error it should meet (no reader). A descriptor that is no longer the
 * pipe (closed, the number reused) ends the following. */
static bool has_room(struct paste_pipe *p)
{
	struct stat st;
	if (fstat(p->fd, &st) != 0 || st.st_dev != p->dev || st.st_ino != p->ino) {
		forget(p);
		return true;
	}
	struct pollfd pfd = { .fd = p->fd, .events = POLLOUT };
	return poll(&pfd, 1, 0) != 0;
}

static int handle_room(int fd, uint32_t mask, void *data)
{
	(void)fd;
	(void)mask;
	struct paste_pipe *p = data;
	wl_event_source_remove(p->watch);
	p->watch = NULL;
	p->ready = true;
	if (paste.wake != NULL) {
		paste.wake();
	}
	return 0;
}

static bool is_chunk(const xcb_generic_event_t *ev)
{
	return (ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY;
}

/* ev goes to wlroots for paste p. */
static void handed(struct paste_pipe *p, const xcb_generic_event_t *ev)
{
	if (is_chunk(ev)) {
		p->chunks++;
	} else {
		p->answered = true;
	}
}

/* p's reader has taken nothing for PASTE_STALL_MS while its owner waits
 * to send the rest (INCR), or (owner) its INCR owner has sent no chunk for
 * as long while wlroots waits for one: the transfer is to end (see the
 * top). */
static void abandon(struct paste_pipe *p, bool owner)
{
	p->abandoned = true;
	if (owner) {
		paste.owner_stalled++;
	} else {
		paste.abandoned++;
	}
	if (p->watch != NULL) {
		wl_event_source_remove(p->watch);
		p->watch = NULL;
	}
	free(p->held); /* a chunk waiting for room: taken with the rest */
	p->held = NULL;
	p->ready = false;
	p->end_due = true;
	if (paste.wake != NULL) {
		paste.wake();
	}
	uint64_t left_out;
	if (owner && log_limit_allow(&paste.stall_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"X paste to Wayland: X client 0x%x has sent no chunk of its INCR "
				"transfer for %u ms (%u came); the paste is ended (the reader keeps "
				"what came) (%llu so in all, %llu such lines not logged before)",
				(unsigned)p->owner_client, PASTE_STALL_MS, p->chunks,
				(unsigned long long)paste.owner_stalled,
				(unsigned long long)left_out);
	} else if (!owner && log_limit_allow(&paste.stall_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"X paste to Wayland: a Wayland client has read nothing of a paste for "
				"%u ms while X client 0x%x waits to send the rest; the paste is "
				"abandoned (the reader keeps what came) so that the owner can serve "
				"others (%llu abandoned in all, %llu such lines not logged before)",
				PASTE_STALL_MS, (unsigned)p->owner_client,
				(unsigned long long)paste.abandoned, (unsigned long long)left_out);
	}
}

/* A paste whose owner has not answered for PASTE_STALL_MS: asked again
 * (an owner busy with another requestor's INCR transfer may have dropped
 * the request: xclip does), up to PASTE_ASK_AGAIN times while it still
 * owns the selection; then given its refusal (the reader an empty paste). */
static void owner_silent(struct paste_pipe *p, uint64_t now)
{
	if (p->owner == *owner_changes(p->selection) && p->asked_again < PASTE_ASK_AGAIN &&
			real_convert_selection != NULL) {
		real_convert_selection(p->conn, p->window, p->selection, p->target, p->property,
				XCB_CURRENT_TIME);
		xcb_flush(p->conn);
		p->asked_again++;
		p->asked_ns = now;
		paste.asked_again++;
		return;
	}
	p->end_due = true;
	paste.unanswered++;
	if (paste.wake != NULL) {
		paste.wake();
	}
	uint64_t left_out;
	if (log_limit_allow(&paste.stall_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"X paste to Wayland: X client 0x%x has not answered a paste "
				"(asked %u times, %u ms apart)%s; the paste is ended, empty "
				"(%llu so in all, %llu such lines not logged before)",
				(unsigned)p->owner_client, p->asked_again + 1, PASTE_STALL_MS,
				p->owner == *owner_changes(p->selection) ?
						"" :
						" and no longer owns the selection",
				(unsigned long long)paste.unanswered, (unsigned long long)left_out);
	}
}

/* Every paste under way is looked at once a PASTE_STALL_CHECK_MS while any
 * is: one whose owner has not answered (owner_silent), one whose pipe had
 * no room at every look for PASTE_STALL_MS while an INCR transfer is under
 * way (abandon). */
static int handle_stall_check(void *data)
{
	(void)data;
	paste.stall_armed = false;
	uint64_t now = monotonic_now_ns();
	bool any = false;
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		struct paste_pipe *p = &paste.pipes[i];
		if (p->conn == NULL || p->draining || p->refused || p->abandoned || p->end_due) {
			continue;
		}
		any = true;
		if (!p->answered && p->chunks == 0) {
			if (p->held == NULL &&
					now - p->asked_ns >= (uint64_t)PASTE_STALL_MS * 1000000u) {
				owner_silent(p, now);
			}
			continue;
		}
		if (p->chunk_wait_ns != 0 &&
				now - p->chunk_wait_ns >= (uint64_t)PASTE_STALL_MS * 1000000u) {
			abandon(p, true);
			continue;
		}
		if (p->chunks == 0) {
			continue; /* the owner has given it all, or its first chunk is awaited */
		}
		if (has_room(p)) {
			p->full_since_ns = 0; /* (forgotten if it is no longer the pipe) */
		} else if (p->full_since_ns == 0) {
			p->full_since_ns = now;
		} else if (now - p->full_since_ns >= (uint64_t)PASTE_STALL_MS * 1000000u) {
			abandon(p, false);
		}
	}
	if (any) {
		arm_stall_check();
	}
	return 0;
}

bool wm_paste_pipe_hold(xcb_connection_t *c, xcb_generic_event_t *ev)
{
	if (paste.loop != NULL) {
		note_owner_change(c, ev);
	}
	struct paste_pipe *p = paste.loop != NULL ? paste_of(c, ev) : NULL;
	if (p == NULL) {
		return false;
	}
	if (is_chunk(ev)) {
		p->chunk_wait_ns = 0; /* the owner has put the next chunk */
	}
	if (p->draining) {
		/* wlroots has no paste on this window any more: the chunk is
		 * taken here, after the answer to the one before. */
		if (is_chunk(ev)) {
			check_drained(p);
			if (p->draining) {
				ask(p);
			}
		}
		free(ev);
		return true;
	}
	if (p->abandoned && is_chunk(ev)) {
		/* Its end goes to wlroots first; the chunk is then taken here
		 * with the rest (draining starts by asking for it). */
		free(ev);
		return true;
	}
	if (p->held != NULL || has_room(p)) {
		if (p->conn != NULL) {
			handed(p, ev);
		}
		return false;
	}
	/* libwayland watches its own duplicate of the descriptor: wlroots'
	 * watch of the same pipe, added once it has the event, is another. */
	p->watch = wl_event_loop_add_fd(paste.loop, p->fd, WL_EVENT_WRITABLE, handle_room, p);
	if (p->watch == NULL) {
		return false; /* as wlroots alone would do it */
	}
	p->held = ev;
	p->ready = false;
	paste.held++;
	maybe_log();
	return true;
}

xcb_generic_event_t *wm_paste_pipe_take_ready(void)
{
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		struct paste_pipe *p = &paste.pipes[i];
		if (p->draining) {
			check_drained(p);
		} else if (p->ready && p->held != NULL) {
			xcb_generic_event_t *ev = p->held;
			p->held = NULL;
			p->ready = false;
			handed(p, ev);
			return ev;
		} else if (p->end_due && p->held == NULL) {
			p->end_due = false;
			return end_event(p);
		}
	}
	return NULL;
}

bool wm_paste_pipe_has_ready(void)
{
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		const struct paste_pipe *p = &paste.pipes[i];
		if ((p->ready && p->held != NULL) ||
				(p->end_due && p->held == NULL && !p->draining)) {
			return true;
		}
	}
	return false;
}

void wm_paste_pipe_forget(xcb_connection_t *c)
{
	if (paste.incr_conn == c) {
		if (paste.incr_asking) {
			xcb_discard_reply(c, paste.incr_asked);
		}
		paste.incr_conn = NULL;
		paste.incr_asking = false;
	}
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		if (paste.pipes[i].conn != NULL && paste.pipes[i].conn == c) {
			forget(&paste.pipes[i]);
		}
	}
}

static int handle_log_timer(void *data)
{
	(void)data;
	maybe_log();
	return 0;
}

void wm_paste_pipe_stats(const struct smtwc_stats_out *out)
{
	out->begin_object(out->ctx, "x11_pastes");
	unsigned slots = 0, draining = 0;
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		slots += paste.pipes[i].conn != NULL;
		draining += paste.pipes[i].draining;
	}
	out->number(out->ctx, "slots_used", slots);
	out->number(out->ctx, "draining", draining);
	out->number(out->ctx, "slots_max", WM_PASTE_PIPES_MAX);
	out->number(out->ctx, "followed", paste.followed);
	out->number(out->ctx, "refused", paste.refused);
	out->number(out->ctx, "unguarded", paste.unguarded);
	out->number(out->ctx, "orphaned", paste.orphaned);
	out->number(out->ctx, "abandoned", paste.abandoned);
	out->number(out->ctx, "owner_stalled", paste.owner_stalled);
	out->number(out->ctx, "asked_again", paste.asked_again);
	out->number(out->ctx, "unanswered", paste.unanswered);
	if (paste.limits != NULL) {
		out->number(out->ctx, "client_pastes_max",
				(uint64_t)paste.limits->x11_client_pastes);
	}
	/* Each owner once, at its first slot (64 slots at most). */
	out->begin_list(out->ctx, "clients");
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		const struct paste_pipe *p = &paste.pipes[i];
		bool seen = p->conn == NULL || p->owner_client == 0 || p->draining || p->refused;
		for (unsigned j = 0; j < i && !seen; j++) {
			seen = paste.pipes[j].conn == p->conn &&
					paste.pipes[j].owner_client == p->owner_client &&
					!paste.pipes[j].draining && !paste.pipes[j].refused;
		}
		if (seen) {
			continue;
		}
		out->begin_item(out->ctx);
		out->number(out->ctx, "client", p->owner_client);
		out->number(out->ctx, "pastes", pastes_of(p->conn, p->owner_client));
		out->end_item(out->ctx);
	}
	out->end_list(out->ctx);
	out->end_object(out->ctx);
}

void wm_paste_pipe_init(struct wl_event_loop *loop, const struct smtwc_limits_config *limits,
		void (*wake)(void))
{
	paste.loop = loop;
	paste.limits = limits;
	paste.wake = wake;
	paste.log_timer = wl_event_loop_add_timer(loop, handle_log_timer, NULL);
	paste.stall_timer = wl_event_loop_add_timer(loop, handle_stall_check, NULL);
}

void wm_paste_pipe_finish(void)
{
	for (unsigned i = 0; i < WM_PASTE_PIPES_MAX; i++) {
		if (paste.pipes[i].conn != NULL) {
			forget(&paste.pipes[i]);
		}
	}
	if (paste.log_timer != NULL) {
		wl_event_source_remove(paste.log_timer);
	}
	if (paste.stall_timer != NULL) {
		wl_event_source_remove(paste.stall_timer);
	}
	memset(&paste, 0, sizeof(paste));
	paste.sending_fd = -1;
}
