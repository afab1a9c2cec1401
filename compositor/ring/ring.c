/*
 * smt_ring_manager_v1 and smt_ring_v1: setting up shared memory with a
 * client that is not trusted, and feeding its commands to the executor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "smt-ring-v1-protocol.h"
#include "compositor/server.h"
#include "compositor/ring/canvas.h"
#include "compositor/log_limit.h"
#include "compositor/ring/client_listen.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/shm_pool_usage.h"
#include "compositor/ring/object_usage.h"
#include "compositor/ring/surface_usage.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/ordered_request.h"
#include "compositor/ring/image_pool.h"
#include "compositor/ring/ring.h"
#include "compositor/ring/ring_workers.h"
#include "compositor/ring/shm_fd.h"
#include "compositor/ring/wake_fd.h"
#include "compositor/ring/submit_area.h"
#include "common/monotonic_clock.h"

static void ring_end(struct smtwc_ring *ring, uint32_t wl_error, const char *message);

/* Writes the client's eventfd; false when the write blocked (the client
 * cleared O_NONBLOCK and filled the count: it is ended for that). Safe on
 * a worker thread: no Wayland. */
static bool ring_wake_client_fd(struct smtwc_ring *ring)
{
	if (ring->client_eventfd < 0 || ring->wake_blocked) {
		return true;
	}
	switch (wake_fd_signal(ring->client_eventfd)) {
	case WAKE_FD_SENT:
		ring->wakeups_to_client++;
		if (ring->shared) {
			smt_ring_reader_count_wakeups(&ring->reader, 1, 0);
		}
		break;
	case WAKE_FD_BLOCKED:
		ring->wake_blocked = true;
		return false;
	case WAKE_FD_PENDING: /* the count is at its top: the client wakes */
	case WAKE_FD_FAILED:
		break;
	}
	return true;
}

static void ring_end_wake_blocked(struct smtwc_ring *ring)
{
	ring_end(ring, SMT_RING_V1_ERROR_BAD_FD,
			"client_eventfd blocked a wake-up: "
			"its O_NONBLOCK was cleared and its count is full");
}

static void ring_wake_client(struct smtwc_ring *ring)
{
	if (!ring_wake_client_fd(ring)) {
		ring_end_wake_blocked(ring);
	}
}

/* A client dies for a bad command at a safe point, not in the middle of the
 * loop that executes rings. */
static void ring_handle_kill(void *data)
{
	struct smtwc_ring *ring = data;
	ring->kill_source = NULL;
	wl_client_destroy(ring->client);
}

/* Ends the ring's client with a protocol error, at a safe point. */
static void ring_end(struct smtwc_ring *ring, uint32_t wl_error, const char *message)
{
	if (ring->dead) {
		return;
	}
	/* A worker may be running it (a submit's fault): it sees dead at its
	 * next piece. */
	ring_workers_lock_ring(ring);
	ring->dead = true;
	ring_workers_unlock_ring(ring);
	/* A client can fail and reconnect in a loop: its log is bounded. */
	static struct log_limit fail_log;
	uint64_t left_out;
	if (log_limit_allow(&fail_log, &left_out)) {
		wlr_log(WLR_INFO,
				"ring of client pid %d: %s (%llu ring errors not logged "
				"before)",
				(int)ring->pid, message, (unsigned long long)left_out);
	}
	/* What the client may see first (docs/protocol.md, "What a client
	 * sees first"), whichever thread found the fault: the error is queued
	 * on the connection before the status page says DEAD, so whatever the
	 * client sends after it saw DEAD is answered after the error (a round
	 * trip returns it); DEAD is stored before the error is sent, so a
	 * client that read the error sees DEAD. Then it is sent at once. */
	wl_resource_post_error(ring->resource, wl_error, "%s", message);
	ring_workers_lock_ring(ring);
	smt_ring_reader_publish_end(&ring->reader);
	/* a client blocked on a full ring sees DEAD (a second blocked write
	 * ends nothing more: dead is set) */
	ring_wake_client_fd(ring);
	ring_workers_unlock_ring(ring);
	wl_client_flush(ring->client);
	ring->kill_source = wl_event_loop_add_idle(
			wl_display_get_event_loop(ring->transport->server->display),
			ring_handle_kill, ring);
}

