/*
 * smt-hostile's cases for issue 24 (memory and costs): objects whose
 * bookkeeping is what costs (drawable tables, canvases and their
 * surfaces), teardown of many objects at once, requests counted against
 * ordered-requests, and a victim that makes one round trip per line it
 * reads, so a test can tell in what order things happened.
 */
#include "tests/tools/hostile/hostile.h"

/* Waits for the ring to run everything published; false if it died. */
static bool drain(struct hostile *h)
{
	emit_fence(h, 1);
	kick(h);
	return wait_tail_efd(h, h->head, HANG_MS);
}

static void hold(struct hostile *h)
{
	while (wl_display_dispatch(h->display) >= 0) {
	}
}

/* "RINGSxPIXMAPS": rings on this connection, each with that many 1x1
 * pixmaps (issue 24: 8 connections x 8 rings x 31,000 pixmaps, each ring
 * just under the old threshold for freeing in pieces). Prints HOLDING,
 * then holds them until killed. */
int case_hold_pixmaps(struct hostile *h, const char *arg)
{
	unsigned rings = 8, pixmaps = 31000;
	if (arg != NULL && sscanf(arg, "%ux%u", &rings, &pixmaps) != 2) {
		fputs("smt-hostile: hold-pixmaps RINGSxPIXMAPS\n", stderr);
		return 2;
	}
	for (unsigned r = 0; r < rings; r++) {
		create_good_ring(h, 65536);
		for (uint32_t id = 1; id <= pixmaps; id++) {
			emit_create(h, id, 1, 1, SMT_FORMAT_ARGB8888);
		}
		if (!drain(h)) {
			printf("REFUSED: ring %u of %u\n", r + 1, rings);
			return 1;
		}
	}
	printf("HOLDING %u rings x %u pixmaps\n", rings, pixmaps);
	hold(h);
	return 0;
}

/* On each of `rings` rings, one 1x1 pixmap with the largest id a ring
 * takes (2^18 - 1): its table must cost a few KiB, not 2^18 slots (issue
 * 24: 16 connections x 8 rings took 1,794 MiB). HOLDING, then held. */
int case_hold_top_id(struct hostile *h, int rings)
{
	for (int r = 0; r < rings; r++) {
		create_good_ring(h, 4096);
		emit_create(h, (1u << 18) - 1, 1, 1, SMT_FORMAT_ARGB8888);
		if (!drain(h)) {
			printf("REFUSED\n");
			return 1;
		}
	}
	printf("HOLDING id %u on %d rings\n", (1u << 18) - 1, rings);
	hold(h);
	return 0;
}

/* 1x1 pixmaps with ids 64 apart (a new chunk of the table each), from the
 * top down, on up to 8 rings: what the tables cost is charged, so a
 * client limit refuses them, naming it. Exit 0 if refused with LIMIT. */
int case_sparse_ids(struct hostile *h)
{
	unsigned made = 0;
	for (int r = 0; r < 8; r++) {
		create_good_ring(h, 65536);
		for (uint32_t id = (1u << 18) - 1; id >= 64; id -= 64) {
			emit_create(h, id, 1, 1, SMT_FORMAT_ARGB8888);
			if (++made % 256 == 0 && !drain(h)) {
				goto refused;
			}
		}
		if (!drain(h)) {
			goto refused;
		}
	}
	printf("sparse pixmaps: %u, none refused\n", made);
	return 1;
refused:
	printf("sparse pixmaps before the refusal: about %u\n", made);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_LIMIT, SMT_OP_CREATE_PIXMAP) ? 0 : 1;
}

/* N 1x1 canvases, each on a wl_surface of its own, in bursts of 50 with
 * a round trip after each: refused by a client limit (client-canvases, or
 * the memory a canvas and its surface are charged) with get_canvas's LIMIT
 * error, or "HOLDING n canvases" and held when N fit. A burst (2,000
 * bytes) leaves in one write, so the compositor's error and disconnect
 * never meet a write still under way (EPIPE instead of the error). */
int case_canvas_flood(struct hostile *h, int n)
{
	create_good_ring(h, 4096);
	printf("CANVAS_FLOOD started\n");
	for (int i = 1; i <= n; i++) {
		struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
		smt_ring_v1_get_canvas(h->ring, (uint32_t)i, surface, 1, 1);
		if ((i % 50 == 0 || i == n) && wl_display_roundtrip(h->display) < 0) {
			printf("canvases before the refusal: about %d\n", i);
			return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ?
					0 :
					1;
		}
	}
	printf("HOLDING %d canvases\n", n);
	hold(h);
	return 0;
}

