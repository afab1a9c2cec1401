/*
 * Framing cases: bad fds and sizes when the ring is created, and on the
 * ring bad heads, sizes and opcodes, a racing writer, giant in-range
 * geometry, and a kill halfway through a command.
 */
#include "tests/tools/hostile/hostile.h"

#define WHITE 0xffffffffu

/* The server-written page must refuse a writable mapping. */
static bool status_page_read_only(struct hostile *h)
{
	void *w = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, h->status_fd,
			0);
	if (w != MAP_FAILED) {
		fprintf(stderr, "smt-hostile: the status page could be mapped writable\n");
		return false;
	}
	w = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, h->global_fd, 0);
	if (w != MAP_FAILED) {
		fprintf(stderr, "smt-hostile: the global page could be mapped writable\n");
		return false;
	}
	printf("status pages refuse writable mappings (%s)\n", strerror(errno));
	/* Nor can the read-only mapping be upgraded. */
	if (h->status != NULL &&
			mprotect((void *)h->status, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE) ==
					0) {
		fprintf(stderr, "smt-hostile: mprotect made the status page writable\n");
		return false;
	}
	printf("mprotect(PROT_WRITE) on the status page refused (%s)\n", strerror(errno));
	return true;
}

static void *racer(void *data)
{
	/* Rewrites the count and a rectangle of the FILL_RECTS at offset 0
	 * while the compositor reads it: whatever it validated must be what it
	 * runs, or an ASan build of the compositor catches the overflow. */
	struct hostile *h = data;
	volatile uint32_t *words = (volatile uint32_t *)h->area;
	for (unsigned long i = 0;; i++) {
		words[4] = (i & 1) ? 1 : 0x7fffffffu;  /* n_rects */
		words[6] = (i & 2) ? 0 : 0x7ffffff0u;  /* rect.x */
		words[8] = (i & 4) ? 10 : 0xffffffffu; /* rect.width */
	}
	return NULL;
}

int case_giant_geometry(struct hostile *h)
{
	/* Not errors: geometry inside +-2^28 but far outside the target,
	 * which the server must clip itself before pixman (pixman_fill
	 * does no bounds checking; trapezoids size their mask from the
	 * unclipped extents). Must run quickly and leave the ring alive. */
	const int32_t M = SMT_COORD_MAX / 2;
	create_good_ring(h, 65536);
	emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
	emit_create(h, 6, 64, 64, SMT_FORMAT_A8);
	emit_target(h, 5);
	struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r[2];
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, WHITE, 2, 0 },
		{ { -M, -M, (uint32_t)M * 2, (uint32_t)M * 2 }, { 63, 63, (uint32_t)M, 1 } } };
	emit(h, &fill, sizeof(fill));
	struct {
		struct smt_cmd_segments c;
		struct smt_segment s[2];
	} seg = { { { SMT_OP_SEGMENTS, 0, sizeof(seg) }, SMT_PAINT_SRC, WHITE, 1000, 2 },
		{ { -M, -M, M, M }, { -M, 32, M, 32 } } };
	emit(h, &seg, sizeof(seg));
	seg.c.line_width = 0;
	emit(h, &seg, sizeof(seg));
	struct {
		struct smt_cmd_points c;
		struct smt_point p[2];
	} pts = { { { SMT_OP_POINTS, 0, sizeof(pts) }, SMT_PAINT_SRC, WHITE, 2, 0 },
		{ { -M, M }, { 10, 10 } } };
	emit(h, &pts, sizeof(pts));
	struct smt_cmd_copy_area cp = { { SMT_OP_COPY_AREA, 0, sizeof(cp) }, 5, -M, -M,
		(uint32_t)M * 2, (uint32_t)M * 2, -M + 5, -M + 7, 0 };
	emit(h, &cp, sizeof(cp));
	struct smt_cmd_composite co = { { SMT_OP_COMPOSITE, 0, sizeof(co) }, SMT_PAINT_SRC, 5, 6,
		-M, -M, M, -M, -M, M - 100, (uint32_t)M, (uint32_t)M, 0 };
	emit(h, &co, sizeof(co));
	struct {
		struct smt_cmd_set_clip c;
		struct smt_rect r;
	} clip = { { { SMT_OP_SET_CLIP, 0, sizeof(clip) }, 1, 0 },
		{ -M, -M, (uint32_t)M, (uint32_t)M } };
	emit(h, &clip, sizeof(clip));
	emit(h, &fill, sizeof(fill));
	struct {
		struct smt_cmd_glyphs c;
		struct smt_glyph g[1];
	} gl = { { { SMT_OP_GLYPHS, 0, sizeof(gl) }, SMT_PAINT_SRC, WHITE, 6, 1, -M, M },
		{ { 0, 0, 64, 64, M, -M } } };
	emit(h, &gl, sizeof(gl));
	emit_fence(h, 9);
	double t0 = now_ms();
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		fprintf(stderr, "smt-hostile: giant geometry failed (%s)\n",
				ring_dead(h) ? "ring died" : "timeout");
		return 1;
	}
	printf("giant in-range geometry clipped and executed in %.1f ms\n", now_ms() - t0);
	return 0;
}

