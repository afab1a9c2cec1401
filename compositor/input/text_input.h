/*
 * Input methods: the relay between text fields (text-input-v3) and one
 * input method (input-method-v2).
 */
#ifndef SMTWC_TEXT_INPUT_H
#define SMTWC_TEXT_INPUT_H

#include "compositor/server.h"

/* Input methods: text-input-v3 (what GTK and Qt speak from a text field)
 * relayed to and from one input-method-v2 client (fcitx5, an on-screen
 * keyboard), as sway's input method relay does. */
void text_input_init(struct smtwc_server *server);
void text_input_finish(struct smtwc_server *server);
/* The input method's keyboard grab, if it has one and keys from this
 * device must go to it (not the input method's own virtual keyboard, and
 * not while a screen locker holds input). */
struct wlr_input_method_keyboard_grab_v2 *text_input_keyboard_grab(
		struct smtwc_server *server, struct wlr_input_device *device);

#endif
