/*
 * New sockets on numbers the table of rings still names (session 41).
 *
 * The kernel never gives out a number that is open. So a socket that
 * socket(), socketpair(), accept() or accept4() returns on a number the
 * table names proves that the X socket once there was closed where the
 * shim could not see (a raw close or close_range syscall): its stale name
 * is dropped before the program can write the new socket. Before, a
 * socket made there and written with writev or sendmsg (libxcb's calls,
 * which the shim does not fstat: docs/benchmarks.md "An fstat per X
 * write, session 41") had its bytes put into the old connection's ring
 * while the X server had not yet seen that connection end, and the
 * program waited for ever for an answer (smt-x11-fdio rawclose-file).
 * Costs a lookup in the table per new socket, only while a ring is
 * attached; nothing on the write path.
 */
#define _GNU_SOURCE
#include <sys/socket.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/shim/stream_table.h"
#include "xwayland-glue/shim/syms.h"

static int (*real_socket)(int, int, int);
static int (*real_socketpair)(int, int, int, int[2]);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);

static void resolve_real(void)
{
	dlsym_next(&real_socket, "socket");
	dlsym_next(&real_socketpair, "socketpair");
	dlsym_next(&real_accept, "accept");
	dlsym_next(&real_accept4, "accept4");
}
#define REAL(name) (real_##name ? real_##name : (resolve_real(), real_##name))

XSHIM_EXPORT int socket(int domain, int type, int protocol)
{
	int fd = REAL(socket)(domain, type, protocol);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int socketpair(int domain, int type, int protocol, int sv[2])
{
	int r = REAL(socketpair)(domain, type, protocol, sv);
	if (r == 0) {
		xstream_number_reused(sv[0]);
		xstream_number_reused(sv[1]);
	}
	return r;
}

XSHIM_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *len)
{
	int r = REAL(accept)(fd, addr, len);
	xstream_number_reused(r);
	return r;
}

XSHIM_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags)
{
	int r = REAL(accept4)(fd, addr, len, flags);
	xstream_number_reused(r);
	return r;
}
