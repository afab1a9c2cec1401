/*
 * smt-hostile: a client that breaks one rule of smt-ring-v1 on purpose, for
 * the tests that prove the compositor survives it. It speaks the protocol
 * directly (not through libsmt, which would refuse to misbehave).
 *
 *   smt-hostile CASE
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
#include <unistd.h>
#include <wayland-client.h>
#include "smt-ring-v1-client-protocol.h"
#include "smt-ring.h"

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
	int server_efd;
	const struct smt_ring_status *status; /* read-only, server-written */
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
	h->server_efd = eventfd(0, EFD_CLOEXEC);
	create_ring_with(h, fd, area_size, dup(h->server_efd), eventfd(0, EFD_CLOEXEC));
	wl_display_roundtrip(h->display);
	if (h->status_fd >= 0) {
		void *page = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->status_fd, 0);
		h->status = page == MAP_FAILED ? NULL : page;
	}
}

/* Appends raw bytes at head (no PAD logic: callers write what they mean). */
static void put(struct hostile *h, const void *bytes, size_t len) {
	for (size_t i = 0; i < len; i++) {
		h->area[(h->head + i) & (h->area_size - 1)] = ((const uint8_t *)bytes)[i];
	}
	h->head += len;
}

static void publish(struct hostile *h, uint64_t head) {
	atomic_store_explicit(&h->hdr->head, head, memory_order_release);
	/* Always wake the server: these tests do not care about the fast path. */
	(void)head;
}

/* Waits up to ms for the connection to die with a protocol error; returns
 * true if it did and the error is on the expected interface with the
 * expected code. */
static bool expect_error(struct hostile *h, const struct wl_interface *iface, uint32_t code,
		int ms) {
	for (int waited = 0; waited < ms; waited += 50) {
		if (wl_display_roundtrip(h->display) < 0) {
			break;
		}
		usleep(50000);
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
	return true;
}

/* Waits (dispatching) until the compositor consumed up to pos. */
static bool wait_tail(struct hostile *h, uint64_t pos) {
	for (int i = 0; i < 2000 && h->status != NULL; i++) {
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

static int run_case(struct hostile *h, const char *name) {
	const struct wl_interface *mgr = &smt_ring_manager_v1_interface;
	const struct wl_interface *ring = &smt_ring_v1_interface;
	if (strcmp(name, "unsealed") == 0) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, 0);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD, 2000) ? 0 : 1;
	}
	if (strcmp(name, "short") == 0) {
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 1024, F_SEAL_SHRINK);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD, 2000) ? 0 : 1;
	}
	if (strcmp(name, "not-pow2") == 0 || strcmp(name, "too-large") == 0) {
		uint32_t size = name[0] == 'n' ? 5000 : 1u << 30;
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 8192, F_SEAL_SHRINK);
		create_ring_with(h, fd, size, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_SIZE, 2000) ? 0 : 1;
	}
	if (strcmp(name, "not-eventfd") == 0) {
		int pipefd[2];
		if (pipe(pipefd) != 0) {
			return 1;
		}
		int fd = make_memfd(SMT_RING_HEADER_SIZE + 4096, F_SEAL_SHRINK);
		create_ring_with(h, fd, 4096, pipefd[0], eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_EVENTFD, 2000) ? 0 : 1;
	}
	if (strcmp(name, "not-a-memfd") == 0) {
		int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		create_ring_with(h, fd, 4096, eventfd(0, 0), eventfd(0, 0));
		return expect_error(h, mgr, SMT_RING_MANAGER_V1_ERROR_BAD_FD, 2000) ? 0 : 1;
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
		return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_COMMAND, 5000) ? 0 : 1;
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
	return expect_error(h, ring, SMT_RING_V1_ERROR_BAD_COMMAND, 3000) ? 0 : 1;
}

int main(int argc, char *argv[]) {
	if (argc != 2) {
		fputs("usage: smt-hostile CASE\n", stderr);
		return 2;
	}
	struct hostile h = { .status_fd = -1, .global_fd = -1 };
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
	return run_case(&h, argv[1]);
}
