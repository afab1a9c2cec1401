#ifndef SMTWC_ACTIONS_H
#define SMTWC_ACTIONS_H

#include "server.h"

/* Runs what a key binding asks for. */
void action_run(struct smtwc_server *server, const struct smtwc_binding *binding);

#endif
