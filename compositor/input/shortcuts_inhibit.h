/*
 * Letting a VM or remote-desktop viewer with the keyboard receive the
 * compositor's own key combinations.
 */
#ifndef SMTWC_SHORTCUTS_INHIBIT_H
#define SMTWC_SHORTCUTS_INHIBIT_H

#include "compositor/server.h"

/* keyboard-shortcuts-inhibit: a remote desktop or VM viewer with the
 * keyboard gets the compositor's key combinations too. */
void shortcuts_inhibit_init(struct smtwc_server *server);
/* Whether the surface with keyboard focus has an active inhibitor. */
bool shortcuts_inhibited(struct smtwc_server *server);

#endif
