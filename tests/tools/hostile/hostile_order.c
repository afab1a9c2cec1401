/*
 * Ordering attacks: work a client queues must not run out of order or in
 * one unbounded piece. A command split around a request (socket rings) is
 * published by its last byte; a huge PRESENT copies in bands over the
 * ring's slices, so other clients are answered during the copy.
 */
#include "tests/tools/hostile/hostile.h"

/* ---- a command split around a request (socket path) ------------------ */

static void split_fence(void *data, struct smt_ring_v1 *ring, uint32_t hi, uint32_t lo)
{
	*(uint64_t *)data = (uint64_t)hi << 32 | lo;
}
static void split_status(void *data, struct smt_ring_v1 *ring, int32_t status_fd, int32_t global_fd)
{
	close(status_fd);
	close(global_fd);
}
static const struct smt_ring_v1_listener split_listener = { split_status, split_fence };

static void submit_bytes(struct smt_ring_v1 *ring, const void *bytes, size_t len)
{
	struct wl_array a;
	wl_array_init(&a);
	memcpy(wl_array_add(&a, len), bytes, len);
	smt_ring_v1_submit(ring, &a);
	wl_array_release(&a);
}

static void split_create_pool(struct hostile *h, struct smt_ring_v1 *ring);

/* On a new socket ring (with pool 1 first if pool_first), submits a
 * PUT_IMAGE_POOL of pool 1 in two pieces with `between` sent between
 * them, then a FENCE. */
static struct smt_ring_v1 *split_put(struct hostile *h, uint64_t *fence, bool pool_first,
		void (*between)(struct hostile *h, struct smt_ring_v1 *ring))
{
	struct smt_ring_v1 *ring = smt_ring_manager_v1_create_socket_ring(h->manager);
	smt_ring_v1_add_listener(ring, &split_listener, fence);
	if (pool_first) {
		split_create_pool(h, ring);
	}
	uint8_t buf[256];
	size_t n = smt_encode_create_pixmap(buf, 1, 16, 16, SMT_FORMAT_ARGB8888);
	n += smt_encode_set_target(buf + n, 1);
	submit_bytes(ring, buf, n);
	struct smt_cmd_put_image_pool put = { { SMT_OP_PUT_IMAGE_POOL, 0, sizeof(put) }, 1,
		SMT_FORMAT_ARGB8888, 0, 64, 16, 16, 0, 0, 0 };
	submit_bytes(ring, &put, 12);
	between(h, ring);
	memcpy(buf, (const uint8_t *)&put + 12, sizeof(put) - 12);
	n = sizeof(put) - 12 + smt_encode_fence(buf + sizeof(put) - 12, 1);
	submit_bytes(ring, buf, n);
	return ring;
}

static void split_create_pool(struct hostile *h, struct smt_ring_v1 *ring)
{
	int fd = make_pool_memfd(4096);
	h->pool = smt_ring_v1_create_pool(ring, 1, fd, 4096);
	close(fd);
}

static void split_destroy_pool(struct hostile *h, struct smt_ring_v1 *ring)
{
	smt_pool_v1_destroy(h->pool);
}

/* A command counts as published when its last byte is (docs/protocol.md):
 * split over two submits with create_pool between the pieces it runs after
 * the pool exists; with smt_pool_v1.destroy between them, after the pool
 * is gone (bad_pool). */
int case_split_around_request(struct hostile *h)
{
	uint64_t fence = 0;
	split_put(h, &fence, false, split_create_pool);
	double end = now_ms() + HANG_MS;
	while (fence != 1) {
		if (wl_display_roundtrip(h->display) < 0 || now_ms() > end) {
			fprintf(stderr,
					"smt-hostile: the command split around create_pool "
					"failed or never ran\n");
			return 1;
		}
	}
	printf("split around create_pool: ran after it (fence %llu)\n", (unsigned long long)fence);
	fence = 0;
	split_put(h, &fence, true, split_destroy_pool);
	while (wl_display_roundtrip(h->display) >= 0 && now_ms() < end) {
		if (fence == 1) {
			fprintf(stderr,
					"smt-hostile: the command split around destroy ran "
					"before it\n");
			return 1;
		}
	}
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	printf("SPLIT_COMMAND ordered after the request between its pieces\n");
	return 0;
}

/* One stream per ring (docs/protocol.md): a shared ring's commands are in
 * its memory, so a submit on it is refused (bad_command), not run as a
 * second stream beside the ring's. */