static void ring_fail(struct smtwc_ring *ring, const struct smt_exec_error *error)
{
	ring_end(ring, SMT_RING_V1_ERROR_BAD_COMMAND, error->message);
}

static void ring_publish_socket_counters(struct smtwc_ring *ring)
{
	if (ring->shared || ring->status == NULL) {
		return;
	}
	atomic_store_explicit(
			&ring->status->commands_executed, ring->commands, memory_order_relaxed);
	atomic_store_explicit(&ring->status->bytes_executed, ring->bytes, memory_order_relaxed);
}

/* Work the executor may run now: the stream stops at the next ordered
 * request's position (ordered_request.h). */
bool ring_has_work(struct smtwc_ring *ring)
{
	if (ring->dead) {
		return false;
	}
	if (ring->presenting != NULL || ordered_requests_ready(ring)) {
		return true;
	}
	return smt_ring_reader_has_work(&ring->reader);
}

/* A PRESENT's copy from the back image to the front buffer, in pieces
 * until deadline_ns (canvas.h), timed: it is the client's work whichever
 * thread does it (present_ns; exec_ns and the scheduler count it with the
 * run or the settle around it). */
static enum canvas_present_step ring_present_resume(
		struct smtwc_ring *ring, uint64_t deadline_ns, bool on_worker)
{
	if (ring->presenting == NULL) {
		return CANVAS_PRESENT_DONE;
	}
	uint64_t start = monotonic_now_ns();
	enum canvas_present_step step = canvas_present_resume(ring, deadline_ns, on_worker);
	ring->present_ns += monotonic_now_ns() - start;
	return step;
}

/* The counters of a run (either thread). */
static void ring_count(struct smtwc_ring *ring, struct smt_exec_result *out)
{
	if (ring->socket != NULL) {
		/* The PADs our writer added are not the client's commands. */
		uint64_t pads, pad_bytes;
		submit_area_pads_passed(ring->socket, &ring->reader, &pads, &pad_bytes);
		out->commands -= pads;
		out->bytes -= pad_bytes;
	}
	ring->commands += out->commands;
	ring->bytes += out->bytes;
}

static bool ring_account(
		struct smtwc_ring *ring, enum smt_exec_stop stop, struct smt_exec_result *out)
{
	ring_count(ring, out);
	if (out->wake_client) {
		ring_wake_client(ring);
	}
	if (out->fences > 0 && !ring->shared) {
		smt_ring_v1_send_fence(ring->resource, (uint32_t)(out->last_fence >> 32),
				(uint32_t)out->last_fence);
	}
	switch (stop) {
	case SMT_EXEC_PRESENT:
		canvas_present(ring, out->present.canvas_id, out->present.serial);
		return true;
	case SMT_EXEC_ERROR:
		ring_fail(ring, &out->error);
		return false;
	case SMT_EXEC_EMPTY:
	case SMT_EXEC_BUDGET:
		return false;
	}
	return false;
}

bool ring_run(struct smtwc_ring *ring, const struct smt_exec_budget *budget)
{
	if (ring->dead) {
		return false;
	}
	uint64_t start = monotonic_now_ns();
	ring->slices++;
	for (;;) {
		/* A PRESENT's copy first: the commands after it may already draw
		 * the next frame into the canvas, and requests after it (a resize
		 * or destroy of that canvas) wait for it like for any command. */
		if (ring_present_resume(ring, budget->deadline_ns, false) != CANVAS_PRESENT_DONE) {
			break;
		}
		struct smt_exec_result out;
		enum smt_exec_stop stop = smt_exec_run(ring->exec, &ring->reader, budget, &out);
		bool again = ring_account(ring, stop, &out);
		if (stop != SMT_EXEC_ERROR && ring->presenting == NULL) {
			/* Requests waiting for the commands that just ran. */
			ordered_requests_apply_ready(ring, budget->deadline_ns);
		}
		if (stop == SMT_EXEC_EMPTY) {
			/* The stream reached a request: what follows it may run. */
			again = ring_has_work(ring);
		}
		if (!again ||
				(budget->deadline_ns != 0 &&
						monotonic_now_ns() >= budget->deadline_ns)) {
			break;
		}
	}
	ring->exec_ns += monotonic_now_ns() - start;
	ring_publish_socket_counters(ring);
	return ring_has_work(ring);
}

