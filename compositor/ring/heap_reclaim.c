/*
 * Freeing a gone ring's pixmaps in pieces, each followed by a heap trim, so
 * no single event dispatch pays for a whole client's memory (heap_reclaim.h
 * says what it measured).
 */
#include <malloc.h>
#include <stdlib.h>
#include <wayland-server-core.h>
#include "executor.h"
#include "ring/client_usage.h"
#include "ring/heap_reclaim.h"

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

void heap_reclaim_add(struct wl_list *queue, struct smt_exec_ctx *exec,
		struct smtwc_client_usage *usage)
{
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
	wl_list_insert(queue->prev, &r->link);
}

bool heap_reclaim_pending(struct wl_list *queue)
{
	return !wl_list_empty(queue);
}

static void reclaim_free(struct heap_reclaim *r)
{
	wl_list_remove(&r->link);
	smt_exec_destroy(r->exec);
	client_usage_unref(r->usage);
	free(r);
}

void heap_reclaim_step(struct wl_list *queue, uint64_t deadline_ns)
{
	if (wl_list_empty(queue)) {
		return;
	}
	struct heap_reclaim *r = wl_container_of(queue->next, r, link);
	if (smt_exec_free_pixmaps(r->exec, RECLAIM_PIECE_BYTES, deadline_ns)) {
		reclaim_free(r);
	}
	malloc_trim(0);
}

void heap_reclaim_finish(struct wl_list *queue)
{
	while (!wl_list_empty(queue)) {
		struct heap_reclaim *r = wl_container_of(queue->next, r, link);
		reclaim_free(r);
	}
}
