/*
 * Drawing tablets: tablet-v2 for clients that bind it, an emulated
 * pointer for the rest.
 */
#ifndef SMTWC_TABLET_H
#define SMTWC_TABLET_H

#include "compositor/server.h"

/* Drawing tablets: tablet-v2 to clients that bind it (GIMP, Krita through
 * GTK/Qt), the pointer emulated for the others. */
void tablet_init(struct smtwc_server *server);
void tablet_finish(struct smtwc_server *server);
/* A tablet was plugged in. */
void tablet_attach(struct smtwc_server *server, struct wlr_input_device *device);
/* A tablet's pad (its buttons, rings and strips) was plugged in: as in sway,
 * its events go to the keyboard focus when that client speaks tablet-v2. */
void tablet_pad_attach(struct smtwc_server *server, struct wlr_input_device *device);

#endif
