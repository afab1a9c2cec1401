/*
 * The X windows the window manager tracks, counted per X client and
 * bounded (wm_window_budget.c; docs/reliability.md "What a client can
 * make the compositor hold").
 *
 * wlroots 0.15 makes a wlr_xwayland_surface (with a ping timer) for every
 * top-level X window any X client creates, mapped or not, and the
 * compositor a view for it: about 2.2 KB each, counted nowhere, and every
 * event of the window manager then walks the list of them. One X client
 * held 100,000 windows: the compositor's RSS 24 -> 237 MiB. Here each X
 * client's windows are counted (from wlroots' new_surface and each
 * surface's destroy), and a CreateNotify past the client's
 * `x11-client-windows`, or past `x11-windows` for all clients together
 * once the client holds its first `x11-first-windows`, is not handed to
 * wlroots: the compositor does not track that window (a managed one is
 * never mapped, an override-redirect one not shown), the log says so
 * once naming the client, and `smtctl stats` counts it.
 */
#ifndef SMT_WM_WINDOW_BUDGET_H
#define SMT_WM_WINDOW_BUDGET_H

#include <stdbool.h>
#include <xcb/xcb.h>

#include "compositor/extension.h"

struct wlr_xwayland;
struct smtwc_limits_config;

/* limits: read at every window (a changed config applies to the next).
 * wake: makes the window manager's handler run again
 * (wm_event_pacer_wake), called after this module has read replies, and
 * so maybe events, from the connection outside of the handler's loop. */
void wm_window_budget_init(struct wlr_xwayland *wlr, const struct smtwc_limits_config *limits,
		void (*wake)(void));

/* ev is about to be handed to wlroots on the window manager's connection
 * c. True: a CreateNotify past its client's budget, freed here; wlroots
 * never sees it (and so never makes a surface for the window). */
bool wm_window_budget_refuse(xcb_connection_t *c, xcb_generic_event_t *ev);

/* Whether wlroots has a surface for window (it then selects the window
 * manager's events on it itself: wm_selection_budget.c leaves it alone).
 * A walk of the tracked windows (x11-windows of them at most). */
bool wm_window_budget_tracks(uint32_t window);

/* `smtctl stats`' "x11_windows". */
void wm_window_budget_stats(const struct smtwc_stats_out *out);

/* Before wlr_xwayland_destroy (its new_surface signal goes with it); the
 * surfaces destroyed after it are no longer counted. */
void wm_window_budget_finish(void);

#endif
