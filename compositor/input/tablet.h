/*
 * Drawing tablets: tablet-v2 for clients that bind it, an emulated
 * pointer for the rest.
 */
#ifndef SMTWC_TABLET_H
#define SMTWC_TABLET_H

#include "server.h"

/* Drawing tablets: tablet-v2 to clients that bind it (GIMP, Krita through
 * GTK/Qt), the pointer emulated for the others. */
void tablet_init(struct smtwc_server *server);
void tablet_finish(struct smtwc_server *server);
/* A tablet was plugged in. */
void tablet_attach(struct smtwc_server *server, struct wlr_input_device *device);

#endif
