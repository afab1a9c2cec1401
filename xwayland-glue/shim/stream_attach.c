/*
 * Attaching a ring to a new X connection (smt-ring.h, "Handshake"), from
 * the wrapped xcb_connect_to_fd: every libxcb (and so Xlib) connection
 * passes there after connect() and before its first byte.
 *
 * The hello goes out only to an X server the session says may serve rings
 * (its discovery socket, named after the pid SO_PEERCRED gives for the X
 * socket, in our private runtime directory): any other server would take
 * the hello for a bad byte order. Whether rings are really served only the
 * X server itself can say: an ack (attached or refused: the connection goes
 * on) or, from an X server without the stream half (a wrapper script that
 * dropped LD_PRELOAD, the half's library missing), a connection closed at
 * the hello's first byte. Then a new connection to the same address takes
 * the old one's fd number and flags, libxcb never notices, and this process
 * remembers that this server has no ring.
 *
 *   SMT_X11RING=off          never attach
 *   SMT_X11RING_AREA=bytes   ring size (power of two; default 256 KiB)
 */
#define _GNU_SOURCE
#include "xwayland-glue/shim/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "xwayland-glue/shim/shim_config.h"
#include "xwayland-glue/stream/scm_rights.h"
#include "xwayland-glue/shim/syms.h"
#include "xwayland-glue/x11ring_endpoint.h"

/* Lazy start: the first X client of a session waits while the compositor
 * starts Xwayland; as long as a plain client would wait for its setup. */
#define ACK_TIMEOUT_MS 60000

static bool ring_wanted(void)
{
	const char *v = getenv("SMT_X11RING");
	return !(v && (!strcmp(v, "off") || !strcmp(v, "0") || !strcmp(v, "no")));
}

/* X byte streams keep the size they were measured with (docs/x11.md); the
 * command ring's default (smt-ring.h) was chosen for libsmt's commands. */
#define X11RING_AREA_DEFAULT (256u * 1024u)

static uint32_t area_size(void)
{
	const char *v = getenv("SMT_X11RING_AREA");
	unsigned long n = v && *v ? strtoul(v, NULL, 0) : 0;
	if (n < SMT_RING_AREA_MIN || n > SMT_RING_AREA_MAX || (n & (n - 1)))
		return X11RING_AREA_DEFAULT;
	return (uint32_t)n;
}

/* X servers (listener pid and address) that closed the connection at our
 * hello: no stream half behind them, whatever discovery says. Per process;
 * a server is asked once, and a full table only means asking again. */
struct no_ring_server {
	pid_t pid;
	socklen_t len;
	struct sockaddr_un addr;
};
#define NO_RING_SERVERS 8
static struct no_ring_server no_ring[NO_RING_SERVERS];
static unsigned no_ring_next;
static pthread_mutex_t no_ring_lock = PTHREAD_MUTEX_INITIALIZER;

static bool same_server(const struct no_ring_server *e, pid_t pid, const struct sockaddr_un *a,
		socklen_t len)
{
	return e->len == len && e->pid == pid && !memcmp(&e->addr, a, len);
}

static bool known_without_ring(pid_t pid, const struct sockaddr_un *a, socklen_t len)
{
	bool found = false;
	pthread_mutex_lock(&no_ring_lock);
	for (unsigned i = 0; i < NO_RING_SERVERS && !found; i++)
		found = same_server(&no_ring[i], pid, a, len);
	pthread_mutex_unlock(&no_ring_lock);
	return found;
}

static void remember_without_ring(pid_t pid, const struct sockaddr_un *a, socklen_t len)
{
	if (known_without_ring(pid, a, len))
		return;
	pthread_mutex_lock(&no_ring_lock);
	struct no_ring_server *e = &no_ring[no_ring_next++ % NO_RING_SERVERS];
	e->pid = pid;
	e->len = len;
	memcpy(&e->addr, a, len);
	pthread_mutex_unlock(&no_ring_lock);
}

