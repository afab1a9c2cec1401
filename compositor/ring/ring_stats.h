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
#include "compositor/exec/resource_usage.h"
#include "compositor/sched/sched.h"

struct smtwc_transport;
struct wl_client;

struct smtwc_ring_stats {
	struct wl_client *client;
	pid_t pid;
	bool shared; /* false: fed only through submit */
	struct smt_sched_stats sched;
	/* A worker's run in progress (ring_workers_run_ns_locked): not in
	 * sched.run_ns before it ends, its copies in present_ns already. */
	uint64_t run_ns;
	/* exec_ns: the ring's commands, PRESENTs' copies and ordered
	 * requests on any thread; present_ns: the copies of it. */
	uint64_t slices, exec_ns, present_ns, commands, bytes;
	uint64_t wakeups_from_client, wakeups_to_client;
	uint64_t ring_bytes, pool_bytes, canvas_bytes, pixmap_bytes, pixmaps;
	uint64_t table_bytes; /* the drawable table itself */
	/* The ring's pages charged as memory (ring_types.h, ring_cost). */
	uint64_t ring_memory_bytes;
	/* Its clip and last PRESENT's damage, charged as memory (session 42). */
	uint64_t region_bytes;
	/* The connection's whole usage, shared by its rings (limits). */
	uint64_t client_fds, client_rings, client_pools, client_memory;
	uint64_t client_canvases;
	/* Its wl_surfaces, and the memory charged for them (surface_usage.h). */
	uint64_t client_surfaces, client_surface_bytes;
	/* The memory charged for its Wayland objects (object_usage.h: the
	 * fixed part, windows' rest not included) and for the connection
	 * itself (client_usage.h). */
	uint64_t client_object_bytes, client_connection_bytes;
};

struct smtwc_transport_stats {
	int rings;
	uint64_t sleeps, sleeps_avoided, spins, spins_found_work;
	/* Every client's usage together, and its caps (limits). */
	uint64_t total_fds, total_fds_max, total_memory, total_memory_max;
	/* Of total_memory, what the wl_surfaces are charged (surface_usage.h):
	 * every ordinary client has some, rings or not. */
	uint64_t total_surface_bytes;
	/* Of total_memory, what every Wayland object is charged (the fixed
	 * part, object_usage.h) and every connection (client_usage.h):
	 * every client has some. */
	uint64_t total_object_bytes, total_connection_bytes;
	/* And windows' title bars (surface_usage.h). */
	uint64_t total_frame_bytes;
	uint64_t total_shm_record_bytes; /* wl_shm pools' and buffers' records */
	/* Gone rings' teardown in pieces (heap_reclaim.h): what waits, the
	 * pieces run and the items finished. */
	uint64_t reclaim_items, reclaim_bytes, reclaim_pieces, reclaim_done;
	/* The same for every resource (resource_usage.h), by enum smt_resource. */
	uint64_t total_used[SMT_RES_COUNT], total_max[SMT_RES_COUNT];
	/* The Wayland socket's accept (client_listen.h). */
	uint64_t connections_accepted, connections_refused, connections_dropped_at_fd_limit;
	uint64_t accept_wakeups;
	/* Ring worker threads running (0: the main thread runs the rings),
	 * their runs and the runs handed back to the main thread. */
	unsigned worker_threads;
	uint64_t worker_runs, worker_handoffs, worker_preempts, worker_reported;
	uint64_t worker_spins, worker_spins_found, worker_spins_skipped;
	/* input whose publish workers watched for, and their short pieces */
	uint64_t worker_watches, worker_watch_pieces;
	/* runs on the boost lane's thread */
	uint64_t worker_lane_runs;
	/* the workers' writes of the main thread's eventfd, and of those the
	 * ones for a PRESENT they posted (present_post.h) */
	uint64_t worker_main_wakeups, worker_posted_wakeups;
	uint64_t worker_posted_for_frame; /* posts left to a coming frame */
	/* PRESENTs workers copied and posted; those left to the main thread
	 * because the ring's outbox was full */
	uint64_t presents_posted, presents_refused;
	/* the main thread's waits for a ring a worker held (ring_workers.h) */
	uint64_t worker_main_lock_waits, worker_main_lock_wait_ns, worker_main_lock_wait_max_ns;
};

/* One account: a connection, a process or a uid (client_usage.h). */
struct smtwc_account_stats {
	enum smt_usage_level level;
	long id; /* pid (connection, process) or uid */
	long uid;
	uint64_t used[SMT_RES_COUNT], max[SMT_RES_COUNT];
};
/* Calls fn with each uid's, then each process's, then each connection's
 * account. */
void transport_for_each_account(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_account_stats *stats, void *data), void *data);

void transport_stats(struct smtwc_transport *transport, struct smtwc_transport_stats *out);
/* Calls fn with each ring's statistics, in the transport's order. */
void transport_for_each_ring_stats(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_ring_stats *stats, void *data), void *data);

#endif
