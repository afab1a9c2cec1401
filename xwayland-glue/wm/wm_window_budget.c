/*
 * X windows counted per X client and bounded (wm_window_budget.h).
 *
 * Who an X client is: the client bits of its XIDs. The X server gives
 * every connection a resource base (client index << bits) and the same
 * mask; a window's id is always in its creator's range (the server
 * refuses any other), so `window & ~mask` names the connection that made
 * it. The window manager's own setup tells the mask. The pid comes from
 * the X-Resource extension (what wlroots reads for xsurface->pid when a
 * window maps, mapped windows only), asked once per client without
 * waiting, when its first window is tracked.
 *
 * Why the window is left alone rather than the client killed: a program
 * with over a thousand top-level windows is broken or hostile, but killing
 * it (xcb_kill_client) loses whatever the user has in its windows already
 * shown; leaving its new windows untracked costs the compositor nothing,
 * shows the user a program whose new windows do not appear, and the log
 * line says which and why (xkill or closing it is the user's choice).
 * Its windows still cost Xwayland, whose resources the X server bounds.
 * A window left alone stays untracked for its life, even once its client
 * holds fewer (the window manager never saw it made).
 *
 * Counting follows wlroots itself (new_surface, each surface's destroy),
 * so it is exact whatever way a surface goes (DestroyNotify, the window
 * manager's end when Xwayland exits). The decision is taken when the
 * pacer hands the CreateNotify out: every event before it has been
 * handled by then, so the count is wlroots' at that moment.
 */
#define _GNU_SOURCE
#include "xwayland-glue/wm/wm_window_budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <xcb/res.h>
#include <xcb/xcbext.h>

#include "compositor/config/config.h"
#include "compositor/log_limit.h"

/* XIDs are 29 bits (the top three are zero). */
#define XID_BITS 29u

struct window_client {
	uint32_t windows; /* tracked now */
	uint64_t refused; /* CreateNotify left out since the client began */
	int pid;          /* from X-Resource; 0: not known (yet) */
	bool asking;      /* its X-Resource query waits for its reply */
	unsigned asked;   /* that query's sequence number */
	bool logged;      /* its refusal has been said */
};

/* One per surface wlroots made: its client's index, until it goes. */
struct tracked_window {
	struct wl_listener destroy;
	struct wl_list link; /* budget.tracked */
	uint32_t window;
	uint32_t index; /* UINT32_MAX: counted in the total only */
};

static struct {
	struct wlr_xwayland *wlr;
	const struct smtwc_limits_config *limits;
	void (*wake)(void);
	struct wl_listener new_surface;
	bool listening;
	xcb_connection_t *conn; /* whose setup gave base and mask */
	uint32_t own_base, mask;
	unsigned shift; /* client index = xid >> shift */
	struct window_client *clients;
	uint32_t nclients;
	struct wl_list tracked; /* struct tracked_window */
	uint64_t windows;       /* tracked, every client */
	uint64_t refused, refused_client, refused_total;
	struct log_limit log;
} budget;

static struct window_client *client_at(uint32_t index)
{
	return index < budget.nclients ? &budget.clients[index] : NULL;
}

static uint32_t index_of(uint32_t xid)
{
	return budget.clients != NULL ? xid >> budget.shift : UINT32_MAX;
}

/* Who the client is (its pid), asked when its first window is tracked;
 * the reply is taken when it is there (collect_pid), never waited for
 * but at a refusal's log line. */
static void ask_pid(struct window_client *cl, uint32_t client_base)
{
	xcb_res_client_id_spec_t spec = {
		.client = client_base,
		.mask = XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID,
	};
	cl->asked = xcb_res_query_client_ids(budget.conn, 1, &spec).sequence;
	cl->asking = true;
}