/* ---- on worker threads (ring_workers.h) ------------------------------ */

/* A PRESENT's copy is the worker's too (canvas.h): the run goes on
 * after it in the same piece, as ring_run does, and the main thread only
 * damages the outputs and sends `presented` (canvases_take_posted). Handed
 * back, every PRESENT made the echo among flooders wait for the main
 * thread twice (docs/benchmarks.md, session 31). A piece stops at anything
 * for the main thread, so what it sends keeps the stream's order. */
bool ring_run_piece(struct smtwc_ring *ring, const struct smt_exec_budget *budget)
{
	struct ring_handoff *h = &ring->handoff;
	if (ring->dead) {
		return false;
	}
	uint64_t start = monotonic_now_ns();
	bool go_on = false;
	for (;;) {
		enum canvas_present_step step = ring_present_resume(
				ring, budget->deadline_ns, true);
		if (step == CANVAS_PRESENT_COPYING) {
			go_on = true;
			break;
		}
		if (step == CANVAS_PRESENT_FOR_MAIN) {
			h->present = true;
			break;
		}
		if (ordered_requests_ready(ring)) {
			/* (an ordered request the main thread queued since the
			 * pick, or one the stream reached after a PRESENT) */
			h->ordered = true;
			break;
		}
		struct smt_exec_result out;
		enum smt_exec_stop stop = smt_exec_run(ring->exec, &ring->reader, budget, &out);
		ring_count(ring, &out);
		if (out.wake_client && !ring_wake_client_fd(ring)) {
			h->wake_blocked = true;
		}
		if (out.fences > 0 && !ring->shared) {
			h->fence = true;
			h->last_fence = out.last_fence;
		}
		if (stop == SMT_EXEC_PRESENT) {
			canvas_present(ring, out.present.canvas_id, out.present.serial);
			if (ring_handoff_pending(ring)) {
				break;
			}
			if (smt_exec_budget_time_spent(budget, monotonic_now_ns())) {
				go_on = true;
				break;
			}
			continue;
		}
		switch (stop) {
		case SMT_EXEC_ERROR:
			h->error = true;
			h->error_detail = out.error;
			break;
		case SMT_EXEC_EMPTY:
			/* The stream reached a request, or the client's last command. */
			h->ordered = ordered_requests_ready(ring);
			break;
		case SMT_EXEC_BUDGET:
			go_on = true;
			break;
		case SMT_EXEC_PRESENT:
			break;
		}
		break;
	}
	ring->exec_ns += monotonic_now_ns() - start;
	ring_publish_socket_counters(ring);
	return go_on;
}

bool ring_handoff_pending(const struct smtwc_ring *ring)
{
	const struct ring_handoff *h = &ring->handoff;
	return h->error || h->wake_blocked || h->fence || h->present || h->ordered;
}

/* The main thread's part of a worker's run, in ring_run's order: the
 * client's wake-up failure and fence, its error or PRESENT, then the
 * PRESENT's copy and the ordered requests the stream reached. */
static bool ring_settle_steps(struct smtwc_ring *ring, uint64_t deadline_ns)
{
	struct ring_handoff *h = &ring->handoff;
	if (h->wake_blocked) {
		h->wake_blocked = false;
		ring_end_wake_blocked(ring);
	}
	if (h->fence) {
		h->fence = false;
		smt_ring_v1_send_fence(ring->resource, (uint32_t)(h->last_fence >> 32),
				(uint32_t)h->last_fence);
	}
	if (h->error) {
		h->error = false;
		ring_fail(ring, &h->error_detail);
	}
	h->present = false; /* (ring->presenting: resumed below) */
	h->ordered = false;
	if (ring->dead) {
		return true;
	}
	if (ring_present_resume(ring, deadline_ns, false) != CANVAS_PRESENT_DONE) {
		return false;
	}
	ordered_requests_apply_ready(ring, deadline_ns);
	return ring->presenting == NULL && !ordered_requests_ready(ring);
}

