/*
 * The Wayland socket, accepted by the compositor itself instead of by
 * libwayland, so that a connection is charged before it is served and the
 * accept loop survives the fd limit: each new connection is created as a
 * client (client_usage.c charges its socket to its process and uid, SO_PEERCRED)
 * and ended at once, with an error naming the limit, when its account is
 * full; at the fd limit itself a spare descriptor is closed to accept and
 * close the connection, so the listening socket never stays readable and
 * the loop never spins. Logs of both are rate-limited with counts.
 */
#ifndef SMTWC_CLIENT_LISTEN_H
#define SMTWC_CLIENT_LISTEN_H

#include <stdint.h>

struct smtwc_transport;

/* Creates $XDG_RUNTIME_DIR/wayland-N (the first N whose lock is free) and
 * serves it; returns its name ("wayland-0"), NULL on failure. */
const char *client_listen_start(struct smtwc_transport *transport);
/* Removes the socket and its lock. */
void client_listen_stop(struct smtwc_transport *transport);

struct client_listen_stats {
	uint64_t accepted, refused, dropped_at_fd_limit;
	uint64_t wakeups; /* times the listening socket woke the loop */
};
void client_listen_stats(struct smtwc_transport *transport, struct client_listen_stats *out);

#endif