static void collect_pid(struct window_client *cl, bool wait)
{
	if (!cl->asking) {
		return;
	}
	void *answer = NULL;
	xcb_generic_error_t *error = NULL;
	bool got;
	if (wait) {
		xcb_res_query_client_ids_cookie_t cookie = { cl->asked };
		answer = xcb_res_query_client_ids_reply(budget.conn, cookie, &error);
		got = true;
	} else {
		got = xcb_poll_for_reply(budget.conn, cl->asked, &answer, &error) != 0;
	}
	/* Reading (the reply, or looking for it) may have read events into
	 * libxcb's queue with nobody to take them until the connection's fd
	 * is readable again. */
	if (budget.wake != NULL) {
		budget.wake();
	}
	if (!got) {
		return;
	}
	cl->asking = false;
	free(error);
	xcb_res_query_client_ids_reply_t *reply = answer;
	if (reply == NULL) {
		return;
	}
	xcb_res_client_id_value_iterator_t it = xcb_res_query_client_ids_ids_iterator(reply);
	for (; it.rem > 0; xcb_res_client_id_value_next(&it)) {
		if ((it.data->spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID) &&
				xcb_res_client_id_value_value_length(it.data) > 0) {
			cl->pid = (int)*xcb_res_client_id_value_value(it.data);
			break;
		}
	}
	free(reply);
}

static void handle_window_destroy(struct wl_listener *listener, void *data)
{
	(void)data;
	struct tracked_window *t = wl_container_of(listener, t, destroy);
	struct window_client *cl = client_at(t->index);
	if (cl != NULL && cl->windows > 0 && --cl->windows == 0) {
		/* Gone (or holding none): the index may be another client's next.
		 * (wlroots destroys every surface before it disconnects.) */
		if (cl->asking) {
			xcb_discard_reply(budget.conn, cl->asked);
		}
		*cl = (struct window_client){ 0 };
	}
	if (budget.windows > 0) {
		budget.windows--;
	}
	wl_list_remove(&t->destroy.link);
	wl_list_remove(&t->link);
	free(t);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	(void)listener;
	struct wlr_xwayland_surface *xs = data;
	struct tracked_window *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		return; /* not counted: what wlroots holds is then under the count */
	}
	t->window = xs->window_id;
	t->index = index_of(xs->window_id);
	struct window_client *cl = client_at(t->index);
	if (cl != NULL && cl->windows++ == 0 && cl->pid == 0 && !cl->asking) {
		ask_pid(cl, xs->window_id & ~budget.mask);
	}
	budget.windows++;
	t->destroy.notify = handle_window_destroy;
	wl_signal_add(&xs->events.destroy, &t->destroy);
	wl_list_insert(&budget.tracked, &t->link);
}

bool wm_window_budget_tracks(uint32_t window)
{
	if (!budget.listening) {
		return false;
	}
	struct tracked_window *t;
	wl_list_for_each (t, &budget.tracked, link) {
		if (t->window == window) {
			return true;
		}
	}
	return false;
}

/* The window manager's connection, first seen or new (Xwayland started
 * again): its resource mask says how client indices are read. */
static bool know_connection(xcb_connection_t *c)
{
	if (c == budget.conn) {
		return budget.clients != NULL;
	}
	/* A query on an earlier connection has no answer coming. */
	for (uint32_t i = 0; i < budget.nclients; i++) {
		budget.clients[i].asking = false;
	}
	const xcb_setup_t *setup = xcb_get_setup(c);
	if (setup == NULL || setup->resource_id_mask == 0) {
		return false;
	}
	uint32_t mask = setup->resource_id_mask;
	unsigned shift = (unsigned)__builtin_ctz(~mask); /* the mask's low bits */
	if (shift >= XID_BITS) {
		return false;
	}
	uint32_t n = 1u << (XID_BITS - shift);
	if (budget.clients == NULL || n != budget.nclients) {
		struct window_client *clients = calloc(n, sizeof(*clients));
		if (clients == NULL) {
			return false;
		}
		free(budget.clients);
		budget.clients = clients;
		budget.nclients = n;
	}
	budget.conn = c;
	budget.own_base = setup->resource_id_base;
	budget.mask = mask;
	budget.shift = shift;
	return true;
}

/* /proc/PID/comm, printable, or "?". */
static void program_name(int pid, char *name, size_t size)
{
	snprintf(name, size, "?");
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	FILE *f = pid > 0 ? fopen(path, "re") : NULL;
	if (f == NULL) {
		return;
	}
	if (fgets(name, (int)size, f) == NULL) {
		snprintf(name, size, "?");
	}
	fclose(f);
	for (char *p = name; *p != '\0'; p++) {
		if (*p == '\n') {
			*p = '\0';
			break;
		}
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) {
			*p = '?';
		}
	}
}

