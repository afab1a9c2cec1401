/*
 * Long-running cases for fault tests and tests/bench/hostile: a client
 * that never reads, a ring kept full, latency probes through the ring and
 * the socket, fds held.
 */
#include "tests/tools/hostile/hostile.h"

/* wl_display.sync as fast as possible, never reading: the compositor
 * queues the events; it must not block on us (it may disconnect us). */
int case_no_read(struct hostile *h, double seconds)
{
	double end = now_ms() + seconds * 1000;
	unsigned long sent = 0;
	bool disconnected = false;
	int fd = wl_display_get_fd(h->display);
	while (now_ms() < end) {
		if (!disconnected) {
			for (int i = 0; i < 64; i++) {
				wl_display_sync(h->display); /* never destroyed: we never read */
				sent++;
			}
			int flushed = wl_display_flush(h->display);
			if (sent == 64) {
				printf("NO_READ started\n"); /* tests wait for this line */
			}
			if (flushed < 0 && errno != EAGAIN) {
				disconnected = true;
				printf("disconnected after %lu syncs (%s)\n", sent,
						strerror(errno));
				fflush(stdout);
				continue;
			}
			if (errno == EAGAIN) {
				struct pollfd p = { fd, POLLOUT, 0 };
				poll(&p, 1, 10);
			}
		} else {
			usleep(10000);
		}
	}
	printf("NO_READ sent %lu syncs, %s\n", sent,
			disconnected ? "disconnected" : "still connected");
	return 0;
}

/* keymap-no-read N: asks for N wl_keyboards and never reads what comes
 * back: each brings a keymap fd (wlroots sends it again to every keyboard
 * the client has), which waits in the socket until the client reads it.
 * Prints "KEYMAPS asked N" and holds until killed, or "DISCONNECTED after
 * N" once the compositor has hung up (it cannot send us an error we would
 * read: the reason is in its log). */
int case_keymap_no_read(struct hostile *h, int n)
{
	if (h->seat == NULL) {
		fprintf(stderr, "smt-hostile: no wl_seat\n");
		return 1;
	}
	int fd = wl_display_get_fd(h->display);
	for (int i = 1; i <= n; i++) {
		wl_seat_get_keyboard(h->seat); /* never released: we never read */
		if (wl_display_flush(h->display) < 0 && errno != EAGAIN) {
			printf("DISCONNECTED after %d (%s)\n", i, strerror(errno));
			return 0;
		}
	}
	printf("KEYMAPS asked %d\n", n);
	fflush(stdout);
	/* Hung up on, or held until killed: neither reads. */
	struct pollfd p = { fd, POLLRDHUP, 0 };
	while (poll(&p, 1, HANG_MS) == 0 || !(p.revents & (POLLHUP | POLLRDHUP | POLLERR))) {
	}
	printf("DISCONNECTED after %d\n", n);
	return 0;
}

static int keymaps_seen;

static void kb_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size)
{
	keymaps_seen++;
	close(fd);
}

static void kb_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *surface,
		struct wl_array *keys)
{
}

static void kb_leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *surface)
{
}

static void kb_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key,
		uint32_t state)
{
}

static void kb_modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t depressed,
		uint32_t latched, uint32_t locked, uint32_t group)
{
}

static void kb_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keymap_counter = {
	kb_keymap,
	kb_enter,
	kb_leave,
	kb_key,
	kb_modifiers,
	kb_repeat,
};

/* keymap-read N: the same N wl_keyboards, reading everything after each
 * (a round trip), then one more round trip: what a well-behaved client
 * does. Prints "KEYMAPS read N" and holds until killed. */
