/*
 * A fresh connection's first bytes: an ordinary X client starts with 'B' or
 * 'l' and is left alone; a smt_stream_hello (first byte 0) with a sealed
 * memfd and an eventfd gets a ring. Whatever the hello gets wrong, the
 * client hears why in the ack and stays on the socket.
 *
 * Only a peer of the X server's own uid is listened to (docs/x11.md,
 * "Trust model"): it could attach a debugger to Xwayland anyway, so a ring
 * gives it nothing new. Anybody else's connection is not even looked at:
 * its first byte goes to the X server as on any socket, which closes a
 * connection whose byte order is 0, before authorization. It holds no
 * ring slot, no fd of ours, no memory of ours and writes no log line.
 *
 * The peer's credentials are the connecting process's: a socket connected
 * by a process of our uid and handed on (SCM_RIGHTS, inheritance across a
 * setuid) to another uid would pass that check with the other uid's
 * hello. So the hello's own sender is asked too (SCM_CREDENTIALS, which
 * the kernel records for every message sent on a Unix socket), and a
 * hello from another uid is refused (session 41: before, uid nobody,
 * handed a socket root had connected, got a ring, its memfd mapped by
 * Xwayland and the global page's wake-up counter to read).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xwayland-glue/stream/scm_rights.h"
#include "xwayland-glue/x11ring_endpoint.h"
#include "xwayland-glue/xserver/xconn.h"

static struct smt_global_status *global;
static int global_fd = -1;

/* A server-written page the client may only map read-only
 * (smt-ring-server.h): sealed against resizing and against any new
 * writable mapping once ours exists. */
static void *create_server_page(const char *name, int *fd_out)
{
	void *p = NULL;
	int fd = smt_server_page_create(name, SMT_STATUS_MAP_SIZE, &p);
	if (fd < 0)
		return NULL;
	*fd_out = fd;
	return p;
}

struct smt_global_status *xconn_global(void)
{
	if (!global) {
		struct smt_global_status *g = create_server_page("smt-x11ring-global", &global_fd);
		if (g) {
			smt_global_init(g);
			global = g;
		}
	}
	return global;
}

static bool is_eventfd(int fd)
{
	char link[64], target[64];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* The ring memfd: sealed so it cannot shrink under our mapping (no SIGBUS),
 * and at least as large as declared. */
static bool ring_memfd_ok(int fd, uint32_t area_size)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	return seals >= 0 && (seals & F_SEAL_SHRINK) && fstat(fd, &st) == 0 &&
			S_ISREG(st.st_mode) &&
			(uint64_t)st.st_size >= (uint64_t)SMT_RING_HEADER_SIZE + area_size;
}

static bool area_size_ok(uint32_t n)
{
	return n >= SMT_RING_AREA_MIN && n <= SMT_RING_AREA_MAX && (n & (n - 1)) == 0;
}

static void send_ack(struct xconn *c, uint32_t result, const int *fds, unsigned nfds)
{
	struct smt_stream_ack ack = {
		.magic = SMT_STREAM_ACK_MAGIC,
		.version = SMT_RING_VERSION,
		.result = result,
	};
	struct iovec iov = { .iov_base = &ack, .iov_len = sizeof(ack) };
	union scm_rights_buf u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	scm_rights_attach(&msg, &u, fds, nfds);
	/* Nothing else was ever written to this fresh socket: 16 bytes fit. */
	if (sendmsg(c->fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(ack))
		xconn_log(c, "could not send the ring handshake's answer: %s", strerror(errno));
}

static uint32_t attach(struct xconn *c, int memfd, int efd, uint32_t area_size)
{
	if (!area_size_ok(area_size) || !ring_memfd_ok(memfd, area_size))
		return SMT_STREAM_REFUSED_MEMFD;
	if (!is_eventfd(efd))
		return SMT_STREAM_REFUSED_EVENTFD;
	if (c->epfd < 0 || !xconn_global())
		return SMT_STREAM_REFUSED_SERVER;
	size_t len = (size_t)SMT_RING_HEADER_SIZE + area_size;
	/* Read-only: the server never writes client memory. */
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, memfd, 0);
	if (map == MAP_FAILED)
		return SMT_STREAM_REFUSED_SERVER;
	int status_fd = -1;
	struct smt_ring_status *status = create_server_page("smt-x11ring-status", &status_fd);
	int pair[2] = { -1, -1 };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET,
		.data.u64 = XCONN_TAG_WAKE | (uint32_t)c->fd };
	/* Edge-triggered: every eventfd write is one event, and we never read
	 * (or reset) the client's counter, so nothing the client does to that
	 * fd can make the X server block on it. */
	if (!status || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, pair) ||
			real_epoll_ctl(c->epfd, EPOLL_CTL_ADD, efd, &ev) != 0) {
		munmap(map, len);
		if (status) {
			munmap(status, SMT_STATUS_MAP_SIZE);
			real_close(status_fd);
		}
		if (pair[0] >= 0) {
			real_close(pair[0]);
			real_close(pair[1]);
		}
		return SMT_STREAM_REFUSED_SERVER;
	}
	c->map = map;
	c->map_len = len;
	c->status = status;
	/* Writes the status page's magic and version (smt-ring-server.h). */
	stream_reader_init(&c->rd, map, area_size, status, &c->framer);
	c->server_efd = efd;
	c->efd_epfd = c->epfd;
	c->wake_fd = pair[0];
	int fds[3] = { status_fd, global_fd, pair[1] };
	send_ack(c, SMT_STREAM_OK, fds, 3);
	real_close(status_fd);
	real_close(pair[1]);
	c->state = XCONN_RING;
	return SMT_STREAM_OK;
}