static void say_refused(struct window_client *cl, uint32_t base, const char *limit, int value)
{
	if (cl->logged) {
		return;
	}
	cl->logged = true;
	if (cl->pid == 0 && !cl->asking) {
		ask_pid(cl, base); /* a client refused before its first window */
	}
	collect_pid(cl, true);
	uint64_t left_out;
	if (!log_limit_allow(&budget.log, &left_out)) {
		return;
	}
	char name[32];
	program_name(cl->pid, name, sizeof(name));
	wlr_log(WLR_ERROR,
			"X client 0x%x (pid %d, %s) holds %u windows, every X client %llu: "
			"limit %s=%d reached; the window manager leaves its new windows "
			"alone (not shown) until it holds fewer (`smtctl stats` "
			"x11_windows; %llu such lines not logged before)",
			(unsigned)base, cl->pid, name, (unsigned)cl->windows,
			(unsigned long long)budget.windows, limit, value,
			(unsigned long long)left_out);
}

bool wm_window_budget_refuse(xcb_connection_t *c, xcb_generic_event_t *ev)
{
	if ((ev->response_type & 0x7f) != XCB_CREATE_NOTIFY || budget.limits == NULL ||
			!know_connection(c)) {
		return false;
	}
	const xcb_create_notify_event_t *cn = (const xcb_create_notify_event_t *)ev;
	uint32_t base = cn->window & ~budget.mask;
	struct window_client *cl = client_at(index_of(cn->window));
	if (base == budget.own_base || cl == NULL) {
		return false; /* the window manager's own (wlroots makes no surface) */
	}
	const struct smtwc_limits_config *l = budget.limits;
	bool over_client = cl->windows >= (uint32_t)l->x11_client_windows;
	bool over_total = budget.windows >= (uint64_t)l->x11_windows &&
			cl->windows >= (uint32_t)l->x11_first_windows;
	if (!over_client && !over_total) {
		return false;
	}
	cl->refused++;
	budget.refused++;
	if (over_client) {
		budget.refused_client++;
		say_refused(cl, base, "x11-client-windows", l->x11_client_windows);
	} else {
		budget.refused_total++;
		say_refused(cl, base, "x11-windows", l->x11_windows);
	}
	free(ev);
	return true;
}

void wm_window_budget_stats(const struct smtwc_stats_out *out)
{
	out->begin_object(out->ctx, "x11_windows");
	out->number(out->ctx, "windows", budget.windows);
	out->number(out->ctx, "refused", budget.refused);
	out->number(out->ctx, "refused_client_limit", budget.refused_client);
	out->number(out->ctx, "refused_total_limit", budget.refused_total);
	if (budget.limits != NULL) {
		out->number(out->ctx, "client_windows_max",
				(uint64_t)budget.limits->x11_client_windows);
		out->number(out->ctx, "windows_max", (uint64_t)budget.limits->x11_windows);
		out->number(out->ctx, "first_windows", (uint64_t)budget.limits->x11_first_windows);
	}
	out->begin_list(out->ctx, "clients");
	for (uint32_t i = 0; i < budget.nclients; i++) {
		struct window_client *cl = &budget.clients[i];
		if (cl->windows == 0 && cl->refused == 0) {
			continue;
		}
		collect_pid(cl, false);
		out->begin_item(out->ctx);
		out->number(out->ctx, "client", (uint64_t)i << budget.shift);
		out->number(out->ctx, "windows", cl->windows);
		out->number(out->ctx, "refused", cl->refused);
		out->number(out->ctx, "pid", (uint64_t)(cl->pid > 0 ? cl->pid : 0));
		out->end_item(out->ctx);
	}
	out->end_list(out->ctx);
	out->end_object(out->ctx);
}

void wm_window_budget_init(struct wlr_xwayland *wlr, const struct smtwc_limits_config *limits,
		void (*wake)(void))
{
	budget.wlr = wlr;
	budget.limits = limits;
	budget.wake = wake;
	wl_list_init(&budget.tracked);
	budget.new_surface.notify = handle_new_surface;
	wl_signal_add(&wlr->events.new_surface, &budget.new_surface);
	budget.listening = true;
}

void wm_window_budget_finish(void)
{
	if (budget.listening) {
		wl_list_remove(&budget.new_surface.link);
		/* Surfaces destroyed later leave no list behind. */
		struct tracked_window *t, *next;
		wl_list_for_each_safe (t, next, &budget.tracked, link) {
			wl_list_remove(&t->link);
			wl_list_init(&t->link);
		}
	}
	free(budget.clients);
	memset(&budget, 0, sizeof(budget));
}