int case_head_backwards(struct hostile *h)
{
	create_good_ring(h, 4096);
	emit_fence(h, 1);
	emit_fence(h, 2);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		return 1;
	}
	h->head -= 16;
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_BAD_HEAD, -1) ? 0 : 1;
}

int case_head_huge(struct hostile *h)
{
	create_good_ring(h, 4096);
	h->head = UINT64_MAX & ~(uint64_t)7;
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_BAD_HEAD, -1) ? 0 : 1;
}

/* A 64x64 pixmap (id 5) of this client's own, made the target: 40 bytes of
 * valid commands ahead of the bad one a case sends. */
static void target_own_pixmap(struct hostile *h)
{
	uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
	cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
	uint32_t target[2] = { 5, 0 };
	cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
}

/* What libwayland says of a protocol error (its log), kept. */
static char error_text[512];

static void keep_error_text(const char *fmt, va_list args)
{
	size_t used = strlen(error_text);
	vsnprintf(error_text + used, sizeof(error_text) - used, fmt, args);
}

/* A client that stops at DEAD (docs/protocol.md, "What a client sees
 * first"): a bad opcode, then it waits for DEAD without reading its
 * socket, makes one round trip and exits. The round trip must bring the
 * protocol error and its text, whichever thread ran the command: with
 * workers the DEAD mark came a turn of the main loop before the error,
 * and a round trip answered in between brought nothing. */
static int case_error_at_dead(struct hostile *h)
{
	create_good_ring(h, 4096);
	wl_log_set_handler_client(keep_error_text);
	cmd(h, 999, 8, NULL, 0);
	kick(h);
	double end = now_ms() + HANG_MS;
	/* spinning, as a client waiting for room does (libsmt): DEAD seen as
	 * soon as it is stored, not when the compositor wakes us */
	while (!ring_dead(h)) {
		if (now_ms() > end) {
			fputs("smt-hostile: the ring never became DEAD\n", stderr);
			return 1;
		}
	}
	wl_display_roundtrip(h->display);
	int err = wl_display_get_error(h->display);
	if (err != EPROTO || strstr(error_text, "bad_opcode") == NULL) {
		fprintf(stderr,
				"smt-hostile: a round trip after DEAD brought no protocol error "
				"(display error %d, text '%s')\n",
				err, error_text);
		return 1;
	}
	printf("ERROR_AT_DEAD the round trip after DEAD brought: %s", error_text);
	return 0;
}

