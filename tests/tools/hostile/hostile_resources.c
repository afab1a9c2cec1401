/*
 * Resource attacks (docs/protocol.md "Resource limits"): each must be
 * refused with a LIMIT error naming the limit, or, for the drain, must not
 * make the compositor run hours of queued work.
 */
#include "tests/tools/hostile/hostile.h"

/* Rings until the compositor refuses one: the client's ring limit (or
 * its fd limit, whichever is lower) names itself in the error. */
int case_ring_flood(struct hostile *h)
{
	for (int i = 0; i < 100000; i++) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, F_SEAL_SHRINK | F_SEAL_GROW);
		struct smt_ring_v1 *r = smt_ring_manager_v1_create_ring(h->manager, fd, 4096,
				eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
		(void)r;
		if (wl_display_roundtrip(h->display) < 0) {
			printf("rings accepted: %d\n", i);
			return expect_error(h, &smt_ring_manager_v1_interface,
					       SMT_RING_MANAGER_V1_ERROR_LIMIT) ?
					0 :
					1;
		}
	}
	fprintf(stderr, "smt-hostile: 100000 rings accepted\n");
	return 1;
}

/* Pools on one ring until refused (each keeps a descriptor in the
 * compositor). */
int case_pool_flood(struct hostile *h)
{
	create_good_ring(h, 4096);
	for (uint32_t id = 1; id < 1024; id++) {
		int fd = make_pool_memfd(4096);
		smt_ring_v1_create_pool(h->ring, id, fd, 4096);
		close(fd);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("pools accepted: %u\n", id - 1);
			return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ?
					0 :
					1;
		}
	}
	fprintf(stderr, "smt-hostile: 1023 pools accepted\n");
	return 1;
}

/* A canvas of the largest size: two images of 1 GiB each. */
int case_canvas_huge(struct hostile *h)
{
	create_good_ring(h, 4096);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	smt_ring_v1_get_canvas(h->ring, 1, surface, SMT_MAX_DIMENSION, SMT_MAX_DIMENSION);
	return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ? 0 : 1;
}

/* Growing a canvas past the limit is refused on the canvas. */
int case_canvas_grow(struct hostile *h)
{
	create_good_ring(h, 4096);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 1, surface, 64, 64);
	wl_display_roundtrip(h->display);
	smt_canvas_v1_resize(canvas, SMT_MAX_DIMENSION, 8192);
	return expect_error(h, &smt_canvas_v1_interface, SMT_CANVAS_V1_ERROR_LIMIT) ? 0 : 1;
}

/* 64 MiB pixmaps, one per ring: the memory limit is the client's, not the
 * ring's, so a new ring brings no new allowance. */
int case_memory_rings(struct hostile *h)
{
	for (int i = 0; i < 64; i++) {
		create_good_ring(h, 4096);
		emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
		emit_fence(h, 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			printf("rings with a 64 MiB pixmap: %d\n", i);
			if (!expect_error(h, &smt_ring_v1_interface,
					    SMT_RING_V1_ERROR_BAD_COMMAND)) {
				return 1;
			}
			return check_death(h, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP) ? 0 : 1;
		}
	}
	fprintf(stderr, "smt-hostile: 64 rings of 64 MiB pixmaps accepted\n");
	return 1;
}

/* Holds n 64 MiB pixmaps, every pixel written (resident), until killed
 * (prints HOLDING once they exist): the other clients' share of the
 * compositor's total. */
int case_hold_memory(struct hostile *h, int n)
{
	create_good_ring(h, 4096);
	struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xff402010u, 1, 0 },
		{ 0, 0, 4096, 4096 } };
	for (int i = 1; i <= n; i++) {
		emit_create(h, (uint32_t)i, 4096, 4096, SMT_FORMAT_ARGB8888);
		emit_target(h, (uint32_t)i);
		emit(h, &fill, sizeof(fill));
	}
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		printf("REFUSED: %d pixmaps of 64 MiB\n", n);
		return 1;
	}
	printf("HOLDING %d MiB\n", n * 64);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* Issue 12's drain: a 16 MiB ring full of fills over a 4096x4096 pixmap
 * (hours of work), then every request that needs the ring's earlier work:
 * pool create, resize and destroy, canvas create, resize and destroy.
 * Returns the head published before the requests. */
static const struct {
	struct smt_cmd_fill_rects f;
	struct smt_rect r;
} drain_fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(drain_fill) }, SMT_PAINT_OVER, 0x80402010u, 1,
				 0 },
	{ 0, 0, 4096, 4096 } };

