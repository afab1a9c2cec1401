/*
 * Attacks on what the compositor holds beyond the protocol's objects
 * (issue 24, part B; docs/reliability.md): fds parked in libwayland's
 * buffer by messages that never complete, many connections of one
 * process, pool resizes piling up mappings, pools that take address
 * space. Each is bounded or refused with an error naming the limit.
 */
#include "tests/tools/hostile/hostile.h"
#include <sys/socket.h>

/* Sends `count` fds (dups of /dev/null) with one byte of a message that
 * will never be whole. false if the socket is gone. */
static bool send_fds(int sock, int count, const void *bytes, size_t len)
{
	int fds[28];
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	for (int i = 0; i < count; i++) {
		fds[i] = null;
	}
	char control[CMSG_SPACE(sizeof(fds))];
	memset(control, 0, sizeof(control));
	struct iovec iov = { (void *)bytes, len };
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = control,
		.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)count) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)count);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)count);
	ssize_t n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	close(null);
	return n == (ssize_t)len;
}

/* Parks up to `n` fds on a connection: a wl_display.sync header that
 * announces 4088 bytes, then a byte at a time with up to 28 fds each.
 * Returns how many were sent before the socket went. */
static int park(struct wl_display *display, int n)
{
	wl_display_flush(display);
	int sock = wl_display_get_fd(display);
	uint32_t header[2] = { 1, (4088u << 16) | 0 };
	if (send(sock, header, sizeof(header), MSG_NOSIGNAL) != sizeof(header)) {
		return 0;
	}
	int sent = 0;
	while (sent < n) {
		int k = n - sent < 28 ? n - sent : 28;
		uint8_t byte = 0;
		if (!send_fds(sock, k, &byte, 1)) {
			break;
		}
		sent += k;
	}
	return sent;
}

/* Waits for the compositor to end the connection; prints its error. */
static bool wait_disconnected(struct wl_display *display)
{
	double deadline = now_ms() + HANG_MS;
	while (now_ms() < deadline) {
		if (wl_display_dispatch(display) < 0) {
			const struct wl_interface *iface = NULL;
			uint32_t id = 0;
			uint32_t code = wl_display_get_protocol_error(display, &iface, &id);
			printf("DISCONNECTED: %s error %u\n", iface ? iface->name : "-", code);
			return true;
		}
	}
	return false;
}

/* park-fds N: one connection parks N fds; past client-fds-in-flight the
 * compositor closes them and disconnects it (the error names the limit). */
int case_park_fds(struct hostile *h, int n)
{
	int sent = park(h->display, n);
	printf("PARKED %d\n", sent);
	return wait_disconnected(h->display) ? 0 : 1;
}

/* hold-parked CONNECTIONS: each connection parks 56 fds (under the
 * per-connection cap) and holds them until killed; prints how many
 * connections were refused (the process's fd limit counts fds in flight). */
int case_hold_parked(struct hostile *h, int connections)
{
	int refused = 0, held = 0;
	struct wl_display **d = calloc((size_t)connections, sizeof(*d));
	for (int i = 0; i < connections; i++) {
		d[i] = wl_display_connect(NULL);
		if (d[i] == NULL || wl_display_roundtrip(d[i]) < 0) {
			refused++;
			continue;
		}
		park(d[i], 56);
		/* A sync on the main connection orders us after the parking's
		 * arrival: the compositor read it or refused it by then. */
		wl_display_roundtrip(h->display);
		struct pollfd p = { wl_display_get_fd(d[i]), POLLIN, 0 };
		if (poll(&p, 1, 0) > 0 && wl_display_dispatch(d[i]) < 0) {
			printf("refused: %s\n", "see the error above");
			refused++;
		} else {
			held++;
		}
	}
	printf("HOLDING parked=%d refused=%d\n", held, refused);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* connections N: N more connections from this process; the process's
 * connection limit refuses the rest with an error naming it. Holds them
 * until killed when hold is set. */
int case_connections(struct hostile *h, int n, bool hold)
{
	int accepted = 1, refused = 0; /* the main connection */
	for (int i = 0; i < n; i++) {
		struct wl_display *d = wl_display_connect(NULL);
		if (d == NULL) {
			refused++;
			continue;
		}
		if (wl_display_roundtrip(d) < 0) {
			refused++;
			wl_display_disconnect(d);
			continue;
		}
		accepted++;
	}
	printf("CONNECTIONS accepted=%d refused=%d\n", accepted, refused);
	if (hold) {
		while (wl_display_dispatch(h->display) >= 0) {
		}
	}
	return refused > 0 ? 0 : 1;
}

/* resize-stack N: with the ring busy for hours (every resize waits
 * for its place in the stream), N resizes of one pool, each larger; the
 * compositor keeps one mapping of it. Prints RESIZED and holds. */
int case_pool_resize_stack(struct hostile *h, int n)
{
	create_good_ring(h, 1u << 20);
	emit_create(h, 1, 4096, 4096, SMT_FORMAT_ARGB8888);
	emit_target(h, 1);
	static const struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_OVER, 0x80402010u, 1, 0 },
		{ 0, 0, 4096, 4096 } };
	while (h->head + sizeof(fill) + 64 <= h->area_size) {
		emit(h, &fill, sizeof(fill));
	}
	kick(h);
	size_t max = 4096u * (size_t)(n + 1);
	int fd = make_pool_memfd(max);
	struct smt_pool_v1 *pool = smt_ring_v1_create_pool(h->ring, 1, fd, 4096);
	close(fd);
	for (int i = 1; i <= n; i++) {
		smt_pool_v1_resize(pool, 4096u * (uint32_t)(i + 1));
	}
	if (wl_display_roundtrip(h->display) < 0) {
		fprintf(stderr, "smt-hostile: resizes refused\n");
		return 1;
	}
	printf("RESIZED %d\n", n);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* address-flood: pools of 4 GiB - 4 KiB (sparse memfds) until refused:
 * the address space limit names itself. */
