#ifndef SMTWC_POINTER_CONSTRAINTS_H
#define SMTWC_POINTER_CONSTRAINTS_H

#include "server.h"

/* Pointer locking and confinement (games, VMs, remote desktops) and
 * relative motion for whoever has the pointer. */
void pointer_constraints_init(struct smtwc_server *server);
void pointer_constraints_finish(struct smtwc_server *server);
/* A motion of (dx, dy) in layout pixels is about to move the cursor: sends
 * it as relative motion to the client under the pointer, and shrinks it to
 * what the active constraint allows (nothing while locked). Returns whether
 * it did. */
bool pointer_constraints_motion(struct smtwc_server *server, uint32_t time_msec,
	double *dx, double *dy, double unaccel_dx, double unaccel_dy);

#endif
