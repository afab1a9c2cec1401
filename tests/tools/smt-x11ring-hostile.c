/*
 * smt-x11ring-hostile CASE: an X client that speaks the ring's handshake by
 * hand (no libxcb) and then breaks one rule, for test_x11_ring.py. It prints
 * what the server did, one word, and exits 0 when that is what the rules
 * say the server must do:
 *
 *   unsealed    hello with a memfd that can still shrink: refused, and the
 *               same connection then works as a plain X connection
 *   bad-head    valid ring, setup through it, then head moved backwards:
 *               the server closes the connection
 *   past-head   head beyond tail + area: closed
 *   garbage     bytes that are no X setup, through the ring: closed (the X
 *               server's own verdict on a bad byte order)
 *   bad-fdmsg   a socket message that is no fd message: closed
 *   plain       the X setup on the socket with no hello: works
 *   ring        the X setup through the ring: works (the control case)
 *   limit       rings on 140 connections at once: the server attaches a
 *               bounded number and keeps the others on the socket
 *               (REFUSED_LIMIT), where their X setup works
 *
 * DISPLAY must name a local display; the discovery step is the shim's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "scm_rights.h"
#include "smt-ring-client.h"

#define AREA (64u * 1024u)

static int connect_x(void)
{
	const char *d = getenv("DISPLAY");
	if (!d || d[0] != ':')
		return -1;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path, sizeof(a.sun_path), "/tmp/.X11-unix/X%d", atoi(d + 1));
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, len) != 0)
		return -1;
	return fd;
}

/* The smallest valid connection setup: little-endian, 11.0, no auth. */
static const uint8_t setup_req[12] = { 'l', 0, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

/* Reads the setup reply's first byte: 1 = success. -1: connection closed. */
static int read_setup_reply(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 30000) <= 0)
		return -2;
	uint8_t b[8];
	ssize_t n = recv(fd, b, sizeof(b), 0);
	return n <= 0 ? -1 : b[0];
}

/* Waits until the server closes fd (reads EOF or ECONNRESET). */
static bool closed_by_server(int fd)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 30000) <= 0)
			return false;
		uint8_t b[4096];
		ssize_t n = recv(fd, b, sizeof(b), 0);
		if (n <= 0)
			return true;
	}
}

struct ring {
	int memfd, efd;
	struct smt_ring_header *hdr;
	uint8_t *area;
	const struct smt_ring_status *status;
	const struct smt_global_status *global;
	int wake;
};

static int make_memfd(bool seal)
{
	int fd = memfd_create("hostile-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || ftruncate(fd, SMT_RING_HEADER_SIZE + AREA) != 0)
		return -1;
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		return -1;
	return fd;
}

static bool send_hello(int fd, struct ring *r)
{
	struct smt_stream_hello h = { .magic = SMT_STREAM_HELLO_MAGIC,
				      .version = SMT_RING_VERSION, .area_size = AREA };
	struct iovec iov = { &h, sizeof(h) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	union scm_rights_buf u;
	int fds[2] = { r->memfd, r->efd };
	scm_rights_attach(&m, &u, fds, 2);
	return sendmsg(fd, &m, 0) == (ssize_t)sizeof(h);
}

/* The ack's result, or -1; maps the pages on success. */
static int receive_ack(int fd, struct ring *r)
{
	struct smt_stream_ack ack;
	union { char buf[CMSG_SPACE(3 * sizeof(int))]; struct cmsghdr a; } u;
	struct iovec iov = { &ack, sizeof(ack) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 60000) <= 0 || recvmsg(fd, &m, MSG_WAITALL) != (ssize_t)sizeof(ack) ||
	    ack.magic != SMT_STREAM_ACK_MAGIC)
		return -1;
	if (ack.result != SMT_STREAM_OK)
		return (int)ack.result;
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_len != CMSG_LEN(3 * sizeof(int)))
		return -1;
	int fds[3];
	memcpy(fds, CMSG_DATA(c), sizeof(fds));
	r->status = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, fds[0], 0);
	r->global = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, fds[1], 0);
	r->wake = fds[2];
	if (r->status == MAP_FAILED || r->global == MAP_FAILED)
		return -1;
	/* The server's pages are read-only to us: a writable mapping fails. */
	if (mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0) !=
	    MAP_FAILED) {
		fprintf(stderr, "the status page could be mapped writable\n");
		return -1;
	}
	return 0;
}