static uint64_t start_drain(struct hostile *h)
{
	create_good_ring(h, 16u << 20);
	emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	while (h->head + sizeof(drain_fill) + 64 <= h->area_size) {
		emit(h, &drain_fill, sizeof(drain_fill));
	}
	kick(h);
	uint64_t queued = h->head;
	int fd = make_pool_memfd(65536);
	struct smt_pool_v1 *pool = smt_ring_v1_create_pool(h->ring, 1, fd, 4096);
	smt_pool_v1_resize(pool, 65536);
	close(fd);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 2, surface, 256, 256);
	smt_canvas_v1_resize(canvas, 512, 512);
	smt_canvas_v1_destroy(canvas);
	smt_pool_v1_destroy(pool);
	return queued;
}

/* start_drain; the request handlers must not run the queued work: this
 * client's own round trip returns, and a second connection (the victim)
 * gets its round trip and its own ring's FENCE executed, all while nearly
 * all of the attacker's work is still queued. */
int case_drain_stall(struct hostile *h)
{
	uint64_t queued = start_drain(h);
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: the attacker's requests were refused\n");
		return 1;
	}
	printf("attacker: its requests answered with %llu of %llu bytes executed\n",
			(unsigned long long)atomic_load(&h->status->tail),
			(unsigned long long)queued);

	struct hostile v = { .status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1 };
	if (!hostile_connect(&v)) {
		fputs("smt-hostile: the victim cannot connect\n", stderr);
		return 1;
	}
	create_good_ring(&v, 4096);
	emit_fence(&v, 1);
	kick(&v);
	if (v.manager == NULL || !wait_tail_efd(&v, v.head, HANG_MS) ||
			wl_display_roundtrip(v.display) < 0) {
		fprintf(stderr, "smt-hostile: the victim's requests did not complete\n");
		return 1;
	}
	uint64_t done = atomic_load(&h->status->tail);
	printf("victim: round trip and FENCE done with %llu of %llu attacker bytes executed\n",
			(unsigned long long)done, (unsigned long long)queued);
	if (done >= queued || ring_dead(h)) {
		fprintf(stderr, "smt-hostile: the attacker's queue was drained (%s)\n",
				ring_dead(h) ? "ring dead" : "all executed");
		return 1;
	}
	printf("DRAIN_STALL refused\n");
	return 0;
}

/* start_drain for the benchmark, the ring refilled as it drains for
 * `seconds`. */
int case_drain_attack(struct hostile *h, double seconds)
{
	start_drain(h);
	if (wl_display_roundtrip(h->display) < 0) {
		return 1;
	}
	printf("DRAIN_ATTACK started\n"); /* the benchmark waits for this line */
	double end = now_ms() + seconds * 1000;
	while (now_ms() < end && !ring_dead(h)) {
		uint64_t tail = atomic_load_explicit(&h->status->tail, memory_order_acquire);
		while (h->head + sizeof(drain_fill) + 64 - tail <= h->area_size) {
			emit(h, &drain_fill, sizeof(drain_fill));
		}
		kick(h);
		usleep(2000);
		wl_display_dispatch_pending(h->display);
		wl_display_flush(h->display);
	}
	return ring_dead(h) ? 1 : 0;
}

/* clip-grid RINGS (session 41): on each of RINGS rings a SET_CLIP of the
 * most rectangles one command carries, half of them rows and half columns
 * one pixel wide, on a 4096x4096 A8 pixmap: their union has a band for
 * every gap between two rows and a box in it for every column, so about
 * (n/2)^2 boxes (4 million, 64 MiB) from a 64 KiB command. The clip stays
 * with the ring. Since session 41 refused (limit, naming the boxes); with
 * hold, what was accepted is held until killed (prints CLIP_GRID held). */
int case_clip_grid(struct hostile *h, int rings, bool hold)
{
	enum {
		N = (SMT_CMD_CONTROL_MAX - sizeof(struct smt_cmd_set_clip)) /
				sizeof(struct smt_rect)
	};
	static struct {
		struct smt_cmd_set_clip c;
		struct smt_rect r[N];
	} clip;
	clip.c = (struct smt_cmd_set_clip){ { SMT_OP_SET_CLIP, 0, sizeof(clip) }, N, 0 };
	for (uint32_t i = 0; i < N / 2; i++) {
		clip.r[i] = (struct smt_rect){ 0, (int32_t)(2 * i), 4096, 1 };
		clip.r[N / 2 + i] = (struct smt_rect){ (int32_t)(2 * i), 0, 1, 4096 };
	}
	for (int i = 0; i < rings; i++) {
		create_good_ring(h, 1u << 20);
		emit_create(h, 1, 4096, 4096, SMT_FORMAT_A8);
		emit_target(h, 1);
		emit(h, &clip, sizeof(clip));
		emit_fence(h, 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			printf("CLIP_GRID refused at ring %d\n", i + 1);
			if (!expect_error(h, &smt_ring_v1_interface,
					    SMT_RING_V1_ERROR_BAD_COMMAND)) {
				return 1;
			}
			return check_death(h, SMT_ERROR_LIMIT, SMT_OP_SET_CLIP) ? 0 : 1;
		}
	}
	printf("CLIP_GRID %s: %d rings, %d rectangles each\n", hold ? "held" : "accepted", rings,
			(int)N);
	fflush(stdout);
	while (hold) {
		pause();
	}
	return 1;
}

