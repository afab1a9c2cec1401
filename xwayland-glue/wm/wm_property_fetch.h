/*
 * A client window's property fetched for wlroots' window manager before
 * it asks (docs/x11.md, "The window manager's events").
 *
 * wlroots 0.15 answers a PropertyNotify on a client's window with
 * xcb_get_property and then waits in xcb_get_property_reply: the
 * compositor's main loop stands still until Xwayland gets round to the
 * window manager's connection, which under a flooding X client is after
 * that client's slice (measured: another Wayland client's round trip
 * p99 0.1 -> 5-6 ms during a title flood). The pacer (wm_event_pacer.c)
 * therefore sends the same GetProperty itself when such an event is next
 * to hand out, holds the event until the reply has come (the loop runs
 * meanwhile), and then hands both out: the compositor defines
 * xcb_get_property and xcb_get_property_reply, and the window manager's
 * next identical request is answered with the reply already there.
 * Everything else passes through to libxcb.
 *
 * The value is at least as new as the event (fetched after it came), as
 * wlroots' own read would be. One fetch at a time, events stay in order.
 */
#ifndef SMT_WM_PROPERTY_FETCH_H
#define SMT_WM_PROPERTY_FETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <xcb/xcb.h>

/* Sends the GetProperty wlroots would send for ev (window, atom; the
 * first 2048 longs, not deleted). */
void wm_property_fetch_start(xcb_connection_t *c, const xcb_property_notify_event_t *ev);

/* A fetch is under way (started, not yet handed out). */
bool wm_property_fetch_pending(void);

/* True once the fetch's reply (or error) is here; reads what the socket
 * has without waiting. */
bool wm_property_fetch_ready(xcb_connection_t *c);

/* The reply that came is offered to the window manager's next matching
 * GetProperty; one offered earlier and not taken is freed. */
void wm_property_fetch_offer(void);

/* Replies the window manager took from a fetch, so far. */
uint64_t wm_property_fetch_taken(void);

/* GetProperty replies the compositor waited for (not read ahead: other
 * properties, deletions, reads when a window appears), and the time it
 * stood still in them, so far. */
uint64_t wm_property_fetch_waits(uint64_t *waited_ns);

/* Drops a fetch under way and an offer not taken (the connection goes,
 * or a new turn starts after wlroots had its chance). */
void wm_property_fetch_forget(void);

#endif