int case_submit_shared_ring(struct hostile *h)
{
	create_good_ring(h, 4096);
	uint8_t buf[64];
	size_t n = smt_encode_fence(buf, 1);
	submit_bytes(h->ring, buf, n);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	printf("SUBMIT_SHARED refused\n");
	return 0;
}

/* ---- PRESENT of a huge canvas ----------------------------------------- */

/* A canvas within every configured client limit (8 bytes a pixel: 155 MiB;
 * tests/bench/hostile allows 160): a full-damage PRESENT copies 77 MiB. */
#define PRESENT_SIDE 4500

struct presents {
	uint32_t last_serial; /* of the newest presented event */
	uint64_t events;      /* presented events, and sync dones, in order */
	uint64_t presented_at, synced_at;
};

static void canvas_presented(void *data, struct smt_canvas_v1 *canvas, uint32_t serial,
		uint32_t exec_hi, uint32_t exec_lo, uint32_t display_hi, uint32_t display_lo)
{
	struct presents *p = data;
	p->last_serial = serial;
	p->presented_at = ++p->events;
}
static const struct smt_canvas_v1_listener canvas_listener = { canvas_presented };

static void sync_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct presents *p = data;
	p->synced_at = ++p->events;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener sync_listener = { sync_done };

/* A ring and a PRESENT_SIDE canvas on a surface never shown (its PRESENTs
 * are reported as soon as their copy is done). */
static struct smt_canvas_v1 *create_present_canvas(struct hostile *h, struct presents *p)
{
	create_good_ring(h, 1u << 20);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(
			h->ring, 1, surface, PRESENT_SIDE, PRESENT_SIDE);
	smt_canvas_v1_add_listener(canvas, &canvas_listener, p);
	return wl_display_roundtrip(h->display) < 0 ? NULL : canvas;
}

static void emit_present(struct hostile *h, uint32_t serial)
{
	uint8_t buf[64];
	emit(h, buf, smt_encode_present(buf, 1, serial, 0, NULL));
}

/* A PRESENT's copy runs in bands over the ring's slices, and the event
 * loop runs between them: once this ring's tail is past a full-damage
 * PRESENT (its copy has begun), a second connection's round trip, then
 * one on this connection, are answered before the PRESENT is reported.
 * A copy in one piece reports it before it reads either request, so the
 * order never comes out so. Repeated: the round trips must get in while
 * the copy lasts, which a descheduled client can miss (on one loaded CPU
 * the compositor may finish a copy before this client runs again), so
 * the trials go on past PRESENT_MIN_TRIALS until one got in, up to
 * PRESENT_MAX_TRIALS: a banded copy fails that many in a row only if the
 * client never ran during any of them. Then a resize and destroy of the
 * canvas during a copy. */
#define PRESENT_MIN_TRIALS 8
#define PRESENT_MAX_TRIALS 64
int case_present_split(struct hostile *h)
{
	struct presents p = { 0 };
	struct smt_canvas_v1 *canvas = create_present_canvas(h, &p);
	if (canvas == NULL) {
		fprintf(stderr, "smt-hostile: get_canvas refused\n");
		return 1;
	}
	struct hostile v = { .status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1 };
	v.display = wl_display_connect(NULL);
	if (v.display == NULL) {
		fputs("smt-hostile: the victim cannot connect\n", stderr);
		return 1;
	}
	int trials = 0, between = 0;
	for (uint32_t serial = 1; serial <= PRESENT_MAX_TRIALS &&
			(serial <= PRESENT_MIN_TRIALS || between == 0);
			serial++) {
		trials++;
		emit_present(h, serial);
		uint64_t after = h->head;
		kick(h);
		double end = now_ms() + HANG_MS;
		while (atomic_load_explicit(&h->status->tail, memory_order_acquire) < after) {
			if (ring_dead(h) || now_ms() > end) {
				fprintf(stderr, "smt-hostile: the PRESENT did not run\n");
				return 1;
			}
			usleep(100);
		}
		if (wl_display_roundtrip(v.display) < 0) {
			fputs("smt-hostile: the victim's round trip failed\n", stderr);
			return 1;
		}
		struct wl_callback *cb = wl_display_sync(h->display);
		wl_callback_add_listener(cb, &sync_listener, &p);
		p.synced_at = 0;
		while (p.synced_at == 0 || p.last_serial != serial) {
			if (wl_display_dispatch(h->display) < 0) {
				fputs("smt-hostile: the connection died\n", stderr);
				return 1;
			}
		}
		bool split = p.synced_at < p.presented_at;
		between += split;
		printf("PRESENT %u: round trips answered %s it was reported\n", serial,
				split ? "before" : "after");
	}
	if (between == 0) {
		fprintf(stderr, "smt-hostile: no round trip answered during %d PRESENT copies\n",
				trials);
		return 1;
	}
	/* A resize and a destroy of the canvas sent while its PRESENT copies
	 * wait for the copy (the images it copies between stay; ASan builds
	 * catch them freed early), and the FENCE after them runs. */
	emit_present(h, trials + 1);
	uint64_t after = h->head;
	kick(h);
	while (atomic_load_explicit(&h->status->tail, memory_order_acquire) < after) {
		if (ring_dead(h)) {
			fprintf(stderr, "smt-hostile: the PRESENT failed\n");
			return 1;
		}
		usleep(100);
	}
	smt_canvas_v1_resize(canvas, PRESENT_SIDE / 2, PRESENT_SIDE / 2);
	smt_canvas_v1_destroy(canvas);
	wl_display_roundtrip(h->display); /* both wait right after the PRESENT */
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS) || wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: resize and destroy during a PRESENT failed\n");
		return 1;
	}
	printf("PRESENT_SPLIT: round trips answered during %d of %d copies\n", between, trials);
	return 0;
}

