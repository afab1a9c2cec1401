/*
 * fds in flight: descriptors a client sent that libwayland has read into
 * its connection's buffer but not yet handed to a request (a message that
 * never completes parks them there, up to about a thousand per
 * connection). libwayland 1.21 neither counts nor bounds them, so the
 * compositor watches both ends: its recvmsg (which libwayland calls
 * through the PLT) counts the fds each client socket delivers and charges
 * them to the client's account as fds, and a protocol logger gives them
 * back when a request carrying them is dispatched (its handler then owns
 * them, and charges what it keeps). A delivery the account cannot take is
 * closed at once and the client disconnected with an error naming the
 * limit. Main thread only, like libwayland's dispatch.
 */
#ifndef SMTWC_FDS_IN_FLIGHT_H
#define SMTWC_FDS_IN_FLIGHT_H

#include <stdint.h>
#include <wayland-server-core.h>
#include "resource_usage.h"

void fds_in_flight_init(struct wl_display *display);
void fds_in_flight_finish(void);
/* Counts what arrives on client socket `fd` against `usage`. */
void fds_in_flight_watch(int fd, struct wl_client *client, struct smt_usage *usage);
/* The client is going: releases what it still had in flight. */
void fds_in_flight_unwatch(int fd);
/* fds in flight on that socket now (statistics, tests). */
uint64_t fds_in_flight_count(int fd);

#endif
