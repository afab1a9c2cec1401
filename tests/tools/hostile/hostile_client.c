/*
 * smt-hostile's client side: the Wayland connection, a well-formed ring,
 * raw writes and publishes, and waits that end on the compositor's verdict
 * (a protocol error, the DEAD flag, a tail).
 */
#include "tests/tools/hostile/hostile.h"

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct hostile *h = data;
	if (strcmp(interface, smt_ring_manager_v1_interface.name) == 0) {
		h->manager = wl_registry_bind(registry, name, &smt_ring_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_compositor_interface.name) == 0) {
		h->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 && h->seat == NULL) {
		h->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	}
}

static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n)
{
}

static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

static void ring_status(void *data, struct smt_ring_v1 *ring, int32_t status_fd, int32_t global_fd)
{
	struct hostile *h = data;
	h->status_fd = status_fd;
	h->global_fd = global_fd;
}

static void ring_fence(void *data, struct smt_ring_v1 *ring, uint32_t hi, uint32_t lo)
{
}

static const struct smt_ring_v1_listener ring_listener = { ring_status, ring_fence };

struct wanted_globals {
	struct hostile_global *wanted;
	size_t n;
};

static void wanted_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct wanted_globals *w = data;
	for (size_t i = 0; i < w->n; i++) {
		struct hostile_global *g = &w->wanted[i];
		if (*g->proxy == NULL && strcmp(interface, g->interface->name) == 0) {
			*g->proxy = wl_registry_bind(registry, name, g->interface, g->version);
			g->name = name;
		}
	}
}

static const struct wl_registry_listener wanted_listener = {
	wanted_global,
	registry_global_remove,
};

struct wl_registry *bind_globals(struct hostile *h, struct hostile_global *wanted, size_t n)
{
	struct wanted_globals w = { wanted, n };
	struct wl_registry *registry = wl_display_get_registry(h->display);
	wl_registry_add_listener(registry, &wanted_listener, &w);
	if (wl_display_roundtrip(h->display) < 0) {
		return NULL;
	}
	/* later globals (an output plugged in) are not bound */
	static struct wanted_globals none;
	wl_registry_set_user_data(registry, &none);
	return registry;
}

int make_memfd(size_t size, unsigned int seals)
{
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

int make_pool_memfd(size_t size)
{
	return make_memfd(size, F_SEAL_SHRINK | F_SEAL_FUTURE_WRITE);
}

/* Creates a ring with the given fd and size; keeps a writable mapping. */
void create_ring_with(struct hostile *h, int fd, uint32_t area_size, int server_efd, int client_efd)
{
	h->area_size = area_size;
	h->ring = smt_ring_manager_v1_create_ring(
			h->manager, fd, area_size, server_efd, client_efd);
	smt_ring_v1_add_listener(h->ring, &ring_listener, h);
}

void create_good_ring(struct hostile *h, uint32_t area_size)
{
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
		void *page = mmap(
				NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->status_fd, 0);
		h->status = page == MAP_FAILED ? NULL : page;
	}
	if (h->global_fd >= 0) {
		void *page = mmap(
				NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, h->global_fd, 0);
		h->global = page == MAP_FAILED ? NULL : page;
	}
}

/* Appends raw bytes at head (no PAD logic: callers write what they mean). */
void put(struct hostile *h, const void *bytes, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h->area[(h->head + i) & (h->area_size - 1)] = ((const uint8_t *)bytes)[i];
	}
	h->head += len;
}

/* Publishes head (any value, also a bad one) and wakes the server if it
 * sleeps, as a real client does. */