static bool attach(int fd, struct ring *r, bool seal)
{
	r->memfd = make_memfd(seal);
	r->efd = eventfd(0, EFD_CLOEXEC);
	void *map = mmap(NULL, SMT_RING_HEADER_SIZE + AREA, PROT_READ | PROT_WRITE, MAP_SHARED,
			 r->memfd, 0);
	if (r->memfd < 0 || r->efd < 0 || map == MAP_FAILED)
		return false;
	r->hdr = map;
	r->area = (uint8_t *)map + SMT_RING_HEADER_SIZE;
	r->hdr->magic = SMT_STREAM_MAGIC;
	r->hdr->area_size = AREA;
	return send_hello(fd, r);
}

static void publish(struct ring *r, uint64_t head)
{
	if (smt_ring_client_publish(r->hdr, r->global, head)) {
		uint64_t one = 1;
		if (write(r->efd, &one, sizeof(one)) != sizeof(one))
			perror("eventfd");
	}
}

static void put(struct ring *r, uint64_t *head, const void *p, uint32_t n)
{
	smt_stream_copy_in(r->area, AREA, *head, p, n);
	*head += n;
	publish(r, *head);
}

static int verdict(bool ok, const char *what)
{
	puts(what);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: smt-x11ring-hostile unsealed|bad-head|past-head|garbage|"
			"bad-fdmsg|plain|ring|limit\n");
		return 2;
	}
	const char *c = argv[1];
	int fd = connect_x();
	if (fd < 0) {
		perror("connect to DISPLAY");
		return 2;
	}
	struct ring r = { 0 };
	if (!strcmp(c, "plain")) {
		if (write(fd, setup_req, sizeof(setup_req)) != sizeof(setup_req))
			return 2;
		return verdict(read_setup_reply(fd) == 1, "plain-setup-accepted");
	}
	if (!strcmp(c, "unsealed")) {
		if (!attach(fd, &r, false))
			return 2;
		int res = receive_ack(fd, &r);
		if (res != SMT_STREAM_REFUSED_MEMFD)
			return verdict(false, "unsealed-memfd-not-refused");
		if (write(fd, setup_req, sizeof(setup_req)) != sizeof(setup_req))
			return 2;
		return verdict(read_setup_reply(fd) == 1, "refused-then-plain-setup-accepted");
	}
	if (!strcmp(c, "limit")) {
		enum { N = 140 };
		int attached = 0, refused = 0;
		for (int i = 0; i < N; i++) {
			int cfd = i == 0 ? fd : connect_x();
			struct ring ri = { 0 };
			if (cfd < 0 || !attach(cfd, &ri, true))
				return 2;
			int res = receive_ack(cfd, &ri);
			if (res == 0) {
				attached++;
				continue;
			}
			if (res != SMT_STREAM_REFUSED_LIMIT ||
			    write(cfd, setup_req, sizeof(setup_req)) != sizeof(setup_req) ||
			    read_setup_reply(cfd) != 1)
				return verdict(false, "refused-ring-without-a-working-socket");
			refused++;
		}
		printf("attached %d refused %d\n", attached, refused);
		return verdict(attached > 0 && refused > 0, "limit-enforced");
	}
	if (!attach(fd, &r, true) || receive_ack(fd, &r) != 0)
		return verdict(false, "ring-not-attached");
	uint64_t head = 0;
	if (!strcmp(c, "garbage")) {
		uint8_t junk[64];
		memset(junk, 0x5a, sizeof(junk));
		put(&r, &head, junk, sizeof(junk));
		return verdict(closed_by_server(fd), "garbage-closed");
	}
	put(&r, &head, setup_req, sizeof(setup_req));
	if (read_setup_reply(fd) != 1)
		return verdict(false, "ring-setup-failed");
	if (!strcmp(c, "ring"))
		return verdict(true, "ring-setup-accepted");
	if (!strcmp(c, "bad-head")) {
		publish(&r, head - 4);
		/* A NoOperation would make the server read again if it had not. */
		return verdict(closed_by_server(fd), "bad-head-closed");
	}
	if (!strcmp(c, "past-head")) {
		publish(&r, head + AREA + 8);
		return verdict(closed_by_server(fd), "past-head-closed");
	}
	if (!strcmp(c, "bad-fdmsg")) {
		uint8_t junk[16];
		memset(junk, 0x77, sizeof(junk));
		if (send(fd, junk, sizeof(junk), 0) != sizeof(junk))
			return 2;
		atomic_store(&r.hdr->fd_messages, 1);
		uint8_t noop[4] = { 127, 0, 1, 0 };
		put(&r, &head, noop, sizeof(noop));
		return verdict(closed_by_server(fd), "bad-fdmsg-closed");
	}
	fprintf(stderr, "unknown case %s\n", c);
	return 2;
}
