/*
 * The mappings of the core protocol's wl_shm pools, counted. libwayland
 * maps every wl_shm pool a client creates (one mapping of the size it
 * names, grown by resize) and keeps it while the pool or any buffer made
 * from it lives; nothing bounds them, so a client could fill the
 * compositor's address space or its mapping count (vm.max_map_count) and
 * every other client's next mapping would fail. This module charges each
 * pool, as libwayland holds it, to the client's account (client_usage.h):
 * one mapping and its size in address space, from the create_pool
 * request until the pool and its last buffer are gone. It watches the
 * requests through a protocol logger and the objects through libwayland's
 * resource-created and destroy signals. A pool the account cannot take
 * ends the client with an error naming the limit (libwayland has already
 * mapped it by then; it is unmapped with the client).
 */
#ifndef SMTWC_SHM_POOL_USAGE_H
#define SMTWC_SHM_POOL_USAGE_H

#include <stdint.h>

struct smtwc_transport;

void shm_pool_usage_init(struct smtwc_transport *transport);
void shm_pool_usage_finish(struct smtwc_transport *transport);

/* The memory charged for pools' and buffers' records (beyond their
 * objects' own charge), over every client: what smtctl stats calls
 * total_shm_record_bytes, so that a count of the accounts' other memory
 * can leave out a client's varying number of buffers (Xwayland's). */
uint64_t shm_pool_usage_record_bytes(void);

#endif