bool ring_settle(struct smtwc_ring *ring, uint64_t deadline_ns)
{
	uint64_t start = monotonic_now_ns();
	bool done = ring_settle_steps(ring, deadline_ns);
	/* The client's time, as inside ring_run (the scheduler's share of it
	 * is charged by ring_workers_settle). HANDED: no worker touches the
	 * counters until the main thread gives the ring back. */
	ring->exec_ns += monotonic_now_ns() - start;
	return done;
}

/* ---- socket submits --------------------------------------------------- */

static void ring_handle_submit(
		struct wl_client *client, struct wl_resource *resource, struct wl_array *commands)
{
	struct smtwc_ring *ring = wl_resource_get_user_data(resource);
	if (ring->dead || commands->size == 0) {
		return;
	}
	if (ring->socket == NULL) {
		/* One stream per ring: a shared ring's commands are in its memory. */
		wl_resource_post_error(resource, SMT_RING_V1_ERROR_BAD_COMMAND,
				"submit: this ring is in shared memory; write commands there");
		return;
	}
	/* Written only: the scheduler decides when this work runs. The area
	 * and its reader are the running worker's for one piece at most. */
	struct smt_fault fault;
	struct smt_exec_error error = { .code = SMT_ERROR_LIMIT, .opcode = 0xffff };
	struct smt_exec_result out;
	ring_workers_lock_ring(ring);
	enum submit_result result = submit_area_submit(
			ring->socket, &ring->reader, commands->data, commands->size, &fault);
	if (result == SUBMIT_FAULT) {
		smt_exec_fail(ring->exec, &ring->reader, &fault, &out);
	}
	ring_workers_unlock_ring(ring);
	switch (result) {
	case SUBMIT_OK:
		break;
	case SUBMIT_FAULT:
		ring_fail(ring, &out.error);
		break;
	case SUBMIT_TOO_MUCH:
		snprintf(error.message, sizeof(error.message),
				"submit: more than %u bytes pending (FENCE and wait)",
				SMT_SUBMIT_QUEUE_MAX);
		ring_fail(ring, &error);
		break;
	case SUBMIT_NO_MEMORY:
		wl_client_post_no_memory(client);
		break;
	}
}

/* ---- pools and canvases ----------------------------------------------- */

static void ring_handle_create_pool(struct wl_client *client, struct wl_resource *resource,
		uint32_t id, uint32_t pool_id, int32_t fd, uint32_t size)
{
	struct smtwc_ring *ring = wl_resource_get_user_data(resource);
	pool_create(ring, client, id, pool_id, fd, size);
	close(fd);
}

static void ring_handle_get_canvas(struct wl_client *client, struct wl_resource *resource,
		uint32_t id, uint32_t canvas_id, struct wl_resource *surface, uint32_t width,
		uint32_t height)
{
	struct smtwc_ring *ring = wl_resource_get_user_data(resource);
	canvas_create(ring, client, id, canvas_id, surface, width, height);
}

static void ring_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct smt_ring_v1_interface ring_impl = {
	.submit = ring_handle_submit,
	.create_pool = ring_handle_create_pool,
	.get_canvas = ring_handle_get_canvas,
	.destroy = ring_handle_destroy,
};

/* A ring's cost (ring_types.h) as the charges against the client. */
#define RING_CHARGES 5
static void ring_cost_charges(const struct ring_cost *cost, struct client_charge out[RING_CHARGES])
{
	out[0] = (struct client_charge){ SMT_RES_RINGS, 1 };
	out[1] = (struct client_charge){ SMT_RES_FDS, cost->fds };
	out[2] = (struct client_charge){ SMT_RES_MAPPINGS, cost->mappings };
	out[3] = (struct client_charge){ SMT_RES_ADDRESS, cost->address };
	out[4] = (struct client_charge){ SMT_RES_MEMORY, cost->memory };
}

static void ring_uncharge(struct smtwc_ring *ring)
{
	struct client_charge charges[RING_CHARGES];
	ring_cost_charges(&ring->cost, charges);
	client_usage_release_all(ring->usage, charges, RING_CHARGES);
	client_usage_unref(ring->usage);
}

