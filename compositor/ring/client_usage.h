/*
 * What each client holds, by connection, by process and by uid, charged
 * against the limits of the configuration's [limits] section and the
 * compositor's total (compositor/exec/resource_usage.h does the counting).
 * Every connection gets its record when libwayland creates the client and
 * is charged its socket (an fd and a connection) then; fds in flight in
 * libwayland's buffer (fds_in_flight.h), rings, pools, canvases and
 * mappings are charged to it as they come. Its parent is its process's
 * account (SO_PEERCRED pid), whose parent is its uid's, whose parent is
 * the total: many connections of one process, or many processes, buy no
 * bigger share. The record lives as long as the client and its rings:
 * libwayland destroys a client's resources after its destroy signal, so
 * the rings hold references too.
 */
#ifndef SMTWC_TRANSPORT_CLIENT_USAGE_H
#define SMTWC_TRANSPORT_CLIENT_USAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include "compositor/exec/resource_usage.h"

struct smtwc_transport;

/* Memory a connection is charged: libwayland's client with its
 * connection's four 4 KiB buffers (bytes and fds, each way), its object
 * map, and our records of it (80 idle connections grew the heap 17,648
 * bytes each, mallinfo2, session 37). */
#define CONNECTION_USAGE_BYTES 17408u

/* A process's or a uid's account: every connection under it together. */
struct smtwc_usage_group {
	struct smt_usage usage; /* parent: the uid's account, or the total */
	long id;                /* pid or uid */
	struct wl_list link;    /* smtwc_transport.processes or .uids */
	int refs;               /* client records, or process accounts */
};

struct smtwc_client_usage {
	struct smt_usage usage; /* parent: the process's account */
	struct smtwc_usage_group *process;
	struct smtwc_transport *transport;
	struct wl_client *client;
	pid_t pid;
	uid_t uid;
	int socket_fd;       /* -1 once the client is gone */
	bool socket_charged; /* its socket: 2 fds, 1 connection */
	struct wl_list link; /* smtwc_transport.clients */
	int refs;            /* the client, rings, heap_reclaim's pieces */
	/* Clears client when it goes: a record outliving its client (its
	 * memory freed in pieces, heap_reclaim.h) must never be found for a
	 * new client that got the same address. */
	struct wl_listener client_destroy;
	/* Runs in a sandbox: privileged globals hidden (privileged_globals.h);
	 * judged once, at the connection, while its pid is surely its own. */
	bool confined;
	/* Why the connection was refused, or empty. */
	char refused[160];
};

/* The total's limits from the configuration; raises RLIMIT_NOFILE;
 * creates a record for every client libwayland creates from now on. */
void client_usage_init_total(struct smtwc_transport *transport);
void client_usage_finish(struct smtwc_transport *transport);
/* The client's record with another reference (NULL: out of memory). */
struct smtwc_client_usage *client_usage_ref(
		struct smtwc_transport *transport, struct wl_client *client);
/* The client's record, no reference taken (NULL if it has none). */
struct smtwc_client_usage *client_usage_find(struct wl_client *client);
/* Another reference to a record (NULL-safe). */
struct smtwc_client_usage *client_usage_hold(struct smtwc_client_usage *cu);
void client_usage_unref(struct smtwc_client_usage *cu);

/* Charges n of r; on refusal charges nothing and posts error `code` on
 * `resource`, naming the request, the limit and its value. */
bool client_usage_charge(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n,
		struct wl_resource *resource, uint32_t code, const char *request);
void client_usage_release(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n);

/* Ends a client whose new object (a surface, a pool, any Wayland object)
 * went past a limit: an implementation error "REQUEST: <the limit>" and a
 * log line naming its pid, through one rate limit for every such refusal
 * (a client refused a million times costs a few lines). For objects made
 * without a request handler of ours to post a protocol error from. */
void client_usage_refuse(
		struct wl_client *client, const char *request, const struct smt_usage_refusal *why);
/* The same for a limit of one object (a data source's MIME types, a
 * region's rectangles): `text` says which ("limit region-rects=..."). */
void client_usage_refuse_text(struct wl_client *client, const char *request, const char *text);

/* Several resources at once (a ring: itself, its fds, mappings and their
 * address space): all or nothing, with client_usage_charge's error. */
struct client_charge {
	enum smt_resource resource;
	uint64_t n;
};
bool client_usage_charge_all(struct smtwc_client_usage *cu, const struct client_charge *c,
		size_t count, struct wl_resource *resource, uint32_t code, const char *request);
void client_usage_release_all(
		struct smtwc_client_usage *cu, const struct client_charge *c, size_t count);

/* Each process's and uid's account, for statistics. */
void client_usage_for_each_group(struct smtwc_transport *transport,
		void (*fn)(const struct smtwc_usage_group *group, void *data), void *data);

#endif
