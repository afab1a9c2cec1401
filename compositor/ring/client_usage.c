/*
 * Per-connection accounting of what a client holds through smt-ring-v1
 * (fds, rings, pools, memory) against the [limits] settings and the
 * compositor's total (client_usage.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <wlr/util/log.h>
#include "fd_limit.h"
#include "server.h"
#include "ring/client_usage.h"
#include "ring/ring_types.h"

/* fds this process may still open for clients: the soft limit, raised to
 * the hard one, less the headroom kept for new connections, the
 * compositor's own files and fds in flight in requests. */
static uint64_t fd_budget(int headroom)
{
	rlim_t cur = fd_limit_raise();
	uint64_t soft = cur == RLIM_INFINITY ? 1u << 20 : cur;
	/* A headroom above the limit itself still leaves clients a half. */
	return soft > (uint64_t)headroom + 64 ? soft - (uint64_t)headroom : soft / 2;
}

void client_usage_init_total(struct smtwc_transport *transport)
{
	const struct smtwc_limits_config *c = &transport->server->config.limits;
	struct smt_usage *total = &transport->total;
	*total = (struct smt_usage){ .is_total = true };
	total->max[SMT_RES_FDS] = fd_budget(c->fd_headroom);
	total->max[SMT_RES_MEMORY] = (uint64_t)c->total_memory_mib << 20;
	wlr_log(WLR_INFO, "client limits: %d fds, %d rings, %d pools, %d canvases, %d MiB "
		"each; %llu fds, %d MiB in total", c->client_fds, c->client_rings,
		c->client_pools, c->client_canvases, c->client_memory_mib, (unsigned long long)total->max[SMT_RES_FDS],
		c->total_memory_mib);
}

static void client_usage_handle_client_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_client_usage *cu = wl_container_of(listener, cu, client_destroy);
	wl_list_remove(&cu->client_destroy.link);
	wl_list_init(&cu->client_destroy.link);
	cu->client = NULL;
}

struct smtwc_client_usage *client_usage_ref(struct smtwc_transport *transport,
		struct wl_client *client)
{
	struct smtwc_client_usage *cu;
	wl_list_for_each(cu, &transport->clients, link) {
		if (cu->client == client) {
			cu->refs++;
			return cu;
		}
	}
	cu = calloc(1, sizeof(*cu));
	if (cu == NULL) {
		return NULL;
	}
	const struct smtwc_limits_config *c = &transport->server->config.limits;
	cu->client = client;
	cu->refs = 1;
	cu->usage.parent = &transport->total;
	cu->usage.max[SMT_RES_FDS] = (uint64_t)c->client_fds;
	cu->usage.max[SMT_RES_RINGS] = (uint64_t)c->client_rings;
	cu->usage.max[SMT_RES_POOLS] = (uint64_t)c->client_pools;
	cu->usage.max[SMT_RES_CANVASES] = (uint64_t)c->client_canvases;
	cu->usage.max[SMT_RES_MEMORY] = (uint64_t)c->client_memory_mib << 20;
	cu->client_destroy.notify = client_usage_handle_client_destroy;
	wl_client_add_destroy_listener(client, &cu->client_destroy);
	wl_list_insert(&transport->clients, &cu->link);
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
	free(cu);
}

bool client_usage_charge(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n,
		struct wl_resource *resource, uint32_t code, const char *request)
{
	struct smt_usage_refusal why;
	if (smt_usage_charge(&cu->usage, r, n, &why)) {
		return true;
	}
	char text[128];
	smt_usage_describe(&why, text, sizeof(text));
	wl_resource_post_error(resource, code, "%s: %s", request, text);
	return false;
}

void client_usage_release(struct smtwc_client_usage *cu, enum smt_resource r, uint64_t n)
{
	smt_usage_release(&cu->usage, r, n);
}