static void ring_free(struct smtwc_ring *ring)
{
	struct smtwc_transport *transport = ring->transport;
	/* A worker's run ends first (at most its piece in progress). */
	ring_workers_forget(transport, ring); /* and off the list */
	if (transport->loop.spin_for == ring) {
		transport->loop.spin_for = NULL; /* its spin, if any, charged to nobody */
	}
	ordered_requests_discard(ring);
	canvases_ring_destroyed(ring);
	pools_ring_destroyed(ring);
	if (ring->kill_source != NULL) {
		wl_event_source_remove(ring->kill_source);
	}
	if (ring->wakeup_source != NULL) {
		wl_event_source_remove(ring->wakeup_source);
	}
	if (ring->exec != NULL) {
		/* Its pixmaps and table are freed in pieces, the heap trimmed. */
		heap_reclaim_add(&ring->transport->reclaims, ring->exec, ring->usage);
	}
	if (ring->shared) {
		smt_ring_reader_fini(&ring->reader);
	} else {
		submit_area_destroy(ring->socket, &ring->reader);
	}
	if (ring->ring_map != NULL) {
		/* Charged (a mapping and its address space) until it is gone. */
		heap_reclaim_add_mapping(&transport->reclaims, ring->ring_map, ring->ring_map_size,
				ring->usage, ring->ring_map_size);
		ring->cost.mappings -= 1;
		ring->cost.address -= ring->ring_map_size;
	}
	if (ring->status != NULL) {
		munmap(ring->status, SMT_STATUS_MAP_SIZE);
	}
	if (ring->status_fd >= 0) {
		close(ring->status_fd);
	}
	if (ring->server_eventfd >= 0) {
		close(ring->server_eventfd);
	}
	if (ring->client_eventfd >= 0) {
		close(ring->client_eventfd);
	}
	/* Last: the executor, pools and canvases released their share. */
	ring_uncharge(ring);
	pthread_mutex_destroy(&ring->exec_lock);
	free(ring);
}

static void ring_handle_resource_destroy(struct wl_resource *resource)
{
	ring_free(wl_resource_get_user_data(resource));
}

/* The client writes its server eventfd only when the status page says we
 * sleep: each read here is one real wakeup. */
static int ring_handle_wakeup(int fd, uint32_t mask, void *data)
{
	struct smtwc_ring *ring = data;
	uint64_t count = wake_fd_take(fd);
	if (count > 0) {
		/* A worker counts its wake-ups of the client in the same
		 * reader under the ring's lock (ThreadSanitizer, a compositor
		 * with workers: the two counts raced). A client writes this fd
		 * only while the server sleeps, so no worker holds it then. */
		ring_workers_lock_ring(ring);
		ring->wakeups_from_client += count;
		if (ring->shared) {
			smt_ring_reader_count_wakeups(&ring->reader, 0, count);
		}
		ring_workers_unlock_ring(ring);
	}
	if (mask & (WL_EVENT_HANGUP | WL_EVENT_ERROR)) {
		wl_event_source_remove(ring->wakeup_source);
		ring->wakeup_source = NULL;
	}
	return 0;
}

