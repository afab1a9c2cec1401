/*
 * X applications in the session: Xwayland started lazily on the first X
 * connection, X toplevels managed as views, override-redirect windows
 * (menus, tooltips) shown where X puts them, above every window.
 */
#ifndef SMTWC_XWAYLAND_H
#define SMTWC_XWAYLAND_H

#include <stdbool.h>

struct smtwc_server;

/* Sets DISPLAY for everything the compositor launches afterwards. */
bool xwayland_init(struct smtwc_server *server);
void xwayland_finish(struct smtwc_server *server);

#endif
