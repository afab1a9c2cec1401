/*
 * Accounting of what each client holds, by connection, process and uid,
 * against the [limits] settings and the compositor's total
 * (client_usage.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "compositor/fd_limit.h"
#include "compositor/log_limit.h"
#include "compositor/server.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/fds_in_flight.h"
#include "compositor/ring/process_confined.h"
#include "compositor/ring/ring_types.h"

/* fds this process may still open for clients: the soft limit, raised to
 * the hard one, less the headroom kept for the compositor's own files. */
static uint64_t fd_budget(int headroom)
{
	rlim_t cur = fd_limit_raise();
	uint64_t soft = cur == RLIM_INFINITY ? 1u << 20 : cur;
	/* A headroom above the limit itself still leaves clients a half. */
	return soft > (uint64_t)headroom + 64 ? soft - (uint64_t)headroom : soft / 2;
}

/* fds sent to clients and not read by them yet. The kernel counts them
 * against this uid's fds in flight, and refuses every process of the uid
 * an fd-carrying send (ETOOMANYREFS: a wl_shm pool, a D-Bus or PipeWire
 * fd) while that count is past the process's own RLIMIT_NOFILE; root is
 * exempt. Programs run with the soft limit the compositor started with
 * (1024 on most desktops), so the compositor keeps its part to a quarter
 * of that: as an ordinary user, 20 clients not reading 55 keymaps each
 * (below client-fds-unread) made weston-simple-shm's first pool fail. */
static uint64_t unread_budget(uint64_t fd_total)
{
	rlim_t started = fd_limit_started_with();
	uint64_t quarter = started == RLIM_INFINITY ? fd_total : (uint64_t)started / 4;
	return quarter < fd_total ? quarter : fd_total;
}

static void client_usage_handle_client_created(struct wl_listener *listener, void *data);

/* One line per confined connection, at most a few a second. */
static struct log_limit confined_log;

/* Limits of 0: none at that level. */
static const struct smtwc_limits_config unlimited;

/* A connection's socket and the event loop's dup of it. */
#define SOCKET_FDS 2

void client_usage_init_total(struct smtwc_transport *transport)
{
	const struct smtwc_limits_config *c = &transport->server->config.limits;
	struct smt_usage *total = &transport->total;
	*total = (struct smt_usage){ .level = SMT_LEVEL_TOTAL };
	total->max[SMT_RES_FDS] = fd_budget(c->fd_headroom);
	total->max[SMT_RES_FDS_UNREAD] = unread_budget(total->max[SMT_RES_FDS]);
	/* A client's first keymap still goes when others filled the rest. */
	total->reserve[SMT_RES_FDS_UNREAD] = (uint64_t)c->client_fds_unread;
	total->max[SMT_RES_MEMORY] = (uint64_t)c->total_memory_mib << 20;
	total->max[SMT_RES_MAPPINGS] = (uint64_t)c->total_mappings;
	total->max[SMT_RES_ADDRESS] = (uint64_t)c->total_address_space_mib << 20;
	total->max[SMT_RES_CONNECTIONS] = (uint64_t)c->total_connections;
	total->reserve[SMT_RES_MEMORY] = (uint64_t)c->first_window_reserve_mib << 20;
	total->reserve[SMT_RES_ADDRESS] = (uint64_t)c->first_window_reserve_mib << 20;
	total->reserve[SMT_RES_FDS] = (uint64_t)c->first_window_reserve_fds;
	total->reserve[SMT_RES_MAPPINGS] = (uint64_t)c->first_window_reserve_fds;
	wl_list_init(&transport->processes);
	wl_list_init(&transport->uids);
	fds_in_flight_init(transport->server->display);
	transport->client_created.notify = client_usage_handle_client_created;
	wl_display_add_client_created_listener(
			transport->server->display, &transport->client_created);
	wlr_log(WLR_INFO,
			"client limits: %d fds, %d rings, %d pools, %d canvases, %d surfaces, "
			"%d MiB, %d mappings each; per process %d connections, %d fds, %d MiB, "
			"%d canvases, %d surfaces; per uid %d canvases, %d surfaces; %llu fds (%llu "
			"unread by clients), %d MiB, %d mappings, %d connections in total, %d MiB and %d "
			"fds kept for first windows",
			c->client_fds, c->client_rings, c->client_pools, c->client_canvases,
			c->client_surfaces, c->client_memory_mib, c->client_mappings,
			c->process_connections, c->process_fds, c->process_memory_mib,
			c->process_canvases, c->process_surfaces, c->uid_canvases, c->uid_surfaces,
			(unsigned long long)total->max[SMT_RES_FDS],
			(unsigned long long)total->max[SMT_RES_FDS_UNREAD], c->total_memory_mib,
			c->total_mappings, c->total_connections, c->first_window_reserve_mib,
			c->first_window_reserve_fds);
}

