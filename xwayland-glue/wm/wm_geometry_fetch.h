/*
 * The GetGeometry wlroots' window manager sends for each new window, sent
 * before it asks (docs/x11.md, "A window's geometry read ahead").
 *
 * wlroots 0.15 makes a surface for every CreateNotify of a top-level
 * window (xwayland_surface_create) and reads its depth with a GetGeometry
 * whose reply it waits for: one round trip per window, one after another,
 * the compositor's main loop standing still in each (600 override-redirect
 * windows: about 3 s of the loop's 4 s spent waiting, strace). The pacer
 * sends one GetGeometry per CreateNotify as it takes the events from
 * libxcb, all together; the compositor's xcb_get_geometry, asked for such
 * a window, returns that request's cookie, whose reply libxcb has by then
 * (libxcb's own xcb_get_geometry_reply waits for it if not). A request
 * not taken is discarded when the window's DestroyNotify is taken, when
 * the table is full (the oldest), or with the connection.
 */
#ifndef SMT_WM_GEOMETRY_FETCH_H
#define SMT_WM_GEOMETRY_FETCH_H

#include <stdint.h>
#include <xcb/xcb.h>

/* A CreateNotify of window was taken from c: its GetGeometry is sent
 * (not flushed: wm_geometry_fetch_flush). */
void wm_geometry_fetch_created(xcb_connection_t *c, xcb_window_t window);
/* A DestroyNotify of window was taken: its request, not taken, goes. */
void wm_geometry_fetch_destroyed(xcb_connection_t *c, xcb_window_t window);
/* Flushes the requests sent since the last flush. */
void wm_geometry_fetch_flush(xcb_connection_t *c);
/* The connection goes: every request not taken is discarded. */
void wm_geometry_fetch_forget(void);

/* Sent ahead, taken by the window manager, and asked without one sent
 * ahead (it waited for those), so far. */
void wm_geometry_fetch_counts(uint64_t *sent, uint64_t *taken, uint64_t *unforeseen);

#endif
