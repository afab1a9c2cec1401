/*
 * The protocol's server half (protocol/smt-ring-server.c), linked alone (no
 * pixman, no wlroots): bounds on head, the one wake-up per wait_tail, the
 * death certificate, the global page's sleep flag, sealed server pages and
 * a name for every error and opcode code smt-ring.h defines.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* memfd_create, F_ADD_SEALS */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "protocol/smt-ring-server.h"
#include "tests/unit/unit_check.h"

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010
#endif

/* A ring's header page as a client writes it, and our status page. */
struct fake {
	_Alignas(4096) uint8_t ring[SMT_RING_HEADER_SIZE];
	_Alignas(4096) struct smt_ring_status status;
};

static struct smt_ring_header *hdr(struct fake *f)
{
	return (struct smt_ring_header *)f->ring;
}

static void client_waits(struct fake *f, uint64_t need)
{
	atomic_store(&hdr(f)->wait_tail, need);
	atomic_store(&hdr(f)->flags, SMT_CLIENT_WAITING);
}

static void test_init_and_head(void)
{
	current_test = "head";
	static struct fake f;
	memset(&f, 0xa5, sizeof(f.status));
	struct smt_server_ring s;
	smt_server_ring_init(&s, f.ring, &f.status);
	CHECK_INT(f.status.magic, SMT_STATUS_MAGIC);
	CHECK_INT(f.status.version, SMT_RING_VERSION);
	CHECK_INT(atomic_load(&f.status.tail), 0);

	atomic_store(&hdr(&f)->head, 4104);
	CHECK_INT(smt_server_load_head(&s), 4104);

	/* Within one area after the tail: the bytes published. */
	CHECK_INT(smt_server_head_avail(4104, 4096, 4096, 8), 8);
	CHECK_INT(smt_server_head_avail(8192, 4096, 4096, 8), 4096);
	CHECK_INT(smt_server_head_avail(4096, 4096, 4096, 8), 0);
	/* Behind the tail, more than an area ahead, or unaligned: impossible. */
	CHECK(smt_server_head_avail(4088, 4096, 4096, 8) == SMT_HEAD_IMPOSSIBLE);
	CHECK(smt_server_head_avail(8200, 4096, 4096, 8) == SMT_HEAD_IMPOSSIBLE);
	CHECK(smt_server_head_avail(4100, 4096, 4096, 8) == SMT_HEAD_IMPOSSIBLE);
	CHECK(smt_server_head_avail(0, UINT64_MAX - 7, 4096, 8) == 8);
	CHECK(smt_server_head_avail(UINT64_MAX, 0, 4096, 1) == SMT_HEAD_IMPOSSIBLE);
	/* A byte stream takes any byte count. */
	CHECK_INT(smt_server_head_avail(4100, 4096, 4096, 1), 4);
}

static void test_publish_and_wake(void)
{
	current_test = "wake";
	static struct fake f;
	memset(&f, 0, sizeof(f));
	struct smt_server_ring s;
	smt_server_ring_init(&s, f.ring, &f.status);

	/* Nobody waits: the tail and statistics are published, no wake-up. */
	CHECK(!smt_server_publish(&s, 64, 3, 64));
	CHECK_INT(atomic_load(&f.status.tail), 64);
	CHECK_INT(atomic_load(&f.status.commands_executed), 3);
	CHECK_INT(atomic_load(&f.status.bytes_executed), 64);

	/* A client waits for 128: not yet at 96, woken at 128, once. */
	client_waits(&f, 128);
	CHECK(!smt_server_publish(&s, 96, 4, 96));
	CHECK(smt_server_publish(&s, 128, 5, 128));
	CHECK_INT(atomic_load(&f.status.tail), 128);
	/* Its flag is still set (we cannot clear it): no second wake-up for
	 * the same wait_tail, however far the tail moves. */
	CHECK(!smt_server_publish(&s, 160, 6, 160));
	CHECK(!smt_server_publish(&s, 160, 6, 160));
	/* A new wait, already reached: woken at the next publish that moves
	 * the tail. */
	client_waits(&f, 150);
	CHECK(!smt_server_publish(&s, 160, 7, 160)); /* tail did not move */
	CHECK_INT(atomic_load(&f.status.commands_executed), 7);
	CHECK(smt_server_publish(&s, 168, 8, 168));
	/* Positions compare modulo 2^64, as the client's do. */
	client_waits(&f, UINT64_MAX - 7);
	CHECK(smt_server_publish(&s, 8, 9, 8));
	/* A client that stopped waiting is not woken. */
	atomic_store(&hdr(&f)->flags, 0);
	atomic_store(&hdr(&f)->wait_tail, 16);
	CHECK(!smt_server_publish(&s, 16, 10, 16));

	smt_server_complete_fence(&s, 42);
	CHECK_INT(atomic_load(&f.status.completed_fence), 42);
	smt_server_count_wakeups(&s, 5, 6);
	CHECK_INT(atomic_load(&f.status.wakeups_to_client), 5);
	CHECK_INT(atomic_load(&f.status.wakeups_from_client), 6);
}

