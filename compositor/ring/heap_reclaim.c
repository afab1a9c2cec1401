#include <malloc.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include "ring/client_usage.h"
#include "ring/heap_reclaim.h"
#include "ring/ring.h"

/* Below this a client's pixmaps are freed at once and the heap is not
 * trimmed: glibc's own trimming of the heap top is enough. */
#define RECLAIM_MIN_BYTES (8u << 20)
/* Freed per piece: a few ms of work at most with the trim after it. */
#define RECLAIM_PIECE_BYTES (16u << 20)

struct heap_reclaim {
	struct wl_list link; /* smtwc_transport.reclaims */
	struct smt_exec_ctx *exec;
	struct smtwc_client_usage *usage;
};

void heap_reclaim_add(struct smtwc_transport *transport, struct smt_exec_ctx *exec,
		struct smtwc_client_usage *usage) {
	struct heap_reclaim *r = NULL;
	if (smt_exec_pixmap_bytes(exec) >= RECLAIM_MIN_BYTES) {
		r = calloc(1, sizeof(*r));
	}
	if (r == NULL) {
		smt_exec_destroy(exec);
		return;
	}
	r->exec = exec;
	r->usage = client_usage_hold(usage);
	wl_list_insert(transport->reclaims.prev, &r->link);
}

bool heap_reclaim_pending(struct smtwc_transport *transport) {
	return !wl_list_empty(&transport->reclaims);
}

static void reclaim_free(struct heap_reclaim *r) {
	wl_list_remove(&r->link);
	smt_exec_destroy(r->exec);
	client_usage_unref(r->usage);
	free(r);
}

void heap_reclaim_step(struct smtwc_transport *transport, uint64_t deadline_ns) {
	if (wl_list_empty(&transport->reclaims)) {
		return;
	}
	struct heap_reclaim *r = wl_container_of(transport->reclaims.next, r, link);
	if (smt_exec_free_pixmaps(r->exec, RECLAIM_PIECE_BYTES, deadline_ns)) {
		reclaim_free(r);
	}
	malloc_trim(0);
}

void heap_reclaim_finish(struct smtwc_transport *transport) {
	while (!wl_list_empty(&transport->reclaims)) {
		struct heap_reclaim *r = wl_container_of(transport->reclaims.next, r, link);
		reclaim_free(r);
	}
}
