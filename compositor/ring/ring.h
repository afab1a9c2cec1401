/*
 * The Wayland side of smt-ring-v1: the manager global, rings, pools and the
 * shared pages. Command execution itself is compositor/exec (pure).
 */
#ifndef SMTWC_TRANSPORT_RING_H
#define SMTWC_TRANSPORT_RING_H

#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include "executor.h"
#include "resource_usage.h"
#include "ring_reader.h"
#include "sched.h"

struct smtwc_server;
struct smtwc_canvas;

struct smtwc_transport {
	struct smtwc_server *server;
	struct wl_global *global;
	struct smt_global_status *global_status;
	int global_status_fd;
	struct wl_list rings;    /* smtwc_ring.link */
	struct wl_list canvases; /* smtwc_canvas.link */
	struct smt_sched *sched;
	uint64_t sched_slice_ns;
	struct smt_usage total;  /* every client's usage (client_usage.h) */
	struct wl_list clients;  /* smtwc_client_usage.link */
	struct wl_list reclaims; /* heap_reclaim.link: gone rings' pixmaps */
	uint64_t sleeps, sleeps_avoided;
	/* The window system's events (server.h) that rings act on. */
	struct wl_listener output_frame;     /* canvas.c */
	struct wl_listener output_presented; /* canvas.c */
	struct wl_listener client_input;     /* sched/ring_loop.c */
};

struct smtwc_ring {
	struct wl_resource *resource;
	struct wl_client *client;
	struct smtwc_transport *transport;
	struct wl_list link; /* smtwc_transport.rings */
	pid_t pid;
	struct smt_sched_client *sched_client;
	struct smtwc_client_usage *usage; /* shared by the client's rings */
	uint32_t fds_charged;             /* status page, eventfds */

	bool shared;          /* false: fed only through submit */
	void *ring_map;       /* client memory, read-only */
	size_t ring_map_size;
	struct smt_ring_reader reader;
	struct smt_exec_ctx *exec;

	struct smt_ring_status *status; /* server page, client maps read-only */
	int status_fd;
	int server_eventfd, client_eventfd;
	struct wl_event_source *wakeup_source;

	/* Socket stream: a command may span submits; the tail of the last
	 * submit that is not a whole command waits here. */
	uint8_t *partial;
	size_t partial_len, partial_cap;

	struct wl_list pools;    /* smtwc_pool.link */
	struct wl_list canvases; /* smtwc_canvas.ring_link */
	struct wl_list ordered;  /* smtwc_ordered_request.link */
	int ordered_count;
	/* The canvas whose PRESENT is being copied, or NULL: until the copy
	 * is complete the ring runs nothing else (canvas.h). */
	struct smtwc_canvas *presenting;
	bool dead;
	struct wl_event_source *kill_source;

	/* Statistics (smtctl, smt-info). */
	uint64_t commands, bytes, exec_ns, slices;
	uint64_t wakeups_to_client, wakeups_from_client;
};

struct smtwc_transport *transport_create(struct smtwc_server *server);
void transport_destroy(struct smtwc_transport *transport);

/* Executes commands of one ring within the budget. Returns true when the
 * ring still has work. A PRESENT is shown once its copy, in bands under
 * the budget like any command, is complete. */
bool ring_run(struct smtwc_ring *ring, const struct smt_exec_budget *budget);
bool ring_has_work(struct smtwc_ring *ring);

#endif