/* N bare wl_surfaces (no ring, no canvas), in bursts of 50 with a round
 * trip after each: every surface is counted (client-, process- and
 * uid-surfaces), so a limit refuses them with wl_display's implementation
 * error naming it (libwayland prints the message), or "HOLDING n
 * surfaces" and held when N fit. */
int case_surface_flood(struct hostile *h, int n)
{
	printf("SURFACE_FLOOD started\n");
	fflush(stdout);
	for (int i = 1; i <= n; i++) {
		wl_compositor_create_surface(h->compositor);
		if ((i % 50 == 0 || i == n) && wl_display_roundtrip(h->display) < 0) {
			printf("surfaces before the refusal: about %d\n", i);
			return expect_error(h, &wl_display_interface,
					       WL_DISPLAY_ERROR_IMPLEMENTATION) ?
					0 :
					1;
		}
	}
	printf("HOLDING %d surfaces\n", n);
	hold(h);
	return 0;
}

/* N wl_regions, each with a rectangle, in bursts of 1,000 with a round
 * trip after each, held until killed ("HOLDING n regions"), or refused by
 * an objects limit (client-objects...) with wl_display's implementation
 * error naming it (exit 0). Before objects were counted: a million held
 * 180 MiB of the compositor's memory and cost 36 ms of CPU to destroy. */
int case_region_flood(struct hostile *h, int n)
{
	printf("REGION_FLOOD started\n");
	fflush(stdout);
	for (int i = 1; i <= n; i++) {
		struct wl_region *r = wl_compositor_create_region(h->compositor);
		wl_region_add(r, i % 1000, i / 1000, 10, 10);
		if ((i % 1000 == 0 || i == n) && wl_display_roundtrip(h->display) < 0) {
			printf("regions before the refusal: about %d\n", i);
			return expect_error(h, &wl_display_interface,
					       WL_DISPLAY_ERROR_IMPLEMENTATION) ?
					0 :
					1;
		}
	}
	printf("HOLDING %d regions\n", n);
	fflush(stdout);
	hold(h);
	return 0;
}

/* Hours of fills queued behind a 4096x4096 pixmap, so every request that
 * waits for earlier commands waits. */
static void queue_busy_work(struct hostile *h)
{
	static const struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
		{ 0, 0, 4096, 4096 } };
	create_good_ring(h, 1u << 20);
	emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	while (h->head + sizeof(fill) + 64 <= h->area_size) {
		emit(h, &fill, sizeof(fill));
	}
	kick(h);
}

/* get_canvas-ordered / create_pool-ordered: those requests (pools destroyed
 * as made) behind busy commands: the one past 64 waiting is refused naming
 * ordered-requests (before, 5,000 get_canvas waited and none was refused).
 * Just past the limit, so that every write precedes the error (70 canvas
 * requests leave in one write; the pools' fds in two, the refused one in
 * the second). */
int case_ordered_flood(struct hostile *h, const char *name)
{
	bool canvases = strncmp(name, "get_canvas", 10) == 0;
	queue_busy_work(h);
	uint32_t last = canvases ? 72 : 36;
	for (uint32_t i = 2; i < last; i++) {
		if (canvases) {
			struct wl_surface *s = wl_compositor_create_surface(h->compositor);
			smt_ring_v1_get_canvas(h->ring, i, s, 1, 1);
		} else {
			/* Destroyed at once (a destroy waits too): the pool
			 * limit (32) is not what refuses. */
			int fd = make_pool_memfd(4096);
			smt_pool_v1_destroy(smt_ring_v1_create_pool(h->ring, i, fd, 4096));
			close(fd);
		}
	}
	return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ? 0 : 1;
}

/* A canvas whose surface is destroyed while the canvas request still
 * waits for earlier commands, then drawn into and presented: the canvas
 * outlives its surface (nothing shown, nothing crashes), and a new canvas
 * on a new surface, and one on a surface whose canvas was destroyed, are
 * accepted. Exit 0 if every FENCE comes back and no error came. */
