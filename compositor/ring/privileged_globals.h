/*
 * Globals that let a client watch or drive the whole session (capture the
 * screen, read the clipboard at any time, type or point into any window,
 * list and close others' windows, cover the screen, change the outputs,
 * see who is idle, watch every text field) are hidden from a client that
 * runs confined: in another mount or user namespace than the compositor's,
 * or under another root directory (flatpak, snap, bubblewrap, a chroot).
 * Such a sandbox keeps a program from the user's files; without this, the
 * Wayland socket handed into it gave it the screen and the keyboard.
 * An unconfined client of the same uid could read our memory through
 * /proc anyway, so it keeps them (grim, wayvnc, wl-clipboard, wtype).
 * docs/reliability.md, "Confined clients".
 */
#ifndef SMTWC_PRIVILEGED_GLOBALS_H
#define SMTWC_PRIVILEGED_GLOBALS_H

#include <stdbool.h>
#include <wayland-server-core.h>

/* Whether a global of this interface is privileged (the list above). */
bool privileged_interface(const char *name);

/* Hides the privileged globals from confined clients: a global filter on
 * the display, judging each client by its record (client_usage.h); a
 * client with no record is treated as confined. */
void privileged_globals_init(struct wl_display *display);

#endif
