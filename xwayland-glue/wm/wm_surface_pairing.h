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
 *
 * It also tells the pacer when wlroots is about to pair a window, so that
 * what wlroots reads then is fetched ahead (wm_property_fetch.h): from
 * the X side, a WL_SURFACE_ID message about to be handed out that names a
 * window wlroots knows, not paired yet, and a wl_surface of Xwayland's
 * that exists; from the Wayland side, a surface of Xwayland's created
 * with the id such a message named earlier (wlroots pairs them in its own
 * listener to the compositor's new_surface, which runs after ours).
 */
#ifndef SMT_WM_SURFACE_PAIRING_H
#define SMT_WM_SURFACE_PAIRING_H

#include <stdbool.h>
#include <stdint.h>
#include <xcb/xcb.h>

struct wlr_xwayland;
struct wlr_xwayland_surface;

/* After wlr_xwayland_create (before Xwayland starts: wlroots' window
 * manager adds its own listener to surface creation when it starts).
 * will_pair(window) is called when a surface's creation is about to pair
 * window. */
void wm_surface_pairing_init(struct wlr_xwayland *wlr, void (*will_pair)(xcb_window_t window));

/* Before wlr_xwayland_destroy (its signals go with it). */
void wm_surface_pairing_finish(void);

/* wlroots tracks window (it made a wlr_xwayland_surface for it: not one
 * of the window manager's own, nor one the window budget left alone). */
bool wm_surface_pairing_knows(xcb_window_t window);

/* wlroots' surface for window, or NULL (as wm_surface_pairing_knows). */
struct wlr_xwayland_surface *wm_surface_pairing_find(xcb_window_t window);

/* Xwayland's wl_surfaces destroyed so far (a count to give back to
 * wm_surface_pairing_stale). */
uint64_t wm_surface_pairing_destroys(void);

/* The WL_SURFACE_ID message m names a surface that cannot be its window's
 * any more: one by its id was destroyed since the count was `destroys`
 * (the id may be another's now), or the id names an object that is not a
 * wl_surface (wlroots 0.15 would take it for one: an assertion ends the
 * compositor). */
bool wm_surface_pairing_stale(const xcb_client_message_event_t *m, uint64_t destroys);

/* ev, about to be handed to wlroots, is a WL_SURFACE_ID message
 * (surface_id_atom) with which wlroots will pair its window with an
 * existing surface now. */
bool wm_surface_pairing_pairs_now(const xcb_generic_event_t *ev, xcb_atom_t surface_id_atom);

/* ev is handed to wlroots now (any event: only a ClientMessage of 32-bit
 * data is remembered). */
void wm_surface_pairing_handed(const xcb_generic_event_t *ev);

/* wlroots has handled the event handed out last: maps the window it
 * paired if its surface already has a buffer. */
void wm_surface_pairing_settle(void);

#endif