void client_usage_finish(struct smtwc_transport *transport)
{
	wl_list_remove(&transport->client_created.link);
	fds_in_flight_finish();
}

/* The account of pid or uid `id` (under `parent`: a pid reused by another
 * uid is another process) in `list`, created on first use. A walk
 * once per connection, not per request: the list is as long as the
 * processes (uids) that hold connections, which total-connections bounds. */
static struct smtwc_usage_group *group_ref(struct smtwc_transport *transport, struct wl_list *list,
		long id, enum smt_usage_level level, struct smt_usage *parent)
{
	struct smtwc_usage_group *g;
	wl_list_for_each (g, list, link) {
		if (g->id == id && g->usage.parent == parent) {
			g->refs++;
			return g;
		}
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		return NULL;
	}
	const struct smtwc_limits_config *c = &transport->server->config.limits;
	g->id = id;
	g->refs = 1;
	g->usage.level = level;
	g->usage.parent = parent;
	if (level == SMT_LEVEL_PROCESS) {
		g->usage.max[SMT_RES_CONNECTIONS] = (uint64_t)c->process_connections;
		g->usage.max[SMT_RES_FDS] = (uint64_t)c->process_fds;
		g->usage.max[SMT_RES_MEMORY] = (uint64_t)c->process_memory_mib << 20;
		g->usage.max[SMT_RES_MAPPINGS] = (uint64_t)c->process_mappings;
		g->usage.max[SMT_RES_ADDRESS] = (uint64_t)c->process_address_space_mib << 20;
		g->usage.max[SMT_RES_CANVASES] = (uint64_t)c->process_canvases;
		g->usage.max[SMT_RES_SURFACES] = (uint64_t)c->process_surfaces;
		g->usage.max[SMT_RES_OBJECTS] = (uint64_t)c->process_objects;
	} else {
		g->usage.max[SMT_RES_CONNECTIONS] = (uint64_t)c->uid_connections;
		g->usage.max[SMT_RES_FDS] = (uint64_t)c->uid_fds;
		g->usage.max[SMT_RES_MEMORY] = (uint64_t)c->uid_memory_mib << 20;
		g->usage.max[SMT_RES_MAPPINGS] = (uint64_t)c->uid_mappings;
		g->usage.max[SMT_RES_ADDRESS] = (uint64_t)c->uid_address_space_mib << 20;
		/* A newcomer of the uid keeps the total's reserve here too:
		 * with the uid at its limit, its first window still fits. */
		g->usage.reserve[SMT_RES_MEMORY] = (uint64_t)c->first_window_reserve_mib << 20;
		g->usage.reserve[SMT_RES_ADDRESS] = (uint64_t)c->first_window_reserve_mib << 20;
		g->usage.reserve[SMT_RES_FDS] = (uint64_t)c->first_window_reserve_fds;
		g->usage.reserve[SMT_RES_MAPPINGS] = (uint64_t)c->first_window_reserve_fds;
		/* Every client of a desktop shares its uid: the last few of
		 * these are kept for a process's first windows. */
		g->usage.max[SMT_RES_CANVASES] = (uint64_t)c->uid_canvases;
		g->usage.max[SMT_RES_SURFACES] = (uint64_t)c->uid_surfaces;
		g->usage.max[SMT_RES_OBJECTS] = (uint64_t)c->uid_objects;
		g->usage.reserve[SMT_RES_OBJECTS] = (uint64_t)c->first_window_reserve_objects;
		g->usage.reserve[SMT_RES_CANVASES] = (uint64_t)c->first_window_reserve_surfaces;
		g->usage.reserve[SMT_RES_SURFACES] = (uint64_t)c->first_window_reserve_surfaces;
	}
	wl_list_insert(list->prev, &g->link);
	return g;
}

static void group_unref(struct smtwc_usage_group *g)
{
	if (g == NULL || --g->refs > 0) {
		return;
	}
	if (g->usage.level == SMT_LEVEL_PROCESS && g->usage.parent != NULL) {
		group_unref(wl_container_of(g->usage.parent, g, usage));
	}
	wl_list_remove(&g->link);
	free(g);
}

