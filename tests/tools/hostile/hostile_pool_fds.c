/*
 * What a client can pass as a pool's memory (session 39): fds of every
 * kind, and a memfd whose pages it never wrote.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "tests/tools/hostile/hostile.h"

/* sparse-pool MIB (session 39): a pool of MIB MiB that the client never
 * wrote (ftruncate only: holes), read whole by PUT_IMAGE_POOL into a
 * 1x16384 pixmap, one 4-byte pixel per page. A shared mapping's read of a
 * tmpfs hole allocates the page, in the faulting process: the compositor
 * (until session 40). Sealed against writes too (F_SEAL_FUTURE_WRITE, as
 * create_pool requires since session 41): the compositor reads it through
 * its mapping where it knows the pages are there. Held until killed. */
int case_pool_holes(struct hostile *h, int mib)
{
	create_good_ring(h, 65536);
	uint64_t size = (uint64_t)mib << 20;
	int fd = make_pool_memfd(size);
	smt_ring_v1_create_pool(h->ring, 1, fd, (uint32_t)size);
	close(fd);
	wl_display_roundtrip(h->display);
	emit_create(h, 1, 1, 16384, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	for (uint64_t off = 0; off + 16384 * 4096ull <= size; off += 16384 * 4096ull) {
		struct smt_cmd_put_image_pool image = { { SMT_OP_PUT_IMAGE_POOL, 0, sizeof(image) },
			1, SMT_FORMAT_ARGB8888, off, 4096, 1, 16384, 0, 0, 0 };
		emit(h, &image, sizeof(image));
	}
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		fputs("SPARSE_POOL: the ring died or did not finish\n", stderr);
		return 1;
	}
	printf("SPARSE_POOL read %d MiB of holes\n", mib);
	for (;;) {
		pause();
	}
}

/* pool-fd-kinds (session 39): create_pool with every kind of fd a client
 * can pass, each on a connection of its own (a refusal ends it). Only a
 * memfd sealed against shrinking and against writes (session 41) may be
 * accepted; the others must end with bad_fd, and the compositor must
 * answer a new connection after. */
struct fd_kind {
	const char *name;
	int fd;
	bool accept;
};

static int sealed_then_grown(void)
{
	int fd = make_pool_memfd(65536);
	return ftruncate(fd, 1 << 20) == 0 ? fd : -1;
}

int case_pool_fd_kinds(void)
{
	int p[2], sp[2];
	if (pipe(p) != 0 || socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0) {
		perror("smt-hostile: pipe");
		return 1;
	}
	struct fd_kind kinds[] = {
		{ "pipe", p[0], false },
		{ "socket", sp[0], false },
		{ "dev-zero", open("/dev/zero", O_RDWR | O_CLOEXEC), false },
		{ "eventfd", eventfd(0, EFD_CLOEXEC), false },
		{ "memfd-future-write", make_memfd(65536, F_SEAL_FUTURE_WRITE), false },
		{ "memfd-unsealed-grown", make_memfd(1 << 20, 0), false },
		{ "memfd-shrink-only", make_memfd(65536, F_SEAL_SHRINK), false },
		{ "memfd-sealed-then-grown", sealed_then_grown(), true },
		{ "memfd-all-seals",
				make_memfd(65536,
						F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
								F_SEAL_SEAL),
				true },
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct hostile h = {
			.status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1
		};
		if (!hostile_connect(&h)) {
			fprintf(stderr, "POOL_FD %s: the compositor no longer answers\n",
					kinds[i].name);
			return 1;
		}
		create_good_ring(&h, 4096);
		if (kinds[i].fd < 0) {
			perror("smt-hostile: fd");
			return 1;
		}
		smt_ring_v1_create_pool(h.ring, 1, kinds[i].fd, 65536);
		bool accepted = wl_display_roundtrip(h.display) >= 0;
		uint32_t code = 0;
		const struct wl_interface *iface = NULL;
		if (!accepted) {
			code = wl_display_get_protocol_error(h.display, &iface, NULL);
		}
		bool ok = kinds[i].accept ? accepted :
					    !accepted && iface == &smt_ring_v1_interface &&
						code == SMT_RING_V1_ERROR_BAD_FD;
		printf("POOL_FD %s: %s%s\n", kinds[i].name, accepted ? "accepted" : "refused",
				ok ? "" : " (NOT AS EXPECTED)");
		bad += !ok;
		wl_display_disconnect(h.display);
	}
	if (bad == 0) {
		printf("POOL_FD_KINDS as expected\n");
	}
	return bad == 0 ? 0 : 1;
}

/* ring-holes N (session 41): N rings of the largest area (16 MiB), each
 * carrying two PUT_IMAGEs of 8 MiB whose pixels the client never wrote
 * (only the commands' first 32 bytes are): the pixels are read in place
 * through the compositor's mapping of the area, and a read of a hole
 * there creates the page in the compositor, as a pool's did before
 * session 40. A ring area cannot be sealed against writes (the client
 * writes it), so it is charged instead: as memory, its whole size (what
 * the compositor may make resident of it). Held until killed; prints
 * RING_HOLES read, or REFUSED at the ring a limit refused. */
int case_ring_holes(struct hostile *h, int rings)
{
	const uint32_t area = SMT_RING_AREA_MAX, width = 1024, stride = width * 4;
	const uint32_t rows = (area / 2 - 64) / stride; /* a command: at most half the area */
	for (int i = 0; i < rings; i++) {
		create_good_ring(h, area);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("REFUSED: ring %d of %u bytes\n", i + 1, area);
			return 0;
		}
		/* one column shown: pixman still reads a pixel of every row,
		 * a page each (the stride) */
		emit_create(h, 1, 1, 2 * rows, SMT_FORMAT_ARGB8888);
		emit_target(h, 1);
		for (uint32_t half = 0; half < 2; half++) {
			struct smt_cmd_put_image image = {
				{ SMT_OP_PUT_IMAGE, 0, (uint32_t)sizeof(image) + rows * stride }, 0,
				(int32_t)(half * rows), width, rows, SMT_FORMAT_ARGB8888, stride
			};
			put(h, &image, sizeof(image));
			h->head += (uint64_t)rows * stride; /* the pixels: holes */
		}
		emit_fence(h, (uint64_t)i + 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			printf("REFUSED: ring %d's commands\n", i + 1);
			return 0;
		}
	}
	printf("RING_HOLES read %d rings of %u MiB of holes\n", rings, area >> 20);
	fflush(stdout);
	for (;;) {
		pause();
	}
}
