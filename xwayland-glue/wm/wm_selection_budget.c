/*
 * Wayland selections sent to X clients, counted and bounded
 * (wm_selection_budget.h).
 *
 * A transfer is under way for as long as wlroots holds the read end of its
 * pipe: it closes it when the transfer ends (done, failed, replaced by a
 * newer request of the same requestor, the requestor window destroyed).
 * wlroots says nothing of it, so the read end is found and watched here:
 * the pacer hands wlroots a data request and notes whose it is; wlroots
 * then makes the pipe (pipe(2): the read end takes the lower free number,
 * the write end the next) and gives the write end to the Wayland source
 * through wlr_data_source_send or wlr_primary_selection_source_send, whose
 * compositor definitions call wm_selection_budget_sending first: the read
 * end is the descriptor below it on the same pipe (device and inode).
 * A record whose descriptor is no longer that pipe is no longer counted.
 * An INCR transfer whose source has finished writing closes its read end
 * but may keep its last chunk (64 KiB at most) until the requestor deletes
 * it: not counted, but the record stays (LINGERING_MAX of them at most)
 * until its requestor goes, or a newer transfer to the same window of the
 * same selection replaces it (wlroots then ends the old one).
 *
 * wlroots 0.15 ends a transfer whose requestor is destroyed only if that
 * window has a surface (a top-level one); a transfer to any other window
 * that has gone stayed in wlroots for good: the pipe's read end, up to
 * 64 KiB read from it, and the Wayland source's writer blocked on the
 * other end (session 29's audit). So when such a requestor goes
 * (end_for_gone_requestor), wlroots is driven to the end it would reach
 * with a requestor that takes everything: the read end it holds is
 * replaced (dup3) by a pipe whose writer is closed, which ends the
 * source's side (its writer gets EPIPE) and gives wlroots the end of the
 * data at its next read; and wlroots is given, one a second,
 * PropertyNotify (Delete) of the requestor's property, each of which
 * makes it put the next chunk (on a window that is gone: an X error,
 * logged through the log limit) and read on, until the end of the data
 * closes the read end, and then END_DELETES_AFTER_CLOSE more, which take
 * it from any state it can then wait in for the requestor to the
 * transfer's end. While wlroots still reads a source that writes on (it
 * reads the original pipe through libwayland's duplicate until it has a
 * chunk), at most END_DELETES_OPEN of them: a source that never stops
 * writing holds its transfer as it would with any requestor. Never for a
 * window id wlroots has since given a surface, nor while a newer transfer
 * to the same id is under way (wlroots would take the deletion for it).
 *
 * The X client is the requestor window's client bits (wm_window_budget.c
 * says why those name a connection); a transfer counts until its requestor
 * window is destroyed (note_destroyed). Requests for TARGETS, TIMESTAMP and
 * DELETE, and to the clipboard manager, make no pipe: not counted.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_selection_budget.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include <xcb/xcbext.h>

#include "compositor/config/config.h"
#include "compositor/log_limit.h"
#include "xwayland-glue/wm/wm_window_budget.h"

/* PropertyNotify (Delete) given to wlroots for a transfer whose requestor
 * has gone, one every END_DELETE_INTERVAL_MS (see the top). */
#define END_DELETES_AFTER_CLOSE 2u
#define END_DELETES_OPEN 30u
#define END_DELETE_INTERVAL_MS 1000
/* Records of transfers that closed their read end while their requestor
 * lives, kept for its going (see the top); past this many, one is
 * forgotten. */
#define LINGERING_MAX 64u

struct transfer {
	uint32_t client;   /* the requestor's resource base */
	bool abandoned;    /* its requestor window was destroyed: no longer counted */
	bool selecting;    /* our selection of its DestroyNotify waits for its answer */
	bool top_level;    /* wlroots has a surface for the requestor: it ends it itself */
	unsigned selected; /* that request's sequence number */
	xcb_window_t requestor;
	xcb_atom_t selection;
	xcb_atom_t property;   /* where wlroots puts the data */
	bool ending;           /* its requestor has gone: deletions are given to wlroots */
	unsigned deletes_due;  /* those still to give once wlroots has closed the read end */
	unsigned deletes_open; /* those given while it had not */
	bool delete_ready;     /* one of them may go now */
	int fd;                /* wlroots' read end (or the ended pipe put in its place) */
	dev_t dev;
	ino_t ino;
};

enum {
	ATOM_TARGETS,
	ATOM_TIMESTAMP,
	ATOM_DELETE,
	ATOM_CLIPBOARD_MANAGER,
	ATOM_COUNT
};