static void client_usage_handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_client_usage *cu = wl_container_of(listener, cu, client_destroy);
	wl_list_remove(&cu->client_destroy.link);
	wl_list_init(&cu->client_destroy.link);
	/* libwayland closes the fds still in its buffer and the socket right
	 * after this signal. */
	if (cu->socket_fd >= 0) {
		fds_in_flight_unwatch(cu->socket_fd);
		cu->socket_fd = -1;
	}
	if (cu->socket_charged) {
		smt_usage_release(&cu->usage, SMT_RES_FDS, SOCKET_FDS);
		smt_usage_release(&cu->usage, SMT_RES_CONNECTIONS, 1);
		smt_usage_release(&cu->usage, SMT_RES_MEMORY, CONNECTION_USAGE_BYTES);
		cu->socket_charged = false;
	}
	cu->client = NULL;
	client_usage_unref(cu);
}

static struct smtwc_client_usage *client_usage_create(
		struct smtwc_transport *transport, struct wl_client *client)
{
	struct smtwc_client_usage *cu = calloc(1, sizeof(*cu));
	if (cu == NULL) {
		return NULL;
	}
	wl_client_get_credentials(client, &cu->pid, &cu->uid, NULL);
	struct smtwc_usage_group *uid = group_ref(transport, &transport->uids, (long)cu->uid,
			SMT_LEVEL_UID, &transport->total);
	cu->process = uid != NULL ? group_ref(transport, &transport->processes, (long)cu->pid,
						    SMT_LEVEL_PROCESS, &uid->usage) :
				    NULL;
	if (cu->process == NULL) {
		group_unref(uid);
		free(cu);
		return NULL;
	}
	if (cu->process->refs > 1) {
		group_unref(uid); /* the process account holds its uid already */
	}
	const struct smtwc_limits_config *c = &transport->server->config.limits;
	/* A connection the compositor made itself (wlroots' socketpair for
	 * Xwayland: its peer credentials are ours) serves every X client:
	 * counted, but under the total's limits only. */
	bool own = cu->pid == getpid();
	if (own) {
		c = &unlimited;
		memset(cu->process->usage.max, 0, sizeof(cu->process->usage.max));
	}
	char why[64];
	uint64_t left_out = 0;
	cu->confined = process_confined("/proc", "self", cu->pid, why, sizeof(why));
	if (cu->confined && log_limit_allow(&confined_log, &left_out)) {
		wlr_log(WLR_INFO,
				"client pid %d runs confined (%s): privileged globals hidden "
				"(%llu such not logged before)",
				(int)cu->pid, why, (unsigned long long)left_out);
	}
	cu->transport = transport;
	cu->client = client;
	cu->refs = 1; /* the client's, until it goes */
	cu->socket_fd = -1;
	cu->usage.level = SMT_LEVEL_CLIENT;
	cu->usage.parent = &cu->process->usage;
	cu->usage.max[SMT_RES_FDS] = (uint64_t)c->client_fds;
	cu->usage.max[SMT_RES_FDS_IN_FLIGHT] = (uint64_t)c->client_fds_in_flight;
	cu->usage.max[SMT_RES_FDS_UNREAD] = (uint64_t)c->client_fds_unread;
	cu->usage.max[SMT_RES_RINGS] = (uint64_t)c->client_rings;
	cu->usage.max[SMT_RES_POOLS] = (uint64_t)c->client_pools;
	cu->usage.max[SMT_RES_CANVASES] = (uint64_t)c->client_canvases;
	cu->usage.max[SMT_RES_SURFACES] = (uint64_t)c->client_surfaces;
	cu->usage.max[SMT_RES_OBJECTS] = (uint64_t)c->client_objects;
	cu->usage.max[SMT_RES_MEMORY] = (uint64_t)c->client_memory_mib << 20;
	cu->usage.max[SMT_RES_MAPPINGS] = (uint64_t)c->client_mappings;
	cu->usage.max[SMT_RES_ADDRESS] = (uint64_t)c->client_address_space_mib << 20;
	cu->client_destroy.notify = client_usage_handle_client_destroy;
	wl_client_add_destroy_listener(client, &cu->client_destroy);
	wl_list_insert(&transport->clients, &cu->link);
	return cu;
}

/* Every new connection: its socket is a connection of its process and two
 * fds (libwayland's event source for the client holds a dup of it), and
 * libwayland's buffers are memory. A refusal is kept in `refused` for the
 * accept path (client_listen.c), which ends the client with it. */