/* For tests/bench/hostile: a 1 MiB ring kept full of full-damage PRESENTs
 * of the huge canvas (each a 77 MiB copy) for `seconds`. */
int case_present_attack(struct hostile *h, double seconds)
{
	struct presents p = { 0 };
	if (create_present_canvas(h, &p) == NULL) {
		return 1;
	}
	printf("PRESENT_ATTACK started\n"); /* the benchmark waits for this line */
	fflush(stdout);
	uint32_t serial = 0;
	double end = now_ms() + seconds * 1000;
	while (now_ms() < end && !ring_dead(h)) {
		uint64_t tail = atomic_load_explicit(&h->status->tail, memory_order_acquire);
		while (h->head + 64 - tail <= h->area_size) {
			emit_present(h, ++serial);
		}
		kick(h);
		if (!wait_event(h, 2)) {
			return 1;
		}
	}
	return ring_dead(h) ? 1 : 0;
}

/* ---- every PRESENT of a canvas no output shows, reported in order ---- */

#define EACH_SIDE 64
#define EACH_BURST 24 /* more than a worker's outbox holds (present_post.h) */

struct each_canvas {
	uint32_t id, last, count;
	bool out_of_order;
};

static void each_presented(void *data, struct smt_canvas_v1 *canvas, uint32_t serial,
		uint32_t exec_hi, uint32_t exec_lo, uint32_t display_hi, uint32_t display_lo)
{
	struct each_canvas *c = data;
	if (serial <= c->last || display_hi != 0 || display_lo != 0) {
		c->out_of_order = true;
		printf("canvas %u: presented serial %u after %u (display %u:%u)\n", c->id, serial,
				c->last, display_hi, display_lo);
	}
	c->last = serial;
	c->count++;
}
static const struct smt_canvas_v1_listener each_listener = { each_presented };

/* Waits until both canvases were reported `want` PRESENTs in all. */
static bool each_wait(struct hostile *h, struct each_canvas c[2], uint32_t want)
{
	double end = now_ms() + HANG_MS;
	while (c[0].count + c[1].count < want) {
		if (ring_dead(h) || now_ms() > end || !wait_event(h, 100)) {
			return false;
		}
	}
	return true;
}

/* Then PRESENTs inside a long run: fills of a big pixmap before each (so
 * the main thread is asleep when it runs) and after it (so the run goes
 * on long after it). Its `presented` must come while the fills after it
 * still run: with workers the main thread, asleep, is woken for the
 * PRESENT a worker copied and posted (without that wake it learnt of it
 * only when the run ended, after all the fills). Returns how many of
 * EACH_TRAILED came so, -1 if something failed. */
