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
 *   fork-attach a fork child's turn, played by hand: REVERT, then a
 *               ShmAttachFd with its fd and a GetInputFocus on the socket,
 *               all queued while a second connection grabs the server, so
 *               the X server meets the REVERT with the fd already waiting
 *               behind it: the attach succeeds (no error before the reply)
 *   revert-before-tail, revert-past-head
 *               a REVERT outside the published bytes: closed (with a
 *               logged reason: the test reads the log)
 *
 * With the X server's pid as a second argument (fd side, issue 23):
 *
 *   fd-hold     an fd message counted, its bytes never published, for a
 *               1 s window: the X server stays idle (its CPU ticks over
 *               the window, from /proc/PID/stat, below a quarter of the
 *               window's); then the bytes come (GetInputFocus) and the
 *               reply arrives: the held fd went with them
 *   fd-flood    fd messages of 16 fds each, all for one far position, as
 *               many as the socket takes: the X server holds at most one
 *               message's fds (its fd count, /proc/PID/fd, grows by at
 *               most 16 + 4), and gives them all back when we close
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
#include <dirent.h>
#include <sys/un.h>
#include <unistd.h>

#include "xwayland-glue/stream/scm_rights.h"
#include "protocol/smt-ring-client.h"

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

/* The resource-id-base of the last successful setup reply. */
static uint32_t setup_id_base;

/* Reads the setup reply's first byte: 1 = success. -1: connection closed. */
static int read_setup_reply(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 30000) <= 0)
		return -2;
	uint8_t b[8];
	ssize_t n = recv(fd, b, sizeof(b), MSG_WAITALL);
	if (n <= 0)
		return -1;
	if (n == (ssize_t)sizeof(b) && b[0] == 1) {
		/* The rest of a successful reply, so the next read is an answer
		 * to our first request; its resource-id-base is kept. */
		size_t rest = ((size_t)b[7] << 8 | b[6]) * 4;
		uint8_t skip[4096];
		for (bool first = true; rest > 0; first = false) {
			ssize_t k = recv(fd, skip, rest < sizeof(skip) ? rest : sizeof(skip), 0);
			if (k <= 0)
				return -1;
			if (first && k >= 8)
				memcpy(&setup_id_base, skip + 4, sizeof(setup_id_base));
			rest -= (size_t)k;
		}
	}
	return b[0];
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
	struct smt_stream_hello h = {
		.magic = SMT_STREAM_HELLO_MAGIC, .version = SMT_RING_VERSION, .area_size = AREA
	};
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
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr a;
	} u;
	struct iovec iov = { &ack, sizeof(ack) };
	struct msghdr m = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
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

static int verdict(bool ok, const char *what);

/* utime + stime of a process, in clock ticks (-1: unknown). */
static long cpu_ticks(int pid)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	const char *p = strrchr(buf, ')'); /* comm may hold spaces */
	unsigned long ut, st;
	if (!p ||
			sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut,
					&st) != 2)
		return -1;
	return (long)(ut + st);
}

static int open_fds(int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

static bool send_fd_message(int fd, struct ring *r, uint32_t kind, uint64_t position,
		const int *fds, unsigned nfds, int flags)
{
	struct smt_stream_fd_msg m = {
		.magic = SMT_STREAM_FD_MAGIC, .kind = kind, .position = position
	};
	struct iovec iov = { &m, sizeof(m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	union scm_rights_buf u;
	scm_rights_attach(&msg, &u, fds, nfds);
	if (sendmsg(fd, &msg, flags | MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		return false;
	atomic_fetch_add(&r->hdr->fd_messages, 1);
	return true;
}

/* A GetInputFocus through the ring, and its 32-byte reply on the socket. */
static bool round_trip(int fd, struct ring *r, uint64_t *head)
{
	uint8_t req[4] = { 43, 0, 1, 0 };
	put(r, head, req, sizeof(req));
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint8_t b[32];
		if (poll(&p, 1, 30000) <= 0 || recv(fd, b, sizeof(b), MSG_WAITALL) != 32)
			return false;
		if (b[0] == 1)
			return true; /* the reply; events before it are skipped */
		if (b[0] == 0)
			return false; /* an error */
	}
}

static int fd_hold(int fd, struct ring *r, uint64_t head, int xpid)
{
	int memfd = memfd_create("held", MFD_CLOEXEC);
	if (memfd < 0 || !send_fd_message(fd, r, SMT_STREAM_FDS, head, &memfd, 1, 0))
		return 2;
	close(memfd);
	long hz = sysconf(_SC_CLK_TCK);
	long before = cpu_ticks(xpid);
	/* The window the X server's CPU time is measured over. */
	poll(NULL, 0, 1000);
	long spent = cpu_ticks(xpid) - before;
	printf("X server CPU while an fd message waits for its bytes: %ld ticks in 1 s "
	       "(%ld per s)\n",
			spent, hz);
	if (before < 0 || spent * 4 >= hz)
		return verdict(false, "fd-hold-busy");
	return verdict(round_trip(fd, r, &head), "fd-held-idle-then-served");
}

static int fd_flood(int fd, struct ring *r, uint64_t head, int xpid)
{
	int fds[SMT_STREAM_MAX_FDS];
	for (unsigned i = 0; i < SMT_STREAM_MAX_FDS; i++) {
		fds[i] = eventfd(0, EFD_CLOEXEC);
		if (fds[i] < 0)
			return 2;
	}
	int before = open_fds(xpid);
	unsigned sent = 0;
	while (sent < 100000 &&
			send_fd_message(fd, r, SMT_STREAM_FDS, head + (1u << 20), fds,
					SMT_STREAM_MAX_FDS, MSG_DONTWAIT))
		sent++;
	/* The server has seen them: a round trip on a second connection. */
	int other = connect_x();
	if (other < 0 || write(other, setup_req, sizeof(setup_req)) != sizeof(setup_req) ||
			read_setup_reply(other) != 1)
		return 2;
	int during = open_fds(xpid);
	printf("%u fd messages of %u fds in flight; the X server's fds %d -> %d\n", sent,
			SMT_STREAM_MAX_FDS, before, during);
	close(other);
	if (before < 0 || sent < 2 || during - before > (int)SMT_STREAM_MAX_FDS + 4)
		return verdict(false, "fd-flood-held-more-than-one-message");
	return verdict(true, "fd-flood-bounded");
}

/* Reads 32-byte answers until a reply (1) or an error (0); its first
 * bytes in out. */
static int next_answer(int fd, uint8_t out[32])
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 30000) <= 0 || recv(fd, out, 32, MSG_WAITALL) != 32)
			return -1;
		if (out[0] == 0 || out[0] == 1)
			return out[0];
	}
}

