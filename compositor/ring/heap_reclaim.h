/*
 * What a gone client leaves behind, given back in budgeted pieces between
 * event dispatches: the executors of its rings (pixmaps, drawable tables),
 * its canvases' images, its rings' and pools' mappings. Freeing a client's
 * 256 MiB of small pixmaps and giving the heap back to the system
 * (malloc_trim: glibc keeps freed heap resident) took 25-100 ms in the
 * ring's destroy handler, where every other client waited (measured with
 * smt-hostile pixmaps-10k); and 64 rings each just under the old per-ring
 * threshold (8 MiB, below which a ring's pixmaps were freed at once) stalled
 * everyone 166-170 ms when their clients closed together (issue 24). So
 * everything is queued, whatever its size, and the budget is the queue's
 * per turn of the main loop, not an item's: a piece frees about
 * RECLAIM_PIECE_BYTES or what the time allows, over as many items as fit,
 * then trims the heap. A large block (a pixmap's or canvas's pixels, a
 * pool's mapping) is itself released in pieces (page_release.h, munmap of
 * part of a mapping). Memory, mappings and address space stay charged to
 * the client (its process, uid and the compositor's total) until they are
 * freed.
 */
#ifndef SMTWC_RING_HEAP_RECLAIM_H
#define SMTWC_RING_HEAP_RECLAIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wayland-server-core.h>

struct smtwc_client_usage;
struct smt_exec_ctx;
/* The queue itself is in ring/ring_types.h (the transport holds it). */
struct heap_reclaim_queue;

void heap_reclaim_init(struct heap_reclaim_queue *queue);
/* Takes the executor of a gone ring; holds a reference to the usage
 * record it charges. */
void heap_reclaim_add(struct heap_reclaim_queue *queue, struct smt_exec_ctx *exec,
		struct smtwc_client_usage *usage);
/* Up to two blocks of memory whose pages are released in pieces, then
 * release(data) frees them; `charged` bytes of `usage` (may be NULL) are
 * released with them. */
void heap_reclaim_add_memory(struct heap_reclaim_queue *queue, void *block, size_t block_len,
		void *block2, size_t block2_len, void (*release)(void *data), void *data,
		struct smtwc_client_usage *usage, uint64_t charged);
/* Teardown of its own kind: some(data, deadline_ns) does a piece, at least
 * a little, and returns true once all is done (and data is freed). */
void heap_reclaim_add_work(struct heap_reclaim_queue *queue,
		bool (*some)(void *data, uint64_t deadline_ns), void *data);
/* A mapping, unmapped in pieces from its start. It stays charged to
 * `usage` (may be NULL) as one mapping until its last piece is unmapped,
 * and as `address` bytes of address space less what the pieces unmapped:
 * the accounting matches /proc/self/maps throughout, and a client cannot
 * free its share faster than the queue frees the compositor's. */
void heap_reclaim_add_mapping(struct heap_reclaim_queue *queue, void *map, size_t len,
		struct smtwc_client_usage *usage, uint64_t address);
bool heap_reclaim_pending(struct heap_reclaim_queue *queue);
/* One piece over the queue, until deadline_ns at most (and at least a
 * piece of one item). */
void heap_reclaim_step(struct heap_reclaim_queue *queue, uint64_t deadline_ns);
/* Shutdown: everything at once. */
void heap_reclaim_finish(struct heap_reclaim_queue *queue);

#endif
