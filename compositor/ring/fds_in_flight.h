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
 *
 * The other way too: fds the compositor sends a client (keymaps, the
 * pipes of clipboard and drag-and-drop transfers) sit in the socket's
 * queue until the client reads them, held by the kernel and counted
 * against the compositor's uid (past RLIMIT_NOFILE of them the kernel
 * refuses every further fd the compositor sends, to every client), and a
 * client that never reads lets them pile up as long as its socket takes
 * bytes. So the compositor's sendmsg counts the fds it sends to a watched
 * client as its "fds unread" (not as fds: the compositor's fd table no
 * longer holds them; capped per connection, client-fds-unread, and in
 * total below RLIMIT_NOFILE) until the client has read everything sent
 * (the socket's unread bytes, SIOCOUTQ, are 0: checked when the
 * compositor next sends to it or hears from it, so an idle client's last
 * fds may stay counted until then; a send refused above the connection
 * settles every other client's first). A send the account cannot take
 * fails, and libwayland disconnects the client (which reads nothing, so
 * the reason goes to the log, rate-limited).
 */
#ifndef SMTWC_FDS_IN_FLIGHT_H
#define SMTWC_FDS_IN_FLIGHT_H

#include <stdint.h>
#include <wayland-server-core.h>
#include "compositor/exec/resource_usage.h"

void fds_in_flight_init(struct wl_display *display);
void fds_in_flight_finish(void);
/* Counts what arrives on client socket `fd` against `usage`. */
void fds_in_flight_watch(int fd, struct wl_client *client, struct smt_usage *usage);
/* The client is going: releases what it still had in flight. */
void fds_in_flight_unwatch(int fd);
/* fds in flight on that socket now (statistics, tests). */
uint64_t fds_in_flight_count(int fd);

#endif