int case_address_flood(struct hostile *h)
{
	create_good_ring(h, 4096);
	const uint32_t size = 0xfffff000u;
	for (uint32_t id = 1; id < 1024; id++) {
		int fd = make_pool_memfd(size);
		smt_ring_v1_create_pool(h->ring, id, fd, size);
		close(fd);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("pools of 4 GiB accepted: %u\n", id - 1);
			return expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_LIMIT) ?
					0 :
					1;
		}
	}
	fprintf(stderr, "smt-hostile: 1023 pools of 4 GiB accepted\n");
	return 1;
}

/* Two 64 MiB pixmaps, every pixel written, on a new ring of h; true when
 * the compositor made them (false: refused, the error printed). */
static bool hold_two_pixmaps(struct hostile *h)
{
	create_good_ring(h, 4096);
	struct {
		struct smt_cmd_fill_rects f;
		struct smt_rect r;
	} fill = { { { SMT_OP_FILL_RECTS, 0, sizeof(fill) }, SMT_PAINT_SRC, 0xff402010u, 1, 0 },
		{ 0, 0, 4096, 4096 } };
	for (uint32_t i = 1; i <= 2; i++) {
		emit_create(h, i, 4096, 4096, SMT_FORMAT_ARGB8888);
		emit_target(h, i);
		emit(h, &fill, sizeof(fill));
	}
	emit_fence(h, 1);
	kick(h);
	return wait_tail_efd(h, h->head, HANG_MS);
}

/* hold-memory-conns C: C connections of this process each make two 64 MiB
 * pixmaps; the process's memory limit refuses those past its share, whatever
 * each connection's own limit. Prints HOLDING and holds until killed. */
int case_hold_memory_conns(struct hostile *h, int connections)
{
	int held = 0, refused = 0;
	for (int i = 0; i < connections; i++) {
		struct hostile *c = i == 0 ? h : calloc(1, sizeof(*c));
		if (i > 0) {
			*c = (struct hostile){
				.status_fd = -1, .global_fd = -1, .server_efd = -1, .client_efd = -1
			};
			if (!hostile_connect(c)) {
				refused++;
				continue;
			}
		}
		if (hold_two_pixmaps(c)) {
			held++;
		} else {
			wl_display_roundtrip(c->display); /* prints the error */
			refused++;
		}
	}
	printf("HOLDING connections=%d refused=%d\n", held, refused);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

/* hold-address N: N pools of 4 GiB - 4 KiB (sparse memfds: address
 * space, not memory), held until killed. */
int case_hold_address(struct hostile *h, int n)
{
	create_good_ring(h, 4096);
	const uint32_t size = 0xfffff000u;
	for (int id = 1; id <= n; id++) {
		int fd = make_pool_memfd(size);
		smt_ring_v1_create_pool(h->ring, (uint32_t)id, fd, size);
		close(fd);
	}
	if (wl_display_roundtrip(h->display) < 0) {
		printf("REFUSED: %d pools of 4 GiB\n", n);
		return 1;
	}
	printf("HOLDING %d GiB of address space\n", n * 4);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}

static void shm_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	if (strcmp(interface, "wl_shm") == 0) {
		*(struct wl_shm **)data = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	}
}

static void shm_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static struct wl_shm *bind_shm(struct hostile *h)
{
	static const struct wl_registry_listener listener = { shm_global, shm_global_remove };
	struct wl_shm *shm = NULL;
	struct wl_registry *registry = wl_display_get_registry(h->display);
	wl_registry_add_listener(registry, &listener, &shm);
	wl_display_roundtrip(h->display);
	return shm;
}

/* shm-pool-flood: core wl_shm pools of 2 GiB - 1 (sparse memfds) until the
 * compositor ends the connection: libwayland maps each one, and its
 * address space is the client's. */
int case_shm_pool_flood(struct hostile *h)
{
	struct wl_shm *shm = bind_shm(h);
	if (shm == NULL) {
		fputs("smt-hostile: no wl_shm\n", stderr);
		return 1;
	}
	const int32_t size = 0x7fffffff;
	for (int i = 0; i < 100000; i++) {
		int fd = make_memfd((size_t)size, 0);
		wl_shm_create_pool(shm, fd, size);
		close(fd);
		if (wl_display_roundtrip(h->display) < 0) {
			printf("wl_shm pools of 2 GiB accepted: %d\n", i);
			return expect_error(h, &wl_display_interface,
					       WL_DISPLAY_ERROR_IMPLEMENTATION) ?
					0 :
					1;
		}
	}
	fputs("smt-hostile: 100000 wl_shm pools of 2 GiB accepted\n", stderr);
	return 1;
}

/* hold-shm-buffers N: N wl_shm pools of 1 MiB, each with one buffer,
 * each pool object destroyed at once (libwayland keeps the mapping for
 * the buffer); held until killed. */
int case_hold_shm_buffers(struct hostile *h, int n)
{
	struct wl_shm *shm = bind_shm(h);
	if (shm == NULL) {
		fputs("smt-hostile: no wl_shm\n", stderr);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		int fd = make_memfd(1u << 20, 0);
		struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, 1 << 20);
		close(fd);
		wl_shm_pool_create_buffer(pool, 0, 256, 256, 1024, WL_SHM_FORMAT_ARGB8888);
		wl_shm_pool_destroy(pool);
	}
	if (wl_display_roundtrip(h->display) < 0) {
		printf("REFUSED: %d wl_shm buffers\n", n);
		return 1;
	}
	printf("HOLDING %d wl_shm buffers\n", n);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}
