/*
 * Screens turned off and on by idle daemons (DPMS through
 * wlr-output-power-management).
 */
#ifndef SMTWC_OUTPUT_POWER_H
#define SMTWC_OUTPUT_POWER_H

#include "compositor/server.h"

/* wlr-output-power-management: idle daemons turn screens off and on. */
void output_power_init(struct smtwc_server *server);

#endif
