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

/* After wlr_xwayland_create: wlr->server->wm_fd[0] names the window
 * manager's connection. False: the window manager runs unpaced.
 * before_map(xs) runs just before wlroots is handed a client's MapRequest
 * of a window it tracks (wlroots then maps it in X at once). */
bool wm_event_pacer_init(struct wl_event_loop *loop, struct wlr_xwayland *wlr,
		void (*before_map)(struct wlr_xwayland_surface *xs));

/* Make wlroots' handler run again soon (a held event may go now). */
void wm_event_pacer_wake(void);

/* After wlr_xwayland_destroy. */
void wm_event_pacer_finish(void);

#endif
