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
 * A record whose descriptor is no longer that pipe is over. An INCR
 * transfer whose source has finished writing closes its read end but may
 * keep its last chunk (64 KiB at most) until the requestor deletes it:
 * not counted.
 *
 * The X client is the requestor window's client bits (wm_window_budget.c
 * says why those name a connection); a transfer counts until its requestor
 * window is destroyed (note_destroyed). Requests for TARGETS, TIMESTAMP and
 * DELETE, and to the clipboard manager, make no pipe: not counted.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_selection_budget.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wlr/util/log.h>
#include <xcb/xcbext.h>

#include "compositor/config/config.h"
#include "compositor/log_limit.h"
#include "xwayland-glue/wm/wm_window_budget.h"

struct transfer {
	uint32_t client;   /* the requestor's resource base */
	bool abandoned;    /* its requestor window was destroyed: no longer counted */
	bool selecting;    /* our selection of its DestroyNotify waits for its answer */
	unsigned selected; /* that request's sequence number */
	xcb_window_t requestor;
	int fd; /* wlroots' read end */
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
	uint64_t started, refused, refused_client, refused_total, unseen;
	struct log_limit log;
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
	if (error != NULL) {
		t->abandoned = true;
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

/* Drops the records of transfers that ended; counts those of client
 * (from requestor: left out, wlroots replaces them) and of all. */
static void count_under_way(uint32_t client, xcb_window_t requestor, size_t *of_client, size_t *all)
{
	*of_client = *all = 0;
	for (size_t i = 0; i < sel.count;) {
		struct transfer *t = &sel.transfers[i];
		if (!under_way(t)) {
			if (t->selecting) {
				xcb_discard_reply(sel.conn, t->selected);
			}
			sel.transfers[i] = sel.transfers[--sel.count];
			continue;
		}
		settle_selection(t);
		bool counted = t->requestor != requestor && !t->abandoned;
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
		if (sel.transfers[i].requestor == ev->window) {
			sel.transfers[i].abandoned = true;
		}
	}
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
	if (wm_window_budget_tracks(t->requestor)) {
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
			.fd = read_end,
			.dev = rs.st_dev,
			.ino = rs.st_ino,
		};
		select_requestor_events(t);
		sel.started++;
		return;
	}
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
	out->number(out->ctx, "abandoned", abandoned);
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

void wm_selection_budget_init(const struct smtwc_limits_config *limits, void (*wake)(void))
{
	sel.limits = limits;
	sel.wake = wake;
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
	free(sel.transfers);
	memset(&sel, 0, sizeof(sel));
}
