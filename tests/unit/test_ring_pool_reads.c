/* Pools of holes (session 40): PUT_IMAGE_POOL from a memfd whose pages the
 * client wrote only in part must draw what a copy of its bytes in memory
 * draws (a hole reads as zeros), whichever layout (packed, strided, A8,
 * rows wider than the executor's bounce buffer, clipped), sealed against
 * writes (pages found in the file read through the mapping, the others
 * with pread), and must create no page in the file: a read of a hole
 * through the shared mapping would create it in the compositor
 * (docs/reliability.md, "Pools of holes, session 40"). A pool not sealed
 * against writes is refused (session 41: a page seen in its file could be
 * punched out before the read). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/test_ring_util.h"

#define POOL_PAGES 64u
#define PAGE 4096u
#define POOL_SIZE (POOL_PAGES * PAGE)
#define POOL_ID 3

/* The client writes pages 0-15 and every even page after: runs of pages
 * in the file and runs with holes. */
static bool page_written(uint32_t page)
{
	return page < 16 || page % 2 == 0;
}

static uint32_t word_at(uint32_t i)
{
	return i * 2654435761u ^ 0x5a5a5a5au;
}

struct target {
	uint32_t id, w, h, format;
};

static const struct target targets[] = {
	{ 10, 128, 512, SMT_FORMAT_ARGB8888 },
	{ 11, 300, 250, SMT_FORMAT_XRGB8888 },
	{ 12, 64, 1200, SMT_FORMAT_A8 },
	{ 13, 10000, 6, SMT_FORMAT_ARGB8888 },
	{ 14, 256, 256, SMT_FORMAT_ARGB8888 },
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

static void put_all(struct stream *st, bool create)
{
	for (size_t i = 0; create && i < NTARGETS; i++)
		ST(st,
				smt_encode_create_pixmap(st_at(st), targets[i].id, targets[i].w,
						targets[i].h, targets[i].format));
	/* packed rows, the whole pool */
	ST(st, smt_encode_set_target(st_at(st), 10));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, 0, 128 * 4, 128, 512,
					SMT_FORMAT_ARGB8888, 0, 0));
	/* rows of 100 pixels 1 KiB apart, from inside a page, clipped left */
	ST(st, smt_encode_set_target(st_at(st), 11));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, PAGE + 8, 1024, 100, 200,
					SMT_FORMAT_XRGB8888, -10, 5));
	/* A8 rows of 37 bytes 40 apart */
	ST(st, smt_encode_set_target(st_at(st), 12));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, 70000, 40, 37, 1100,
					SMT_FORMAT_A8, 3, 7));
	/* rows of 40,000 bytes: wider than the bounce buffer */
	ST(st, smt_encode_set_target(st_at(st), 13));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, 0, 40000, 10000, 6,
					SMT_FORMAT_ARGB8888, 0, 0));
	/* through a clip of two boxes: from the pages with holes, then from
	 * the first 16 pages only (all written: read through the mapping) */
	ST(st, smt_encode_set_target(st_at(st), 14));
	struct smt_rect boxes[2] = { { 5, 5, 50, 200 }, { 100, 30, 120, 100 } };
	ST(st, smt_encode_set_clip(st_at(st), 2, boxes));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, 64 * PAGE / 2, 1024, 256, 100,
					SMT_FORMAT_ARGB8888, 0, 0));
	ST(st,
			smt_encode_put_image_pool(st_at(st), POOL_ID, 0, 1024, 256, 60,
					SMT_FORMAT_ARGB8888, 0, 190));
}

static long file_blocks(int fd)
{
	struct stat s;
	REQUIRE(fstat(fd, &s) == 0, "fstat");
	return (long)s.st_blocks;
}

/* The client's pool, written as page_written says, sealed against
 * shrinking and, if sealed_writes, against writes but through its one
 * mapping (libsmt's pools). copy: what the pool reads as. */
