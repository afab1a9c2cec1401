/*
 * The X ring's two local endpoints besides the X socket (docs/x11.md,
 * "Trust model"): discovery (the compositor: "this session's X server may
 * serve rings") and statistics (the server half: `smt-x11run --stats`).
 *
 * Both are unix sockets in $XDG_RUNTIME_DIR, which must be a directory of
 * our own uid that nobody else may enter (mode 0700): another uid can then
 * neither connect to them nor bind their names first. Every connection is
 * also checked with SO_PEERCRED, each side checking the other, so that a
 * loosened directory still gives another uid nothing.
 *
 *   discovery   $XDG_RUNTIME_DIR/smtwc-x11ring-<key>
 *   statistics  $XDG_RUNTIME_DIR/smtwc-x11ring-<key>.stats
 *
 * <key> is the pid SO_PEERCRED reports for the X socket: the compositor,
 * which created Xwayland's listening sockets and exports it to Xwayland as
 * SMT_X11RING_KEY.
 */
#ifndef SMT_X11RING_ENDPOINT_H
#define SMT_X11RING_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define X11RING_ENDPOINT_DISCOVERY ""
#define X11RING_ENDPOINT_STATS ".stats"

/* The endpoint's path, or false (with why) when $XDG_RUNTIME_DIR is unset,
 * not ours, open to others or too long for a socket name. */
bool x11ring_endpoint_path(
		const char *kind, long key, char *path, size_t n, char *why, size_t why_n);

/* Binds and listens (non-blocking, close-on-exec). A socket file nobody
 * listens on any more (a previous run of the same pid) is replaced; one
 * somebody still listens on is left alone and reported in why (with that
 * process's pid and uid): -1. */
int x11ring_endpoint_listen(const char *kind, long key, char *why, size_t why_n);

/* Connects (blocking, close-on-exec) and checks that the listener runs as
 * our uid: -1 otherwise (why says which). peer_pid may be NULL. */
int x11ring_endpoint_connect(const char *kind, long key, pid_t *peer_pid, char *why, size_t why_n);

/* Whether the process at the other end of a connected unix socket runs as
 * our effective uid. */
bool x11ring_peer_is_us(int fd, struct ucred *cred);

#endif
