/*
 * The transport (ring_types.h's struct smtwc_transport): smt-ring-v1's
 * manager global and the state every ring shares, created and destroyed
 * by the composition root (server.c).
 */
#ifndef SMTWC_RING_TRANSPORT_H
#define SMTWC_RING_TRANSPORT_H

struct smtwc_server;
struct smtwc_transport;

/* NULL when the global page cannot be created. */
struct smtwc_transport *transport_create(struct smtwc_server *server);
void transport_destroy(struct smtwc_transport *transport);

#endif
