/*
 * The structs of smt-ring-v1's Wayland side, alone: the transport (the
 * manager global and everything it counts) and a ring. Every ring object
 * (canvas, pool, ordered request, client usage) and the scheduler's
 * main-loop half read and change them; only ring.c creates and runs them
 * (ring.h). Kept apart so that using a ring's fields does not make a
 * module depend on ring.c, which creates the others.
 */
#ifndef SMTWC_RING_TYPES_H
#define SMTWC_RING_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include "compositor/exec/executor.h"
#include "compositor/exec/resource_usage.h"
#include "compositor/exec/ring_reader.h"
#include "compositor/ring/present_post.h"
#include "compositor/ring/ring_loop_state.h"
#include "compositor/sched/sched.h"

struct smtwc_server;
struct smtwc_canvas;
struct submit_area;
struct ring_workers;

/* What gone rings leave, freed in pieces (ring/heap_reclaim.h). */
struct heap_reclaim_queue {
	struct wl_list items; /* heap_reclaim.link, oldest first */
	/* What is waiting (bytes: memory still allocated or mapped), and
	 * the pieces run and items finished so far: the control socket
	 * shows them, so a test can tell that another client was served
	 * while a teardown was still in progress. */
	uint64_t pending_items, pending_bytes;
	uint64_t pieces, items_done;
	uint64_t untrimmed; /* heap freed since the last malloc_trim */
};

struct smtwc_transport {
	struct smtwc_server *server;
	struct wl_global *global;
	struct smt_global_status *global_status;
	int global_status_fd;
	struct wl_list rings;             /* smtwc_ring.link */
	struct wl_list canvases_pending;  /* smtwc_canvas.pending_link */
	struct wl_list canvases_inflight; /* smtwc_canvas.inflight_link */
	struct smt_sched *sched;
	struct smt_usage total;             /* every client's usage (client_usage.h) */
	struct wl_list clients;             /* smtwc_client_usage.link */
	struct heap_reclaim_queue reclaims; /* what gone rings leave, freed in pieces */
	struct wl_list processes, uids;     /* smtwc_usage_group.link */
	struct wl_listener client_created;  /* client_usage.c: charges the socket */
	struct smtwc_client_listen *listen; /* the Wayland socket (client_listen.h) */
	struct ring_loop_state loop;        /* ring/ring_loop.c */
	/* Worker threads that run rings' commands ([scheduler] workers;
	 * NULL: the main thread runs them, ring/ring_workers.h). */
	struct ring_workers *workers;
	/* PRESENTs workers copied, for the main thread to show (canvas.c) */
	struct present_post presents;
	/* The window system's events (server.h) that rings act on. */
	struct wl_listener output_frame;     /* canvas.c */
	struct wl_listener output_presented; /* canvas.c */
};

/* Where a ring is with the worker threads (ring/ring_workers.h; changed
 * under the workers' lock). */
enum ring_run_state {
	RING_IDLE,    /* nobody runs it: the scheduler may pick it */
	RING_RUNNING, /* a worker runs its commands */
	RING_HANDED,  /* a run stopped for the main thread (ring_handoff) */
};

/* What a worker's run leaves for the main thread: Wayland events and
 * errors, and a PRESENT a worker cannot finish (docs/architecture.md,
 * "Threads"). */
struct ring_handoff {
	bool error;        /* a bad command: error holds it */
	bool wake_blocked; /* the client's eventfd blocked a wake-up */
	bool fence;        /* a socket ring's FENCE: last_fence */
	/* ring->presenting needs the main thread (its outbox was full, or the
	 * renderer is not pixman's: canvas_present_resume) */
	bool present;
	bool ordered; /* the stream reached an ordered request */
	/* Not a handoff (the run goes on): a PRESENT was posted to an empty
	 * post (present_post.h), so a sleeping main thread must be woken. */
	bool posted;
	struct smt_exec_error error_detail;
	uint64_t last_fence;
};

/* What a ring keeps, charged with it: fds (its status page; for a shared
 * ring also the two eventfds and the event loop's dup of the server's)
 * and mappings (the status page; for a shared ring its area too) with
 * their address space; and as memory the pages of those mappings the
 * compositor may make resident: the status page it writes, and a shared
 * ring's header and area, whose pages the client need not have written
 * (a read of a hole through the mapping creates the page in the
 * compositor; docs/reliability.md, "Counted, session 41"). */
