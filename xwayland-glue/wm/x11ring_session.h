/*
 * X requests through the ring for the whole session (docs/x11.md): the
 * compositor names smt-xwayland as wlroots' Xwayland (so the server half is
 * in it), preloads the client shim into everything it launches, and answers
 * the discovery socket that tells a client's shim "this X server has the
 * stream half" before its Xwayland has even started.
 */
#ifndef SMTWC_X11RING_SESSION_H
#define SMTWC_X11RING_SESSION_H

#include <stdbool.h>
#include <wayland-server-core.h>

struct x11ring_session;

/* Before wlr_xwayland_create. NULL (and a logged reason) when the launcher
 * or the shim is missing: X programs then use the socket as before. */
struct x11ring_session *x11ring_session_create(struct wl_event_loop *loop);
void x11ring_session_destroy(struct x11ring_session *s);

#endif