/* clip-max RINGS [BALLAST_KIB] (session 42): on each of RINGS rings an A8
 * pixmap and a canvas of 8188x7, the pixmap's clip and the canvas's
 * PRESENT damage the largest regions the executor accepts: 4,094
 * one-pixel columns, each four rows tall and starting one row lower than
 * the one before, cycling, so no two bands of their union are alike and
 * it has 16,376 boxes (the bound: 16,384, 256 KiB). Each ring keeps
 * its clip; the damage is charged until its copy is reported.
 * First every ring gets its images (and ring 1 BALLAST_KIB more of
 * pixmaps), then every ring its regions: with the ballast the regions are
 * what reaches the client's memory limit (the ring dies with LIMIT naming
 * it on SET_CLIP or PRESENT: prints CLIP_MAX refused); without it, prints
 * HOLDING and holds until killed. */
enum {
	CLIP_MAX_RECTS = 4094,
	CLIP_MAX_W = 2 * CLIP_MAX_RECTS,
	CLIP_MAX_H = 7
};

static void clip_max_rects(struct smt_rect *r)
{
	for (uint32_t i = 0; i < CLIP_MAX_RECTS; i++)
		r[i] = (struct smt_rect){ (int32_t)(2 * i), (int32_t)(i % 4), 1, 4 };
}

static bool clip_max_wait(struct hostile *h, int ring, const char *what)
{
	emit_fence(h, 1);
	kick(h);
	if (wait_tail_efd(h, h->head, HANG_MS))
		return true;
	printf("CLIP_MAX refused at ring %d's %s\n", ring, what);
	fflush(stdout);
	return false;
}

int case_clip_max(struct hostile *h, int rings, uint64_t ballast_kib)
{
	static struct {
		struct smt_cmd_set_clip c;
		struct smt_rect r[CLIP_MAX_RECTS];
	} clip;
	static struct {
		struct smt_cmd_present p;
		struct smt_rect r[CLIP_MAX_RECTS];
	} present;
	static_assert(sizeof(clip) <= SMT_CMD_CONTROL_MAX, "one command");
	static_assert(sizeof(present) <= SMT_CMD_CONTROL_MAX, "one command");
	clip.c = (struct smt_cmd_set_clip){ { SMT_OP_SET_CLIP, 0, sizeof(clip) }, CLIP_MAX_RECTS,
		0 };
	clip_max_rects(clip.r);
	present.p = (struct smt_cmd_present){ { SMT_OP_PRESENT, 0, sizeof(present) }, 2, 1,
		CLIP_MAX_RECTS, 0 };
	clip_max_rects(present.r);
	if (rings < 1 || rings > 64)
		return 2;
	struct hostile *ring = calloc((size_t)rings, sizeof(*ring));
	for (int i = 0; i < rings; i++) {
		create_good_ring(h, 1u << 17);
		struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
		smt_ring_v1_get_canvas(h->ring, 2, surface, CLIP_MAX_W, CLIP_MAX_H);
		emit_create(h, 1, CLIP_MAX_W, CLIP_MAX_H, SMT_FORMAT_A8);
		/* 256 ARGB pixels a row: a KiB, up to 4096 rows a pixmap */
		for (uint32_t id = 3; i == 0 && ballast_kib > 0; id++) {
			uint64_t rows = ballast_kib < 4096 ? ballast_kib : 4096;
			emit_create(h, id, 256, (uint32_t)rows, SMT_FORMAT_ARGB8888);
			ballast_kib -= rows;
		}
		if (!clip_max_wait(h, i + 1, "images"))
			return 1; /* the ballast or the images already: no verdict */
		ring[i] = *h;
	}
	for (int i = 0; i < rings; i++) {
		*h = ring[i];
		emit_target(h, 1);
		emit(h, &clip, sizeof(clip));
		emit(h, &present, sizeof(present));
		if (!clip_max_wait(h, i + 1, "regions")) {
			if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND))
				return 1;
			return check_death(h, SMT_ERROR_LIMIT, -1) ? 0 : 1;
		}
	}
	printf("HOLDING %d rings with a clip and a damage of 16376 boxes each\n", rings);
	fflush(stdout);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}
