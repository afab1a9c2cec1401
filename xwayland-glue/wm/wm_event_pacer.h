/*
 * wlroots' X window manager held to a budget per turn of the compositor's
 * loop, its repeated PropertyNotify merged (wm_event_pacer.c). The module
 * defines xcb_poll_for_event and xcb_disconnect for the whole compositor;
 * it acts on the window manager's connection only.
 */
#ifndef SMT_WM_EVENT_PACER_H
#define SMT_WM_EVENT_PACER_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct wlr_xwayland;
struct wlr_xwayland_surface;
struct smtwc_stats_out;

/* After wlr_xwayland_create: wlr->server->wm_fd[0] names the window
 * manager's connection; loop_turns counts the main loop's turns
 * (server.h): wlroots' handler gets one turn of the pacer's per turn of
 * the loop. before_map(xs) runs just before wlroots is handed a client's
 * MapRequest of a window it tracks (wlroots then maps it in X at once).
 * False: the window manager runs unpaced. */
bool wm_event_pacer_init(struct wl_event_loop *loop, struct wlr_xwayland *wlr,
		const uint64_t *loop_turns, void (*before_map)(struct wlr_xwayland_surface *xs));

/* Its turns, those cut at the budget and the calls told to wait for the
 * next turn of the loop, for `smtctl stats` ("x11_window_manager"). */
void wm_event_pacer_stats(const struct smtwc_stats_out *out);

/* Make wlroots' handler run again soon (a held event may go now). */
void wm_event_pacer_wake(void);

/* After wlr_xwayland_destroy. */
void wm_event_pacer_finish(void);

#endif