static struct {
	const struct smtwc_limits_config *limits;
	void (*wake)(void);
	xcb_connection_t *conn; /* whose atoms and XID mask these are */
	uint32_t own_base, mask;
	xcb_atom_t atoms[ATOM_COUNT];
	struct transfer *transfers;
	size_t count, cap;
	/* A data request handed to wlroots, its pipe not seen yet. */
	bool pending;
	uint32_t pending_client;
	xcb_window_t pending_requestor;
	xcb_atom_t pending_selection, pending_property;
	uint64_t started, refused, refused_client, refused_total, unseen;
	uint64_t ended_gone; /* transfers to gone requestors driven to their end */
	struct log_limit log;
	struct wl_event_loop *loop;
	struct wl_event_source *end_timer;
	bool end_armed;
} sel;

static void woken_after_round_trip(void);

static bool know_connection(xcb_connection_t *c)
{
	if (c == sel.conn) {
		return true;
	}
	const xcb_setup_t *setup = xcb_get_setup(c);
	if (setup == NULL || setup->resource_id_mask == 0) {
		return false;
	}
	static const char *const names[ATOM_COUNT] = { "TARGETS", "TIMESTAMP", "DELETE",
		"CLIPBOARD_MANAGER" };
	xcb_intern_atom_cookie_t cookie[ATOM_COUNT];
	for (unsigned i = 0; i < ATOM_COUNT; i++) {
		cookie[i] = xcb_intern_atom(c, 0, (uint16_t)strlen(names[i]), names[i]);
	}
	for (unsigned i = 0; i < ATOM_COUNT; i++) {
		xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(c, cookie[i], NULL);
		sel.atoms[i] = r != NULL ? r->atom : XCB_ATOM_NONE;
		free(r);
	}
	woken_after_round_trip();
	sel.conn = c;
	sel.own_base = setup->resource_id_base;
	sel.mask = setup->resource_id_mask;
	sel.count = 0; /* an earlier connection's transfers ended with it */
	sel.pending = false;
	return true;
}

static void end_for_gone_requestor(struct transfer *t);

/* Whether the requestor was already gone when its DestroyNotify was
 * asked for (the request's error, BadWindow), once the answer is here:
 * then no DestroyNotify comes. */
static void settle_selection(struct transfer *t)
{
	void *reply = NULL;
	xcb_generic_error_t *error = NULL;
	if (!t->selecting || !xcb_poll_for_reply(sel.conn, t->selected, &reply, &error)) {
		return;
	}
	t->selecting = false;
	if (error != NULL && !t->abandoned) {
		end_for_gone_requestor(t);
	}
	free(reply);
	free(error);
}

/* Whether wlroots still holds t's read end. */
static bool under_way(const struct transfer *t)
{
	struct stat st;
	return fstat(t->fd, &st) == 0 && st.st_dev == t->dev && st.st_ino == t->ino;
}

static void drop(size_t i)
{
	struct transfer *t = &sel.transfers[i];
	if (t->selecting) {
		xcb_discard_reply(sel.conn, t->selected);
	}
	sel.ended_gone += t->abandoned && !t->top_level;
	sel.transfers[i] = sel.transfers[--sel.count];
}

/* A record whose read end wlroots has closed that has nothing more to
 * wait for: wlroots ends its top-level requestors' transfers itself, and a
 * gone requestor's has had its deletions. */
static bool over(const struct transfer *t)
{
	return t->top_level || (t->abandoned && !t->ending && !t->delete_ready);
}

/* Drops the records of transfers that ended; counts those of client
 * (from requestor: left out, wlroots replaces them) and of all. */
static void count_under_way(uint32_t client, xcb_window_t requestor, size_t *of_client, size_t *all)
{
	*of_client = *all = 0;
	for (size_t i = 0; i < sel.count;) {
		struct transfer *t = &sel.transfers[i];
		bool open = under_way(t);
		if (!open && over(t)) {
			drop(i);
			continue;
		}
		settle_selection(t);
		bool counted = open && t->requestor != requestor && !t->abandoned;
		*all += counted;
		*of_client += t->client == client && counted;
		i++;
	}
}

/* wlroots 0.15 ends a transfer whose requestor window is destroyed only
 * if that window had a surface (a top-level one): a transfer to a child
 * window that has gone (its client too, maybe) stays in wlroots for good
 * (its pipe and up to 64 KiB). Not counted against anyone once the window
 * has gone, so the limits are not used up for good nor passed to the
 * client that takes the same client bits next; still shown as abandoned
 * in the statistics. Gone means its DestroyNotify came: the window
 * manager has it for top-level windows (its SubstructureNotify on the
 * root) and asks for it on any other requestor (StructureNotify, below).
 * Before session 30 a GetGeometry of the requestor said whether it was
 * still there; the X server gives the next client the same client bits
 * and, often, the same window ids, which then looked alive, and the new
 * client was refused for the old one's transfers. */
