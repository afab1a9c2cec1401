/*
 * Screen locking at wlroots 0.15: while a locker holds the input
 * inhibitor, input goes to nobody else (every place that gives focus asks
 * here).
 */
#ifndef SMTWC_INPUT_INHIBIT_H
#define SMTWC_INPUT_INHIBIT_H

#include "compositor/server.h"

/* wlr-input-inhibitor: a screen locker (swaylock at wlroots 0.15) takes all
 * input for its own client until it lets go (seat.c gives focus back then:
 * this module knows no windows). */
void input_inhibit_init(struct smtwc_server *server);
/* Whether input may go to this surface: always, unless a locker holds
 * input and the surface is not one of its own. */
bool input_inhibit_allows(struct smtwc_server *server, struct wlr_surface *surface);
bool input_inhibit_allows_client(struct smtwc_server *server, struct wl_client *client);
/* Whether a locker holds input now (compositor key bindings are off). */
bool input_inhibit_active(struct smtwc_server *server);

#endif
