/*
 * The executor of a ring whose client left (or destroyed it) holding many
 * pixmaps, freed in pieces between event dispatches. Freeing a client's
 * 256 MiB of small pixmaps and giving the heap back to the system
 * (malloc_trim: glibc keeps freed heap resident) took 25-100 ms in the
 * ring's destroy handler, where every other client waited (measured with
 * smt-hostile pixmaps-10k). A piece frees about RECLAIM_PIECE_BYTES or
 * what the time allows, then trims the heap, which then costs about what
 * that piece freed. The memory stays charged to the client (and the
 * compositor's total) until it is freed.
 */
#ifndef SMTWC_RING_HEAP_RECLAIM_H
#define SMTWC_RING_HEAP_RECLAIM_H

#include <stdbool.h>
#include <stdint.h>

struct wl_list;
struct smtwc_client_usage;
struct smt_exec_ctx;

/* queue: where gone executors wait (smtwc_transport.reclaims).
 * Takes the executor; holds a reference to the usage record it charges.
 * Small executors (under RECLAIM_MIN_BYTES of pixmaps) are destroyed at
 * once, without a trim. */
void heap_reclaim_add(struct wl_list *queue, struct smt_exec_ctx *exec,
	struct smtwc_client_usage *usage);
bool heap_reclaim_pending(struct wl_list *queue);
/* One piece, until deadline_ns at most (and at least one pixmap). */
void heap_reclaim_step(struct wl_list *queue, uint64_t deadline_ns);
/* Shutdown: everything at once. */
void heap_reclaim_finish(struct wl_list *queue);

#endif
