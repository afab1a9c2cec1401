/*
 * Keyboards: keymap, repeat, the compositor's bindings before clients
 * see a key, and which client gets the keys.
 */
#ifndef SMTWC_KEYBOARD_H
#define SMTWC_KEYBOARD_H

#include "compositor/server.h"

struct smtwc_keyboard {
	struct wl_list link; /* smtwc_server.keyboards */
	struct smtwc_server *server;
	struct wlr_input_device *device;

	struct wl_listener modifiers;
	struct wl_listener key;
	struct wl_listener destroy;
};

/* Physical keyboards get the configured keymap; virtual keyboards bring
 * their own (apply_keymap false). */
void keyboard_attach(
		struct smtwc_server *server, struct wlr_input_device *device, bool apply_keymap);
/* The modifiers currently held on any keyboard (for Mod+drag). */
uint32_t keyboard_modifiers(struct smtwc_server *server);
/* Keyboards whose keymap is set (a virtual keyboard's arrives after the
 * keyboard itself; wlroots then holds its keymap file). */
uint32_t keyboards_with_keymap(struct smtwc_server *server);

#endif
