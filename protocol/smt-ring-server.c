/*
 * Security-critical: the server's half of the ring protocol (see
 * smt-ring-server.h). The memory order is smt-ring.h's: a change to it, or
 * to the wake-up policy, is made here once for both rings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#endif
#include "protocol/smt-ring-server.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

void smt_server_ring_init(
		struct smt_server_ring *s, const void *ring_mem, struct smt_ring_status *status)
{
	*s = (struct smt_server_ring){ .hdr = ring_mem, .status = status };
	status->magic = SMT_STATUS_MAGIC;
	status->version = SMT_RING_VERSION;
	atomic_store_explicit(&status->tail, 0, memory_order_release);
}

uint64_t smt_server_load_head(const struct smt_server_ring *s)
{
	/* The cast drops const only for the atomic load's signature. */
	return atomic_load_explicit(
			&((struct smt_ring_header *)s->hdr)->head, memory_order_acquire);
}

uint64_t smt_server_head_avail(uint64_t head, uint64_t tail, uint64_t area_size, uint32_t align)
{
	uint64_t avail = head - tail; /* head < tail wraps to a huge value */
	if (avail > area_size || head % align)
		return SMT_HEAD_IMPOSSIBLE;
	return avail;
}

/* Whether the client waits (SMT_CLIENT_WAITING) for a tail we have reached
 * and not yet woken it for; *need is the tail it asked for. */
static bool client_wait_reached(const struct smt_server_ring *s, uint64_t tail, uint64_t *need)
{
	struct smt_ring_header *h = (struct smt_ring_header *)s->hdr;
	uint32_t flags = atomic_load_explicit(&h->flags, memory_order_acquire);
	if (!(flags & SMT_CLIENT_WAITING))
		return false;
	*need = atomic_load_explicit(&h->wait_tail, memory_order_relaxed);
	return (int64_t)(tail - *need) >= 0 && !(s->woken_any && s->woken_for == *need);
}

bool smt_server_publish(struct smt_server_ring *s, uint64_t tail, uint64_t commands, uint64_t bytes)
{
	struct smt_ring_status *st = s->status;
	atomic_store_explicit(&st->commands_executed, commands, memory_order_relaxed);
	atomic_store_explicit(&st->bytes_executed, bytes, memory_order_relaxed);
	if (tail == s->published)
		return false;
	s->published = tail;
	/* Release: our reads of the consumed bytes happen before the client
	 * may overwrite them. */
	atomic_store_explicit(&st->tail, tail, memory_order_release);
	/* Full fence between publishing tail and reading WAITING: without
	 * it the load may pass the store and a wakeup is lost (liburing #541). */
	atomic_thread_fence(memory_order_seq_cst);
	uint64_t need;
	if (!client_wait_reached(s, tail, &need))
		return false;
	s->woken_any = true;
	s->woken_for = need;
	return true;
}

void smt_server_complete_fence(struct smt_server_ring *s, uint64_t serial)
{
	atomic_store_explicit(&s->status->completed_fence, serial, memory_order_release);
}

void smt_server_count_wakeups(struct smt_server_ring *s, uint64_t to_client, uint64_t from_client)
{
	atomic_store_explicit(&s->status->wakeups_to_client, to_client, memory_order_relaxed);
	atomic_store_explicit(&s->status->wakeups_from_client, from_client, memory_order_relaxed);
}

void smt_server_end(struct smt_server_ring *s, uint32_t code, uint32_t opcode, uint64_t offset)
{
	struct smt_ring_status *st = s->status;
	atomic_store_explicit(&st->error_code, code, memory_order_relaxed);
	atomic_store_explicit(&st->error_opcode, opcode, memory_order_relaxed);
	atomic_store_explicit(&st->error_offset, offset, memory_order_relaxed);
	atomic_store_explicit(&st->flags, SMT_SERVER_DEAD, memory_order_release);
}

int smt_server_page_create(const char *name, size_t size, void **mapping)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -1;
	void *map = MAP_FAILED;
	if (ftruncate(fd, (off_t)size) == 0)
		map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	/* Our writable mapping predates the seal and stays valid; clients can
	 * only ever map the page read-only. */
	if (map == MAP_FAILED ||
			fcntl(fd, F_ADD_SEALS,
					F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE |
							F_SEAL_SEAL) != 0) {
		int saved = errno;
		if (map != MAP_FAILED)
			munmap(map, size);
		close(fd);
		errno = saved;
		return -1;
	}
	*mapping = map;
	return fd;
}

void smt_global_init(struct smt_global_status *g)
{
	g->magic = SMT_GLOBAL_MAGIC;
	g->version = SMT_RING_VERSION;
	atomic_store_explicit(&g->server_asleep, 0, memory_order_relaxed);
	atomic_store_explicit(&g->generation, 0, memory_order_relaxed);
}

void smt_global_prepare_sleep(struct smt_global_status *g)
{
	atomic_store_explicit(&g->server_asleep, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&g->generation, 1, memory_order_relaxed);
	/* Pairs with the client's fence between storing head and loading
	 * server_asleep: either we see its head or it sees our flag. */
	atomic_thread_fence(memory_order_seq_cst);
}

void smt_global_wake(struct smt_global_status *g)
{
	atomic_store_explicit(&g->server_asleep, 0, memory_order_relaxed);
}

const char *smt_error_name(uint32_t code)
{
#define NAME_(name, number, text) [SMT_ERROR_##name] = text,
	static const char *const names[SMT_ERROR_COUNT] = { SMT_ERRORS(NAME_) };
#undef NAME_
	return code < SMT_ERROR_COUNT ? names[code] : "unknown";
}

const char *smt_opcode_name(uint32_t opcode)
{
#define NAME_(name, number, fixed, element, copy) [SMT_OP_##name] = #name,
	static const char *const names[SMT_OP_COUNT] = { SMT_OPCODES(NAME_) };
#undef NAME_
	return opcode < SMT_OP_COUNT ? names[opcode] : "UNKNOWN";
}