void publish(struct hostile *h, uint64_t head)
{
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

/* Waits for the connection to die with a protocol error; returns true if
 * it did and the error is on the expected interface with the expected
 * code. An error for a request arrives by the round trip after it; an
 * error for ring commands comes once the compositor ran them: it queues
 * the error, then marks the ring DEAD (and wakes us), so a round trip
 * after DEAD brings it (case error-at-dead); until DEAD, round trips go
 * on (or time runs out). */
/* The compositor ends a client right after it posts the client's error,
 * with the client's later requests unread: the kernel then marks the
 * client's socket ECONNRESET, and a write of ours meets that before we
 * read the error waiting for us. libwayland-client forgives EPIPE there
 * but takes ECONNRESET as fatal, and reads no more. So the error is read
 * from the socket itself: wl_display.error (object 1, opcode 0: object,
 * code, message), after whatever events precede it. */
static bool socket_protocol_error(struct hostile *h, uint32_t *id, uint32_t *code)
{
	static uint8_t buf[1 << 16];
	size_t len = 0;
	for (;;) {
		ssize_t n = recv(wl_display_get_fd(h->display), buf + len, sizeof(buf) - len,
				MSG_DONTWAIT);
		if (n <= 0) {
			break;
		}
		len += (size_t)n;
	}
	for (size_t at = 0; at + 8 <= len;) {
		uint32_t head[2];
		memcpy(head, buf + at, sizeof(head));
		size_t size = head[1] >> 16;
		if (size < 8 || at + size > len) {
			return false;
		}
		if (head[0] == 1 && (head[1] & 0xffff) == 0 && size >= 20) {
			uint32_t args[3];
			memcpy(args, buf + at + 8, sizeof(args));
			size_t text = size - 20 < args[2] ? size - 20 : args[2];
			*id = args[0];
			*code = args[1];
			fprintf(stderr,
					"smt-hostile: error read from the socket (libwayland-client "
					"stopped at ECONNRESET): object %u, code %u: %.*s\n",
					args[0], args[1], (int)text, (const char *)buf + at + 20);
			return true;
		}
		at += size;
	}
	return false;
}

bool expect_error(struct hostile *h, const struct wl_interface *iface, uint32_t code)
{
	bool ring_error = iface == &smt_ring_v1_interface &&
			code == SMT_RING_V1_ERROR_BAD_COMMAND && h->status != NULL;
	double end = now_ms() + HANG_MS;
	for (;;) {
		bool dead = ring_dead(h);
		if (wl_display_roundtrip(h->display) < 0 || !ring_error || now_ms() > end) {
			break;
		}
		if (!dead) {
			wait_event(h, 100);
		}
	}
	int err = wl_display_get_error(h->display);
	uint32_t raw_id = 0, raw_code = 0;
	if (err == ECONNRESET && socket_protocol_error(h, &raw_id, &raw_code)) {
		/* (the object's interface is libwayland's to know: the code and
		 * the message, which names the request, must do) */
		printf("protocol error: ?@%u code %u\n", raw_id, raw_code);
		if (raw_code != code) {
			fprintf(stderr, "smt-hostile: expected %s error %u\n", iface->name, code);
			return false;
		}
		return true;
	}
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

/* Waits (dispatching) until the compositor consumed up to pos. */
bool wait_tail(struct hostile *h, uint64_t pos)
{
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

void cmd(struct hostile *h, uint16_t opcode, uint32_t size, const void *payload, size_t payload_len)
{
	struct smt_cmd_header hdr = { opcode, 0, size };
	put(h, &hdr, sizeof(hdr));
	put(h, payload, payload_len);
}

double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Publishes head and wakes the server if it sleeps (the real protocol). */
void kick(struct hostile *h)
{
	if (smt_ring_client_publish(h->hdr, h->global, h->head)) {
		uint64_t one = 1;
		if (write(h->server_efd, &one, sizeof(one)) < 0) {
			perror("smt-hostile: eventfd");
		}
	}
}

bool ring_dead(const struct hostile *h)
{
	return h->status != NULL &&
			(atomic_load_explicit(&h->status->flags, memory_order_acquire) &
					SMT_SERVER_DEAD);
}

/* Sleeps until the compositor writes our eventfd or our socket has data
 * (dispatched), or timeout_ms. false if the connection died. */
bool wait_event(struct hostile *h, int timeout_ms)
{
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
bool wait_tail_efd(struct hostile *h, uint64_t pos, int timeout_ms)
{
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
bool emit(struct hostile *h, const void *bytes, uint32_t len)
{
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

void emit_create(struct hostile *h, uint32_t id, uint32_t w, uint32_t hh, uint32_t f)
{
	struct smt_cmd_create_pixmap c = { { SMT_OP_CREATE_PIXMAP, 0, sizeof(c) }, id, w, hh, f };
	emit(h, &c, sizeof(c));
}

void emit_target(struct hostile *h, uint32_t id)
{
	struct smt_cmd_set_target c = { { SMT_OP_SET_TARGET, 0, sizeof(c) }, id, 0 };
	emit(h, &c, sizeof(c));
}

void emit_fence(struct hostile *h, uint64_t serial)
{
	struct smt_cmd_fence c = { { SMT_OP_FENCE, 0, sizeof(c) }, serial };
	emit(h, &c, sizeof(c));
}

/* Prints the ring's death certificate; true if it names code (and opcode,
 * unless opcode < 0). */
bool check_death(struct hostile *h, uint32_t code, int opcode)
{
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

bool hostile_connect(struct hostile *h)
{
	h->display = wl_display_connect(NULL);
	if (h->display == NULL) {
		fputs("smt-hostile: cannot connect\n", stderr);
		return false;
	}
	struct wl_registry *registry = wl_display_get_registry(h->display);
	wl_registry_add_listener(registry, &registry_listener, h);
	wl_display_roundtrip(h->display);
	if (h->manager == NULL) {
		fputs("smt-hostile: no smt_ring_manager_v1 global\n", stderr);
		return false;
	}
	return true;
}
