/*
 * Shared memory handed over by clients. The read-only pages the compositor
 * hands out are smt_server_page_create's (smt-ring-server.h). No wlroots
 * here.
 */
#ifndef SMTWC_SHM_FD_H
#define SMTWC_SHM_FD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Maps size bytes of a client's memfd read-only after checking that it is
 * sealed against shrinking and at least that large: then no access can
 * fault with SIGBUS whatever the client does later. Returns NULL and sets
 * *why (a static string) on failure. */
void *shm_fd_map_client(int fd, uint64_t size, const char **why);
/* The same checks without mapping (a pool resize is checked when it
 * arrives, mapped when it applies). */
bool shm_fd_check_client(int fd, uint64_t size, const char **why);
/* A pool's memfd (create_pool): shm_fd_map_client's checks, and sealed
 * against writes (F_SEAL_FUTURE_WRITE or F_SEAL_WRITE), which no one can
 * take off, so a resize need not look again. */
void *shm_fd_map_pool(int fd, uint64_t size, const char **why);

/* The address space a mapping of size bytes takes, as /proc/PID/maps
 * shows it: whole pages (mmap rounds the length up). What a client's
 * mapping is charged as SMT_RES_ADDRESS. */
uint64_t shm_fd_address_space(uint64_t size);

#endif
