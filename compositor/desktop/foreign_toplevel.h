/*
 * Taskbars and docks (wlr-foreign-toplevel-management) see and control
 * the mapped windows through one handle per view.
 */
#ifndef SMTWC_FOREIGN_TOPLEVEL_H
#define SMTWC_FOREIGN_TOPLEVEL_H

#include "compositor/desktop/view.h"

/* wlr-foreign-toplevel-management: taskbars and docks list the mapped
 * windows and activate, minimize, maximize, fullscreen or close them.
 * Follows server->events.view_map, view_unmap and view_change: a mapped
 * window gets a handle, an unmapped one loses it, a change is sent. */
void foreign_toplevel_init(struct smtwc_server *server);
/* Title, app id, states or output may have changed: tell taskbars what did. */
void foreign_toplevel_update(struct smtwc_view *view);

#endif
