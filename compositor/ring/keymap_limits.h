/*
 * Virtual keyboards' keymaps (zwp_virtual_keyboard_v1.keymap) made safe,
 * bounded and charged to the client that sent them, and the keymaps their
 * keys make the compositor send to every client bounded.
 *
 * wlroots 0.15's handler maps the client's fd at the size the client
 * declares and compiles the text with xkb_keymap_new_from_string, which
 * runs strlen over it; then the keyboard keeps the compiled keymap, the
 * keymap as text again and a memfd of it (an fd of the compositor's) for
 * as long as it lives. So, before this module: a file shorter than its
 * declared size was a SIGBUS that ended the compositor; a file with no NUL
 * in a whole number of pages read past the mapping; any size and any
 * number of `include` statements (each a file of the system's xkb data to
 * read and parse) was compiled on the main loop; and a client's thousands
 * of virtual keyboards each held their keymaps' memory and an fd, counted
 * nowhere (only client-objects bounded them).
 *
 * A protocol logger looks at each keymap request before wlroots' handler
 * runs (as core_request_limits.h does for core requests). It reads the
 * client's file with pread (a file that shrinks meanwhile gives a short
 * read, never a signal) into a memfd of ours, NUL-terminated, and puts
 * that in place of the client's descriptor (dup2 onto its number): wlroots
 * maps and compiles our copy. Refused, with wl_display's implementation
 * error naming the request and the limit and a rate-limited log line:
 * a format other than xkb_v1; a size of 0 or past `keymap-bytes`; an fd
 * that is not a regular file, or one on a filesystem whose reads can wait
 * on another process or the network (FUSE, NFS, SMB, 9p, Ceph, AFS); a
 * file shorter than declared; more files named by include statements
 * than `keymap-includes`; a keyboard's first keymap past `client-keymaps`
 * keyboards with a keymap on the connection; the memory and the fd past
 * the client's account; a keymap of a uid whose keymaps already kept the
 * main loop compiling `keymap-compile-ms` milliseconds in the last second
 * (the main thread's CPU time from this logger to wlroots' keymap signal,
 * or to the end of a client whose keymap did not compile). A refused
 * request's descriptor is replaced by /dev/null, which cannot be mapped,
 * so the handler that still runs (a logger cannot stop it) fails at once
 * and compiles nothing.
 *
 * A key or modifiers request on a virtual keyboard that is not the
 * seat's makes it the seat's keyboard, and wlroots then sends its keymap
 * (an fd) to every client's wl_keyboard: a uid's virtual keyboards may do
 * that `keyboard-switches` times a second; past it the client is ended.
 *
 * Each keyboard with a keymap is charged one fd (its memfd) and its
 * memory: an estimate from the declared size at the request, made exact
 * from the compiled keymap's text when wlroots announces it (what an
 * include pulls in is only known then; charged past the limits then, so
 * the client's next request meets the full account), all given back with
 * the keyboard. The compositor's own connection is charged, and refused
 * only what no keymap may be (a bad file, a size or includes past the
 * limits).
 */
#ifndef SMTWC_KEYMAP_LIMITS_H
#define SMTWC_KEYMAP_LIMITS_H

struct smtwc_transport;

void keymap_limits_init(struct smtwc_transport *transport);
void keymap_limits_finish(struct smtwc_transport *transport);

#endif
