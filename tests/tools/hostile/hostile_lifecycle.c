/*
 * Protocol objects of the extension in odd orders and with odd arguments
 * (session 24, red team): the manager destroyed before its rings, a ring
 * destroyed before its pools and canvases, descriptors of every kind where
 * a memfd or an eventfd is taken, zero and huge sizes, many rings made and
 * destroyed. Each case ends in the documented error or in a ring that still
 * answers a FENCE; never in a crash or a hang of the compositor.
 */
#include "tests/tools/hostile/hostile.h"
#include <sys/socket.h>
#include <sys/stat.h>

/* Sends the requests so far and waits for their answer; false if the
 * connection died (a protocol error, printed). */
static bool trip(struct hostile *h, const char *what)
{
	if (wl_display_roundtrip(h->display) >= 0) {
		return true;
	}
	const struct wl_interface *iface = NULL;
	uint32_t id = 0;
	uint32_t code = wl_display_get_protocol_error(h->display, &iface, &id);
	printf("%s: protocol error %s@%u code %u\n", what, iface ? iface->name : "?", id, code);
	return false;
}

/* The ring still executes: a FENCE is consumed. */
static bool ring_answers(struct hostile *h, uint64_t serial)
{
	emit_fence(h, serial);
	kick(h);
	return wait_tail_efd(h, h->head, HANG_MS);
}

static struct smt_pool_v1 *make_pool(struct hostile *h, uint32_t pool_id, uint32_t size)
{
	int fd = make_pool_memfd(size);
	struct smt_pool_v1 *pool = smt_ring_v1_create_pool(h->ring, pool_id, fd, size);
	close(fd);
	return pool;
}

/* The manager goes first: its rings, pools and canvases carry on. */
static int manager_first(struct hostile *h)
{
	create_good_ring(h, 65536);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 7, surface, 32, 32);
	struct smt_pool_v1 *pool = make_pool(h, 3, 65536);
	smt_ring_manager_v1_destroy(h->manager);
	h->manager = NULL;
	if (!trip(h, "manager destroyed")) {
		return 1;
	}
	smt_canvas_v1_resize(canvas, 64, 64);
	smt_pool_v1_resize(pool, 65536);
	emit_create(h, 1, 16, 16, SMT_FORMAT_ARGB8888);
	if (!trip(h, "requests after the manager") || !ring_answers(h, 1)) {
		fputs("smt-hostile: the ring stopped with its manager\n", stderr);
		return 1;
	}
	smt_canvas_v1_destroy(canvas);
	smt_pool_v1_destroy(pool);
	smt_ring_v1_destroy(h->ring);
	wl_surface_destroy(surface);
	if (!trip(h, "teardown")) {
		return 1;
	}
	printf("manager destroyed first: ring, pool and canvas carried on\n");
	return 0;
}

/* The ring goes first: requests on its pool and canvas are harmless. */
static int ring_first(struct hostile *h)
{
	create_good_ring(h, 65536);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 7, surface, 32, 32);
	struct smt_pool_v1 *pool = make_pool(h, 3, 65536);
	emit_create(h, 1, 2048, 2048, SMT_FORMAT_ARGB8888);
	kick(h);
	smt_ring_v1_destroy(h->ring);
	smt_canvas_v1_resize(canvas, 48, 48);
	smt_pool_v1_resize(pool, 1 << 20); /* the memfd is 64 KiB: a lie, too */
	wl_surface_commit(surface);
	if (!trip(h, "requests after the ring")) {
		return 1;
	}
	smt_canvas_v1_destroy(canvas);
	smt_pool_v1_destroy(pool);
	wl_surface_destroy(surface);
	if (!trip(h, "teardown")) {
		return 1;
	}
	/* A new ring on the same connection works. */
	create_good_ring(h, 4096);
	if (!ring_answers(h, 2)) {
		fputs("smt-hostile: a new ring after the old one died is not served\n", stderr);
		return 1;
	}
	printf("ring destroyed first: its pool and canvas requests ignored, a new ring served\n");
	return 0;
}

/* One descriptor of each kind that is not what the request takes. */
static int odd_fd(const char *kind)
{
	int sv[2], p[2];
	if (strcmp(kind, "pipe") == 0) {
		if (pipe(p) != 0) {
			return -1;
		}
		close(p[1]);
		return p[0];
	}
	if (strcmp(kind, "socket") == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
			return -1;
		}
		close(sv[1]);
		return sv[0];
	}
	if (strcmp(kind, "dir") == 0) {
		return open("/", O_RDONLY | O_DIRECTORY);
	}
	if (strcmp(kind, "path") == 0) {
		return open("/dev/zero", O_PATH);
	}
	if (strcmp(kind, "zero") == 0) {
		return open("/dev/zero", O_RDWR);
	}
	if (strcmp(kind, "null") == 0) {
		return open("/dev/null", O_RDWR);
	}
	if (strcmp(kind, "eventfd") == 0) {
		return eventfd(0, 0);
	}
	if (strcmp(kind, "memfd") == 0) {
		return make_memfd(65536 + SMT_RING_HEADER_SIZE, F_SEAL_SHRINK);
	}
	if (strcmp(kind, "file") == 0) {
		char path[] = "/tmp/smt-hostile-XXXXXX";
		int fd = mkstemp(path);
		if (fd >= 0) {
			unlink(path);
			(void)!ftruncate(fd, 65536 + SMT_RING_HEADER_SIZE);
		}
		return fd;
	}
	return -1;
}

