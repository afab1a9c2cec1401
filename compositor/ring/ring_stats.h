/*
 * What the control socket shows of the ring transport (smtctl, like
 * xrestop), copied out: control/ reads these structs and nothing else of
 * the rings, pools, canvases or the scheduler, so their internals can
 * change without it (docs/architecture.md).
 */
#ifndef SMTWC_RING_STATS_H
#define SMTWC_RING_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "sched.h"

struct smtwc_transport;
struct wl_client;

struct smtwc_ring_stats {
	struct wl_client *client;
	pid_t pid;
	bool shared;                 /* false: fed only through submit */
	struct smt_sched_stats sched;
	uint64_t slices, exec_ns, commands, bytes;
	uint64_t wakeups_from_client, wakeups_to_client;
	uint64_t ring_bytes, pool_bytes, canvas_bytes, pixmap_bytes, pixmaps;
	uint64_t table_bytes;        /* the drawable table itself */
	/* The connection's whole usage, shared by its rings (limits). */
	uint64_t client_fds, client_rings, client_pools, client_memory;
	uint64_t client_canvases;
};

struct smtwc_transport_stats {
	int rings;
	uint64_t sleeps, sleeps_avoided, spins, spins_found_work;
	/* Every client's usage together, and its caps (limits). */
	uint64_t total_fds, total_fds_max, total_memory, total_memory_max;
	/* Gone rings' teardown in pieces (heap_reclaim.h): what waits, the
	 * pieces run and the items finished. */
	uint64_t reclaim_items, reclaim_bytes, reclaim_pieces, reclaim_done;
};

void transport_stats(struct smtwc_transport *transport, struct smtwc_transport_stats *out);
/* Calls fn with each ring's statistics, in the transport's order. */
void transport_for_each_ring_stats(struct smtwc_transport *transport,
	void (*fn)(const struct smtwc_ring_stats *stats, void *data), void *data);

#endif