static void note_destroyed(const xcb_destroy_notify_event_t *ev)
{
	for (size_t i = 0; i < sel.count; i++) {
		if (sel.transfers[i].requestor == ev->window && !sel.transfers[i].abandoned) {
			end_for_gone_requestor(&sel.transfers[i]);
		}
	}
}

static void arm_end_timer(void)
{
	if (!sel.end_armed && sel.end_timer != NULL) {
		sel.end_armed = true;
		wl_event_source_timer_update(sel.end_timer, END_DELETE_INTERVAL_MS);
	}
}

/* wlroots' read end of t's pipe is replaced by one whose writer is closed
 * (see the top). */
static void end_source_side(struct transfer *t)
{
	int p[2];
	if (!under_way(t) || pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
		return;
	}
	close(p[1]);
	struct stat st;
	if (dup3(p[0], t->fd, O_CLOEXEC) == t->fd && fstat(t->fd, &st) == 0) {
		t->dev = st.st_dev;
		t->ino = st.st_ino;
	}
	close(p[0]);
}

/* t's requestor has gone: no longer counted, and ended in wlroots unless
 * wlroots ends it itself (see the top). */
static void end_for_gone_requestor(struct transfer *t)
{
	t->abandoned = true;
	if (t->top_level) {
		return;
	}
	end_source_side(t);
	t->ending = true;
	t->deletes_due = END_DELETES_AFTER_CLOSE;
	arm_end_timer();
}

/* Whether a deletion on t's requestor would reach another transfer than
 * t's: wlroots has a surface for that id now, or a newer transfer to it
 * is under way. */
static bool id_taken(const struct transfer *t)
{
	if (wm_window_budget_tracks(t->requestor)) {
		return true;
	}
	for (size_t i = 0; i < sel.count; i++) {
		const struct transfer *o = &sel.transfers[i];
		if (o != t && o->requestor == t->requestor && !o->abandoned) {
			return true;
		}
	}
	return false;
}

/* Whether one more deletion is to go for t (and counts it). */
static bool delete_due(struct transfer *t)
{
	if (id_taken(t)) {
		t->ending = false;
		return false;
	}
	if (under_way(t)) {
		return t->deletes_open < END_DELETES_OPEN && ++t->deletes_open;
	}
	if (t->deletes_due == 0) {
		t->ending = false;
		return false;
	}
	t->deletes_due--;
	return true;
}

/* One deletion more for each transfer of a gone requestor that has some
 * due, a second apart. */
static int handle_end_timer(void *data)
{
	(void)data;
	sel.end_armed = false;
	bool any = false;
	for (size_t i = 0; i < sel.count; i++) {
		struct transfer *t = &sel.transfers[i];
		if (t->ending && delete_due(t)) {
			t->delete_ready = true;
			any = true;
		}
	}
	if (any) {
		arm_end_timer();
		if (sel.wake != NULL) {
			sel.wake();
		}
	} else {
		size_t of_client, all; /* drops the records that are over */
		count_under_way(0, XCB_WINDOW_NONE, &of_client, &all);
	}
	return 0;
}

bool wm_selection_budget_has_ready(void)
{
	for (size_t i = 0; i < sel.count; i++) {
		if (sel.transfers[i].delete_ready) {
			return true;
		}
	}
	return false;
}

xcb_generic_event_t *wm_selection_budget_take_ready(void)
{
	for (size_t i = 0; i < sel.count; i++) {
		struct transfer *t = &sel.transfers[i];
		if (!t->delete_ready) {
			continue;
		}
		t->delete_ready = false;
		xcb_property_notify_event_t *pn = calloc(1, sizeof(xcb_generic_event_t));
		if (pn == NULL) {
			return NULL;
		}
		pn->response_type = XCB_PROPERTY_NOTIFY;
		pn->window = t->requestor;
		pn->atom = t->property;
		pn->state = XCB_PROPERTY_DELETE;
		return (xcb_generic_event_t *)pn;
	}
	return NULL;
}

