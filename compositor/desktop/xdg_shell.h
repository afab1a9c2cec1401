/*
 * xdg-shell, the protocol of almost every Wayland window: toplevels
 * become views, popups are placed as the client's positioner asks.
 */
#ifndef SMTWC_XDG_SHELL_H
#define SMTWC_XDG_SHELL_H

#include "compositor/server.h"

void xdg_shell_handle_new_surface(struct wl_listener *listener, void *data);
/* The view of an xdg toplevel, NULL for popups and unknown surfaces. */
struct smtwc_view *xdg_shell_view_from_surface(struct wlr_xdg_surface *xdg_surface);
/* Calls back with the layout box (window geometry) of each mapped popup of
 * an xdg toplevel's view, nested ones included; nothing for other views. */
void xdg_shell_view_popups_for_each(struct smtwc_view *view,
		void (*callback)(struct wlr_box box, void *data), void *data);

#endif
