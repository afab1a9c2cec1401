/*
 * Idle detection for idle daemons, and the inhibitors that hold it off.
 */
#ifndef SMTWC_IDLE_H
#define SMTWC_IDLE_H

#include "compositor/server.h"

/* The idle protocol (swayidle) and idle inhibitors (video players). An
 * inhibitor counts only while the window it belongs to can be seen:
 * re-checked on server->events.view_visibility. */
void idle_init(struct smtwc_server *server);
/* Any input from the user: idle timers start over. */
void idle_notify_activity(struct smtwc_server *server);
/* Whether an inhibitor currently holds idle off (for the control socket). */
bool idle_inhibited(struct smtwc_server *server);

#endif