static void test_end(void)
{
	current_test = "end";
	static struct fake f;
	memset(&f, 0, sizeof(f));
	struct smt_server_ring s;
	smt_server_ring_init(&s, f.ring, &f.status);
	CHECK_INT(atomic_load(&f.status.flags), 0);
	smt_server_end(&s, SMT_ERROR_WRAP, SMT_OP_FILL_RECTS, 4096 + 24);
	CHECK_INT(atomic_load(&f.status.flags), SMT_SERVER_DEAD);
	CHECK_INT(atomic_load(&f.status.error_code), SMT_ERROR_WRAP);
	CHECK_INT(atomic_load(&f.status.error_opcode), SMT_OP_FILL_RECTS);
	CHECK_INT(atomic_load(&f.status.error_offset), 4096 + 24);
}

static void test_global(void)
{
	current_test = "global";
	struct smt_global_status g;
	memset(&g, 0xa5, sizeof(g));
	smt_global_init(&g);
	CHECK_INT(g.magic, SMT_GLOBAL_MAGIC);
	CHECK_INT(g.version, SMT_RING_VERSION);
	CHECK_INT(atomic_load(&g.server_asleep), 0);
	CHECK_INT(atomic_load(&g.generation), 0);
	smt_global_prepare_sleep(&g);
	CHECK_INT(atomic_load(&g.server_asleep), 1);
	CHECK_INT(atomic_load(&g.generation), 1);
	smt_global_wake(&g);
	CHECK_INT(atomic_load(&g.server_asleep), 0);
	smt_global_prepare_sleep(&g);
	CHECK_INT(atomic_load(&g.generation), 2);
	smt_global_wake(&g);
}

static void test_server_page(void)
{
	current_test = "page";
	void *map = NULL;
	int fd = smt_server_page_create("test-server-page", SMT_STATUS_MAP_SIZE, &map);
	CHECK(fd >= 0 && map);
	if (fd < 0)
		return;
	int seals = fcntl(fd, F_GET_SEALS);
	CHECK_INT(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL),
			F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	CHECK_INT(lseek(fd, 0, SEEK_END), SMT_STATUS_MAP_SIZE);
	/* Ours stays writable; nobody else can map it writable, resize it or
	 * lift the seals. */
	((volatile uint8_t *)map)[0] = 7;
	void *rw = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(rw == MAP_FAILED);
	if (rw != MAP_FAILED)
		munmap(rw, SMT_STATUS_MAP_SIZE);
	const volatile uint8_t *ro = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	CHECK(ro != MAP_FAILED);
	if (ro != MAP_FAILED) {
		CHECK_INT(ro[0], 7);
		munmap((void *)ro, SMT_STATUS_MAP_SIZE);
	}
	CHECK(ftruncate(fd, 2 * SMT_STATUS_MAP_SIZE) != 0);
	CHECK(ftruncate(fd, 0) != 0);
	CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != 0);
	munmap(map, SMT_STATUS_MAP_SIZE);
	close(fd);

	/* A failure leaves nothing open: the next fd is the one it took. */
	int probe = dup(0);
	close(probe);
	map = NULL;
	CHECK_INT(smt_server_page_create("test-server-page", (size_t)1 << 62, &map), -1);
	CHECK(map == NULL);
	int next = dup(0);
	CHECK_INT(next, probe);
	close(next);
}

static void test_names(void)
{
	current_test = "names";
	/* Every code the error table defines has its own name. */
#define ERR_(name, number, text) CHECK_STR(smt_error_name(SMT_ERROR_##name), text);
	SMT_ERRORS(ERR_)
#undef ERR_
	CHECK_STR(smt_error_name(SMT_ERROR_REVERTED), "reverted");
	CHECK_STR(smt_error_name(SMT_ERROR_COUNT), "unknown");
	CHECK_STR(smt_error_name(UINT32_MAX), "unknown");
	for (uint32_t i = 0; i < SMT_ERROR_COUNT; i++) {
		CHECK(strcmp(smt_error_name(i), "unknown") != 0);
		for (uint32_t j = 0; j < i; j++)
			CHECK(strcmp(smt_error_name(i), smt_error_name(j)) != 0);
	}
#define OP_(name, number, fixed, element, copy) CHECK_STR(smt_opcode_name(number), #name);
	SMT_OPCODES(OP_)
#undef OP_
	CHECK_STR(smt_opcode_name(SMT_OP_COUNT), "UNKNOWN");
	CHECK_STR(smt_opcode_name(0xffff), "UNKNOWN");
}

int main(void)
{
	test_init_and_head();
	test_publish_and_wake();
	test_end();
	test_global();
	test_server_page();
	test_names();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures != 0;
}