#define EACH_TRAILED 6
#define EACH_PIXMAP 9
#define EACH_PIXMAP_SIDE 1024
#define EACH_FILLS_BEFORE 40
#define EACH_FILLS_AFTER 600
static int each_trailed(
		struct hostile *h, struct each_canvas c[2], uint32_t *serial, uint32_t *sent)
{
	uint8_t buf[128];
	struct smt_rect all = { 0, 0, EACH_PIXMAP_SIDE, EACH_PIXMAP_SIDE };
	if (!emit(h, buf,
			    smt_encode_create_pixmap(buf, EACH_PIXMAP, EACH_PIXMAP_SIDE,
					    EACH_PIXMAP_SIDE, SMT_FORMAT_ARGB8888)) ||
			!emit(h, buf, smt_encode_set_target(buf, EACH_PIXMAP))) {
		fprintf(stderr, "smt-hostile: the ring stalled\n");
		return -1;
	}
	int early = 0;
	for (int r = 0; r < EACH_TRAILED; r++) {
		bool ok = true;
		for (int i = 0; i < EACH_FILLS_BEFORE + 1 + EACH_FILLS_AFTER && ok; i++) {
			if (i == EACH_FILLS_BEFORE) {
				++*serial;
				ok = emit(h, buf,
						smt_encode_present(buf, c[*serial % 2].id, *serial,
								0, NULL));
				++*sent;
			} else {
				ok = emit(h, buf,
						smt_encode_fill_rects(buf, SMT_PAINT_SRC,
								0xff000000u | (uint32_t)i, 1,
								&all));
			}
		}
		if (!ok) {
			fprintf(stderr, "smt-hostile: the ring stalled\n");
			return -1;
		}
		uint64_t end = h->head;
		kick(h);
		if (!each_wait(h, c, *sent)) {
			fprintf(stderr, "smt-hostile: a trailed PRESENT was not reported\n");
			return -1;
		}
		early += atomic_load_explicit(&h->status->tail, memory_order_acquire) < end;
		if (!wait_tail_efd(h, end, HANG_MS)) {
			fprintf(stderr, "smt-hostile: the fills did not run\n");
			return -1;
		}
	}
	return early;
}

/* Two canvases on surfaces no output shows: every PRESENT is reported at
 * once (display time 0), each canvas's in the order of its serials, none
 * lost, none twice. With workers the copy is the worker's and the main
 * thread only sends the event, woken for it if it sleeps: first `rounds`
 * single PRESENTs, each waited for (the main thread is asleep between
 * them, nothing else would wake it: no frame, no request), then `rounds`
 * bursts of EACH_BURST alternating between the canvases, more than a
 * ring's outbox of posted PRESENTs holds; then each_trailed. */
int case_present_each(struct hostile *h, int rounds)
{
	create_good_ring(h, 1u << 16);
	struct each_canvas c[2] = { { .id = 1 }, { .id = 2 } };
	for (int i = 0; i < 2; i++) {
		struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
		struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(
				h->ring, c[i].id, surface, EACH_SIDE, EACH_SIDE);
		smt_canvas_v1_add_listener(canvas, &each_listener, &c[i]);
	}
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: get_canvas refused\n");
		return 1;
	}
	uint32_t serial = 0, sent = 0;
	for (int way = 0; way < 2; way++) {
		for (int r = 0; r < rounds; r++) {
			int n = way == 0 ? 1 : EACH_BURST;
			for (int i = 0; i < n; i++) {
				uint8_t buf[64];
				serial++;
				if (!emit(h, buf,
						    smt_encode_present(buf, c[serial % 2].id,
								    serial, 0, NULL))) {
					fprintf(stderr, "smt-hostile: the ring stalled\n");
					return 1;
				}
				sent++;
			}
			kick(h);
			if (!each_wait(h, c, sent)) {
				fprintf(stderr,
						"smt-hostile: %u of %u PRESENTs reported (%s, round "
						"%d)\n",
						c[0].count + c[1].count, sent,
						way == 0 ? "single" : "bursts", r);
				return 1;
			}
		}
	}
	if (c[0].out_of_order || c[1].out_of_order || c[0].count + c[1].count != sent) {
		fprintf(stderr, "smt-hostile: PRESENTs reported out of order or twice\n");
		return 1;
	}
	int early = each_trailed(h, c, &serial, &sent);
	if (early < 0) {
		return 1;
	}
	printf("PRESENT_EACH: %u PRESENTs reported once each, in order; %d of %d reported "
	       "before the fills after them ran\n",
			sent, early, EACH_TRAILED);
	return 0;
}

/* ---- a PRESENT, then its canvas replaced under the same id ------------- */

#define RECANVAS_ID 7
#define RECANVAS_SIDE 64

