/*
 * Cases about what a client names: a scribbled header page, other
 * clients' drawables, pools out of range, many pixmaps.
 */
#include "tests/tools/hostile/hostile.h"

/* The client scribbles over its whole header page (all but head) — where
 * a naive server might keep its tail, sizes or flags — between batches:
 * the server's tail, which it keeps privately, is unaffected. */
int case_header_scribble(struct hostile *h)
{
	create_good_ring(h, 4096);
	emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		return 1;
	}
	uint64_t *words = (uint64_t *)h->mem;
	for (size_t i = 0; i < SMT_RING_HEADER_SIZE / 8; i++) {
		if (i * 8 != offsetof(struct smt_ring_header, head)) {
			words[i] = UINT64_MAX - i * 8; /* magic, sizes, flags, wait_tail, ... */
		}
	}
	for (uint64_t serial = 2; serial < 200; serial++) {
		emit_fence(h, serial);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			fprintf(stderr, "smt-hostile: tail stuck at %llu (head %llu)\n",
					(unsigned long long)atomic_load(&h->status->tail),
					(unsigned long long)h->head);
			return 1;
		}
		words[1] = serial * 4096 + 8; /* a "tail" where the header's spare words are */
	}
	uint64_t tail = atomic_load(&h->status->tail);
	uint64_t fence = atomic_load(&h->status->completed_fence);
	printf("after scribbling: tail %llu head %llu completed_fence %llu\n",
			(unsigned long long)tail, (unsigned long long)h->head,
			(unsigned long long)fence);
	return tail == h->head && fence == 199 && !ring_dead(h) ? 0 : 1;
}

/* Another client's canvas id (from smt-demo): unknown in this ring. */
int case_foreign(struct hostile *h, const char *name, uint32_t id)
{
	create_good_ring(h, 4096);
	int op;
	if (strcmp(name, "foreign-target") == 0) {
		emit_target(h, id);
		op = SMT_OP_SET_TARGET;
	} else {
		/* Our own pixmap with the same id is ours alone: it can be
		 * created and drawn into, but it is not a canvas. */
		emit_create(h, id, 64, 64, SMT_FORMAT_ARGB8888);
		emit_target(h, id);
		struct {
			struct smt_cmd_fill_rects f;
			struct smt_rect r;
		} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xffff0000u, 1,
					   0 },
			{ 0, 0, 64, 64 } };
		emit(h, &fill, sizeof(fill));
		emit_fence(h, 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			fprintf(stderr, "smt-hostile: our own pixmap %u failed\n", id);
			return 1;
		}
		printf("own pixmap %u created and filled\n", id);
		struct smt_cmd_present p = { { SMT_OP_PRESENT, 0, sizeof(p) }, id, 1, 0, 0 };
		emit(h, &p, sizeof(p));
		op = SMT_OP_PRESENT;
	}
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_BAD_DRAWABLE, op) ? 0 : 1;
}

static void emit_put_pool(struct hostile *h, uint32_t pool, uint64_t offset)
{
	struct smt_cmd_put_image_pool c = { { SMT_OP_PUT_IMAGE_POOL, 0, sizeof(c) }, pool,
		SMT_FORMAT_ARGB8888, offset, 256, 64, 64, 0, 0, 0 };
	emit(h, &c, sizeof(c));
}

/* Pool 3 destroyed at once behind the published commands that name it
 * (no round trip between): they all run first (the destroy waits for
 * them; `ran` is printed), and a draw from it afterwards ends the ring
 * with BAD_POOL. */
static int destroy_pool_behind(struct hostile *h, const char *ran)
{
	uint64_t pending = h->head;
	kick(h);
	smt_pool_v1_destroy(h->pool);
	wl_display_roundtrip(h->display);
	if (!wait_tail_efd(h, pending, HANG_MS) || ring_dead(h)) {
		fprintf(stderr,
				"smt-hostile: commands published before the destroy did not all run "
				"(tail %llu of %llu)\n",
				(unsigned long long)atomic_load(&h->status->tail),
				(unsigned long long)pending);
		return 1;
	}
	printf("%s\n", ran);
	emit_put_pool(h, 3, 0);
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_BAD_POOL, SMT_OP_PUT_IMAGE_POOL) ? 0 : 1;
}