/* The X server behind fd: its listener's pid and address. */
struct x_server {
	pid_t pid;
	socklen_t len;
	struct sockaddr_un addr;
};

/* May the X server behind fd serve rings? A local one whose session has
 * announced a stream half, and that has not closed a hello before. */
static bool server_may_have_stream_half(int fd, struct x_server *x)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int domain;
	socklen_t dlen = sizeof(domain);
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) != 0 || domain != AF_UNIX ||
			getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0)
		return false;
	x->pid = cred.pid;
	x->len = sizeof(x->addr);
	if (getpeername(fd, (struct sockaddr *)&x->addr, &x->len) != 0 ||
			x->len <= offsetof(struct sockaddr_un, sun_path) ||
			x->len > sizeof(x->addr) || x->addr.sun_family != AF_UNIX)
		return false;
	if (known_without_ring(x->pid, &x->addr, x->len))
		return false;
	/* Only a compositor of our own uid, in our private runtime directory,
	 * announces one (x11ring_endpoint.h). */
	char why[256];
	int d = x11ring_endpoint_connect(
			X11RING_ENDPOINT_DISCOVERY, (long)cred.pid, NULL, why, sizeof(why));
	if (d < 0)
		return false;
	close(d);
	return true;
}

/* The hello on fd got no usable answer: a new connection to the same
 * address (the same listener) takes fd's number, with fd's flags, before
 * libxcb sees it. */
