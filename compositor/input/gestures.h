/*
 * Touchpad gestures, passed through to the client under the pointer.
 */
#ifndef SMTWC_GESTURES_H
#define SMTWC_GESTURES_H

#include "compositor/server.h"

/* Touchpad swipe, pinch and hold gestures, passed to the client under the
 * pointer (pointer-gestures-unstable-v1). */
void gestures_init(struct smtwc_server *server);
void gestures_finish(struct smtwc_server *server);

#endif