/* pool-resize-destroy-pending: a resize and then the destroy, both queued
 * behind fills of a 2048x2048 pixmap: every command between them sees the
 * grown pool (one in the new part), commands after the destroy find no
 * pool. The destroy's request used to be allocated when it arrived and,
 * on failure, the pool freed at once under the queued resize; now it is
 * the pool's own from its creation, so it always waits its turn. */
static int pool_resize_destroy_pending(struct hostile *h, int pfd)
{
	static const struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
		{ 0, 0, 2048, 2048 } };
	emit_create(h, 6, 2048, 2048, SMT_FORMAT_ARGB8888);
	emit_target(h, 6);
	for (int i = 0; i < 40; i++) {
		emit(h, &fill, sizeof(fill));
	}
	emit_target(h, 5);
	emit_put_pool(h, 3, 0);
	kick(h);
	if (ftruncate(pfd, 131072) != 0) {
		perror("smt-hostile: ftruncate");
		return 1;
	}
	smt_pool_v1_resize(h->pool, 131072);
	wl_display_roundtrip(h->display); /* the resize is where it is in the stream */
	emit_put_pool(h, 3, 131072 - 64 * 256);
	emit_fence(h, 8);
	return destroy_pool_behind(h, "a draw from the grown part ran before the pool went away");
}

int case_pool(struct hostile *h, const char *name)
{
	create_good_ring(h, 65536);
	const struct wl_interface *ring = &smt_ring_v1_interface;
	/* no seal at all; too short; sealed against shrinking only (session
	 * 41: a pool must be sealed against writes too) */
	int bad = strcmp(name, "pool-unsealed") == 0       ? make_memfd(65536, 0) :
			strcmp(name, "pool-short") == 0    ? make_pool_memfd(4096) :
			strcmp(name, "pool-writable") == 0 ? make_memfd(65536, F_SEAL_SHRINK) :
							     -1;
	if (bad >= 0) {
		smt_ring_v1_create_pool(h->ring, 3, bad, 65536);
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	int pfd = make_pool_memfd(65536);
	h->pool = smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
	wl_display_roundtrip(h->display);
	emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
	emit_target(h, 5);
	if (strcmp(name, "pool-shrink") == 0) {
		/* The seal makes shrinking the memfd impossible... */
		if (ftruncate(pfd, 4096) == 0) {
			fprintf(stderr, "smt-hostile: a sealed pool memfd could be shrunk\n");
			return 1;
		}
		printf("ftruncate(shrink) refused: %s\n", strerror(errno));
		/* ...so the last row of the pool is still readable. */
		emit_put_pool(h, 3, 65536 - 64 * 256);
		emit_fence(h, 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			fprintf(stderr, "smt-hostile: drawing from the pool failed\n");
			return 1;
		}
		/* and asking the server to shrink its mapping is an error. */
		smt_pool_v1_resize(h->pool, 4096);
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	if (strcmp(name, "pool-grow-lie") == 0) {
		/* resize beyond what the memfd holds */
		smt_pool_v1_resize(h->pool, 1u << 24);
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	if (strcmp(name, "pool-resize-destroy-pending") == 0) {
		return pool_resize_destroy_pending(h, pfd);
	}
	/* pool-destroy-pending: commands naming the pool are published, the
	 * pool is destroyed at once (no round trip): those commands still run
	 * (the destroy waits for them), later ones fail with BAD_POOL. */
	for (int i = 0; i < 100; i++) {
		emit_put_pool(h, 3, (uint64_t)(i % 4) * 64 * 256);
	}
	emit_fence(h, 7);
	return destroy_pool_behind(h, "100 pending PUT_IMAGE_POOL ran before the pool went away");
}

/* Ten thousand small pixmaps are fine; twenty thousand 64x64 ones exceed
 * the client's memory limit (client-memory-mib, 256 by default) and end
 * the client with LIMIT. */
int case_pixmaps_10k(struct hostile *h)
{
	create_good_ring(h, 1u << 20);
	for (uint32_t id = 1; id <= 10000; id++) {
		emit_create(h, id, 1, 1, SMT_FORMAT_ARGB8888);
	}
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		fprintf(stderr, "smt-hostile: 10000 1x1 pixmaps were refused\n");
		return 1;
	}
	printf("10000 1x1 pixmaps created\n");
	for (uint32_t id = 10001; id <= 30000; id++) {
		emit_create(h, id, 64, 64, SMT_FORMAT_ARGB8888);
		if (ring_dead(h)) {
			break;
		}
	}
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP) ? 0 : 1;
}
