/*
 * smt-hostile: a client that breaks one rule of smt-ring-v1 on purpose, for
 * the tests that prove the compositor survives it. It speaks the protocol
 * directly (not through libsmt, which would refuse to misbehave).
 *
 *   smt-hostile CASE [ARG]
 *   smt-hostile --list-ops         the table-driven per-opcode cases (op:NAME)
 *
 * Long-running cases for fault and load tests: no-read SECONDS (floods
 * wl_display.sync without ever reading its socket), ring-full SECONDS (keeps
 * its ring full of million-pixel fills and waits on a tail that never
 * comes), echo-probe SECONDS [INTERVAL_MS] (FENCE round-trip latency through
 * the ring, "ECHO n= p50= p99= max=" in ms, and every sample with -v).
 *
 * Resource attacks: ring-flood, pool-flood, canvas-huge, canvas-grow,
 * memory-rings (each must be refused with a LIMIT error naming the limit),
 * drain-stall (requests that need hours of queued work must not run it),
 * present-split (other clients are answered while a huge PRESENT copies),
 * hold-memory N (keeps N 64 MiB pixmaps until killed).
 *
 * For tests/bench/hostile: big-fill SECONDS (ring-full with 4096x4096
 * fills), drain-attack SECONDS, present-attack SECONDS, hold-fds N (a ring and N pools until
 * killed), sync-probe SECONDS (wl_display round trips, "SYNC n= p50= ...").
 *
 * Exit status: 0 when the compositor answered as the rule requires (the
 * expected protocol error, a refused mapping, or simply staying alive), 1
 * otherwise; 2 for usage errors. It prints what it saw. The protocol error
 * message itself is printed by libwayland on stderr ("... error N: ...").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <stddef.h>
#include <unistd.h>
#include <wayland-client.h>
#include "smt-ring-v1-client-protocol.h"
#include "smt-ring.h"

/* A hostile client never tears anything down (and dies by SIGKILL or a
 * protocol error on purpose): in sanitizer builds, no leak report for it. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void) {
	return 1;
}

struct hostile {
	struct wl_display *display;
	struct smt_ring_manager_v1 *manager;
	struct wl_compositor *compositor;
	struct smt_ring_v1 *ring;
	int status_fd, global_fd;
	/* the ring as the client maps it */
	uint8_t *mem;
	uint32_t area_size;
	struct smt_ring_header *hdr;
	uint8_t *area;
	uint64_t head;
	int server_efd, client_efd;
	const struct smt_ring_status *status; /* read-only, server-written */
	const struct smt_global_status *global;
	struct smt_pool_v1 *pool;
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version) {
	struct hostile *h = data;
	if (strcmp(interface, smt_ring_manager_v1_interface.name) == 0) {
		h->manager = wl_registry_bind(registry, name, &smt_ring_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		h->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	}
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n) {
}
static const struct wl_registry_listener registry_listener = {
	registry_global, registry_global_remove,
};

static void ring_status(void *data, struct smt_ring_v1 *ring, int32_t status_fd,
		int32_t global_fd) {
	struct hostile *h = data;
	h->status_fd = status_fd;
	h->global_fd = global_fd;
}
static void ring_fence(void *data, struct smt_ring_v1 *ring, uint32_t hi, uint32_t lo) {
}
static const struct smt_ring_v1_listener ring_listener = { ring_status, ring_fence };

static int make_memfd(size_t size, unsigned int seals) {
	int fd = memfd_create("smt-hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		perror("smt-hostile: memfd");
		exit(1);
	}
	if (seals != 0 && fcntl(fd, F_ADD_SEALS, seals) != 0) {
		perror("smt-hostile: seals");
		exit(1);
	}
	return fd;
}

/* Creates a ring with the given fd and size; keeps a writable mapping. */
static void create_ring_with(struct hostile *h, int fd, uint32_t area_size, int server_efd,
		int client_efd) {
	h->area_size = area_size;
	h->ring = smt_ring_manager_v1_create_ring(h->manager, fd, area_size, server_efd,
		client_efd);
	smt_ring_v1_add_listener(h->ring, &ring_listener, h);
}

static void create_good_ring(struct hostile *h, uint32_t area_size) {
	size_t size = SMT_RING_HEADER_SIZE + area_size;
	int fd = make_memfd(size, F_SEAL_SHRINK | F_SEAL_GROW);
	h->mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h->mem == MAP_FAILED) {
		perror("smt-hostile: mmap");
		exit(1);
	}
	h->hdr = (struct smt_ring_header *)h->mem;
	h->hdr->magic = SMT_RING_MAGIC;
	h->hdr->version = SMT_RING_VERSION;
	h->hdr->area_size = area_size;
	h->hdr->header_size = SMT_RING_HEADER_SIZE;
	h->area = h->mem + SMT_RING_HEADER_SIZE;
	h->head = 0; /* a new stream (cases that make several rings) */
	h->server_efd = eventfd(0, EFD_CLOEXEC);
	h->client_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	create_ring_with(h, fd, area_size, dup(h->server_efd), dup(h->client_efd));
	close(fd);
	wl_display_roundtrip(h->display);
	if (h->status_fd >= 0) {
		void *page = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->status_fd, 0);
		h->status = page == MAP_FAILED ? NULL : page;
	}
	if (h->global_fd >= 0) {
		void *page = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->global_fd, 0);
		h->global = page == MAP_FAILED ? NULL : page;
	}
}

/* Appends raw bytes at head (no PAD logic: callers write what they mean). */
static void put(struct hostile *h, const void *bytes, size_t len) {
	for (size_t i = 0; i < len; i++) {
		h->area[(h->head + i) & (h->area_size - 1)] = ((const uint8_t *)bytes)[i];
	}
	h->head += len;
}

/* Publishes head (any value, also a bad one) and wakes the server if it
 * sleeps, as a real client does. */
static void publish(struct hostile *h, uint64_t head) {
	if (h->global == NULL) {
		atomic_store_explicit(&h->hdr->head, head, memory_order_release);
		return;
	}
	if (smt_ring_client_publish(h->hdr, h->global, head)) {
		uint64_t one = 1;
		if (write(h->server_efd, &one, sizeof(one)) < 0) {
			perror("smt-hostile: eventfd");
		}
	}
}

static double now_ms(void);
static bool ring_dead(const struct hostile *h);
static bool wait_event(struct hostile *h, int timeout_ms);

/* Every wait here ends on an event: the protocol error, the ring's DEAD
 * flag, its tail. HANG_MS only bounds a compositor that never answers (a
 * failure either way), so a slow or loaded machine cannot fail a case. */
#define HANG_MS 120000