static void client_usage_handle_client_created(struct wl_listener *listener, void *data)
{
	struct smtwc_transport *transport = wl_container_of(listener, transport, client_created);
	struct wl_client *client = data;
	struct smtwc_client_usage *cu = client_usage_create(transport, client);
	if (cu == NULL) {
		return;
	}
	struct smt_usage_refusal why;
	if (!smt_usage_charge(&cu->usage, SMT_RES_CONNECTIONS, 1, &why)) {
		smt_usage_describe(&why, cu->refused, sizeof(cu->refused));
		return;
	}
	if (!smt_usage_charge(&cu->usage, SMT_RES_FDS, SOCKET_FDS, &why)) {
		smt_usage_release(&cu->usage, SMT_RES_CONNECTIONS, 1);
		smt_usage_describe(&why, cu->refused, sizeof(cu->refused));
		return;
	}
	if (!smt_usage_charge(&cu->usage, SMT_RES_MEMORY, CONNECTION_USAGE_BYTES, &why)) {
		smt_usage_release(&cu->usage, SMT_RES_FDS, SOCKET_FDS);
		smt_usage_release(&cu->usage, SMT_RES_CONNECTIONS, 1);
		smt_usage_describe(&why, cu->refused, sizeof(cu->refused));
		return;
	}
	cu->socket_charged = true;
	cu->socket_fd = wl_client_get_fd(client);
	fds_in_flight_watch(cu->socket_fd, client, &cu->usage);
}

struct smtwc_client_usage *client_usage_find(struct wl_client *client)
{
	struct wl_listener *l = wl_client_get_destroy_listener(
			client, client_usage_handle_client_destroy);
	if (l == NULL) {
		return NULL;
	}
	struct smtwc_client_usage *cu = wl_container_of(l, cu, client_destroy);
	return cu;
}

struct smtwc_client_usage *client_usage_ref(
		struct smtwc_transport *transport, struct wl_client *client)
{
	struct smtwc_client_usage *cu = client_usage_find(client);
	if (cu == NULL) {
		/* A client created before the transport listened. */
		cu = client_usage_create(transport, client);
		if (cu == NULL) {
			return NULL;
		}
	}
	cu->refs++;
	return cu;
}

struct smtwc_client_usage *client_usage_hold(struct smtwc_client_usage *cu)
{
	if (cu != NULL) {
		cu->refs++;
	}
	return cu;
}

void client_usage_unref(struct smtwc_client_usage *cu)
{
	if (cu == NULL || --cu->refs > 0) {
		return;
	}
	wl_list_remove(&cu->client_destroy.link);
	wl_list_remove(&cu->link);
	group_unref(cu->process);
	free(cu);
}

bool client_usage_charge(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n,
		struct wl_resource *resource, uint32_t code, const char *request)
{
	struct smt_usage_refusal why;
	if (smt_usage_charge(&cu->usage, r, n, &why)) {
		return true;
	}
	char text[160];
	smt_usage_describe(&why, text, sizeof(text));
	wl_resource_post_error(resource, code, "%s: %s", request, text);
	return false;
}

void client_usage_refuse(
		struct wl_client *client, const char *request, const struct smt_usage_refusal *why)
{
	char text[160];
	smt_usage_describe(why, text, sizeof(text));
	client_usage_refuse_text(client, request, text);
}

void client_usage_refuse_text(struct wl_client *client, const char *request, const char *text)
{
	static struct log_limit refusal_log;
	uint64_t left_out;
	if (log_limit_allow(&refusal_log, &left_out)) {
		pid_t pid = 0;
		wl_client_get_credentials(client, &pid, NULL, NULL);
		wlr_log(WLR_ERROR, "client pid %d: %s: %s (%llu such refusals not logged before)",
				(int)pid, request, text, (unsigned long long)left_out);
	}
	wl_client_post_implementation_error(client, "%s: %s", request, text);
}

void client_usage_release(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n)
{
	smt_usage_release(&cu->usage, r, n);
}

bool client_usage_charge_all(struct smtwc_client_usage *cu, const struct client_charge *c,
		size_t count, struct wl_resource *resource, uint32_t code, const char *request)
{
	for (size_t i = 0; i < count; i++) {
		if (!client_usage_charge(cu, c[i].resource, c[i].n, resource, code, request)) {
			client_usage_release_all(cu, c, i);
			return false;
		}
	}
	return true;
}

void client_usage_release_all(
		struct smtwc_client_usage *cu, const struct client_charge *c, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		smt_usage_release(&cu->usage, c[i].resource, c[i].n);
	}
}

void client_usage_for_each_group(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_usage_group *group, void *data), void *data)
{
	struct smtwc_usage_group *g;
	wl_list_for_each (g, &transport->uids, link) {
		fn(g, data);
	}
	wl_list_for_each (g, &transport->processes, link) {
		fn(g, data);
	}
}
