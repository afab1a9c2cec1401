/*
 * A gone client's memory and mappings given back in pieces, each turn
 * followed by a heap trim, so no single event dispatch pays for a whole
 * client's teardown (heap_reclaim.h says what it measured).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <wayland-server-core.h>
#include "compositor/exec/executor.h"
#include "common/monotonic_clock.h"
#include "compositor/exec/page_release.h"
#include "compositor/ring/client_usage.h"
#include "compositor/ring/heap_reclaim.h"
#include "compositor/ring/ring_types.h"

/* Freed per turn: a few ms of work at most with the trim after it. */
#define RECLAIM_PIECE_BYTES (16u << 20)
/* A block's pages, or a mapping, released per call between clock reads. */
#define RECLAIM_BLOCK_BYTES (2u << 20)
/* Heap freed since the last trim before it is worth one. malloc_trim costs
 * in proportion to the free chunks of the whole heap, not to what was
 * freed (measured under load: 10.9 ms of CPU after four clients' churned
 * tables, 36 ms after 40 clients' 1,000 canvases each), so it runs only
 * after this much; less stays resident until a later teardown adds to it.
 * Large blocks do not wait for it: their pages were given back already. */
#define RECLAIM_TRIM_BYTES (8u << 20)

enum reclaim_kind {
	RECLAIM_EXEC,
	RECLAIM_MEMORY,
	RECLAIM_MAPPING,
	RECLAIM_WORK
};

struct heap_reclaim {
	struct wl_list link; /* heap_reclaim_queue.items */
	enum reclaim_kind kind;
	uint64_t pending; /* bytes of queue->pending_bytes that are this item's */
	struct smtwc_client_usage *usage;
	/* RECLAIM_EXEC */
	struct smt_exec_ctx *exec;
	/* RECLAIM_MEMORY */
	struct page_release blocks[2];
	void (*release)(void *data);
	void *data;
	uint64_t charged; /* MEMORY: bytes; MAPPING: address space still charged */
	/* RECLAIM_MAPPING */
	unsigned char *map;
	size_t map_len, unmapped;
	/* RECLAIM_WORK (data as above) */
	bool (*some)(void *data, uint64_t deadline_ns);
};

void heap_reclaim_init(struct heap_reclaim_queue *queue)
{
	*queue = (struct heap_reclaim_queue){ 0 };
	wl_list_init(&queue->items);
}

static void reclaim_queue(struct heap_reclaim_queue *queue, struct heap_reclaim *r, uint64_t bytes)
{
	r->pending = bytes;
	queue->pending_items++;
	queue->pending_bytes += bytes;
	wl_list_insert(queue->items.prev, &r->link);
}

static uint64_t exec_bytes(struct smt_exec_ctx *exec)
{
	return smt_exec_pixmap_bytes(exec) + smt_exec_table_bytes(exec);
}

void heap_reclaim_add(struct heap_reclaim_queue *queue, struct smt_exec_ctx *exec,
		struct smtwc_client_usage *usage)
{
	struct heap_reclaim *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		smt_exec_destroy(exec); /* out of memory: at once, as before */
		return;
	}
	r->kind = RECLAIM_EXEC;
	r->exec = exec;
	r->usage = client_usage_hold(usage);
	reclaim_queue(queue, r, exec_bytes(exec));
}

void heap_reclaim_add_memory(struct heap_reclaim_queue *queue, void *block, size_t block_len,
		void *block2, size_t block2_len, void (*release)(void *data), void *data,
		struct smtwc_client_usage *usage, uint64_t charged)
{
	struct heap_reclaim *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		release(data);
		if (usage != NULL) {
			client_usage_release(usage, SMT_RES_MEMORY, charged);
		}
		return;
	}
	r->kind = RECLAIM_MEMORY;
	page_release_init(&r->blocks[0], block, block_len);
	page_release_init(&r->blocks[1], block2, block2_len);
	r->release = release;
	r->data = data;
	r->usage = client_usage_hold(usage);
	r->charged = charged;
	reclaim_queue(queue, r, (uint64_t)block_len + block2_len);
}

static void mapping_uncharge(struct smtwc_client_usage *usage, uint64_t address)
{
	if (usage != NULL) {
		client_usage_release(usage, SMT_RES_MAPPINGS, 1);
		client_usage_release(usage, SMT_RES_ADDRESS, address);
	}
}

void heap_reclaim_add_mapping(struct heap_reclaim_queue *queue, void *map, size_t len,
		struct smtwc_client_usage *usage, uint64_t address)
{
	struct heap_reclaim *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		munmap(map, len);
		mapping_uncharge(usage, address);
		return;
	}
	r->kind = RECLAIM_MAPPING;
	r->map = map;
	r->map_len = len;
	r->usage = client_usage_hold(usage);
	r->charged = address;
	reclaim_queue(queue, r, len);
}

void heap_reclaim_add_work(struct heap_reclaim_queue *queue,
		bool (*some)(void *data, uint64_t deadline_ns), void *data)
{
	struct heap_reclaim *r = calloc(1, sizeof(*r));
	if (r == NULL) {
		while (!some(data, 0)) {
		}
		return;
	}
	r->kind = RECLAIM_WORK;
	r->some = some;
	r->data = data;
	reclaim_queue(queue, r, 0);
}

