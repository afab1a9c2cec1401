/*
 * The GetGeometry wlroots' window manager sends for each new window, sent
 * before it asks (docs/x11.md, "A window's geometry read ahead").
 *
 * wlroots 0.15 makes a surface for every CreateNotify of a top-level
 * window (xwayland_surface_create) and reads its depth with a GetGeometry
 * whose reply it waits for: one round trip per window, one after another,
 * the compositor's main loop standing still in each (600 override-redirect
 * windows: about 3 s of the loop's 4 s spent waiting, strace). When the
 * pacer hands out a CreateNotify whose GetGeometry was not sent, it sends
 * it together with those of the next 63 windows waiting in its FIFO that
 * the window manager will make surfaces for (not those whose DestroyNotify
 * waits behind: sent at once for every CreateNotify taken, a churn of
 * windows made and destroyed cost Xwayland thousands of requests a second
 * and the compositor turns of seconds); the compositor's xcb_get_geometry,
 * asked for such a window, returns that request's cookie, whose reply
 * libxcb has by then (libxcb's own xcb_get_geometry_reply waits for it if
 * not). A request
 * not taken is discarded when the window's DestroyNotify is taken, when
 * the table is full (the oldest), or with the connection.
 */
#ifndef SMT_WM_GEOMETRY_FETCH_H
#define SMT_WM_GEOMETRY_FETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <xcb/xcb.h>

/* Sends window's GetGeometry, not flushed (the window manager will make
 * a surface for it). */
void wm_geometry_fetch_created(xcb_connection_t *c, xcb_window_t window);
/* Whether window's GetGeometry was sent ahead and not taken. */
bool wm_geometry_fetch_has(xcb_connection_t *c, xcb_window_t window);
/* A DestroyNotify of window was taken: its request, not taken, goes. */
void wm_geometry_fetch_destroyed(xcb_connection_t *c, xcb_window_t window);
/* The connection goes: every request not taken is discarded. */
void wm_geometry_fetch_forget(void);

/* Sent ahead, taken by the window manager, and asked without one sent
 * ahead (it waited for those), so far. */
void wm_geometry_fetch_counts(uint64_t *sent, uint64_t *taken, uint64_t *unforeseen);

#endif
