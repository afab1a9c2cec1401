/*
 * The longest string one Wayland event carries, and where to cut a longer
 * one. libwayland sends a message of at most 4096 bytes, its 8-byte
 * header included; a string argument takes a 4-byte length and its bytes
 * with a NUL, padded to 4. An event longer than that is never sent:
 * libwayland fails it ("Data too big for buffer") and disconnects the
 * client it was for. A Wayland client's strings fit (its requests have the
 * same bound), but X clients' reach us through wlroots' X window manager
 * unbounded by it: WM_NAME and WM_CLASS of up to 8 KB, atom names (MIME
 * types) of up to 64 KB. Red team, session 28: an X window with an 8 KB
 * title ended every taskbar, a 5 KB MIME type every client offered the
 * selection.
 *
 * Header only, pure.
 */
#ifndef SMTWC_WAYLAND_STRING_H
#define SMTWC_WAYLAND_STRING_H

#include <stddef.h>
#include <string.h>

/* For an event whose only argument is the string (a title, an app id, a
 * MIME type offered): 8 + 4 + 4084 = 4096. */
#define WAYLAND_STRING_MAX_BYTES 4083

/* How many bytes of s one event carries: all of it, or at most
 * WAYLAND_STRING_MAX_BYTES cut before a UTF-8 continuation byte, so that
 * a character is never split. */
static inline size_t wayland_string_fit(const char *s)
{
	size_t len = strnlen(s, WAYLAND_STRING_MAX_BYTES + 1);
	if (len <= WAYLAND_STRING_MAX_BYTES) {
		return len;
	}
	len = WAYLAND_STRING_MAX_BYTES;
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80) {
		len--;
	}
	return len;
}

#endif
