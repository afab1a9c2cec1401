/*
 * Window decorations (xdg-decoration) and focus requests (xdg-activation):
 * two small protocols that only set a view's state.
 */
#ifndef SMTWC_DECORATION_H
#define SMTWC_DECORATION_H

#include "compositor/server.h"

/* xdg-decoration: windows that ask for server-side decorations get borders. */
void decoration_handle_new(struct wl_listener *listener, void *data);
/* KDE server-decoration (GTK 3, Qt 5): the same, in that protocol. */
void decoration_handle_new_kde(struct wl_listener *listener, void *data);
/* xdg-activation: a client with a valid token may focus its window. */
void activation_handle_request(struct wl_listener *listener, void *data);

#endif