/* The window manager's DestroyNotify and PropertyNotify of t's requestor.
 * wlroots selects events on the windows it has a surface for (a mask of
 * its own: not to be replaced, and their DestroyNotify comes through the
 * root); on any other window the window manager's connection has selected
 * nothing. StructureNotify brings only structure events about that
 * window, which wlroots ignores for a window it does not know.
 * PropertyChange is what an INCR transfer needs: wlroots puts each chunk
 * on the requestor and the next when a PropertyNotify says the requestor
 * deleted it; without it a requestor that is not a top-level window (Xt's
 * widget window: xterm) never got past the first chunk, and the source's
 * writer stayed blocked on the pipe (session 30's red team; xclip and xsel
 * ask from top-level windows). Sent inside wlr_data_source_send, before
 * wlroots has read a byte: ahead of its INCR property on the same
 * connection, so ahead of the requestor's first deletion. The other
 * PropertyNotify of that window reach wlroots, which finds no surface for
 * them; the pacer drops new values of atoms it does not read. Checked: a
 * requestor already destroyed answers with an error (settle_selection). */
static void select_requestor_events(struct transfer *t)
{
	if (t->top_level) {
		return;
	}
	uint32_t mask = XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_PROPERTY_CHANGE;
	t->selected = xcb_change_window_attributes_checked(
			sel.conn, t->requestor, XCB_CW_EVENT_MASK, &mask)
				      .sequence;
	t->selecting = true;
	xcb_flush(sel.conn);
}

static bool makes_pipe(const xcb_selection_request_event_t *req)
{
	return (req->owner & ~sel.mask) == sel.own_base &&
			req->selection != sel.atoms[ATOM_CLIPBOARD_MANAGER] &&
			req->target != sel.atoms[ATOM_TARGETS] &&
			req->target != sel.atoms[ATOM_TIMESTAMP] &&
			req->target != sel.atoms[ATOM_DELETE];
}

/* As wlroots answers a request it cannot serve. */
static void answer_refused(xcb_connection_t *c, const xcb_selection_request_event_t *req)
{
	xcb_selection_notify_event_t n = {
		.response_type = XCB_SELECTION_NOTIFY,
		.time = req->time,
		.requestor = req->requestor,
		.selection = req->selection,
		.target = req->target,
		.property = XCB_ATOM_NONE,
	};
	xcb_send_event(c, 0, req->requestor, XCB_EVENT_MASK_NO_EVENT, (const char *)&n);
	xcb_flush(c);
}

bool wm_selection_budget_refuse(xcb_connection_t *c, xcb_generic_event_t *ev)
{
	/* The event handed out before this one has been handled: a pipe it
	 * made has been seen by now. */
	if (sel.pending) {
		sel.pending = false;
		sel.unseen++;
	}
	if ((ev->response_type & 0x7f) == XCB_DESTROY_NOTIFY && c == sel.conn) {
		note_destroyed((const xcb_destroy_notify_event_t *)ev);
		return false;
	}
	if ((ev->response_type & 0x7f) != XCB_SELECTION_REQUEST || sel.limits == NULL ||
			!know_connection(c)) {
		return false;
	}
	const xcb_selection_request_event_t *req = (const xcb_selection_request_event_t *)ev;
	if (!makes_pipe(req)) {
		return false;
	}
	uint32_t client = req->requestor & ~sel.mask;
	size_t of_client, all;
	count_under_way(client, req->requestor, &of_client, &all);
	const struct smtwc_limits_config *l = sel.limits;
	bool over_client = of_client >= (size_t)l->x11_client_selection_transfers;
	bool over_total = all >= (size_t)l->x11_selection_transfers;
	if (!over_client && !over_total) {
		sel.pending = true;
		sel.pending_client = client;
		sel.pending_requestor = req->requestor;
		sel.pending_selection = req->selection;
		sel.pending_property = req->property;
		return false;
	}
	sel.refused++;
	sel.refused_client += over_client;
	sel.refused_total += !over_client;
	uint64_t left_out;
	if (log_limit_allow(&sel.log, &left_out)) {
		wlr_log(WLR_ERROR,
				"X client 0x%x asked for a Wayland selection with %zu transfers of "
				"its own under way, %zu in all: limit %s=%d reached; answered "
				"refused (%llu refused in all, %llu such lines not logged before)",
				(unsigned)client, of_client, all,
				over_client ? "x11-client-selection-transfers" :
					      "x11-selection-transfers",
				over_client ? l->x11_client_selection_transfers :
					      l->x11_selection_transfers,
				(unsigned long long)sel.refused, (unsigned long long)left_out);
	}
	answer_refused(c, req);
	free(ev);
	return true;
}

/* Before a new transfer's record: the records it replaces in wlroots (same
 * requestor, same selection) go, and lingering ones past LINGERING_MAX. */
