/*
 * An X window whose surface drew before wlroots paired them, shown
 * anyway (docs/x11.md, "The window manager's events").
 *
 * Xwayland tells the window manager which wl_surface is an X window's
 * with a WL_SURFACE_ID ClientMessage, over X, while the surface's
 * buffers come over Wayland. wlroots 0.15 maps the window at the
 * surface's first commit with a buffer after the pairing
 * (xwayland_surface_role_commit); when the pairing comes second, it
 * gives the surface its role and reads the window's properties, but
 * does not look whether the surface already has a buffer (xwm.c,
 * xwm_map_shell_surface). An X program that drew once and then waits
 * (xmessage, an idle xterm) then never shows. The compositor sees the
 * commit first whenever the window manager's events are behind its
 * Wayland requests: while the pacer works through another client's
 * events (measured in session 29: 1-2 of 20 xmessage windows never shown
 * during a title flood).
 *
 * The pacer notes each ClientMessage it hands to wlroots; at wlroots'
 * next poll (so after wlroots handled it) the surface it named is looked
 * up among Xwayland's, and if it is paired with that window, has a
 * buffer and is not mapped, the window is mapped as wlroots would have
 * at that commit: by its role's commit hook, wlroots' own
 * (xwayland_surface_role_commit: map signal, `mapped`, and the window in
 * _NET_CLIENT_LIST, which wlroots rewrites again at its unmap; session 29
 * emitted the signal itself and left the window out of the list until
 * another window mapped or unmapped).
 */
#ifndef SMT_WM_SURFACE_PAIRING_H
#define SMT_WM_SURFACE_PAIRING_H

#include <stdint.h>
#include <xcb/xcb.h>

struct wlr_xwayland;

/* ev is handed to wlroots now (any event: only a ClientMessage of 32-bit
 * data is remembered). */
void wm_surface_pairing_handed(const xcb_generic_event_t *ev);

/* wlroots has handled the event handed out last: maps the window it
 * paired if its surface already has a buffer. */
void wm_surface_pairing_settle(struct wlr_xwayland *wlr);

#endif