/* Waits for the connection to die with a protocol error; returns true if
 * it did and the error is on the expected interface with the expected
 * code. An error for a request arrives by the round trip after it; an
 * error for ring commands comes once the compositor ran them, and it marks
 * the ring DEAD (and wakes us) before it posts the error, so the round
 * trip after seeing DEAD brings it. */
static bool expect_error(struct hostile *h, const struct wl_interface *iface, uint32_t code) {
	bool ring_error = iface == &smt_ring_v1_interface &&
		code == SMT_RING_V1_ERROR_BAD_COMMAND && h->status != NULL;
	double end = now_ms() + HANG_MS;
	for (;;) {
		bool last = !ring_error || ring_dead(h);
		if (wl_display_roundtrip(h->display) < 0 || last || now_ms() > end) {
			break;
		}
		wait_event(h, 100);
	}
	int err = wl_display_get_error(h->display);
	if (err != EPROTO) {
		fprintf(stderr, "smt-hostile: no protocol error (display error %d: %s)\n", err,
			err ? strerror(err) : "none");
		return false;
	}
	const struct wl_interface *got = NULL;
	uint32_t id = 0;
	uint32_t got_code = wl_display_get_protocol_error(h->display, &got, &id);
	printf("protocol error: %s@%u code %u\n", got ? got->name : "?", id, got_code);
	if (got != iface || got_code != code) {
		fprintf(stderr, "smt-hostile: expected %s error %u\n", iface->name, code);
		return false;
	}
	return true;
}

/* The server-written page must refuse a writable mapping. */
static bool status_page_read_only(struct hostile *h) {
	void *w = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		h->status_fd, 0);
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
	if (h->status != NULL && mprotect((void *)h->status, SMT_STATUS_MAP_SIZE,
			PROT_READ | PROT_WRITE) == 0) {
		fprintf(stderr, "smt-hostile: mprotect made the status page writable\n");
		return false;
	}
	printf("mprotect(PROT_WRITE) on the status page refused (%s)\n", strerror(errno));
	return true;
}

/* Waits (dispatching) until the compositor consumed up to pos. */
static bool wait_tail(struct hostile *h, uint64_t pos) {
	double end = now_ms() + HANG_MS;
	while (h->status != NULL && now_ms() < end) {
		if (atomic_load_explicit(&h->status->tail, memory_order_acquire) >= pos) {
			return true;
		}
		if (wl_display_roundtrip(h->display) < 0) {
			return false;
		}
	}
	return false;
}

static void cmd(struct hostile *h, uint16_t opcode, uint32_t size, const void *payload,
		size_t payload_len) {
	struct smt_cmd_header hdr = { opcode, 0, size };
	put(h, &hdr, sizeof(hdr));
	put(h, payload, payload_len);
}

static void *racer(void *data) {
	/* Rewrites the count and a rectangle of the FILL_RECTS at offset 0
	 * while the compositor reads it: whatever it validated must be what it
	 * runs, or an ASan build of the compositor catches the overflow. */
	struct hostile *h = data;
	volatile uint32_t *words = (volatile uint32_t *)h->area;
	for (unsigned long i = 0;; i++) {
		words[4] = (i & 1) ? 1 : 0x7fffffffu;   /* n_rects */
		words[6] = (i & 2) ? 0 : 0x7ffffff0u;   /* rect.x */
		words[8] = (i & 4) ? 10 : 0xffffffffu;  /* rect.width */
	}
	return NULL;
}

/* ---- helpers for the newer cases ------------------------------------- */

static double now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Publishes head and wakes the server if it sleeps (the real protocol). */
static void kick(struct hostile *h) {
	if (smt_ring_client_publish(h->hdr, h->global, h->head)) {
		uint64_t one = 1;
		if (write(h->server_efd, &one, sizeof(one)) < 0) {
			perror("smt-hostile: eventfd");
		}
	}
}

static bool ring_dead(const struct hostile *h) {
	return h->status != NULL &&
		(atomic_load_explicit(&h->status->flags, memory_order_acquire) & SMT_SERVER_DEAD);
}

/* Sleeps until the compositor writes our eventfd or our socket has data
 * (dispatched), or timeout_ms. false if the connection died. */
static bool wait_event(struct hostile *h, int timeout_ms) {
	struct pollfd pfd[2] = {
		{ h->client_efd, POLLIN, 0 },
		{ wl_display_get_fd(h->display), POLLIN, 0 },
	};
	wl_display_flush(h->display);
	if (poll(pfd, 2, timeout_ms) <= 0) {
		return true;
	}
	uint64_t v;
	if (pfd[0].revents & POLLIN) {
		(void)!read(h->client_efd, &v, sizeof(v));
	}
	if ((pfd[1].revents & POLLIN) && wl_display_dispatch(h->display) < 0) {
		return false;
	}
	return true;
}

/* Waits for tail >= pos through the WAITING protocol (eventfd), also
 * reading the Wayland socket. false if the ring died or time ran out. */
static bool wait_tail_efd(struct hostile *h, uint64_t pos, int timeout_ms) {
	double end = now_ms() + timeout_ms;
	while (atomic_load_explicit(&h->status->tail, memory_order_acquire) < pos) {
		if (ring_dead(h) || now_ms() > end) {
			return false;
		}
		if (smt_ring_client_begin_wait(h->hdr, h->status, pos)) {
			struct pollfd pfd[2] = {
				{ h->client_efd, POLLIN, 0 },
				{ wl_display_get_fd(h->display), POLLIN, 0 },
			};
			wl_display_flush(h->display);
			if (poll(pfd, 2, 50) > 0) {
				uint64_t v;
				if (pfd[0].revents & POLLIN) {
					(void)!read(h->client_efd, &v, sizeof(v));
				}
				if (pfd[1].revents & POLLIN) {
					if (wl_display_dispatch(h->display) < 0) {
						smt_ring_client_end_wait(h->hdr);
						return false;
					}
				}
			}
			smt_ring_client_end_wait(h->hdr);
		}
	}
	return true;
}

/* Appends one command, PADding to the end of the area when it would wrap
 * and waiting for space when the ring is full. */
static bool emit(struct hostile *h, const void *bytes, uint32_t len) {
	uint32_t pad = smt_ring_pad_needed(h->head, h->area_size, len);
	uint64_t need = h->head + pad + len;
	if (need - atomic_load_explicit(&h->status->tail, memory_order_acquire) > h->area_size) {
		kick(h);
		if (!wait_tail_efd(h, need - h->area_size, HANG_MS)) {
			return false;
		}
	}
	if (pad) {
		struct smt_cmd_header p = { SMT_OP_PAD, 0, pad };
		memcpy(h->area + (h->head & (h->area_size - 1)), &p, sizeof(p));
		h->head += pad;
	}
	memcpy(h->area + (h->head & (h->area_size - 1)), bytes, len);
	h->head += len;
	return true;
}

