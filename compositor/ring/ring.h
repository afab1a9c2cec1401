/*
 * The Wayland side of smt-ring-v1: the manager's requests, rings and their
 * shared pages (the transport they share: ring_transport.h). Command execution itself is compositor/exec (pure).
 */
#ifndef SMTWC_TRANSPORT_RING_H
#define SMTWC_TRANSPORT_RING_H

#include <stdbool.h>
#include "compositor/ring/ring_types.h"

struct smtwc_server;

/* Binds a client to the manager global (ring_transport.c creates it). */
void ring_manager_bind(struct wl_client *client, void *data, uint32_t version, uint32_t id);

/* Executes commands of one ring within the budget. Returns true when the
 * ring still has work. A PRESENT is shown once its copy, in bands under
 * the budget like any command, is complete. */
bool ring_run(struct smtwc_ring *ring, const struct smt_exec_budget *budget);
bool ring_has_work(struct smtwc_ring *ring);

/* With worker threads (ring_workers.h), a run is split: ring_run_piece on
 * a worker, under ring->exec_lock, runs the executor for one budget (and
 * PRESENTs' copies, posted to the main thread: canvas.h) and records in
 * ring->handoff what needs the main thread (then returns false;
 * ring_handoff_pending says so); ring_settle on the main thread acts on
 * it and finishes a PRESENT left to it and the ordered requests until
 * deadline_ns, true when the ring may be picked again. */
bool ring_run_piece(struct smtwc_ring *ring, const struct smt_exec_budget *budget);
bool ring_handoff_pending(const struct smtwc_ring *ring);
bool ring_settle(struct smtwc_ring *ring, uint64_t deadline_ns);

#endif