/* One canvas of the sequence: its PRESENT's serial is its generation, so
 * a presented event with another serial is a PRESENT the client wrote for
 * the canvas it had destroyed (the one before) reported on this one. */
struct recanvas {
	uint32_t generation;
	uint32_t *stale;
	uint32_t *presented;
};

static void recanvas_presented(void *data, struct smt_canvas_v1 *canvas, uint32_t serial,
		uint32_t exec_hi, uint32_t exec_lo, uint32_t display_hi, uint32_t display_lo)
{
	struct recanvas *r = data;
	++*r->presented;
	if (serial != r->generation) {
		++*r->stale;
		printf("canvas of generation %u: presented serial %u (its own is %u)\n",
				r->generation, serial, r->generation);
	}
}
static const struct smt_canvas_v1_listener recanvas_listener = { recanvas_presented };

static struct smt_canvas_v1 *recanvas_new(struct hostile *h, struct wl_surface *surface,
		struct recanvas *r, uint32_t generation, uint32_t *stale, uint32_t *presented)
{
	*r = (struct recanvas){ generation, stale, presented };
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(
			h->ring, RECANVAS_ID, surface, RECANVAS_SIDE, RECANVAS_SIDE);
	smt_canvas_v1_add_listener(canvas, &recanvas_listener, r);
	return canvas;
}

/* A canvas destroyed and made again under the same drawable id, on the
 * same surface, right after a PRESENT of the old one: the PRESENT was
 * published before both requests, so it is the old canvas's (its copy and
 * event go with it: none, its resource is gone), never the new one's,
 * which gets only its own. Both ways, `rounds` times each:
 * - the PRESENT published without waking the compositor, then the
 *   requests: it runs the PRESENT after it read them (the new canvas
 *   exists already, its id registered only after the destroy);
 * - the PRESENT woken and run (the ring's tail past it), then the
 *   requests at once: with workers they may arrive while the run's
 *   PRESENT waits for the main thread. */
int case_present_recanvas(struct hostile *h, int rounds)
{
	create_good_ring(h, 1u << 16);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	uint32_t stale = 0, presented = 0, generation = 1;
	struct recanvas gens[2];
	struct smt_canvas_v1 *canvas = recanvas_new(
			h, surface, &gens[generation % 2], generation, &stale, &presented);
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: get_canvas refused\n");
		return 1;
	}
	for (int way = 0; way < 2; way++) {
		for (int i = 0; i < rounds; i++) {
			uint8_t buf[64];
			if (!emit(h, buf,
					    smt_encode_present(buf, RECANVAS_ID, generation, 0,
							    NULL))) {
				fprintf(stderr, "smt-hostile: the ring stalled\n");
				return 1;
			}
			uint64_t after = h->head;
			if (way == 0) {
				atomic_store_explicit(&h->hdr->head, h->head, memory_order_release);
			} else {
				kick(h);
				double end = now_ms() + HANG_MS;
				while (atomic_load_explicit(&h->status->tail,
						       memory_order_acquire) < after) {
					if (ring_dead(h) || now_ms() > end) {
						fprintf(stderr,
								"smt-hostile: the PRESENT did not "
								"run\n");
						return 1;
					}
				}
			}
			smt_canvas_v1_destroy(canvas);
			generation++;
			canvas = recanvas_new(h, surface, &gens[generation % 2], generation, &stale,
					&presented);
			wl_display_flush(h->display);
			kick(h);
			if (!wait_tail_efd(h, after, HANG_MS) ||
					wl_display_roundtrip(h->display) < 0) {
				fprintf(stderr, "smt-hostile: the ring or connection died\n");
				return 1;
			}
		}
		/* The last canvas's own PRESENT is reported on it. */
		uint8_t buf[64];
		uint32_t before = presented;
		emit(h, buf, smt_encode_present(buf, RECANVAS_ID, generation, 0, NULL));
		kick(h);
		double end = now_ms() + HANG_MS;
		while (presented == before && now_ms() < end) {
			if (wl_display_roundtrip(h->display) < 0) {
				fprintf(stderr, "smt-hostile: the connection died\n");
				return 1;
			}
		}
		if (presented == before) {
			fprintf(stderr, "smt-hostile: the new canvas's own PRESENT was not reported\n");
			return 1;
		}
	}
	printf("PRESENT_RECANVAS: %d canvases replaced after a PRESENT, %u presented events, "
	       "%u stale\n",
			2 * rounds, presented, stale);
	return stale == 0 ? 0 : 1;
}