static bool plain_request(int fd, const void *req, size_t n)
{
	return send(fd, req, n, MSG_NOSIGNAL) == (ssize_t)n;
}

static int fork_attach(int fd, struct ring *r, uint64_t head)
{
	uint32_t base = setup_id_base;
	/* QueryExtension "MIT-SHM" through the ring. */
	uint8_t q[16] = { 98, 0, 4, 0, 7, 0, 0, 0, 'M', 'I', 'T', '-', 'S', 'H', 'M', 0 };
	put(r, &head, q, sizeof(q));
	uint8_t a[32];
	if (next_answer(fd, a) != 1 || !a[8])
		return verdict(false, "no-mit-shm");
	uint8_t major = a[9];
	/* A second connection grabs the server: it reads nobody else now. */
	int other = connect_x();
	uint8_t grab[4] = { 36, 0, 1, 0 }, ungrab[4] = { 37, 0, 1, 0 };
	uint8_t focus[4] = { 43, 0, 1, 0 };
	if (other < 0 || !plain_request(other, setup_req, sizeof(setup_req)) ||
			read_setup_reply(other) != 1 || !plain_request(other, grab, 4) ||
			!plain_request(other, focus, 4) || next_answer(other, a) != 1)
		return 2;
	/* The child's turn: REVERT, then its first request with its fd. */
	int memfd = memfd_create("fork-attach", MFD_CLOEXEC);
	if (memfd < 0 || ftruncate(memfd, 4096) != 0 ||
			!send_fd_message(fd, r, SMT_STREAM_REVERT, head, NULL, 0, 0))
		return 2;
	uint8_t attach[12] = { major, 6, 3, 0 };
	uint32_t seg = base | 0x10;
	memcpy(attach + 4, &seg, 4);
	struct iovec iov = { attach, sizeof(attach) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	union scm_rights_buf u;
	scm_rights_attach(&m, &u, &memfd, 1);
	if (sendmsg(fd, &m, MSG_NOSIGNAL) != (ssize_t)sizeof(attach) ||
			!plain_request(fd, focus, 4))
		return 2;
	close(memfd);
	if (!plain_request(other, ungrab, 4) || !plain_request(other, focus, 4) ||
			next_answer(other, a) != 1)
		return 2;
	int got = next_answer(fd, a);
	if (got == 0)
		printf("X error %u for request %u.%u\n", a[1], a[10], a[8]);
	close(other);
	return verdict(got == 1, got == 1 ? "fork-attach-fd-arrived" : "fork-attach-fd-lost");
}

static int verdict(bool ok, const char *what)
{
	puts(what);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr,
				"usage: smt-x11ring-hostile unsealed|bad-head|past-head|garbage|"
				"bad-fdmsg|plain|ring|limit|revert-before-tail|revert-past-head\n"
				"       smt-x11ring-hostile fd-hold|fd-flood X-SERVER-PID\n");
		return 2;
	}
	int xpid = argc == 3 ? atoi(argv[2]) : -1;
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
		enum {
			N = 140
		};
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
					write(cfd, setup_req, sizeof(setup_req)) !=
							sizeof(setup_req) ||
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
	if (!strcmp(c, "fork-attach"))
		return fork_attach(fd, &r, head);
	if (!strcmp(c, "revert-before-tail") || !strcmp(c, "revert-past-head")) {
		bool before = !strcmp(c, "revert-before-tail");
		if (!send_fd_message(fd, &r, SMT_STREAM_REVERT, before ? head - 4 : head + 4096,
				    NULL, 0, 0))
			return 2;
		uint8_t noop[4] = { 127, 0, 1, 0 };
		put(&r, &head, noop, sizeof(noop));
		return verdict(closed_by_server(fd),
				before ? "revert-before-tail-closed" : "revert-past-head-closed");
	}
	if (xpid > 0 && !strcmp(c, "fd-hold"))
		return fd_hold(fd, &r, head, xpid);
	if (xpid > 0 && !strcmp(c, "fd-flood"))
		return fd_flood(fd, &r, head, xpid);
	fprintf(stderr, "unknown case %s\n", c);
	return 2;
}