static void emit_create(struct hostile *h, uint32_t id, uint32_t w, uint32_t hh, uint32_t f) {
	struct smt_cmd_create_pixmap c = { { SMT_OP_CREATE_PIXMAP, 0, sizeof(c) }, id, w, hh, f };
	emit(h, &c, sizeof(c));
}

static void emit_target(struct hostile *h, uint32_t id) {
	struct smt_cmd_set_target c = { { SMT_OP_SET_TARGET, 0, sizeof(c) }, id, 0 };
	emit(h, &c, sizeof(c));
}

static void emit_fence(struct hostile *h, uint64_t serial) {
	struct smt_cmd_fence c = { { SMT_OP_FENCE, 0, sizeof(c) }, serial };
	emit(h, &c, sizeof(c));
}

/* Prints the ring's death certificate; true if it names code (and opcode,
 * unless opcode < 0). */
static bool check_death(struct hostile *h, uint32_t code, int opcode) {
	if (!ring_dead(h)) {
		fprintf(stderr, "smt-hostile: the ring is not marked DEAD\n");
		return false;
	}
	uint32_t got = atomic_load(&h->status->error_code);
	uint32_t op = atomic_load(&h->status->error_opcode);
	printf("status page: DEAD error_code %u opcode %u offset %llu\n", got, op,
		(unsigned long long)atomic_load(&h->status->error_offset));
	if (got != code || (opcode >= 0 && op != (uint32_t)opcode)) {
		fprintf(stderr, "smt-hostile: expected error_code %u opcode %d\n", code, opcode);
		return false;
	}
	return true;
}

/* ---- every opcode with out-of-range ids, rects, counts, strides, pool
 * offsets, one command per case (table-driven). The set-up before each:
 * ring of 64 KiB; pixmap 5 64x64 ARGB (the target), pixmap 6 64x64 A8,
 * pool 3 of 64 KiB. ---------------------------------------------------- */

#define I(x) ((uint32_t)(int32_t)(x))
#define IMAX 0x7fffffffu
#define IMIN 0x80000000u
#define UMAX 0xffffffffu
#define BIG (1u << 28) /* SMT_COORD_MAX */
#define WHITE 0xffffffffu

struct op_case {
	const char *name;
	uint16_t opcode, flags;
	uint32_t error;      /* expected enum smt_error */
	bool untarget;       /* SET_TARGET 0 before the command */
	uint32_t size;       /* 0: 8 + payload rounded up to 8 */
	uint32_t n;          /* payload words */
	uint32_t w[20];
};

