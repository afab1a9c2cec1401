/*
 * Charging every wl_surface to the client that made it, bare or under a
 * canvas. A surface costs the compositor its wlroots state (a few KiB)
 * and, when its client goes, its share of libwayland's wl_client_destroy,
 * which frees every resource of the client at once in one event dispatch,
 * outside any budget of ours: 40 clients of 1,000 surfaces with canvases,
 * killed together, cost 23 ms of CPU there (issue 24). Nothing bounded
 * surfaces, so counted limits per connection, process and uid
 * (client-surfaces, process-surfaces, uid-surfaces) bound what one uid's
 * clients can make the others wait for when they go; a surface is also
 * charged its memory. A surface the account cannot take ends the client
 * with an error naming the limit. The compositor's own connection
 * (Xwayland's, serving every X client) is counted but never refused:
 * refusing it would end every X program.
 */
#ifndef SMTWC_SURFACE_USAGE_H
#define SMTWC_SURFACE_USAGE_H

#include <stdint.h>

struct smtwc_transport;

/* Memory a surface is charged: wlroots' surface with its states, our
 * record of it, and libwayland's resource with its map entry (an
 * estimate, as a canvas's bookkeeping is). */
#define SURFACE_USAGE_BYTES 1024u

void surface_usage_init(struct smtwc_transport *transport);
void surface_usage_finish(struct smtwc_transport *transport);
/* Of the memory charged, what windows' title bars hold (statistics:
 * every client with a decorated window has some). */
uint64_t surface_usage_frame_bytes(void);

#endif