static void forget_replaced_and_lingering(void)
{
	size_t lingering = 0;
	for (size_t i = 0; i < sel.count;) {
		struct transfer *t = &sel.transfers[i];
		if (t->requestor == sel.pending_requestor &&
				t->selection == sel.pending_selection) {
			t->abandoned = false; /* ended by wlroots, not here */
			drop(i);
			continue;
		}
		if (!t->abandoned && !under_way(t) && ++lingering > LINGERING_MAX) {
			drop(i);
			continue;
		}
		i++;
	}
}

void wm_selection_budget_sending(int fd)
{
	if (!sel.pending) {
		return;
	}
	sel.pending = false;
	struct stat st;
	if (fd <= 0 || fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		return;
	}
	for (int read_end = fd - 1; read_end >= 0; read_end--) {
		struct stat rs;
		if (fstat(read_end, &rs) != 0 || rs.st_dev != st.st_dev || rs.st_ino != st.st_ino) {
			continue;
		}
		forget_replaced_and_lingering();
		if (sel.count == sel.cap) {
			size_t cap = sel.cap ? sel.cap * 2 : 16;
			struct transfer *t = realloc(sel.transfers, cap * sizeof(*t));
			if (t == NULL) {
				return; /* not counted */
			}
			sel.transfers = t;
			sel.cap = cap;
		}
		struct transfer *t = &sel.transfers[sel.count++];
		*t = (struct transfer){
			.client = sel.pending_client,
			.requestor = sel.pending_requestor,
			.selection = sel.pending_selection,
			.property = sel.pending_property,
			.top_level = wm_window_budget_tracks(sel.pending_requestor),
			.fd = read_end,
			.dev = rs.st_dev,
			.ino = rs.st_ino,
		};
		select_requestor_events(t);
		sel.started++;
		return;
	}
}

void wm_selection_budget_forget(xcb_connection_t *c)
{
	if (c == NULL || c != sel.conn) {
		return;
	}
	sel.conn = NULL;
	sel.count = 0;
	sel.pending = false;
}

void wm_selection_budget_stats(const struct smtwc_stats_out *out)
{
	size_t of_client, all;
	count_under_way(0, XCB_WINDOW_NONE, &of_client, &all);
	out->begin_object(out->ctx, "x11_selections");
	size_t abandoned = 0;
	for (size_t i = 0; i < sel.count; i++) {
		abandoned += sel.transfers[i].abandoned;
	}
	out->number(out->ctx, "transfers", all);
	/* requestor gone, wlroots not yet at the end */
	out->number(out->ctx, "abandoned", abandoned);
	out->number(out->ctx, "ended_for_gone_requestor", sel.ended_gone);
	out->number(out->ctx, "started", sel.started);
	out->number(out->ctx, "refused", sel.refused);
	out->number(out->ctx, "refused_client_limit", sel.refused_client);
	out->number(out->ctx, "refused_total_limit", sel.refused_total);
	/* handed to wlroots, no pipe made (a type the source does not offer) */
	out->number(out->ctx, "requests_without_pipe", sel.unseen);
	if (sel.limits != NULL) {
		out->number(out->ctx, "client_transfers_max",
				(uint64_t)sel.limits->x11_client_selection_transfers);
		out->number(out->ctx, "transfers_max",
				(uint64_t)sel.limits->x11_selection_transfers);
	}
	/* Each client once, at its first record (few: the limits bound them). */
	out->begin_list(out->ctx, "clients");
	for (size_t i = 0; i < sel.count; i++) {
		uint32_t client = sel.transfers[i].client;
		bool seen = false;
		size_t n = 0;
		for (size_t j = 0; j < sel.count; j++) {
			seen |= j < i && sel.transfers[j].client == client;
			n += sel.transfers[j].client == client;
		}
		if (seen) {
			continue;
		}
		out->begin_item(out->ctx);
		out->number(out->ctx, "client", client);
		out->number(out->ctx, "transfers", n);
		out->end_item(out->ctx);
	}
	out->end_list(out->ctx);
	out->end_object(out->ctx);
}

void wm_selection_budget_init(struct wl_event_loop *loop, const struct smtwc_limits_config *limits,
		void (*wake)(void))
{
	sel.limits = limits;
	sel.wake = wake;
	sel.loop = loop;
	sel.end_timer = wl_event_loop_add_timer(loop, handle_end_timer, NULL);
}

/* After a round trip of ours: its replies' reading may have read events
 * into libxcb's queue with nobody to take them until the connection's fd
 * is readable again. */
static void woken_after_round_trip(void)
{
	if (sel.wake != NULL) {
		sel.wake();
	}
}

void wm_selection_budget_finish(void)
{
	if (sel.end_timer != NULL) {
		wl_event_source_remove(sel.end_timer);
	}
	free(sel.transfers);
	memset(&sel, 0, sizeof(sel));
}