static void decide(struct xconn *c);

void xconn_handshake(struct xconn *c)
{
	decide(c);
	/* Decided: the X server's own reads and the fd messages' exact
	 * control buffer must not get credentials. */
	if (c->state != XCONN_FRESH) {
		int off = 0;
		setsockopt(c->fd, SOL_SOCKET, SO_PASSCRED, &off, sizeof(off));
	}
}

static void decide(struct xconn *c)
{
	/* Asked again rather than trusting track(): a failed getsockopt there
	 * must not let a peer in here. */
	if (c->other_user || !x11ring_peer_is_us(c->fd, NULL)) {
		c->other_user = true;
		c->socket_why = "other-uid";
		c->state = XCONN_PLAIN;
		return;
	}
	struct smt_stream_hello hello;
	ssize_t n = recv(c->fd, &hello, sizeof(hello), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return; /* still FRESH; the X server will get EAGAIN too */
	if (n <= 0 || hello.zero != 0) {
		c->socket_why = "no-hello";
		c->state = XCONN_PLAIN;
		return;
	}
	if ((size_t)n < sizeof(hello))
		return; /* the rest of the hello is on its way */
	if (hello.magic != SMT_STREAM_HELLO_MAGIC) {
		c->socket_why = "no-hello";
		c->state = XCONN_PLAIN; /* the X server rejects the byte order */
		return;
	}

	union {
		char buf[CMSG_SPACE(4 * sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &hello, .iov_len = sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	/* SO_PASSCRED is on since the accept (interpose.c, ask_senders), so
	 * the kernel recorded the hello's sender; xconn_handshake turns it
	 * off after this read. */
	n = real_recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int fds[4];
	unsigned nfds = 0;
	/* No sender named (no credentials, or pid 0: the kernel recorded
	 * none) is refused only on a connection whose every message names
	 * one. */
	bool sender_is_us = !c->senders_named;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); n > 0 && cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_CREDENTIALS &&
				cm->cmsg_len == CMSG_LEN(sizeof(struct ucred))) {
			struct ucred sender;
			memcpy(&sender, CMSG_DATA(cm), sizeof(sender));
			if (sender.pid != 0)
				sender_is_us = sender.uid == geteuid();
			continue;
		}
		if (cm->cmsg_type != SCM_RIGHTS)
			continue;
		unsigned k = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < k && nfds < 4; i++)
			memcpy(&fds[nfds++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
	}
	uint32_t result;
	if (n != (ssize_t)sizeof(hello) || (msg.msg_flags & MSG_CTRUNC) || nfds != 2)
		result = SMT_STREAM_REFUSED_MEMFD;
	else if (!sender_is_us)
		result = SMT_STREAM_REFUSED_SENDER;
	else if (hello.version != SMT_RING_VERSION)
		result = SMT_STREAM_REFUSED_VERSION;
	else if (xconn_ring_count() >= XCONN_MAX_RINGS)
		result = SMT_STREAM_REFUSED_LIMIT;
	else
		result = attach(c, fds[0], fds[1], hello.area_size);
	if (result != SMT_STREAM_OK) {
		xconn_log(c, "ring refused (reason %u): the connection stays on the socket",
				result);
		send_ack(c, result, NULL, 0);
		c->socket_why = "refused";
		c->state = XCONN_PLAIN;
		for (unsigned i = 0; i < nfds; i++)
			real_close(fds[i]);
		return;
	}
	/* The eventfd stays open (registered); the memfd is mapped. */
	real_close(fds[0]);
}

void xconn_release_ring(struct xconn *c)
{
	if (c->map) {
		munmap(c->map, c->map_len);
		c->map = NULL;
	}
	if (c->status) {
		munmap(c->status, SMT_STATUS_MAP_SIZE);
		c->status = NULL;
	}
	/* The client still holds the eventfd, so closing ours would leave it
	 * in the epoll set: take it out first. */
	if (c->server_efd >= 0) {
		real_epoll_ctl(c->efd_epfd, EPOLL_CTL_DEL, c->server_efd, NULL);
		real_close(c->server_efd);
	}
	if (c->wake_fd >= 0)
		real_close(c->wake_fd);
	c->server_efd = c->wake_fd = -1;
	xconn_drop_fds(c);
}