static bool is_eventfd(int fd)
{
	/* An eventfd reads and writes exactly 8 bytes and nothing else does
	 * that cheaply; the kernel names its file "anon_inode:[eventfd]". */
	char path[64], target[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0) {
		return false;
	}
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

static struct smtwc_ring *ring_create(struct smtwc_transport *transport, struct wl_client *client,
		struct wl_resource *manager, uint32_t id, const struct ring_cost *cost)
{
	struct smtwc_ring *ring = calloc(1, sizeof(*ring));
	struct smtwc_client_usage *usage = ring != NULL ? client_usage_ref(transport, client) :
							  NULL;
	if (usage == NULL) {
		free(ring);
		wl_client_post_no_memory(client);
		return NULL;
	}
	struct client_charge charges[RING_CHARGES];
	ring_cost_charges(cost, charges);
	if (!client_usage_charge_all(usage, charges, RING_CHARGES, manager,
			    SMT_RING_MANAGER_V1_ERROR_LIMIT, "create_ring")) {
		client_usage_unref(usage);
		free(ring);
		return NULL;
	}
	ring->usage = usage;
	ring->cost = *cost;
	ring->transport = transport;
	ring->client = client;
	ring->status_fd = ring->server_eventfd = ring->client_eventfd = -1;
	/* Nothing runs until the ring has its stream (create_ring's checks
	 * passed, or a socket ring's area exists): one that never gets it
	 * was refused with a protocol error and waits to be destroyed. */
	ring->dead = true;
	wl_list_init(&ring->pools);
	wl_list_init(&ring->canvases);
	wl_list_init(&ring->ordered);
	wl_list_init(&ring->handed_link);
	pthread_mutex_init(&ring->exec_lock, NULL);
	ring->run_state = RING_IDLE;
	wl_client_get_credentials(client, &ring->pid, NULL, NULL);
	ring_workers_lock(transport); /* (workers read the list of rings) */
	wl_list_insert(transport->rings.prev, &ring->link);
	ring->sched_client = smt_sched_client_add(transport->sched, ring, monotonic_now_ns());
	ring_workers_unlock(transport);
	ring->resource = wl_resource_create(
			client, &smt_ring_v1_interface, wl_resource_get_version(manager), id);
	if (ring->resource == NULL) {
		ring_workers_forget(transport, ring);
		pthread_mutex_destroy(&ring->exec_lock);
		ring_uncharge(ring);
		free(ring);
		wl_client_post_no_memory(client);
		return NULL;
	}
	wl_resource_set_implementation(
			ring->resource, &ring_impl, ring, ring_handle_resource_destroy);
	/* Pixmap memory counts against the client's and the total limit,
	 * over all its rings, instead of a limit per ring. */
	struct smt_exec_config exec_cfg;
	smt_exec_config_defaults(&exec_cfg);
	exec_cfg.max_pixmap_bytes = UINT64_MAX;
	exec_cfg.usage = &ring->usage->usage;
	ring->exec = smt_exec_create(&exec_cfg);
	void *status = NULL;
	ring->status_fd = smt_server_page_create("smtwc-ring-status", SMT_STATUS_MAP_SIZE, &status);
	if (ring->exec == NULL || ring->status_fd < 0) {
		wl_client_post_no_memory(client);
		return NULL;
	}
	ring->status = status;
	ring->status->magic = SMT_STATUS_MAGIC;
	ring->status->version = SMT_RING_VERSION;
	return ring;
}

static void manager_handle_create_ring(struct wl_client *client, struct wl_resource *resource,
		uint32_t id, int32_t ring_fd, uint32_t area_size, int32_t server_eventfd,
		int32_t client_eventfd)
{
	struct smtwc_transport *transport = wl_resource_get_user_data(resource);
	/* (a size out of range is refused as bad_size just after) */
	uint64_t mapped = SMT_STATUS_MAP_SIZE + SMT_RING_HEADER_SIZE +
			(area_size <= SMT_RING_AREA_MAX ? (uint64_t)area_size : 0);
	/* Every page of the area may become the compositor's: a PUT_IMAGE's
	 * pixels are read in place, and the client need not have written
	 * them (smt-hostile ring-holes: 8 rings of 16 MiB, 131 MiB of the
	 * compositor's RssShmem, none of it charged, before session 41). */
	const struct ring_cost cost = {
		.fds = 4, .mappings = 2, .address = mapped, .memory = mapped
	};
	struct smtwc_ring *ring = ring_create(transport, client, resource, id, &cost);
	if (ring == NULL) {
		close(ring_fd);
		close(server_eventfd);
		close(client_eventfd);
		return;
	}
	ring->server_eventfd = server_eventfd;
	ring->client_eventfd = client_eventfd;
	if (area_size < SMT_RING_AREA_MIN || area_size > SMT_RING_AREA_MAX ||
			(area_size & (area_size - 1)) != 0) {
		close(ring_fd);
		wl_resource_post_error(resource, SMT_RING_MANAGER_V1_ERROR_BAD_SIZE,
				"ring area size %u is not a power of two in [%u, %u]", area_size,
				SMT_RING_AREA_MIN, SMT_RING_AREA_MAX);
		return;
	}
	if (!is_eventfd(server_eventfd) || !is_eventfd(client_eventfd)) {
		close(ring_fd);
		wl_resource_post_error(resource, SMT_RING_MANAGER_V1_ERROR_BAD_EVENTFD,
				"create_ring: server_eventfd and client_eventfd must be eventfds");
		return;
	}
	if (wake_fd_is_semaphore(server_eventfd)) {
		close(ring_fd);
		wl_resource_post_error(resource, SMT_RING_MANAGER_V1_ERROR_BAD_EVENTFD,
				"create_ring: server_eventfd reads one count at a time "
				"(EFD_SEMAPHORE, or a full count): it would stay readable");
		return;
	}
	const char *why = NULL;
	size_t map_size = SMT_RING_HEADER_SIZE + (size_t)area_size;
	ring->ring_map = shm_fd_map_client(ring_fd, map_size, &why);
	close(ring_fd);
	if (ring->ring_map == NULL) {
		wl_resource_post_error(
				resource, SMT_RING_MANAGER_V1_ERROR_BAD_FD, "create_ring: %s", why);
		return;
	}
	ring->ring_map_size = map_size;
	if (smt_ring_reader_init(&ring->reader, ring->ring_map, map_size, area_size,
			    ring->status) != 0) {
		wl_client_post_no_memory(client);
		return;
	}
	/* DEAD after the protocol error: ring_end publishes it. */
	smt_ring_reader_defer_end(&ring->reader);
	/* Published under the workers' lock: a worker between pieces reads
	 * a shared ring's reader (ring_workers.c) once it sees shared. */
	ring_workers_lock(transport);
	ring->shared = true;
	ring->dead = false;
	ring_workers_unlock(transport);
	/* Non-blocking reads: the counter is drained whenever it fires. */
	int flags = fcntl(server_eventfd, F_GETFL);
	fcntl(server_eventfd, F_SETFL, flags | O_NONBLOCK);
	flags = fcntl(client_eventfd, F_GETFL);
	fcntl(client_eventfd, F_SETFL, flags | O_NONBLOCK);
	ring->wakeup_source = wl_event_loop_add_fd(
			wl_display_get_event_loop(transport->server->display), server_eventfd,
			WL_EVENT_READABLE, ring_handle_wakeup, ring);
	smt_ring_v1_send_status(ring->resource, ring->status_fd, transport->global_status_fd);
}

static void manager_handle_create_socket_ring(
		struct wl_client *client, struct wl_resource *resource, uint32_t id)
{
	struct smtwc_transport *transport = wl_resource_get_user_data(resource);
	const struct ring_cost cost = { .fds = 1,
		.mappings = 1,
		.address = SMT_STATUS_MAP_SIZE,
		.memory = SMT_STATUS_MAP_SIZE };
	struct smtwc_ring *ring = ring_create(transport, client, resource, id, &cost);
	if (ring == NULL) {
		return;
	}
	/* Its area is memory the client causes (submit_area.h). */
	struct smt_usage_refusal why = { .asked = 0 };
	ring->socket = submit_area_create(&ring->reader, &ring->usage->usage, &why);
	if (ring->socket == NULL && why.asked != 0) {
		char text[160];
		smt_usage_describe(&why, text, sizeof(text));
		wl_resource_post_error(resource, SMT_RING_MANAGER_V1_ERROR_LIMIT,
				"create_socket_ring: %s", text);
		return;
	}
	if (ring->socket == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	ring->dead = false;
	smt_ring_v1_send_status(ring->resource, ring->status_fd, transport->global_status_fd);
}

static void manager_handle_destroy(struct wl_client *client, struct wl_resource *resource)
{
	wl_resource_destroy(resource);
}

static const struct smt_ring_manager_v1_interface manager_impl = {
	.create_ring = manager_handle_create_ring,
	.create_socket_ring = manager_handle_create_socket_ring,
	.destroy = manager_handle_destroy,
};

void ring_manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id)
{
	struct wl_resource *resource = wl_resource_create(
			client, &smt_ring_manager_v1_interface, (int)version, id);
	if (resource == NULL) {
		wl_client_post_no_memory(client);
		return;
	}
	wl_resource_set_implementation(resource, &manager_impl, data, NULL);
}
