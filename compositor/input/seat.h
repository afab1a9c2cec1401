/*
 * The seat: every input device, the cursor image, clipboard and
 * drag-and-drop, created in one place.
 */
#ifndef SMTWC_SEAT_H
#define SMTWC_SEAT_H

#include "compositor/server.h"

/* Creates the seat, the cursor and the input device listeners. */
void seat_init(struct smtwc_server *server);
void seat_finish(struct smtwc_server *server);

#endif
