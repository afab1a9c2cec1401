/*
 * The pointer: where motion and buttons go, and the compositor's own
 * interactive moves and resizes.
 */
#ifndef SMTWC_CURSOR_H
#define SMTWC_CURSOR_H

#include "compositor/server.h"

void cursor_init(struct smtwc_server *server);
void cursor_finish(struct smtwc_server *server);
void cursor_attach_pointer(struct smtwc_server *server, struct wlr_input_device *device);

/* Starts an interactive move or resize of a view with the pointer. Client
 * requests pass from_client and are honoured only while a button is down on
 * that window, as the protocol intends. */
void cursor_begin_interactive(struct smtwc_server *server, struct smtwc_view *view,
		enum smtwc_cursor_mode mode, uint32_t edges, bool from_client);
/* What a motion or a button of the pointer does, for devices that emulate
 * one (tablet tools over clients without tablet support). */
void cursor_process_motion(struct smtwc_server *server, uint32_t time_msec);
void cursor_process_button(struct smtwc_server *server, uint32_t time_msec, uint32_t button,
		enum wlr_button_state state);
/* Re-sends pointer focus after the scene changed under a still cursor. */
void cursor_refocus(struct smtwc_server *server, uint32_t time_msec);

#endif
