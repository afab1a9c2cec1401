/*
 * Wayland selections sent to X clients, counted per X client and bounded
 * (wm_selection_budget.c; docs/reliability.md "What a client can make the
 * compositor hold").
 *
 * For each SelectionRequest an X client makes of a selection a Wayland
 * client owns, wlroots 0.15 (xwm_selection_send_data) makes a pipe, sends
 * its write end to the Wayland source and keeps the read end with up to
 * 64 KiB read from it until the X client has taken them (an INCR transfer
 * waits for the requestor to delete each chunk: one that never does holds
 * them for good). It replaces an older transfer only of the same
 * requestor window, and a client can make any number of those. 200
 * requests from one X client: the Wayland source (wl-copy) was
 * disconnected for 56 fds unread, and the clipboard was gone. Here a
 * request past `x11-client-selection-transfers` transfers under way for
 * its client, or past `x11-selection-transfers` for all, is answered as
 * wlroots answers one it cannot serve (SelectionNotify, property None)
 * and not handed to wlroots. A transfer whose requestor window is
 * destroyed, which wlroots would keep for good unless that window had a
 * surface, is driven to its end.
 */
#ifndef SMT_WM_SELECTION_BUDGET_H
#define SMT_WM_SELECTION_BUDGET_H

#include <stdbool.h>
#include <wayland-server-core.h>
#include <xcb/xcb.h>

#include "compositor/extension.h"

struct smtwc_limits_config;

/* wake: as wm_window_budget_init's (after round trips of this module's,
 * and when an event of take_ready's may go). */
void wm_selection_budget_init(struct wl_event_loop *loop, const struct smtwc_limits_config *limits,
		void (*wake)(void));

/* ev is about to be handed to wlroots on the window manager's connection
 * c. True: a SelectionRequest past its client's budget, answered and
 * freed here. */
bool wm_selection_budget_refuse(xcb_connection_t *c, xcb_generic_event_t *ev);

/* wlroots is about to give a Wayland data source fd, the write end of a
 * transfer's pipe (called from the compositor's wlr_data_source_send and
 * wlr_primary_selection_source_send, wm_paste_pipe.c). */
void wm_selection_budget_sending(int fd);

/* A PropertyNotify (Delete) for the window manager to hand wlroots, which
 * drives a transfer whose requestor window has gone (not one wlroots has
 * a surface for) to its end; NULL if none is due. wlroots' to free. */
xcb_generic_event_t *wm_selection_budget_take_ready(void);
bool wm_selection_budget_has_ready(void);

/* The window manager's connection c ends: its transfers are forgotten
 * (wlroots ends them with it), nothing more is handed out for them. */
void wm_selection_budget_forget(xcb_connection_t *c);

/* `smtctl stats`' "x11_selections". */
void wm_selection_budget_stats(const struct smtwc_stats_out *out);

void wm_selection_budget_finish(void);

#endif
