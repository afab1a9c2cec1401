/*
 * The Wayland side of smt-ring-v1: the manager global, rings, pools and the
 * shared pages. Command execution itself is compositor/exec (pure).
 */
#ifndef SMTWC_TRANSPORT_RING_H
#define SMTWC_TRANSPORT_RING_H

#include <stdbool.h>
#include "ring/ring_types.h"

struct smtwc_server;

struct smtwc_transport *transport_create(struct smtwc_server *server);
void transport_destroy(struct smtwc_transport *transport);

/* Executes commands of one ring within the budget. Returns true when the
 * ring still has work. A PRESENT is shown once its copy, in bands under
 * the budget like any command, is complete. */
bool ring_run(struct smtwc_ring *ring, const struct smt_exec_budget *budget);
bool ring_has_work(struct smtwc_ring *ring);

#endif