static int client_pool(bool sealed_writes, uint32_t *copy)
{
	int fd = memfd_create("pool-holes", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	REQUIRE(fd >= 0 && ftruncate(fd, POOL_SIZE) == 0 &&
					fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) == 0,
			"memfd");
	uint32_t *client = mmap(NULL, POOL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	REQUIRE(client != MAP_FAILED, "the client's mapping");
	REQUIRE(!sealed_writes || fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) == 0, "seal");
	for (uint32_t i = 0; i < POOL_SIZE / 4; i++) {
		if (page_written(i * 4 / PAGE))
			client[i] = copy[i] = word_at(i);
	}
	munmap(client, POOL_SIZE);
	return fd;
}

/* A pool sealed against shrinking only is not registered: the executor
 * would trust pages a punch can take out (create_pool refuses it first). */
static void refuse_unsealed(void)
{
	uint32_t *own = calloc(1, POOL_SIZE);
	REQUIRE(own, "copy");
	int fd = client_pool(false, own);
	const void *mapped = mmap(NULL, POOL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(mapped != MAP_FAILED, "the compositor's mapping");
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	REQUIRE(ctx, "ctx");
	current_test = "not sealed against writes: refused";
	CHECK_INT(smt_exec_register_pool_file(ctx, POOL_ID, mapped, POOL_SIZE, fd), -1);
	smt_exec_destroy(ctx);
	munmap((void *)mapped, POOL_SIZE);
	free(own);
	close(fd);
}

/* Each put from the file draws what it draws from the copy, and no page
 * is created in the file. Twice: the second time a sealed pool's bitmap
 * knows the pages in the file. */
static void check_pool(const uint32_t *copy, struct smt_exec_ctx *from_copy)
{
	uint32_t *own = calloc(1, POOL_SIZE);
	REQUIRE(own, "copy");
	int fd = client_pool(true, own);
	long written = file_blocks(fd);
	const void *mapped = mmap(NULL, POOL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	REQUIRE(mapped != MAP_FAILED, "the compositor's mapping");
	REQUIRE(memcmp(own, copy, POOL_SIZE) == 0, "the same contents");
	for (int pass = 0; pass < 2; pass++) {
		struct smt_exec_ctx *from_file = smt_exec_create(NULL);
		REQUIRE(from_file, "ctx");
		REQUIRE(smt_exec_register_pool_file(from_file, POOL_ID, mapped, POOL_SIZE, fd) == 0,
				"pool of the file");
		for (int run = 0; run <= pass; run++) {
			struct stream st;
			struct smt_exec_result res;
			st_init(&st);
			put_all(&st, run == 0);
			REQUIRE(run_ring(from_file, &st, 65536, &res) == SMT_EXEC_EMPTY, "file: %s",
					res.error.message);
			st_fini(&st);
		}
		for (size_t i = 0; i < NTARGETS; i++) {
			char what[96];
			snprintf(what, sizeof(what), "pass %d, pixmap %u", pass, targets[i].id);
			current_test = what;
			expect_same(smt_exec_drawable_image(from_file, targets[i].id),
					smt_exec_drawable_image(from_copy, targets[i].id), what);
		}
		current_test = "no page created";
		CHECK_INT(file_blocks(fd), written);
		smt_exec_destroy(from_file);
	}
	munmap((void *)mapped, POOL_SIZE);
	free(own);
	close(fd);
}

int main(void)
{
	uint32_t *copy = calloc(1, POOL_SIZE);
	REQUIRE(copy, "copy");
	for (uint32_t i = 0; i < POOL_SIZE / 4; i++) {
		if (page_written(i * 4 / PAGE))
			copy[i] = word_at(i);
	}
	struct smt_exec_ctx *from_copy = smt_exec_create(NULL);
	REQUIRE(from_copy, "ctx");
	REQUIRE(smt_exec_register_pool(from_copy, POOL_ID, copy, POOL_SIZE) == 0, "pool copy");
	struct stream st;
	st_init(&st);
	put_all(&st, true);
	struct smt_exec_result res;
	REQUIRE(run_ring(from_copy, &st, 65536, &res) == SMT_EXEC_EMPTY, "copy: %s",
			res.error.message);
	st_fini(&st);
	refuse_unsealed();
	check_pool(copy, from_copy);
	smt_exec_destroy(from_copy);
	free(copy);
	if (failures)
		return 1;
	printf("test_ring_pool_reads: ok\n");
	return 0;
}
