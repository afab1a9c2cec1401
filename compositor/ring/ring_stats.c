/*
 * Copies the transport's counters into ring_stats.h's structs for the
 * control socket, so that control/ knows no ring internals.
 */
#include <wayland-server-core.h>
#include "compositor/ring/canvas.h"
#include <string.h>
#include "compositor/ring/client_listen.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/image_pool.h"
#include "compositor/ring/object_usage.h"
#include "compositor/ring/ring_types.h"
#include "compositor/ring/ring_stats.h"
#include "compositor/ring/shm_pool_usage.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/ring/surface_usage.h"
#include "common/monotonic_clock.h"

void transport_stats(struct smtwc_transport *transport, struct smtwc_transport_stats *out)
{
	/* Worker threads charge the accounts meanwhile: a copy under their lock. */
	uint64_t used[SMT_RES_COUNT], max[SMT_RES_COUNT];
	smt_usage_read(&transport->total, used, max);
	*out = (struct smtwc_transport_stats){
		.rings = wl_list_length(&transport->rings),
		.sleeps = transport->loop.sleeps,
		.sleeps_avoided = transport->loop.sleeps_avoided,
		.spins = transport->loop.spins,
		.spins_found_work = transport->loop.spins_found_work,
		.total_fds = used[SMT_RES_FDS],
		.total_fds_max = max[SMT_RES_FDS],
		.total_memory = used[SMT_RES_MEMORY],
		.total_memory_max = max[SMT_RES_MEMORY],
		.total_surface_bytes = used[SMT_RES_SURFACES] * SURFACE_USAGE_BYTES,
		.total_object_bytes = used[SMT_RES_OBJECTS] * OBJECT_USAGE_BYTES,
		.total_connection_bytes = used[SMT_RES_CONNECTIONS] * CONNECTION_USAGE_BYTES,
		.total_frame_bytes = surface_usage_frame_bytes(),
		.total_shm_record_bytes = shm_pool_usage_record_bytes(),
		.reclaim_items = transport->reclaims.pending_items,
		.reclaim_bytes = transport->reclaims.pending_bytes,
		.reclaim_pieces = transport->reclaims.pieces,
		.reclaim_done = transport->reclaims.items_done,
	};
	memcpy(out->total_used, used, sizeof(out->total_used));
	memcpy(out->total_max, max, sizeof(out->total_max));
	struct client_listen_stats l;
	client_listen_stats(transport, &l);
	out->connections_accepted = l.accepted;
	out->connections_refused = l.refused;
	out->connections_dropped_at_fd_limit = l.dropped_at_fd_limit;
	out->accept_wakeups = l.wakeups;
	struct ring_workers_stats w;
	ring_workers_stats(transport->workers, &w);
	out->worker_threads = w.threads;
	out->worker_runs = w.runs;
	out->worker_handoffs = w.handoffs;
	out->worker_preempts = w.preempts;
	out->worker_lane_runs = w.lane_runs;
	out->worker_reported = w.reported;
	out->worker_main_wakeups = w.main_wakeups;
	out->worker_posted_wakeups = w.posted_wakeups;
	out->worker_posted_for_frame = w.posted_for_frame;
	pthread_mutex_lock(&transport->presents.lock);
	out->presents_posted = transport->presents.posted;
	out->presents_refused = transport->presents.refused;
	pthread_mutex_unlock(&transport->presents.lock);
	out->worker_spins = w.spins;
	out->worker_spins_found = w.spins_found;
	out->worker_spins_skipped = w.spins_skipped;
	out->worker_watches = w.watches;
	out->worker_watch_pieces = w.watch_pieces;
	out->worker_main_lock_waits = w.main_lock_waits;
	out->worker_main_lock_wait_ns = w.main_lock_wait_ns;
	out->worker_main_lock_wait_max_ns = w.main_lock_wait_max_ns;
}

struct account_walk {
	void (*fn)(const struct smtwc_account_stats *stats, void *data);
	void *data;
};

static void account_of(const struct smt_usage *u, long id, long uid, struct account_walk *walk)
{
	struct smtwc_account_stats st = { .level = u->level, .id = id, .uid = uid };
	smt_usage_read(u, st.used, st.max);
	walk->fn(&st, walk->data);
}

static void group_account(const struct smtwc_usage_group *g, void *data)
{
	long uid = g->id;
	if (g->usage.level == SMT_LEVEL_PROCESS) {
		const struct smtwc_usage_group *u = wl_container_of(g->usage.parent, u, usage);
		uid = u->id;
	}
	account_of(&g->usage, g->id, uid, data);
}

void transport_for_each_account(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_account_stats *stats, void *data), void *data)
{
	struct account_walk walk = { fn, data };
	client_usage_for_each_group(transport, group_account, &walk);
	struct smtwc_client_usage *cu;
	wl_list_for_each (cu, &transport->clients, link) {
		if (cu->client != NULL) {
			account_of(&cu->usage, (long)cu->pid, (long)cu->uid, &walk);
		}
	}
}

void transport_for_each_ring_stats(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_ring_stats *stats, void *data), void *data)
{
	struct smtwc_ring *ring;
	wl_list_for_each (ring, &transport->rings, link) {
		uint64_t u[SMT_RES_COUNT];
		smt_usage_read(&ring->usage->usage, u, NULL);
		/* A worker may be running it: its counters and executor are
		 * read between two pieces. */
		ring_workers_lock_ring(ring);
		struct smtwc_ring_stats st = {
			.client = ring->client,
			.pid = ring->pid,
			.shared = ring->shared,
			.slices = ring->slices,
			.exec_ns = ring->exec_ns,
			.present_ns = ring->present_ns,
			.commands = ring->commands,
			.bytes = ring->bytes,
			.wakeups_from_client = ring->wakeups_from_client,
			.wakeups_to_client = ring->wakeups_to_client,
			.ring_bytes = ring->ring_map_size,
			.pool_bytes = pools_mapped_bytes(ring),
			.canvas_bytes = canvases_bytes(ring),
			.pixmap_bytes = smt_exec_pixmap_bytes(ring->exec),
			.pixmaps = smt_exec_pixmap_count(ring->exec),
			.table_bytes = smt_exec_table_bytes(ring->exec),
			.ring_memory_bytes = ring->cost.memory,
			.region_bytes = smt_exec_region_bytes(ring->exec) +
					atomic_load(&ring->present_region_bytes),
			.client_fds = u[SMT_RES_FDS],
			.client_rings = u[SMT_RES_RINGS],
			.client_pools = u[SMT_RES_POOLS],
			.client_memory = u[SMT_RES_MEMORY],
			.client_canvases = u[SMT_RES_CANVASES],
			.client_surfaces = u[SMT_RES_SURFACES],
			.client_surface_bytes = u[SMT_RES_SURFACES] * SURFACE_USAGE_BYTES,
			.client_object_bytes = u[SMT_RES_OBJECTS] * OBJECT_USAGE_BYTES,
			.client_connection_bytes = u[SMT_RES_CONNECTIONS] * CONNECTION_USAGE_BYTES,
		};
		ring_workers_unlock_ring(ring);
		ring_workers_lock(transport);
		uint64_t now = monotonic_now_ns();
		smt_sched_client_stats(transport->sched, ring->sched_client, now, &st.sched);
		st.run_ns = ring_workers_run_ns_locked(ring, now);
		ring_workers_unlock(transport);
		fn(&st, data);
	}
}