struct ring_cost {
	uint64_t fds, mappings, address, memory;
};

struct smtwc_ring {
	struct wl_resource *resource;
	struct wl_client *client;
	struct smtwc_transport *transport;
	struct wl_list link; /* smtwc_transport.rings */
	pid_t pid;
	struct smt_sched_client *sched_client;
	struct smtwc_client_usage *usage; /* shared by the client's rings */
	struct ring_cost cost;            /* charged with the ring (ring.c) */
	/* PRESENT damage taken from the executor with its charge, while its
	 * copy runs or it waits in the outbox (canvas.c): smtctl's
	 * region_bytes with the executor's. */
	atomic_uint_fast64_t present_region_bytes;

	bool shared;    /* false: fed only through submit */
	void *ring_map; /* client memory, read-only */
	size_t ring_map_size;
	/* The one command stream: the client's ring, or (a socket ring) the
	 * area its submits are written into. */
	struct smt_ring_reader reader;
	struct submit_area *socket; /* socket rings only (ring/submit_area.h) */
	struct smt_exec_ctx *exec;

	struct smt_ring_status *status; /* server page, client maps read-only */
	int status_fd;
	int server_eventfd, client_eventfd;
	struct wl_event_source *wakeup_source;

	struct wl_list pools;    /* smtwc_pool.link */
	struct wl_list canvases; /* smtwc_canvas.ring_link */
	struct wl_list ordered;  /* smtwc_ordered_request.link */
	int ordered_count;
	/* The canvas whose PRESENT is being copied, or NULL: until the copy
	 * is complete the ring runs nothing else (canvas.h). */
	struct smtwc_canvas *presenting;
	/* PRESENTs a worker copied, waiting for the main thread (canvas.c;
	 * guarded by transport->presents' lock) */
	struct present_outbox outbox;
	bool dead;
	/* its eventfd blocked a wake-up (wake_fd.h): never written again */
	bool wake_blocked;
	struct wl_event_source *kill_source;

	/* Threads (docs/architecture.md "Threads"): a worker holds
	 * exec_lock for one piece of a run; the main thread takes it before
	 * it touches the stream or the executor (requests, stats). run_state
	 * and handed_link are the workers' lock's; stop_run asks a worker to
	 * end its run after the piece (the ring is being freed). */
	pthread_mutex_t exec_lock;
	enum ring_run_state run_state;
	/* The client's head when the main thread last looked at an idle
	 * shared ring: workers wake it only for a head it has not seen. */
	uint64_t head_seen;
	/* When input was first sent to this idle ring since its last publish
	 * seen or its last rest (0: none): its watch runs RING_WORKERS_WATCH_NS
	 * from there, however much more input comes, then rests
	 * (ring_workers_watch_locked; the workers' lock's). */
	uint64_t watch_since_ns;
	atomic_bool stop_run;
	/* Raised by the main thread (under the workers' lock) while a worker
	 * runs the ring and a more favoured ready ring waits for a worker:
	 * the piece ends at the executor's next clock check. */
	atomic_bool yield_run;
	/* The main thread is waiting for exec_lock (ring_workers_lock_ring):
	 * a worker running the ring lets it in before it takes the lock for
	 * its next piece. */
	atomic_uint main_waiting;
	/* When the worker's run in progress began (RUNNING): charged to the
	 * client from there when it ends (statistics show it meanwhile). */
	uint64_t run_start_ns;
	struct wl_list handed_link; /* ring_workers.handed */
	struct ring_handoff handoff;
	/* fifo: bytes run in the turn that handoffs paused (the running
	 * worker's, ring_workers.c). */
	uint64_t fifo_turn_bytes;

	/* Statistics (smtctl, smt-info). exec_ns: time spent on the ring's
	 * commands, PRESENTs' copies and ordered requests, on any thread;
	 * present_ns: of that, the copies (canvas_present_resume). */
	uint64_t commands, bytes, exec_ns, present_ns, slices;
	uint64_t wakeups_to_client, wakeups_from_client;
};

#endif