static bool reconnect_in_place(int fd, const struct x_server *x)
{
	int fl = fcntl(fd, F_GETFL);
	int fdfl = fcntl(fd, F_GETFD);
	int n = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fl < 0 || fdfl < 0 || n < 0) {
		if (n >= 0)
			close(n);
		return false;
	}
	int r;
	do
		r = connect(n, (const struct sockaddr *)&x->addr, x->len);
	while (r != 0 && errno == EINTR);
	/* The same server? (Not a new one started at the same address.) */
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	bool ok = r == 0 && getsockopt(n, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0 &&
			cred.pid == x->pid &&
			dup3(n, fd, (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) == fd &&
			fcntl(fd, F_SETFL, fl) == 0;
	close(n);
	return ok;
}

static bool send_hello(int fd, int memfd, int efd, uint32_t area)
{
	struct smt_stream_hello hello = {
		.magic = SMT_STREAM_HELLO_MAGIC,
		.version = SMT_RING_VERSION,
		.area_size = area,
	};
	struct iovec iov = { .iov_base = &hello, .iov_len = sizeof(hello) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	union scm_rights_buf u;
	int fds[2] = { memfd, efd };
	scm_rights_attach(&msg, &u, fds, 2);
	/* The socket is empty and new: 16 bytes always fit. (Not through our
	 * sendmsg wrapper: the fd is not attached yet, so it passes through.) */
	return sendmsg(fd, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof(hello);
}

/* The ack: 1 = attached (fds filled), 0 = refused (plain), -1 = the
 * connection is unusable (no answer, or not an ack), -2 = the server closed
 * it at the hello (no stream half). */
static int receive_ack(int fd, int fds[3])
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r;
	do
		r = poll(&p, 1, ACK_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return -1;
	struct smt_stream_ack ack;
	union {
		char buf[CMSG_SPACE(3 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &ack, .iov_len = sizeof(ack) };
	struct msghdr msg = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	ssize_t n;
	do
		n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
	while (n < 0 && errno == EINTR);
	if (n == 0 || (n < 0 && (errno == ECONNRESET || errno == EPIPE)))
		return -2;
	unsigned nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); n > 0 && cm; cm = CMSG_NXTHDR(&msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		unsigned k = (unsigned)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
		for (unsigned i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (nfds < 3)
				fds[nfds++] = f;
			else
				close(f);
		}
	}
	bool is_ack = n == (ssize_t)sizeof(ack) && ack.magic == SMT_STREAM_ACK_MAGIC;
	if (is_ack && ack.result == SMT_STREAM_OK && nfds == 3)
		return 1;
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	if (is_ack && ack.result != SMT_STREAM_OK) {
		xshim_debug("smt-x11ring: the X server refused a ring (reason %u)", ack.result);
		return 0;
	}
	return -1;
}

static const void *map_server_page(int fd, uint32_t magic)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)SMT_STATUS_MAP_SIZE)
		return NULL;
	const uint32_t *p = mmap(NULL, SMT_STATUS_MAP_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (*p != magic) {
		munmap((void *)p, SMT_STATUS_MAP_SIZE);
		return NULL;
	}
	return p;
}

static bool create_ring(struct xstream *s, int *memfd)
{
	s->area_size = area_size();
	s->map_len = (size_t)SMT_RING_HEADER_SIZE + s->area_size;
	*memfd = memfd_create("smt-x11ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*memfd < 0)
		return false;
	if (ftruncate(*memfd, (off_t)s->map_len) != 0 ||
			fcntl(*memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
		return false;
	void *map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, *memfd, 0);
	if (map == MAP_FAILED)
		return false;
	s->map = map;
	s->hdr = map;
	s->area = (uint8_t *)map + SMT_RING_HEADER_SIZE;
	s->hdr->magic = SMT_STREAM_MAGIC;
	s->hdr->version = SMT_RING_VERSION;
	s->hdr->area_size = s->area_size;
	s->hdr->header_size = SMT_RING_HEADER_SIZE;
	s->server_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	return s->server_efd >= 0;
}

bool xstream_attach(int fd)
{
	struct x_server x;
	/* Before anything else takes a number: a slot still named fd is
	 * stale (its socket closed by a raw syscall), and its ring's fds are
	 * closed only if their numbers still name them. */
	xstream_forget_stale(fd);
	if (!ring_wanted() || !server_may_have_stream_half(fd, &x))
		return false;
	struct xstream *s = xstream_claim_slot();
	if (!s) {
		xshim_debug("smt-x11ring: every ring slot of this process is in use");
		return false;
	}
	int memfd = -1;
	bool made = create_ring(s, &memfd);
	bool sent = made && send_hello(fd, memfd, s->server_efd, s->area_size);
	if (memfd >= 0)
		close(memfd); /* the mapping keeps it */
	int fds[3];
	int r = sent ? receive_ack(fd, fds) : 0;
	if (r == 1) {
		s->status = map_server_page(fds[0], SMT_STATUS_MAGIC);
		s->global = map_server_page(fds[1], SMT_GLOBAL_MAGIC);
		s->wake_fd = fds[2];
		close(fds[0]);
		close(fds[1]);
		if (s->status && s->global) {
			xstream_publish_slot(s, fd);
			return true;
		}
		r = -1; /* the server said yes but sent junk */
	}
	if (r < 0) {
		/* The hello is out and no usable ack came back: the server
		 * closed the connection (no stream half: remembered), answered
		 * something else, or nothing for ACK_TIMEOUT_MS. Neither the
		 * socket nor the ring is in a known state, so libxcb gets a new
		 * connection in its place and meets the server as on a socket. */
		if (r == -2)
			remember_without_ring(x.pid, &x.addr, x.len);
		if (reconnect_in_place(fd, &x))
			xshim_debug("smt-x11ring: %s; reconnected, on the socket",
					r == -2 ? "the X server closed the connection at the ring's hello "
						  "(it serves no rings)" :
						  "no usable answer to the ring's hello");
		else
			shutdown(fd, SHUT_RDWR); /* libxcb sees the connection fail */
	}
	xstream_free_slot(s);
	return false;
}

XSHIM_EXPORT xcb_connection_t *xcb_connect_to_fd(int fd, xcb_auth_info_t *auth_info)
{
	xshim_init();
	if (xshim_config()->enabled)
		xstream_attach(fd);
	return xshim_real.xcb_connect_to_fd(fd, auth_info);
}