bool heap_reclaim_pending(struct heap_reclaim_queue *queue)
{
	return !wl_list_empty(&queue->items);
}

static void reclaim_free(struct heap_reclaim_queue *queue, struct heap_reclaim *r)
{
	wl_list_remove(&r->link);
	switch (r->kind) {
	case RECLAIM_EXEC:
		smt_exec_destroy(r->exec);
		break;
	case RECLAIM_MEMORY:
		r->release(r->data);
		if (r->usage != NULL) {
			client_usage_release(r->usage, SMT_RES_MEMORY, r->charged);
		}
		break;
	case RECLAIM_MAPPING:
		if (r->unmapped < r->map_len) {
			munmap(r->map + r->unmapped, r->map_len - r->unmapped);
		}
		mapping_uncharge(r->usage, r->charged);
		break;
	case RECLAIM_WORK:
		if (r->data != NULL) { /* shutdown: the rest at once */
			while (!r->some(r->data, 0)) {
			}
		}
		break;
	}
	client_usage_unref(r->usage);
	queue->pending_items--;
	queue->pending_bytes -= r->pending;
	queue->items_done++;
	free(r);
}

static bool past(uint64_t deadline_ns)
{
	return monotonic_now_ns() >= deadline_ns;
}

/* Some of r, up to about max bytes; true once all of it is done. *heap:
 * heap memory freed (worth a trim). */
static bool reclaim_some(struct heap_reclaim_queue *queue, struct heap_reclaim *r, uint64_t max,
		uint64_t deadline_ns, uint64_t *done, uint64_t *heap)
{
	uint64_t before = *done;
	bool finished = false;
	switch (r->kind) {
	case RECLAIM_EXEC: {
		uint64_t held = exec_bytes(r->exec);
		finished = smt_exec_free_pixmaps(r->exec, max, deadline_ns);
		*done += held - exec_bytes(r->exec);
		*heap += held - exec_bytes(r->exec);
		break;
	}
	case RECLAIM_MEMORY:
		for (int i = 0; i < 2; i++) {
			while (!page_release_done(&r->blocks[i]) && *done - before < max) {
				*done += page_release_some(&r->blocks[i], RECLAIM_BLOCK_BYTES);
				if (past(deadline_ns)) {
					break;
				}
			}
		}
		finished = page_release_done(&r->blocks[0]) && page_release_done(&r->blocks[1]);
		if (finished) {
			/* freed now: heap blocks, when glibc's mmap threshold
			 * has grown past their size */
			*heap += r->blocks[0].len + r->blocks[1].len;
		}
		break;
	case RECLAIM_MAPPING:
		while (r->unmapped < r->map_len && *done - before < max) {
			size_t n = r->map_len - r->unmapped;
			n = n < RECLAIM_BLOCK_BYTES ? n : RECLAIM_BLOCK_BYTES;
			munmap(r->map + r->unmapped, n);
			r->unmapped += n;
			*done += n;
			/* The address space goes with each piece; the mapping
			 * (one line of /proc/self/maps still) with the last. */
			uint64_t gone = n < r->charged ? n : r->charged;
			if (r->usage != NULL) {
				client_usage_release(r->usage, SMT_RES_ADDRESS, gone);
			}
			r->charged -= gone;
			if (past(deadline_ns)) {
				break;
			}
		}
		finished = r->unmapped >= r->map_len;
		break;
	case RECLAIM_WORK:
		finished = r->some(r->data, deadline_ns);
		if (finished) {
			r->data = NULL;
		}
		break;
	}
	/* Shown as pending until the item is gone; never below 0. */
	uint64_t progress = *done - before;
	progress = progress < r->pending ? progress : r->pending;
	r->pending -= progress;
	queue->pending_bytes -= progress;
	if (finished) {
		reclaim_free(queue, r);
	}
	return finished;
}

void heap_reclaim_step(struct heap_reclaim_queue *queue, uint64_t deadline_ns)
{
	if (wl_list_empty(&queue->items)) {
		return;
	}
	queue->pieces++;
	uint64_t done = 0, heap = 0;
	/* Across items: a thousand small gone rings cost a turn what one
	 * large one does. */
	while (!wl_list_empty(&queue->items)) {
		struct heap_reclaim *r = wl_container_of(queue->items.next, r, link);
		if (!reclaim_some(queue, r, RECLAIM_PIECE_BYTES - done, deadline_ns, &done,
				    &heap)) {
			break; /* stopped by the budget */
		}
		if (done >= RECLAIM_PIECE_BYTES || past(deadline_ns)) {
			break;
		}
	}
	queue->untrimmed += heap;
	if (queue->untrimmed >= RECLAIM_TRIM_BYTES) {
		malloc_trim(0);
		queue->untrimmed = 0;
	}
}

void heap_reclaim_finish(struct heap_reclaim_queue *queue)
{
	while (!wl_list_empty(&queue->items)) {
		struct heap_reclaim *r = wl_container_of(queue->items.next, r, link);
		reclaim_free(queue, r);
	}
}