int hostile_framing_case(struct hostile *h, const char *name)
{
	if (strcmp(name, "error-at-dead") == 0) {
		return case_error_at_dead(h);
	}
	const struct wl_interface *mgr = &smt_ring_manager_v1_interface;
	const struct wl_interface *ring = &smt_ring_v1_interface;
	if (strcmp(name, "unsealed") == 0) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, 0);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	if (strcmp(name, "short") == 0) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 1024, F_SEAL_SHRINK);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	if (strcmp(name, "not-pow2") == 0 || strcmp(name, "too-large") == 0) {
		uint32_t size = name[0] == 'n' ? 5000 : 1u << 30;
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 8192, F_SEAL_SHRINK);
		create_ring_with(h, fd, size, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_SIZE) ? 0 : 1;
	}
	if (strcmp(name, "not-eventfd") == 0) {
		int pipefd[2];
		if (pipe(pipefd) != 0) {
			return 1;
		}
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, F_SEAL_SHRINK);
		create_ring_with(h, fd, 4096, pipefd[0], eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_EVENTFD) ? 0 : 1;
	}
	if (strcmp(name, "not-a-memfd") == 0) {
		int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD) ? 0 : 1;
	}

	create_good_ring(h, 4096);
	if (strcmp(name, "status-read-only") == 0) {
		return status_page_read_only(h) ? 0 : 1;
	}
	if (strcmp(name, "head-beyond") == 0) {
		publish(h, 4096 + 64);
	} else if (strcmp(name, "head-unaligned") == 0) {
		uint32_t payload[2] = { 0 };
		cmd(h, SMT_OP_NOOP, 16, payload, sizeof(payload));
		publish(h, 12);
	} else if (strcmp(name, "size-zero") == 0) {
		cmd(h, SMT_OP_NOOP, 0, NULL, 0);
		publish(h, 8);
	} else if (strcmp(name, "size-odd") == 0) {
		uint32_t payload[2] = { 0 };
		cmd(h, SMT_OP_NOOP, 12, payload, sizeof(payload));
		publish(h, 16);
	} else if (strcmp(name, "size-past-end") == 0) {
		/* A NOOP filling all but the last 16 bytes, consumed; then a
		 * 32-byte command that would wrap (the writer must PAD instead). */
		cmd(h, SMT_OP_NOOP, 4096 - 16, NULL, 0);
		h->head = 4096 - 16;
		publish(h, h->head);
		if (!wait_tail(h, h->head)) {
			fputs("smt-hostile: the compositor did not consume the NOOP\n", stderr);
			return 1;
		}
		uint32_t payload[6] = { 0 };
		cmd(h, SMT_OP_NOOP, 32, payload, sizeof(payload));
		publish(h, h->head);
	} else if (strcmp(name, "bad-opcode") == 0) {
		cmd(h, 999, 8, NULL, 0);
		publish(h, h->head);
	} else if (strcmp(name, "foreign-drawable") == 0) {
		uint32_t payload[2] = { 77, 0 }; /* never created by this client */
		cmd(h, SMT_OP_SET_TARGET, 16, payload, sizeof(payload));
		publish(h, h->head);
	} else if (strcmp(name, "rect-overflow") == 0) {
		target_own_pixmap(h);
		struct {
			uint32_t op, colour, n, reserved;
			struct smt_rect r;
		} fill = { SMT_PAINT_SRC, 0xffffffffu, 1, 0, { INT32_MAX - 1, 0, UINT32_MAX, 10 } };
		cmd(h, SMT_OP_FILL_RECTS, 8 + sizeof(fill), &fill, sizeof(fill));
		publish(h, h->head);
	} else if (strcmp(name, "count-overflow") == 0) {
		target_own_pixmap(h);
		/* n_rects claims 2^28 rectangles in a 40-byte command. */
		struct {
			uint32_t op, colour, n, reserved;
			struct smt_rect r;
		} fill = { SMT_PAINT_SRC, 0xffffffffu, 1u << 28, 0, { 0, 0, 10, 10 } };
		cmd(h, SMT_OP_FILL_RECTS, 8 + sizeof(fill), &fill, sizeof(fill));
		publish(h, h->head);
	} else if (strcmp(name, "pool-offset-overflow") == 0) {
		target_own_pixmap(h);
		int pfd = make_pool_memfd(65536);
		smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
		wl_display_roundtrip(h->display); /* the pool exists before commands use it */
		struct smt_cmd_put_image_pool image = { { SMT_OP_PUT_IMAGE_POOL, 0, sizeof(image) },
			3, SMT_FORMAT_ARGB8888, UINT64_MAX & ~(uint64_t)63, 64 * 4, 64, 64, 0, 0,
			0 };
		put(h, &image, sizeof(image));
		publish(h, h->head);
	} else if (strcmp(name, "bad-stride") == 0) {
		target_own_pixmap(h);
		struct smt_cmd_put_image img = { { SMT_OP_PUT_IMAGE, 0, sizeof(img) + 8 * 4 }, 0, 0,
			8, 4, SMT_FORMAT_ARGB8888, 4 };
		put(h, &img, sizeof(img));
		uint8_t pixels[32] = { 0 };
		put(h, pixels, sizeof(pixels));
		publish(h, h->head);
	} else if (strcmp(name, "pixmap-flood") == 0) {
		/* 4096x4096 ARGB pixmaps (64 MiB each) until the per-client limit. */
		for (uint32_t id = 1; id < 64; id++) {
			uint32_t create[4] = { id, 4096, 4096, SMT_FORMAT_ARGB8888 };
			cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		}
		publish(h, h->head);
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_COMMAND) ? 0 : 1;
	} else if (strcmp(name, "race") == 0) {
		/* Round 0: a pixmap to draw into, then PAD to the end of the area. */
		target_own_pixmap(h);
		cmd(h, SMT_OP_PAD, 4096 - 40, NULL, 0);
		h->head = 4096;
		publish(h, h->head);
		if (!wait_tail(h, 4096)) {
			fputs("smt-hostile: the compositor did not consume the set-up\n", stderr);
			return 1;
		}
		/* Every later round: the same FILL_RECTS at offset 0 and a PAD at
		 * 40, republished while the racer rewrites the fill. */
		struct {
			uint32_t op, colour, n, reserved;
			struct smt_rect r;
		} fill = { SMT_PAINT_SRC, 0xffffffffu, 1, 0, { 0, 0, 10, 10 } };
		cmd(h, SMT_OP_FILL_RECTS, 8 + sizeof(fill), &fill, sizeof(fill));
		cmd(h, SMT_OP_PAD, 4096 - 40, NULL, 0);
		pthread_t thread;
		pthread_create(&thread, NULL, racer, h);
		for (uint64_t round = 2; round < 2000; round++) {
			publish(h, round * 4096);
			if (!wait_tail(h, round * 4096)) {
				break;
			}
		}
		/* Dying with bad_command is the likely end; crashing or writing
		 * out of bounds in the compositor is what the test rules out. */
		printf("race done (display error %d)\n", wl_display_get_error(h->display));
		return 0;
	} else if (strcmp(name, "wakeup-storm") == 0) {
		/* Not an error: a million writes to the server's eventfd. The
		 * compositor must drain them and keep serving this client. */
		uint64_t one = 1;
		for (int i = 0; i < 1000000; i++) {
			if (write(h->server_efd, &one, sizeof(one)) != sizeof(one)) {
				perror("smt-hostile: eventfd write");
				return 1;
			}
		}
		if (wl_display_roundtrip(h->display) < 0) {
			fputs("smt-hostile: the connection died after the storm\n", stderr);
			return 1;
		}
		printf("storm survived\n");
		return 0;
	} else if (strcmp(name, "kill-mid-command") == 0) {
		/* A pixmap and a pool in use, half a command published, death. */
		uint32_t create[4] = { 5, 256, 256, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		int pfd = make_pool_memfd(1 << 20);
		smt_ring_v1_create_pool(h->ring, 3, pfd, 1 << 20);
		struct smt_cmd_header hdr = { SMT_OP_SET_TARGET, 0, 16 };
		put(h, &hdr, sizeof(hdr));
		publish(h, h->head);
		wl_display_flush(h->display);
		raise(SIGKILL);
	} else {
		fprintf(stderr, "smt-hostile: unknown case '%s'\n", name);
		return 2;
	}
	/* Wake the compositor in case it sleeps, then expect the error. */
	return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_COMMAND) ? 0 : 1;
}
