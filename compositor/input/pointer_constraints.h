/*
 * Pointer locking and confinement, and relative motion, for games, VMs
 * and remote desktops.
 */
#ifndef SMTWC_POINTER_CONSTRAINTS_H
#define SMTWC_POINTER_CONSTRAINTS_H

#include "compositor/server.h"

/* Pointer locking and confinement (games, VMs, remote desktops) and
 * relative motion for whoever has the pointer. */
void pointer_constraints_init(struct smtwc_server *server);
void pointer_constraints_finish(struct smtwc_server *server);
/* A motion of (dx, dy) in layout pixels is about to move the cursor:
 * shrinks it to what the active constraint allows (nothing while locked).
 * Returns whether it did. */
bool pointer_constraints_motion(struct smtwc_server *server, double *dx, double *dy);
/* The device's motion, whatever the cursor did, for the client that has the
 * pointer, once the cursor has moved; nothing when the motion took the
 * pointer into another surface (focus_before is the one it was on). That
 * jump is no motion inside the surface entered, and Xwayland 22 moves its
 * pointer by relative events when it gets them: sent with the enter, the
 * X pointer lands off by the whole jump and clicks miss their window. */
void pointer_constraints_send_relative(struct smtwc_server *server,
		struct wlr_surface *focus_before, uint32_t time_msec, double dx, double dy,
		double unaccel_dx, double unaccel_dy);

#endif