static const struct op_case op_cases[] = {
	/* CREATE_PIXMAP: id, width, height, format */
	{ "create-id-zero", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { 0, 8, 8, 1 } },
	{ "create-id-beyond-table", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4,
	  { 1u << 18, 8, 8, 1 } },
	{ "create-id-max", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { UMAX, 8, 8, 1 } },
	{ "create-id-in-use", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_ID_IN_USE, 0, 0, 4, { 5, 8, 8, 1 } },
	{ "create-width-zero", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_VALUE, 0, 0, 4, { 7, 0, 8, 1 } },
	{ "create-too-wide", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_LIMIT, 0, 0, 4, { 7, 16385, 1, 1 } },
	{ "create-size-overflow", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_LIMIT, 0, 0, 4,
	  { 7, UMAX, UMAX, 1 } },
	{ "create-bad-format", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 4, { 7, 8, 8, 99 } },
	{ "create-short", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_LENGTH, 0, 16, 2, { 7, 8 } },
	{ "create-flags", SMT_OP_CREATE_PIXMAP, 1, SMT_ERROR_BAD_VALUE, 0, 0, 4, { 7, 8, 8, 1 } },
	/* FREE_PIXMAP: id, reserved */
	{ "free-unknown", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { 77, 0 } },
	{ "free-id-max", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { UMAX, 0 } },
	{ "free-reserved", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_VALUE, 0, 0, 2, { 5, 1 } },
	/* SET_TARGET */
	{ "target-unknown", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { 77, 0 } },
	{ "target-id-huge", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { IMIN, 0 } },
	{ "target-reserved", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_VALUE, 0, 0, 2, { 5, 7 } },
	/* SET_CLIP: n, reserved, rect[n] */
	{ "clip-count-overflow", SMT_OP_SET_CLIP, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 6,
	  { 0x10000001u, 0, 0, 0, 8, 8 } },   /* n * 16 wraps to 16 in 32 bits */
	{ "clip-rect-overflow", SMT_OP_SET_CLIP, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 6,
	  { 1, 0, IMAX, 0, UMAX, 1 } },
	{ "clip-no-target", SMT_OP_SET_CLIP, 0, SMT_ERROR_NO_TARGET, true, 0, 6,
	  { 1, 0, 0, 0, 8, 8 } },
	/* FILL_RECTS: op, colour, n, reserved, rect[n] */
	{ "fill-count-wrap", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 0x10000001u, 0, 0, 0, 8, 8 } },
	{ "fill-count-short", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 2, 0, 0, 0, 8, 8 } },
	{ "fill-rect-overflow", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 1, 0, IMAX - 1, 0, UMAX, 10 } },
	{ "fill-rect-negative", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 1, 0, IMIN, IMIN, UMAX, UMAX } },
	{ "fill-rect-beyond-coord-max", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 1, 0, 0, 0, BIG + 1, 1 } },
	{ "fill-bad-op", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
	  { 999, WHITE, 1, 0, 0, 0, 8, 8 } },
	{ "fill-not-premultiplied", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
	  { SMT_PAINT_SRC, 0x10ffffffu, 1, 0, 0, 0, 8, 8 } },
	{ "fill-no-target", SMT_OP_FILL_RECTS, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 1, 0, 0, 0, 8, 8 } },
	/* POINTS: op, colour, n, reserved, point[n] */
	{ "points-count-wrap", SMT_OP_POINTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 6,
	  { SMT_PAINT_SRC, WHITE, 0x20000001u, 0, 1, 1 } },   /* n * 8 wraps to 8 */
	{ "points-geometry", SMT_OP_POINTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 6,
	  { SMT_PAINT_SRC, WHITE, 1, 0, IMAX, IMIN } },
	{ "points-no-target", SMT_OP_POINTS, 0, SMT_ERROR_NO_TARGET, true, 0, 6,
	  { SMT_PAINT_SRC, WHITE, 1, 0, 1, 1 } },
	/* SEGMENTS: op, colour, line_width, n, segment[n] */
	{ "segments-count-wrap", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 1, 0x10000001u, 0, 0, 9, 9 } },
	{ "segments-too-wide", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 100000, 1, 0, 0, 9, 9 } },
	{ "segments-geometry", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { SMT_PAINT_SRC, WHITE, 30, 1, 0, 0, IMIN, IMAX } },
	/* PUT_IMAGE: x, y, width, height, format, stride, pixels */
	{ "put-stride-short", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 14,
	  { 0, 0, 8, 2, SMT_FORMAT_ARGB8888, 4 } },
	{ "put-stride-unaligned", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 14,
	  { 0, 0, 1, 1, SMT_FORMAT_ARGB8888, 6 } },
	{ "put-stride-height-wrap", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
	  { 0, 0, 1, 0x40000001u, SMT_FORMAT_ARGB8888, 4 } },  /* 4 * h wraps to 4 */
	{ "put-bad-format", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 8,
	  { 0, 0, 1, 1, 99, 4 } },
	{ "put-geometry", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { IMAX, 0, 1, 1, SMT_FORMAT_ARGB8888, 4 } },
	{ "put-no-target", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
	  { 0, 0, 1, 1, SMT_FORMAT_ARGB8888, 4 } },
	/* PUT_IMAGE_POOL: pool, format, offset lo/hi, stride, w, h, x, y, reserved */
	{ "pool-unknown", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_POOL, 0, 0, 10,
	  { 9, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 64, 0, 0, 0 } },
	{ "pool-id-max", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_POOL, 0, 0, 10,
	  { UMAX, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 64, 0, 0, 0 } },
	{ "pool-offset-overflow", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 0xffffffc0u, UMAX, 256, 64, 64, 0, 0, 0 } },
	{ "pool-offset-unaligned", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 2, 0, 256, 8, 8, 0, 0, 0 } },
	{ "pool-range-past-end", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 65536 - 256, 0, 256, 64, 2, 0, 0, 0 } },
	{ "pool-stride-height-overflow", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 0, 0, 0x80000000u, 1, 3, 0, 0, 0 } },
	{ "pool-stride-short", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 0, 0, 4, 64, 1, 0, 0, 0 } },
	{ "pool-bad-format", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 10,
	  { 3, 0, 0, 0, 256, 64, 1, 0, 0, 0 } },
	{ "pool-geometry", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 10,
	  { 3, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 1, IMIN, 0, 0 } },
	/* COPY_AREA: src, sx, sy, w, h, dx, dy, reserved */
	{ "copy-src-unknown", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 8,
	  { 77, 0, 0, 8, 8, 0, 0, 0 } },
	{ "copy-src-huge", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 8,
	  { UMAX, 0, 0, 8, 8, 0, 0, 0 } },
	{ "copy-size-overflow", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { 5, 0, 0, UMAX, UMAX, 0, 0, 0 } },
	{ "copy-src-geometry", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { 5, IMIN, 0, 8, 8, 0, 0, 0 } },
	{ "copy-dst-geometry", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
	  { 5, 0, 0, 8, 8, IMAX, IMAX, 0 } },
	{ "copy-reserved", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
	  { 5, 0, 0, 8, 8, 0, 0, 1 } },
	{ "copy-no-target", SMT_OP_COPY_AREA, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
	  { 5, 0, 0, 8, 8, 0, 0, 0 } },
	/* COMPOSITE: op, src, mask, sx, sy, mx, my, dx, dy, w, h, reserved */
	{ "composite-src-unknown", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 12,
	  { SMT_PAINT_OVER, 77, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-mask-unknown", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 12,
	  { SMT_PAINT_OVER, 5, 78, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-mask-not-a8", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 12,
	  { SMT_PAINT_OVER, 6, 5, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-bad-op", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_VALUE, 0, 0, 12,
	  { 1000, 5, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-size-overflow", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 12,
	  { SMT_PAINT_OVER, 5, 6, 0, 0, 0, 0, 0, 0, UMAX, UMAX, 0 } },
	{ "composite-mask-geometry", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 12,
	  { SMT_PAINT_OVER, 5, 6, 0, 0, IMIN, IMAX, 0, 0, 8, 8, 0 } },
	{ "composite-no-target", SMT_OP_COMPOSITE, 0, SMT_ERROR_NO_TARGET, true, 0, 12,
	  { SMT_PAINT_OVER, 5, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	/* GLYPHS: op, colour, atlas, n, ox, oy, glyph[n] (u16 ax, ay, w, h; i32 dx, dy) */
	{ "glyphs-atlas-unknown", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 10,
	  { SMT_PAINT_OVER, WHITE, 77, 1, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-atlas-not-a8", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 10,
	  { SMT_PAINT_OVER, WHITE, 5, 1, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-outside-atlas", SMT_OP_GLYPHS, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
	  { SMT_PAINT_OVER, WHITE, 6, 1, 0, 0, 60 | (60u << 16), 10 | (10u << 16), 0, 0 } },
	{ "glyphs-count-wrap", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 10,
	  { SMT_PAINT_OVER, WHITE, 6, 0x10000001u, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-origin-overflow", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 10,
	  { SMT_PAINT_OVER, WHITE, 6, 1, IMAX, IMAX, 0, 8 | (8u << 16), IMAX, IMAX } },
	/* PRESENT: canvas, serial, n, reserved, rect[n] */
	{ "present-pixmap", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { 5, 1, 0, 0 } },
	{ "present-unknown", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { 77, 1, 0, 0 } },
	{ "present-count-wrap", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
	  { 77, 1, 0x10000001u, 0, 0, 0, 8, 8 } },
	/* FENCE */
	{ "fence-short", SMT_OP_FENCE, 0, SMT_ERROR_BAD_LENGTH, 0, 8, 0, { 0 } },
	{ "fence-flags", SMT_OP_FENCE, 0x8000, SMT_ERROR_BAD_VALUE, 0, 0, 2, { 1, 0 } },
	/* framing */
	{ "opcode-count", SMT_OP_COUNT, 0, SMT_ERROR_BAD_OPCODE, 0, 0, 0, { 0 } },
	{ "opcode-max", 0xffff, 0, SMT_ERROR_BAD_OPCODE, 0, 0, 0, { 0 } },
	{ "too-large", SMT_OP_FILL_RECTS, 0, SMT_ERROR_TOO_LARGE, 0, 40000, 0, { 0 } },
};

static int run_op_case(struct hostile *h, const char *name) {
	const struct op_case *c = NULL;
	for (size_t i = 0; i < sizeof(op_cases) / sizeof(op_cases[0]); i++) {
		if (strcmp(op_cases[i].name, name) == 0) {
			c = &op_cases[i];
		}
	}
	if (c == NULL) {
		fprintf(stderr, "smt-hostile: unknown op case '%s'\n", name);
		return 2;
	}
	create_good_ring(h, 65536);
	if (h->status == NULL || h->global == NULL) {
		return 1;
	}
	int pfd = make_memfd(65536, F_SEAL_SHRINK);
	h->pool = smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
	close(pfd);
	wl_display_roundtrip(h->display);
	emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
	emit_create(h, 6, 64, 64, SMT_FORMAT_A8);
	emit_target(h, 5);
	if (c->untarget) {
		emit_target(h, 0);
	}
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		fprintf(stderr, "smt-hostile: the set-up failed\n");
		return 1;
	}
	uint8_t buf[40008] = {0};
	uint32_t size = c->size ? c->size : (uint32_t)((8 + 4 * c->n + 7) & ~7u);
	struct smt_cmd_header hdr = { c->opcode, c->flags, size };
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, c->w, 4 * c->n);
	uint64_t offset = h->head;
	put(h, buf, size > sizeof(buf) ? sizeof(buf) : size);
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	if (!check_death(h, c->error, c->opcode < SMT_OP_COUNT ? c->opcode : -1)) {
		return 1;
	}
	uint64_t off = atomic_load(&h->status->error_offset);
	if (off != offset) {
		fprintf(stderr, "smt-hostile: error offset %llu, the command was at %llu\n",
			(unsigned long long)off, (unsigned long long)offset);
		return 1;
	}
	return 0;
}

/* The client scribbles over its whole header page (all but head) — where
 * a naive server might keep its tail, sizes or flags — between batches:
 * the server's tail, which it keeps privately, is unaffected. */
static int case_header_scribble(struct hostile *h) {
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
		(unsigned long long)tail, (unsigned long long)h->head, (unsigned long long)fence);
	return tail == h->head && fence == 199 && !ring_dead(h) ? 0 : 1;
}

/* Another client's canvas id (from smt-demo): unknown in this ring. */
static int case_foreign(struct hostile *h, const char *name, uint32_t id) {
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
		struct { struct smt_cmd_fill_rects f; struct smt_rect r; } fill = {
			{ { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xffff0000u, 1, 0 },
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

static void emit_put_pool(struct hostile *h, uint32_t pool, uint64_t offset) {
	struct smt_cmd_put_image_pool c = { { SMT_OP_PUT_IMAGE_POOL, 0, sizeof(c) }, pool,
		SMT_FORMAT_ARGB8888, offset, 256, 64, 64, 0, 0, 0 };
	emit(h, &c, sizeof(c));
}

static int case_pool(struct hostile *h, const char *name) {
	create_good_ring(h, 65536);
	const struct wl_interface *ring = &smt_ring_v1_interface;
	if (strcmp(name, "pool-unsealed") == 0 || strcmp(name, "pool-short") == 0) {
		bool unsealed = name[5] == 'u';
		int pfd = make_memfd(unsealed ? 65536 : 4096, unsealed ? 0 : F_SEAL_SHRINK);
		smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_FD) ? 0 : 1;
	}
	int pfd = make_memfd(65536, F_SEAL_SHRINK);
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
	/* pool-destroy-pending: commands naming the pool are published, the
	 * pool is destroyed at once (no round trip): those commands still run
	 * (the destroy waits for them), later ones fail with BAD_POOL. */
	for (int i = 0; i < 100; i++) {
		emit_put_pool(h, 3, (uint64_t)(i % 4) * 64 * 256);
	}
	emit_fence(h, 7);
	uint64_t pending = h->head;
	kick(h);
	smt_pool_v1_destroy(h->pool);
	wl_display_roundtrip(h->display);
	if (!wait_tail_efd(h, pending, HANG_MS) || ring_dead(h)) {
		fprintf(stderr, "smt-hostile: commands published before destroy did not all run "
			"(tail %llu of %llu)\n", (unsigned long long)atomic_load(&h->status->tail),
			(unsigned long long)pending);
		return 1;
	}
	printf("100 pending PUT_IMAGE_POOL ran before the pool went away\n");
	emit_put_pool(h, 3, 0);
	kick(h);
	if (!expect_error(h, ring, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	return check_death(h, SMT_ERROR_BAD_POOL, SMT_OP_PUT_IMAGE_POOL) ? 0 : 1;
}

/* Ten thousand small pixmaps are fine; twenty thousand 64x64 ones exceed
 * the client's memory limit (client-memory-mib, 256 by default) and end
 * the client with LIMIT. */
static int case_pixmaps_10k(struct hostile *h) {
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

/* wl_display.sync as fast as possible, never reading: the compositor
 * queues the events; it must not block on us (it may disconnect us). */
static int case_no_read(struct hostile *h, double seconds) {
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
				printf("disconnected after %lu syncs (%s)\n", sent, strerror(errno));
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
	printf("NO_READ sent %lu syncs, %s\n", sent, disconnected ? "disconnected" : "still connected");
	return 0;
}

/* Keeps its ring full of full-pixmap fills (a million pixels per 40-byte
 * command) and waits on a tail it never reads its eventfd for. Prints
 * "RING_FULL started" once the ring is full the first time. */
static int case_ring_full(struct hostile *h, double seconds, uint32_t side) {
	/* 1 MiB: about 26000 fills, seconds of work queued at every moment, so
	 * the compositor has work whenever this client runs at all. */
	create_good_ring(h, 1u << 20);
	emit_create(h, 1, side, side, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	struct { struct smt_cmd_fill_rects f; struct smt_rect r; } fill = {
		{ { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
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
		written, (unsigned long long)atomic_load(&h->status->commands_executed), full,
		ring_dead(h) ? "DEAD" : "alive");
	return ring_dead(h) ? 1 : 0;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* FENCE round trips through the ring: write a FENCE, publish (waking the
 * server if it sleeps), wait for its tail with the WAITING protocol. */
static int case_echo_probe(struct hostile *h, double seconds, int interval_ms, bool verbose) {
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
				(unsigned long long)serial, ring_dead(h) ? "dead" : "stuck");
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
		lat[(size_t)((double)n * 0.99) < n ? (size_t)((double)n * 0.99) : n - 1], lat[n - 1]);
	free(lat);
	return 0;
}

/* ---- resource attacks (docs/protocol.md "Resource limits") ------------ */

/* Rings until the compositor refuses one: the client's ring limit (or
 * its fd limit, whichever is lower) names itself in the error. */
static int case_ring_flood(struct hostile *h) {
	for (int i = 0; i < 100000; i++) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, F_SEAL_SHRINK | F_SEAL_GROW);
		struct smt_ring_v1 *r = smt_ring_manager_v1_create_ring(h->manager, fd, 4096,
			eventfd(0, EFD_CLOEXEC), eventfd(0, EFD_CLOEXEC));
		(void)r;
		if (wl_display_roundtrip(h->display) < 0) {
			printf("rings accepted: %d\n", i);
			return expect_error(h, &smt_ring_manager_v1_interface,
				SMT_RING_MANAGER_V1_ERROR_LIMIT) ? 0 : 1;
		}
	}
	fprintf(stderr, "smt-hostile: 100000 rings accepted\n");
	return 1;
}

/* Pools on one ring until refused (each keeps a descriptor in the
 * compositor). */
static int case_pool_flood(struct hostile *h) {
	create_good_ring(h, 4096);
	for (uint32_t id = 1; id < 1024; id++) {
		int fd = make_memfd(4096, F_SEAL_SHRINK);
		smt_ring_v1_create_pool(h->ring, id, fd, 4096);
		close(fd);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("pools accepted: %u\n", id - 1);
			return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ? 0 : 1;
		}
	}
	fprintf(stderr, "smt-hostile: 1023 pools accepted\n");
	return 1;
}

/* A canvas of the largest size: two images of 1 GiB each. */
static int case_canvas_huge(struct hostile *h) {
	create_good_ring(h, 4096);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	smt_ring_v1_get_canvas(h->ring, 1, surface, SMT_MAX_DIMENSION, SMT_MAX_DIMENSION);
	return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ? 0 : 1;
}

/* Growing a canvas past the limit is refused on the canvas. */
static int case_canvas_grow(struct hostile *h) {
	create_good_ring(h, 4096);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 1, surface, 64, 64);
	wl_display_roundtrip(h->display);
	smt_canvas_v1_resize(canvas, SMT_MAX_DIMENSION, 8192);
	return expect_error(h, &smt_canvas_v1_interface, SMT_CANVAS_V1_ERROR_LIMIT) ? 0 : 1;
}

/* 64 MiB pixmaps, one per ring: the memory limit is the client's, not the
 * ring's, so a new ring brings no new allowance. */
static int case_memory_rings(struct hostile *h) {
	for (int i = 0; i < 64; i++) {
		create_good_ring(h, 4096);
		emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
		emit_fence(h, 1);
		kick(h);
		if (!wait_tail_efd(h, h->head, HANG_MS)) {
			printf("rings with a 64 MiB pixmap: %d\n", i);
			if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
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
static int case_hold_memory(struct hostile *h, int n) {
	create_good_ring(h, 4096);
	struct { struct smt_cmd_fill_rects f; struct smt_rect r; } fill = {
		{ { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xff402010u, 1, 0 },
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
static const struct { struct smt_cmd_fill_rects f; struct smt_rect r; } drain_fill = {
	{ { SMT_OP_FILL_RECTS, 0, sizeof(drain_fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
	{ 0, 0, 4096, 4096 } };

static uint64_t start_drain(struct hostile *h) {
	create_good_ring(h, 16u << 20);
	emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	while (h->head + sizeof(drain_fill) + 64 <= h->area_size) {
		emit(h, &drain_fill, sizeof(drain_fill));
	}
	kick(h);
	uint64_t queued = h->head;
	int fd = make_memfd(65536, F_SEAL_SHRINK);
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
static int case_drain_stall(struct hostile *h) {
	uint64_t queued = start_drain(h);
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: the attacker's requests were refused\n");
		return 1;
	}
	printf("attacker: its requests answered with %llu of %llu bytes executed\n",
		(unsigned long long)atomic_load(&h->status->tail), (unsigned long long)queued);

	struct hostile v = { .status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1 };
	v.display = wl_display_connect(NULL);
	if (v.display == NULL) {
		fputs("smt-hostile: the victim cannot connect\n", stderr);
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(v.display);
	wl_registry_add_listener(registry, &registry_listener, &v);
	wl_display_roundtrip(v.display);
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

/* wl_display round trips (what every Wayland client waits for), reported
 * like echo-probe: "SYNC n= p50= p99= max=" in ms. */
static int case_sync_probe(struct hostile *h, double seconds) {
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
		lat[(size_t)((double)n * 0.99) < n ? (size_t)((double)n * 0.99) : n - 1], lat[n - 1]);
	free(lat);
	return 0;
}

/* start_drain for the benchmark, the ring refilled as it drains for
 * `seconds`. */
static int case_drain_attack(struct hostile *h, double seconds) {
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

/* One ring and `pools` pools, held until killed: descriptors the
 * compositor keeps for us. "HOLDING" once they exist, "REFUSED" (exit 0)
 * if a limit refused them. */
static int case_hold_fds(struct hostile *h, int pools) {
	create_good_ring(h, 4096);
	for (int id = 1; id <= pools; id++) {
		int fd = make_memfd(4096, F_SEAL_SHRINK);
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

/* ---- a command split around a request (socket path) ------------------ */

static void split_fence(void *data, struct smt_ring_v1 *ring, uint32_t hi, uint32_t lo) {
	*(uint64_t *)data = (uint64_t)hi << 32 | lo;
}
static void split_status(void *data, struct smt_ring_v1 *ring, int32_t status_fd,
		int32_t global_fd) {
	close(status_fd);
	close(global_fd);
}
static const struct smt_ring_v1_listener split_listener = { split_status, split_fence };

static void submit_bytes(struct smt_ring_v1 *ring, const void *bytes, size_t len) {
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
		void (*between)(struct hostile *h, struct smt_ring_v1 *ring)) {
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

static void split_create_pool(struct hostile *h, struct smt_ring_v1 *ring) {
	int fd = make_memfd(4096, F_SEAL_SHRINK);
	h->pool = smt_ring_v1_create_pool(ring, 1, fd, 4096);
	close(fd);
}

static void split_destroy_pool(struct hostile *h, struct smt_ring_v1 *ring) {
	smt_pool_v1_destroy(h->pool);
}

/* A command counts as published when its last byte is (docs/protocol.md):
 * split over two submits with create_pool between the pieces it runs after
 * the pool exists; with smt_pool_v1.destroy between them, after the pool
 * is gone (bad_pool). */
static int case_split_around_request(struct hostile *h) {
	uint64_t fence = 0;
	split_put(h, &fence, false, split_create_pool);
	double end = now_ms() + HANG_MS;
	while (fence != 1) {
		if (wl_display_roundtrip(h->display) < 0 || now_ms() > end) {
			fprintf(stderr, "smt-hostile: the command split around create_pool "
				"failed or never ran\n");
			return 1;
		}
	}
	printf("split around create_pool: ran after it (fence %llu)\n",
		(unsigned long long)fence);
	fence = 0;
	split_put(h, &fence, true, split_destroy_pool);
	while (wl_display_roundtrip(h->display) >= 0 && now_ms() < end) {
		if (fence == 1) {
			fprintf(stderr, "smt-hostile: the command split around destroy ran "
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
		uint32_t exec_hi, uint32_t exec_lo, uint32_t display_hi, uint32_t display_lo) {
	struct presents *p = data;
	p->last_serial = serial;
	p->presented_at = ++p->events;
}
static const struct smt_canvas_v1_listener canvas_listener = { canvas_presented };

static void sync_done(void *data, struct wl_callback *cb, uint32_t time) {
	struct presents *p = data;
	p->synced_at = ++p->events;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener sync_listener = { sync_done };

/* A ring and a PRESENT_SIDE canvas on a surface never shown (its PRESENTs
 * are reported as soon as their copy is done). */
static struct smt_canvas_v1 *create_present_canvas(struct hostile *h, struct presents *p) {
	create_good_ring(h, 1u << 20);
	struct wl_surface *surface = wl_compositor_create_surface(h->compositor);
	struct smt_canvas_v1 *canvas = smt_ring_v1_get_canvas(h->ring, 1, surface,
		PRESENT_SIDE, PRESENT_SIDE);
	smt_canvas_v1_add_listener(canvas, &canvas_listener, p);
	return wl_display_roundtrip(h->display) < 0 ? NULL : canvas;
}

static void emit_present(struct hostile *h, uint32_t serial) {
	uint8_t buf[64];
	emit(h, buf, smt_encode_present(buf, 1, serial, 0, NULL));
}

/* A PRESENT's copy runs in bands over the ring's slices, and the event
 * loop runs between them: once this ring's tail is past a full-damage
 * PRESENT (its copy has begun), a second connection's round trip, then
 * one on this connection, are answered before the PRESENT is reported.
 * A copy in one piece reports it before it reads either request, so the
 * order never comes out so. Repeated: the round trips must get in while
 * the copy lasts, which a descheduled client can miss now and then. Then
 * a resize and destroy of the canvas during a copy. */
static int case_present_split(struct hostile *h) {
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
	const int trials = 8;
	int between = 0;
	for (uint32_t serial = 1; serial <= (uint32_t)trials; serial++) {
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
		fprintf(stderr, "smt-hostile: no round trip answered during a PRESENT's copy\n");
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
static int case_present_attack(struct hostile *h, double seconds) {
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

static int run_new_case(struct hostile *h, const char *name, const char *arg, bool *handled) {
	*handled = true;
	double secs = arg ? atof(arg) : 5;
	if (strncmp(name, "op:", 3) == 0) {
		return run_op_case(h, name + 3);
	} else if (strcmp(name, "header-scribble") == 0) {
		return case_header_scribble(h);
	} else if (strcmp(name, "foreign-target") == 0 || strcmp(name, "foreign-present") == 0) {
		return case_foreign(h, name, arg ? (uint32_t)strtoul(arg, NULL, 0) : 1);
	} else if (strcmp(name, "ring-flood") == 0) {
		return case_ring_flood(h);
	} else if (strcmp(name, "pool-flood") == 0) {
		return case_pool_flood(h);
	} else if (strcmp(name, "canvas-huge") == 0) {
		return case_canvas_huge(h);
	} else if (strcmp(name, "canvas-grow") == 0) {
		return case_canvas_grow(h);
	} else if (strcmp(name, "memory-rings") == 0) {
		return case_memory_rings(h);
	} else if (strcmp(name, "drain-stall") == 0) {
		return case_drain_stall(h);
	} else if (strcmp(name, "hold-memory") == 0) {
		return case_hold_memory(h, arg ? atoi(arg) : 1);
	} else if (strncmp(name, "pool-", 5) == 0 && strcmp(name, "pool-offset-overflow") != 0) {
		return case_pool(h, name);
	} else if (strcmp(name, "pixmaps-10k") == 0) {
		return case_pixmaps_10k(h);
	} else if (strcmp(name, "no-read") == 0) {
		return case_no_read(h, secs);
	} else if (strcmp(name, "ring-full") == 0) {
		return case_ring_full(h, secs, 1024);
	} else if (strcmp(name, "big-fill") == 0) {
		return case_ring_full(h, secs, 4096);
	} else if (strcmp(name, "sync-probe") == 0) {
		return case_sync_probe(h, secs);
	} else if (strcmp(name, "drain-attack") == 0) {
		return case_drain_attack(h, secs);
	} else if (strcmp(name, "split-around-request") == 0) {
		return case_split_around_request(h);
	} else if (strcmp(name, "present-split") == 0) {
		return case_present_split(h);
	} else if (strcmp(name, "present-attack") == 0) {
		return case_present_attack(h, secs);
	} else if (strcmp(name, "hold-fds") == 0) {
		return case_hold_fds(h, arg ? atoi(arg) : 1);
	} else if (strcmp(name, "echo-probe") == 0 || strcmp(name, "echo-probe-v") == 0) {
		const char *iv = getenv("SMT_ECHO_INTERVAL_MS");
		return case_echo_probe(h, secs, iv ? atoi(iv) : 10, name[10] == '-');
	} else if (strcmp(name, "giant-geometry") == 0) {
		/* Not errors: geometry inside +-2^28 but far outside the target,
		 * which the server must clip itself before pixman (pixman_fill
		 * does no bounds checking; trapezoids size their mask from the
		 * unclipped extents). Must run quickly and leave the ring alive. */
		const int32_t M = SMT_COORD_MAX / 2;
		create_good_ring(h, 65536);
		emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
		emit_create(h, 6, 64, 64, SMT_FORMAT_A8);
		emit_target(h, 5);
		struct { struct smt_cmd_fill_rects f; struct smt_rect r[2]; } fill = {
			{ { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, WHITE, 2, 0 },
			{ { -M, -M, (uint32_t)M * 2, (uint32_t)M * 2 }, { 63, 63, (uint32_t)M, 1 } } };
		emit(h, &fill, sizeof(fill));
		struct { struct smt_cmd_segments c; struct smt_segment s[2]; } seg = {
			{ { SMT_OP_SEGMENTS, 0, sizeof(seg) }, SMT_PAINT_SRC, WHITE, 1000, 2 },
			{ { -M, -M, M, M }, { -M, 32, M, 32 } } };
		emit(h, &seg, sizeof(seg));
		seg.c.line_width = 0;
		emit(h, &seg, sizeof(seg));
		struct { struct smt_cmd_points c; struct smt_point p[2]; } pts = {
			{ { SMT_OP_POINTS, 0, sizeof(pts) }, SMT_PAINT_SRC, WHITE, 2, 0 },
			{ { -M, M }, { 10, 10 } } };
		emit(h, &pts, sizeof(pts));
		struct smt_cmd_copy_area cp = { { SMT_OP_COPY_AREA, 0, sizeof(cp) }, 5, -M, -M,
			(uint32_t)M * 2, (uint32_t)M * 2, -M + 5, -M + 7, 0 };
		emit(h, &cp, sizeof(cp));
		struct smt_cmd_composite co = { { SMT_OP_COMPOSITE, 0, sizeof(co) }, SMT_PAINT_SRC, 5, 6,
			-M, -M, M, -M, -M, M - 100, (uint32_t)M, (uint32_t)M, 0 };
		emit(h, &co, sizeof(co));
		struct { struct smt_cmd_set_clip c; struct smt_rect r; } clip = {
			{ { SMT_OP_SET_CLIP, 0, sizeof(clip) }, 1, 0 }, { -M, -M, (uint32_t)M, (uint32_t)M } };
		emit(h, &clip, sizeof(clip));
		emit(h, &fill, sizeof(fill));
		struct { struct smt_cmd_glyphs c; struct smt_glyph g[1]; } gl = {
			{ { SMT_OP_GLYPHS, 0, sizeof(gl) }, SMT_PAINT_SRC, WHITE, 6, 1, -M, M },
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
	} else if (strcmp(name, "head-backwards") == 0) {
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
	} else if (strcmp(name, "head-huge") == 0) {
		create_good_ring(h, 4096);
		h->head = UINT64_MAX & ~(uint64_t)7;
		kick(h);
		if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
			return 1;
		}
		return check_death(h, SMT_ERROR_BAD_HEAD, -1) ? 0 : 1;
	}
	*handled = false;
	return 0;
}

static int run_case(struct hostile *h, const char *name) {
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
		uint32_t payload[2] = {0};
		cmd(h, SMT_OP_NOOP, 16, payload, sizeof(payload));
		publish(h, 12);
	} else if (strcmp(name, "size-zero") == 0) {
		cmd(h, SMT_OP_NOOP, 0, NULL, 0);
		publish(h, 8);
	} else if (strcmp(name, "size-odd") == 0) {
		uint32_t payload[2] = {0};
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
		uint32_t payload[6] = {0};
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
		uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		uint32_t target[2] = { 5, 0 };
		cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
		struct { uint32_t op, colour, n, reserved; struct smt_rect r; } fill = {
			SMT_PAINT_SRC, 0xffffffffu, 1, 0, { INT32_MAX - 1, 0, UINT32_MAX, 10 } };
		cmd(h, SMT_OP_FILL_RECTS, 8 + sizeof(fill), &fill, sizeof(fill));
		publish(h, h->head);
	} else if (strcmp(name, "count-overflow") == 0) {
		uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		uint32_t target[2] = { 5, 0 };
		cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
		/* n_rects claims 2^28 rectangles in a 40-byte command. */
		struct { uint32_t op, colour, n, reserved; struct smt_rect r; } fill = {
			SMT_PAINT_SRC, 0xffffffffu, 1u << 28, 0, { 0, 0, 10, 10 } };
		cmd(h, SMT_OP_FILL_RECTS, 8 + sizeof(fill), &fill, sizeof(fill));
		publish(h, h->head);
	} else if (strcmp(name, "pool-offset-overflow") == 0) {
		uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		uint32_t target[2] = { 5, 0 };
		cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
		int pfd = make_memfd(65536, F_SEAL_SHRINK);
		smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
		wl_display_roundtrip(h->display); /* the pool exists before commands use it */
		struct smt_cmd_put_image_pool image = {
			{ SMT_OP_PUT_IMAGE_POOL, 0, sizeof(image) }, 3, SMT_FORMAT_ARGB8888,
			UINT64_MAX & ~(uint64_t)63, 64 * 4, 64, 64, 0, 0, 0 };
		put(h, &image, sizeof(image));
		publish(h, h->head);
	} else if (strcmp(name, "bad-stride") == 0) {
		uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		uint32_t target[2] = { 5, 0 };
		cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
		struct smt_cmd_put_image img = {
			{ SMT_OP_PUT_IMAGE, 0, sizeof(img) + 8 * 4 }, 0, 0, 8, 4, SMT_FORMAT_ARGB8888, 4 };
		put(h, &img, sizeof(img));
		uint8_t pixels[32] = {0};
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
		uint32_t create[4] = { 5, 64, 64, SMT_FORMAT_ARGB8888 };
		cmd(h, SMT_OP_CREATE_PIXMAP, 24, create, sizeof(create));
		uint32_t target[2] = { 5, 0 };
		cmd(h, SMT_OP_SET_TARGET, 16, target, sizeof(target));
		cmd(h, SMT_OP_PAD, 4096 - 40, NULL, 0);
		h->head = 4096;
		publish(h, h->head);
		if (!wait_tail(h, 4096)) {
			fputs("smt-hostile: the compositor did not consume the set-up\n", stderr);
			return 1;
		}
		/* Every later round: the same FILL_RECTS at offset 0 and a PAD at
		 * 40, republished while the racer rewrites the fill. */
		struct { uint32_t op, colour, n, reserved; struct smt_rect r; } fill = {
			SMT_PAINT_SRC, 0xffffffffu, 1, 0, { 0, 0, 10, 10 } };
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
		int pfd = make_memfd(1 << 20, F_SEAL_SHRINK);
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

int main(int argc, char *argv[]) {
	if (argc == 2 && strcmp(argv[1], "--list-ops") == 0) {
		for (size_t i = 0; i < sizeof(op_cases) / sizeof(op_cases[0]); i++) {
			printf("op:%s\n", op_cases[i].name);
		}
		return 0;
	}
	if (argc != 2 && argc != 3) {
		fputs("usage: smt-hostile CASE [ARG] | --list-ops\n", stderr);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct hostile h = { .status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1 };
	h.display = wl_display_connect(NULL);
	if (h.display == NULL) {
		fputs("smt-hostile: cannot connect\n", stderr);
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(h.display);
	wl_registry_add_listener(registry, &registry_listener, &h);
	wl_display_roundtrip(h.display);
	if (h.manager == NULL) {
		fputs("smt-hostile: no smt_ring_manager_v1 global\n", stderr);
		return 1;
	}
	bool handled;
	int rc = run_new_case(&h, argv[1], argc == 3 ? argv[2] : NULL, &handled);
	return handled ? rc : run_case(&h, argv[1]);
}