int case_canvas_surface_gone(struct hostile *h)
{
	static const struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xff102030u, 1, 0 },
		{ 0, 0, 64, 64 } },
	  busy = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80102030u, 1, 0 },
		  { 0, 0, 2048, 2048 } };
	create_good_ring(h, 65536);
	emit_create(h, 1, 2048, 2048, SMT_FORMAT_ARGB8888);
	for (uint32_t round = 0; round < 50; round++) {
		/* Work the canvas request waits for (tens of ms). */
		emit_target(h, 1);
		for (int i = 0; i < 16; i++) {
			emit(h, &busy, sizeof(busy));
		}
		kick(h);
		uint32_t id = 100 + round;
		struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
		struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, id, surface, 64, 64);
		wl_surface_destroy(surface); /* before the canvas request applies */
		/* The requests arrived: what is published next comes after them. */
		if (wl_display_roundtrip(h->display) < 0) {
			fprintf(stderr, "smt-hostile: round %u: get_canvas refused\n", round);
			return 1;
		}
		emit_target(h, id);
		emit(h, &fill, sizeof(fill));
		struct {
			struct smt_cmd_present p;
			struct smt_rect r;
		} present = { { { SMT_OP_PRESENT, 0, sizeof(present) }, id, round, 1, 0 },
			{ 0, 0, 64, 64 } };
		emit(h, &present, sizeof(present));
		if (!drain(h) || wl_display_roundtrip(h->display) < 0) {
			fprintf(stderr, "smt-hostile: round %u refused\n", round);
			return 1;
		}
		/* A new surface, the canvas destroyed first this time. */
		surface = wl_compositor_create_surface(h->compositor);
		smt_canvas_v1_destroy(canvas);
		canvas = smt_ring_v1_get_canvas(h->ring, 500 + round, surface, 32, 32);
		smt_canvas_v1_destroy(canvas);
		struct smt_canvas_v1 *again = smt_ring_v1_get_canvas(
				h->ring, 1000 + round, surface, 16, 16);
		if (wl_display_roundtrip(h->display) < 0 || !drain(h)) {
			fprintf(stderr,
					"smt-hostile: a canvas on a surface freed of its "
					"canvas was refused (round %u)\n",
					round);
			return 1;
		}
		smt_canvas_v1_destroy(again);
		wl_surface_destroy(surface);
	}
	printf("canvases on surfaces gone mid-request: 50 rounds, no error\n");
	return 0;
}

/* Pixmap churn across 4 rings: each round creates 2,000 pixmaps with ids
 * spread over the whole range and frees them, 20 rounds; afterwards the
 * connection holds no pixmap, and its tables cover every id (about 59 MiB,
 * under test_ring_accounting's limit: the test compares the accounting
 * with them). HOLDING, then held. */
int case_pixmap_churn(struct hostile *h)
{
	printf("PIXMAP_CHURN started\n");
	for (int r = 0; r < 4; r++) {
		create_good_ring(h, 65536);
		for (int round = 0; round < 20; round++) {
			for (uint32_t i = 0; i < 2000; i++) {
				uint32_t id = 1 +
						(i * 131u + (uint32_t)round * 7919u) %
								((1u << 18) - 2);
				emit_create(h, id, 1 + i % 7, 1 + i % 5, SMT_FORMAT_ARGB8888);
			}
			for (uint32_t i = 0; i < 2000; i++) {
				uint32_t id = 1 +
						(i * 131u + (uint32_t)round * 7919u) %
								((1u << 18) - 2);
				struct smt_cmd_free_pixmap f = {
					{ SMT_OP_FREE_PIXMAP, 0, sizeof(f) }, id, 0
				};
				emit(h, &f, sizeof(f));
			}
			if (!drain(h)) {
				printf("REFUSED: ring %d round %d\n", r, round);
				return 1;
			}
		}
	}
	printf("HOLDING 4 rings, 0 pixmaps after 160,000 created and freed\n");
	hold(h);
	return 0;
}

/* A victim for ordering tests: connected with a ring, it prints READY,
 * then per line on stdin makes one wl_display round trip and one FENCE
 * through its ring and prints "DONE n". */
int case_trip_on_line(struct hostile *h)
{
	create_good_ring(h, 4096);
	printf("READY\n");
	char line[64];
	unsigned n = 0;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (wl_display_roundtrip(h->display) < 0 || !drain(h)) {
			fprintf(stderr, "smt-hostile: round trip %u failed\n", n + 1);
			return 1;
		}
		printf("DONE %u\n", ++n);
	}
	return 0;
}