int case_keymap_read(struct hostile *h, int n)
{
	if (h->seat == NULL) {
		fprintf(stderr, "smt-hostile: no wl_seat\n");
		return 1;
	}
	for (int i = 1; i <= n + 1; i++) {
		if (i <= n) {
			wl_keyboard_add_listener(
					wl_seat_get_keyboard(h->seat), &keymap_counter, NULL);
		}
		if (wl_display_roundtrip(h->display) < 0) {
			printf("DISCONNECTED after %d\n", i);
			return 1;
		}
	}
	printf("KEYMAPS read %d (%d keymaps received)\n", n, keymaps_seen);
	fflush(stdout);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* Keeps its ring full of full-pixmap fills (a million pixels per 40-byte
 * command) and waits on a tail it never reads its eventfd for. Prints
 * "RING_FULL started" once the ring is full the first time. */
int case_ring_full(struct hostile *h, double seconds, uint32_t side)
{
	/* 1 MiB: about 26000 fills, seconds of work queued at every moment, so
	 * the compositor has work whenever this client runs at all. */
	create_good_ring(h, 1u << 20);
	emit_create(h, 1, side, side, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
		{ 0, 0, side, side } };
	double end = now_ms() + seconds * 1000;
	unsigned long written = 0, full = 0;
	while (now_ms() < end && !ring_dead(h)) {
		uint64_t tail = atomic_load_explicit(&h->status->tail, memory_order_acquire);
		while (h->head + sizeof(fill) + 64 - tail <= h->area_size) {
			uint32_t pad = smt_ring_pad_needed(h->head, h->area_size, sizeof(fill));
			if (pad) {
				struct smt_cmd_header p = { SMT_OP_PAD, 0, pad };
				memcpy(h->area + (h->head & (h->area_size - 1)), &p, sizeof(p));
				h->head += pad;
			}
			memcpy(h->area + (h->head & (h->area_size - 1)), &fill, sizeof(fill));
			h->head += sizeof(fill);
			written++;
		}
		kick(h);
		if (full++ == 0) {
			printf("RING_FULL started\n"); /* tests wait for this line */
		}
		/* WAITING for a tail that can never come, eventfd never read */
		atomic_store(&h->hdr->wait_tail, UINT64_MAX);
		atomic_store(&h->hdr->flags, SMT_CLIENT_WAITING);
		usleep(2000);
		if (full % 64 == 0) {
			wl_display_dispatch_pending(h->display);
			wl_display_flush(h->display);
		}
	}
	printf("RING_FULL wrote %lu fills, executed %llu commands, ring full %lu times, %s\n",
			written, (unsigned long long)atomic_load(&h->status->commands_executed),
			full, ring_dead(h) ? "DEAD" : "alive");
	return ring_dead(h) ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* FENCE round trips through the ring: write a FENCE, publish (waking the
 * server if it sleeps), wait for its tail with the WAITING protocol. */
int case_echo_probe(struct hostile *h, double seconds, int interval_ms, bool verbose)
{
	create_good_ring(h, 65536);
	size_t cap = 1 << 20, n = 0;
	double *lat = malloc(cap * sizeof(*lat));
	double end = now_ms() + seconds * 1000;
	uint64_t serial = 0;
	while (now_ms() < end && n < cap) {
		double t0 = now_ms();
		emit_fence(h, ++serial);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			fprintf(stderr, "smt-hostile: echo %llu lost (ring %s)\n",
					(unsigned long long)serial,
					ring_dead(h) ? "dead" : "stuck");
			return 1;
		}
		lat[n++] = now_ms() - t0;
		if (verbose) {
			printf("S %.3f\n", lat[n - 1]);
		}
		wl_display_dispatch_pending(h->display);
		wl_display_flush(h->display);
		if (interval_ms > 0) {
			usleep((useconds_t)interval_ms * 1000);
		}
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	if (n == 0) {
		return 1;
	}
	printf("ECHO n=%zu p50=%.3f p99=%.3f max=%.3f ms\n", n, lat[n / 2],
			lat[(size_t)((double)n * 0.99) < n ? (size_t)((double)n * 0.99) : n - 1],
			lat[n - 1]);
	free(lat);
	return 0;
}

/* wl_display round trips (what every Wayland client waits for), reported
 * like echo-probe: "SYNC n= p50= p99= max=" in ms. */
int case_sync_probe(struct hostile *h, double seconds)
{
	size_t cap = 1 << 20, n = 0;
	double *lat = malloc(cap * sizeof(*lat));
	double end = now_ms() + seconds * 1000;
	while (now_ms() < end && n < cap) {
		double t0 = now_ms();
		if (wl_display_roundtrip(h->display) < 0) {
			fprintf(stderr, "smt-hostile: round trip failed\n");
			return 1;
		}
		lat[n++] = now_ms() - t0;
		usleep(10000);
	}
	qsort(lat, n, sizeof(*lat), cmp_double);
	printf("SYNC n=%zu p50=%.3f p99=%.3f max=%.3f ms\n", n, lat[n / 2],
			lat[(size_t)((double)n * 0.99) < n ? (size_t)((double)n * 0.99) : n - 1],
			lat[n - 1]);
	free(lat);
	return 0;
}

/* One ring and `pools` pools, held until killed: descriptors the
 * compositor keeps for us. "HOLDING" once they exist, "REFUSED" (exit 0)
 * if a limit refused them. */
int case_hold_fds(struct hostile *h, int pools)
{
	create_good_ring(h, 4096);
	for (int id = 1; id <= pools; id++) {
		int fd = make_pool_memfd(4096);
		smt_ring_v1_create_pool(h->ring, (uint32_t)id, fd, 4096);
		close(fd);
	}
	if (wl_display_roundtrip(h->display) < 0) {
		printf("REFUSED\n");
		return 0;
	}
	printf("HOLDING %d fds\n", pools + 3);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* keymaps-idle C: C connections (this one and C - 1 more) each ask one
 * wl_keyboard and read its keymap in one round trip, then send nothing
 * more: well-behaved clients waiting for input. The compositor learns
 * that a keymap was read only when it next hears from the client or
 * sends to it (fds_in_flight.h), so each idle connection's keymap may
 * stay counted as unread. Prints "HOLDING C keymaps read" and holds,
 * reading whatever comes without a request, until killed; "DISCONNECTED
 * after i" if the compositor hung up on connection i (its keymap
 * refused). */
int case_keymaps_idle(struct hostile *h, int connections)
{
	struct pollfd *fds = calloc((size_t)connections, sizeof(*fds));
	struct wl_display **displays = calloc((size_t)connections, sizeof(*displays));
	if (fds == NULL || displays == NULL) {
		return 1;
	}
	for (int i = 0; i < connections; i++) {
		struct hostile *c = i == 0 ? h : calloc(1, sizeof(*c));
		if (c == NULL) {
			return 1;
		}
		if (i > 0) {
			*c = (struct hostile){
				.status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1
			};
			if (!hostile_connect(c)) {
				printf("DISCONNECTED after %d (cannot connect)\n", i + 1);
				return 0;
			}
		}
		if (c->seat == NULL) {
			fprintf(stderr, "smt-hostile: no wl_seat\n");
			return 1;
		}
		wl_keyboard_add_listener(wl_seat_get_keyboard(c->seat), &keymap_counter, NULL);
		if (wl_display_roundtrip(c->display) < 0) {
			printf("DISCONNECTED after %d\n", i + 1);
			return 0;
		}
		displays[i] = c->display;
		fds[i] = (struct pollfd){ .fd = wl_display_get_fd(c->display), .events = POLLIN };
	}
	printf("HOLDING %d keymaps read (%d received)\n", connections, keymaps_seen);
	fflush(stdout);
	for (;;) {
		if (poll(fds, (nfds_t)connections, -1) < 0 && errno != EINTR) {
			return 1;
		}
		for (int i = 0; i < connections; i++) {
			if (fds[i].revents != 0 && wl_display_dispatch(displays[i]) < 0) {
				printf("DISCONNECTED connection %d\n", i + 1);
				fflush(stdout);
				fds[i].fd = -1;
			}
		}
	}
}
