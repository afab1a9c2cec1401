/*
 * What each client (connection) holds through smt-ring-v1, charged against
 * the limits of the configuration's [limits] section and the compositor's
 * total (compositor/exec/resource_usage.h does the counting). The record
 * lives as long as the client's rings: everything it holds hangs off a
 * ring, and libwayland destroys a client's resources after its destroy
 * signal, so the rings hold the references.
 */
#ifndef SMTWC_TRANSPORT_CLIENT_USAGE_H
#define SMTWC_TRANSPORT_CLIENT_USAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <wayland-server-core.h>
#include "resource_usage.h"

struct smtwc_transport;

struct smtwc_client_usage {
	struct smt_usage usage;        /* parent: the transport's total */
	struct wl_client *client;
	struct wl_list link;           /* smtwc_transport.clients */
	int refs;                      /* rings, and heap_reclaim's pieces */
	/* Clears client when it goes: a record outliving its client (its
	 * memory freed in pieces, heap_reclaim.h) must never be found for a
	 * new client that got the same address. */
	struct wl_listener client_destroy;
};

/* The total's limits from the configuration; raises RLIMIT_NOFILE. */
void client_usage_init_total(struct smtwc_transport *transport);
struct smtwc_client_usage *client_usage_ref(struct smtwc_transport *transport,
	struct wl_client *client);
/* Another reference to a record (NULL-safe). */
struct smtwc_client_usage *client_usage_hold(struct smtwc_client_usage *cu);
void client_usage_unref(struct smtwc_client_usage *cu);

/* Charges n of r; on refusal charges nothing and posts error `code` on
 * `resource`, naming the request, the limit and its value. */
bool client_usage_charge(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n,
	struct wl_resource *resource, uint32_t code, const char *request);
void client_usage_release(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n);

#endif