static const char *const fd_kinds[] = { "pipe", "socket", "dir", "path", "zero", "null", "eventfd",
	"memfd", "file" };

/* where: "ring" (the ring's memfd), "server" / "client" (its eventfds),
 * "pool" (a pool's memfd). Every kind but the right one is bad_fd; the
 * right one works. Each try on a new connection. */
static int fd_kinds_case(const char *where)
{
	int failures = 0;
	for (size_t k = 0; k < sizeof(fd_kinds) / sizeof(fd_kinds[0]); k++) {
		const char *kind = fd_kinds[k];
		struct hostile h = { .status_fd = -1, .global_fd = -1 };
		if (!hostile_connect(&h)) {
			return 1;
		}
		int fd = odd_fd(kind);
		if (fd < 0) {
			perror("smt-hostile: odd fd");
			return 1;
		}
		bool right;
		if (strcmp(where, "pool") == 0) {
			create_good_ring(&h, 4096);
			right = strcmp(kind, "memfd") == 0;
			/* a pool's memfd is sealed against writes too (session 41) */
			if (right && fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) != 0) {
				perror("smt-hostile: seal");
				return 1;
			}
			smt_ring_v1_create_pool(h.ring, 3, fd, 65536);
		} else {
			int ring = strcmp(where, "ring") == 0 ?
					fd :
					make_memfd(65536 + SMT_RING_HEADER_SIZE, F_SEAL_SHRINK);
			int se = strcmp(where, "server") == 0 ? fd : eventfd(0, 0);
			int ce = strcmp(where, "client") == 0 ? fd : eventfd(0, EFD_NONBLOCK);
			create_ring_with(&h, ring, 65536, se, ce);
			/* a memfd of zeroes is taken: the header is the client's
			 * to write, and it is read once per use, not trusted */
			right = strcmp(kind, strcmp(where, "ring") == 0 ? "memfd" : "eventfd") == 0;
		}
		close(fd);
		bool died = wl_display_roundtrip(h.display) < 0;
		const struct wl_interface *iface = NULL;
		uint32_t id = 0, code = 0;
		if (died) {
			code = wl_display_get_protocol_error(h.display, &iface, &id);
		}
		printf("%s fd %s: %s %s code %u\n", where, kind, died ? "error" : "accepted",
				iface ? iface->name : "-", code);
		if (died == right) {
			fprintf(stderr, "smt-hostile: %s fd of kind %s %s\n", where, kind,
					right ? "refused" : "accepted");
			failures++;
		}
		wl_display_disconnect(h.display);
	}
	return failures != 0;
}

/* Zero and huge sizes in every request that takes one. */
static int sizes(const char *which)
{
	struct hostile h = { .status_fd = -1, .global_fd = -1 };
	if (!hostile_connect(&h)) {
		return 1;
	}
	if (strcmp(which, "ring-0") == 0 || strcmp(which, "ring-huge") == 0) {
		uint32_t area = strcmp(which, "ring-0") == 0 ? 0 : 0x80000000u;
		int fd = make_memfd(4096 + SMT_RING_HEADER_SIZE, F_SEAL_SHRINK);
		create_ring_with(&h, fd, area, eventfd(0, 0), eventfd(0, EFD_NONBLOCK));
	} else {
		create_good_ring(&h, 4096);
		struct wl_surface *surface = wl_compositor_create_surface(h.compositor);
		if (strcmp(which, "pool-0") == 0) {
			make_pool(&h, 3, 4096);
			int fd = make_pool_memfd(4096);
			smt_ring_v1_create_pool(h.ring, 4, fd, 0);
		} else if (strcmp(which, "pool-resize-0") == 0) {
			smt_pool_v1_resize(make_pool(&h, 3, 4096), 0);
		} else if (strcmp(which, "pool-resize-huge") == 0) {
			smt_pool_v1_resize(make_pool(&h, 3, 4096), 0xffffffffu);
		} else if (strcmp(which, "canvas-0") == 0) {
			smt_ring_v1_get_canvas(h.ring, 5, surface, 0, 10);
		} else if (strcmp(which, "canvas-resize-0") == 0) {
			smt_canvas_v1_resize(
					smt_ring_v1_get_canvas(h.ring, 5, surface, 8, 8), 10, 0);
		} else if (strcmp(which, "canvas-id-0") == 0) {
			smt_ring_v1_get_canvas(h.ring, 0, surface, 8, 8);
		} else if (strcmp(which, "canvas-id-max") == 0) {
			smt_ring_v1_get_canvas(h.ring, 0xffffffffu, surface, 8, 8);
		} else {
			return 2;
		}
	}
	return trip(&h, which) ? 3 : 0;
}

