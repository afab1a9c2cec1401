/*
 * Taskbars and docks (wlr-foreign-toplevel-management) see and control
 * the mapped windows through one handle per view.
 */
#ifndef SMTWC_FOREIGN_TOPLEVEL_H
#define SMTWC_FOREIGN_TOPLEVEL_H

#include "desktop/view.h"

/* wlr-foreign-toplevel-management: taskbars and docks list the mapped
 * windows and activate, minimize, maximize, fullscreen or close them. */
void foreign_toplevel_init(struct smtwc_server *server);
/* A window appeared: taskbars learn of it. */
void foreign_toplevel_map(struct smtwc_view *view);
void foreign_toplevel_unmap(struct smtwc_view *view);
/* Title, app id, states or output may have changed: tell taskbars what did. */
void foreign_toplevel_update(struct smtwc_view *view);

#endif
