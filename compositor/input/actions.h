/*
 * What key bindings do, kept apart from the keyboard so that a binding's
 * effect is one function per action.
 */
#ifndef SMTWC_ACTIONS_H
#define SMTWC_ACTIONS_H

#include "compositor/server.h"

/* Runs what a key binding asks for. */
void action_run(struct smtwc_server *server, const struct smtwc_binding *binding);

#endif
