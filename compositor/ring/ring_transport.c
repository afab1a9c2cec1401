/*
 * The transport: smt-ring-v1's manager global and what every ring shares
 * (the global page, the lists of rings and canvases, the accounting, the
 * reclaim queue). Created by the composition root before the ring loop
 * starts and destroyed after it stops. The struct is in ring_types.h, the
 * manager's requests in ring.c.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wlr/util/log.h>
#include "smt-ring-v1-protocol.h"
#include "compositor/server.h"
#include "compositor/ring/canvas.h"
#include "compositor/ring/client_listen.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/core_request_limits.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/keymap_limits.h"
#include "compositor/ring/request_strings.h"
#include "compositor/ring/ring.h"
#include "compositor/ring/ring_transport.h"
#include "compositor/ring/shm_pool_usage.h"
#include "compositor/ring/surface_usage.h"
#include "compositor/ring/object_usage.h"

struct smtwc_transport *transport_create(struct smtwc_server *server)
{
	struct smtwc_transport *transport = calloc(1, sizeof(*transport));
	if (transport == NULL) {
		return NULL;
	}
	transport->server = server;
	wl_list_init(&transport->rings);
	wl_list_init(&transport->canvases_pending);
	wl_list_init(&transport->canvases_inflight);
	present_post_init(&transport->presents);
	heap_reclaim_init(&transport->reclaims);
	wl_list_init(&transport->clients);
	client_usage_init_total(transport);
	shm_pool_usage_init(transport);
	surface_usage_init(transport);
	object_usage_init(transport);
	core_request_limits_init(transport);
	keymap_limits_init(transport);
	request_strings_init(transport);
	void *page = NULL;
	transport->global_status_fd = smt_server_page_create(
			"smtwc-global-status", SMT_STATUS_MAP_SIZE, &page);
	if (transport->global_status_fd < 0) {
		wlr_log_errno(WLR_ERROR, "cannot create the ring status page");
		present_post_finish(&transport->presents);
		free(transport);
		return NULL;
	}
	transport->global_status = page;
	smt_global_init(transport->global_status);
	transport->global = wl_global_create(server->display, &smt_ring_manager_v1_interface, 1,
			transport, ring_manager_bind);
	canvases_listen(transport);
	return transport;
}

void transport_destroy(struct smtwc_transport *transport)
{
	if (transport == NULL) {
		return;
	}
	client_listen_stop(transport);
	wl_global_destroy(transport->global);
	canvases_unlisten(transport);
	request_strings_finish(transport);
	keymap_limits_finish(transport);
	core_request_limits_finish(transport);
	object_usage_finish(transport);
	surface_usage_finish(transport);
	shm_pool_usage_finish(transport);
	client_usage_finish(transport);
	heap_reclaim_finish(&transport->reclaims);
	munmap(transport->global_status, SMT_STATUS_MAP_SIZE);
	close(transport->global_status_fd);
	present_post_finish(&transport->presents);
	free(transport);
}
