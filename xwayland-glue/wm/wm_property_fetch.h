/*
 * What wlroots' window manager is about to read from a client window,
 * fetched before it asks (docs/x11.md, "The window manager's events").
 *
 * wlroots 0.15 reads X properties synchronously: xcb_get_property, then
 * xcb_get_property_reply, which waits; the compositor's main loop stands
 * still until Xwayland gets round to the window manager's connection,
 * which under a flooding X client is after that client's slice. Two
 * places:
 * - a PropertyNotify on a client's window: one GetProperty (measured:
 *   another Wayland client's round trip p99 0.1 -> 5-6 ms during a title
 *   flood);
 * - a window paired with its wl_surface (xwm_map_shell_surface, from the
 *   WL_SURFACE_ID ClientMessage or from the surface's creation when the
 *   message came first): eleven GetProperty and an X-Resource client-id
 *   query, twelve round trips one after another.
 * The compositor sends the same requests first, all at once (a fetch),
 * and defines xcb_get_property, xcb_get_property_reply,
 * xcb_res_query_client_ids and its _reply: each of the window manager's
 * requests identical to one fetched is answered with that reply, without
 * a new round trip. Everything else passes through to libxcb.
 *
 * A fetch is either held or eager. Held (the pacer's): the event that
 * makes wlroots read is kept back until every reply has come (the loop
 * runs meanwhile), then handed out with the replies offered. Eager (a
 * pairing from the Wayland side, inside libwayland's dispatch: it cannot
 * wait): offered at once; wlroots then waits for the first reply only, the
 * others having come with it. Values are at least as new as the event (or
 * the surface), as wlroots' own reads would be.
 */
#ifndef SMT_WM_PROPERTY_FETCH_H
#define SMT_WM_PROPERTY_FETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <xcb/xcb.h>

/* Properties wlroots reads when it pairs a window, at most. */
#define WM_FETCH_PAIRING_MAX 12u

/* Sends the GetProperty wlroots would send for ev (window, atom; the
 * first 2048 longs, not deleted): a held fetch. */
void wm_property_fetch_start(xcb_connection_t *c, const xcb_property_notify_event_t *ev);

/* Sends what wlroots reads when it pairs window: a GetProperty of each of
 * the n atoms (n <= WM_FETCH_PAIRING_MAX) and, if the X server has
 * X-Resource, the query of its client's pid. Held, or eager (offered at
 * once, replacing an eager one not taken). */
void wm_property_fetch_pairing(xcb_connection_t *c, xcb_window_t window, const xcb_atom_t *atoms,
		unsigned n, bool eager);

/* True once every reply (or error) of the held fetch is here; reads what
 * the socket has without waiting. */
bool wm_property_fetch_ready(xcb_connection_t *c);

/* The held fetch's replies are offered to the window manager's next
 * matching requests; replies offered earlier and not taken are freed. */
void wm_property_fetch_offer(void);

/* Replies the window manager took from fetches, so far. */
uint64_t wm_property_fetch_taken(void);

/* Replies the compositor waited for (GetProperty not fetched ahead: other
 * properties, reads nobody foresaw; a fetched reply asked before it came,
 * eager fetches' first), and the time it stood still in them, so far. */
uint64_t wm_property_fetch_waits(uint64_t *waited_ns);

/* Drops the replies offered and not taken, held or eager (wlroots has
 * handled what they were for); a held fetch under way stays. */
void wm_property_fetch_forget_offered(void);

/* Drops every fetch, held or eager, under way or offered (the connection
 * goes). */
void wm_property_fetch_forget(void);

#endif