/* Rings made and destroyed, one at a time, far past client-rings: each
 * destroy gives its place back. */
static int ring_cycle(struct hostile *h, int n)
{
	for (int i = 0; i < n; i++) {
		create_good_ring(h, 4096);
		if (h->status == NULL || !ring_answers(h, (uint64_t)i)) {
			fprintf(stderr, "smt-hostile: ring %d of %d not served\n", i, n);
			return 1;
		}
		munmap((void *)h->status, SMT_STATUS_MAP_SIZE);
		munmap((void *)h->global, SMT_STATUS_MAP_SIZE);
		munmap(h->mem, SMT_RING_HEADER_SIZE + h->area_size);
		close(h->status_fd);
		close(h->global_fd);
		close(h->server_efd);
		close(h->client_efd);
		smt_ring_v1_destroy(h->ring);
		if (!trip(h, "ring destroy")) {
			return 1;
		}
	}
	printf("%d rings made and destroyed, each served\n", n);
	return 0;
}

/* Two rings of one connection put a canvas each on one surface: the
 * second is refused (bad_surface), as a second canvas of one ring is. */
static int two_rings_one_surface(struct hostile *h)
{
	struct hostile other = *h;
	create_good_ring(&other, 4096);
	create_good_ring(h, 4096);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	smt_ring_v1_get_canvas(other.ring, 5, surface, 16, 16);
	if (!trip(h, "first canvas")) {
		return 1;
	}
	smt_ring_v1_get_canvas(h->ring, 5, surface, 16, 16);
	if (trip(h, "second canvas")) {
		fputs("smt-hostile: a second canvas on one surface was taken\n", stderr);
		return 1;
	}
	return 0;
}

/* The ring destroyed while canvas and pool requests still wait behind its
 * work (a full ring of large fills): what waits is dropped with the ring,
 * the canvas and pool objects stay harmless, a new ring is served. */
static int ring_first_pending(struct hostile *h)
{
	static const struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} busy = { { { SMT_OP_FILL_RECTS, 0, sizeof(busy) }, SMT_PAINT_OVER, 0x80102030u, 1, 0 },
		{ 0, 0, 2048, 2048 } };
	create_good_ring(h, 65536);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 7, surface, 32, 32);
	struct smt_pool_v1 *pool = make_pool(h, 3, 65536);
	if (!trip(h, "canvas and pool")) {
		return 1;
	}
	emit_create(h, 1, 2048, 2048, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	while (h->head + sizeof(busy) + 64 < h->area_size) {
		emit(h, &busy, sizeof(busy));
	}
	kick(h);
	for (uint32_t i = 1; i <= 20; i++) {
		smt_canvas_v1_resize(canvas, 32 + i, 32 + i);
	}
	smt_pool_v1_resize(pool, 65536);
	smt_pool_v1_destroy(pool);
	smt_ring_v1_destroy(h->ring);
	smt_canvas_v1_resize(canvas, 8, 8);
	if (!trip(h, "ring destroyed with requests queued")) {
		return 1;
	}
	smt_canvas_v1_destroy(canvas);
	wl_surface_destroy(surface);
	create_good_ring(h, 4096);
	if (!trip(h, "new ring") || !ring_answers(h, 1)) {
		fputs("smt-hostile: a new ring after the old one died is not served\n", stderr);
		return 1;
	}
	printf("ring destroyed with 21 canvas resizes and a pool queued: dropped, a new ring "
	       "served\n");
	return 0;
}

int hostile_lifecycle_case(struct hostile *h, const char *name, const char *arg)
{
	if (strcmp(name, "manager-first") == 0) {
		return manager_first(h);
	} else if (strcmp(name, "ring-first-pending") == 0) {
		return ring_first_pending(h);
	} else if (strcmp(name, "ring-first") == 0) {
		return ring_first(h);
	} else if (strcmp(name, "fd-kinds") == 0) {
		return fd_kinds_case(arg != NULL ? arg : "ring");
	} else if (strcmp(name, "size") == 0) {
		return sizes(arg != NULL ? arg : "");
	} else if (strcmp(name, "ring-cycle") == 0) {
		return ring_cycle(h, arg != NULL ? atoi(arg) : 100);
	} else if (strcmp(name, "two-rings-one-surface") == 0) {
		return two_rings_one_surface(h);
	}
	return 2;
}
