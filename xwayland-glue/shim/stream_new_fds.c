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
 *
 * Session 42: the same for every other way a program gets a new number
 * through libc: pipe, pipe2, open and its kin (open64, openat, creat,
 * fortified __open_2), fopen (glibc's opens inside fopen are internal
 * calls no wrapper sees, hence fopen itself), and fds received with
 * SCM_RIGHTS by recvmsg or recvmmsg, files mkstemp and its kin and
 * tmpfile open (by internal calls too), memfd_create, eventfd,
 * posix_openpt. Before, a pipe, a file or a received fd on the number
 * written with writev or sendmsg before the X server had seen the old
 * socket's end had its bytes put into the dead ring (smt-x11-fdio
 * rawclose-other). recvmsg costs a look at its control messages only
 * when some came and a ring is attached. Left: a number made by a raw
 * syscall (no wrapper can see it) and by calls not wrapped here, none of
 * which a program writes (epoll_create, timerfd_create, signalfd,
 * inotify_init, opendir).
 *
 * Both open and open64 are defined here (a program built with
 * _FILE_OFFSET_BITS=64 calls the second); with the macro set, the
 * headers would rename the first.
 */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/shim/stream_table.h"
#include "xwayland-glue/shim/syms.h"

static int (*real_socket)(int, int, int);
static int (*real_socketpair)(int, int, int, int[2]);
static int (*real_accept)(int, struct sockaddr *, socklen_t *);
static int (*real_accept4)(int, struct sockaddr *, socklen_t *, int);
static int (*real_pipe)(int[2]);
static int (*real_pipe2)(int[2], int);
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static int (*real_openat64)(int, const char *, int, ...);
static int (*real_creat)(const char *, mode_t);
static int (*real_creat64)(const char *, mode_t);
static int (*real___open_2)(const char *, int);
static int (*real___open64_2)(const char *, int);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static int (*real_recvmmsg)(int, struct mmsghdr *, unsigned int, int, struct timespec *);
static int (*real_mkstemp)(char *);
static int (*real_mkostemp)(char *, int);
static int (*real_mkstemps)(char *, int);
static int (*real_mkostemps)(char *, int, int);
static FILE *(*real_tmpfile)(void);
static int (*real_mkstemp64)(char *);
static int (*real_mkostemp64)(char *, int);
static int (*real_mkstemps64)(char *, int);
static int (*real_mkostemps64)(char *, int, int);
static FILE *(*real_tmpfile64)(void);
static int (*real_memfd_create)(const char *, unsigned int);
static int (*real_eventfd)(unsigned int, int);
static int (*real_posix_openpt)(int);

static void resolve_real(void)
{
	dlsym_next(&real_socket, "socket");
	dlsym_next(&real_socketpair, "socketpair");
	dlsym_next(&real_accept, "accept");
	dlsym_next(&real_accept4, "accept4");
	dlsym_next(&real_pipe, "pipe");
	dlsym_next(&real_pipe2, "pipe2");
	dlsym_next(&real_open, "open");
	dlsym_next(&real_open64, "open64");
	dlsym_next(&real_openat, "openat");
	dlsym_next(&real_openat64, "openat64");
	dlsym_next(&real_creat, "creat");
	dlsym_next(&real_creat64, "creat64");
	dlsym_next(&real___open_2, "__open_2");
	dlsym_next(&real___open64_2, "__open64_2");
	dlsym_next(&real_fopen, "fopen");
	dlsym_next(&real_fopen64, "fopen64");
	dlsym_next(&real_recvmsg, "recvmsg");
	dlsym_next(&real_recvmmsg, "recvmmsg");
	dlsym_next(&real_mkstemp, "mkstemp");
	dlsym_next(&real_mkostemp, "mkostemp");
	dlsym_next(&real_mkstemps, "mkstemps");
	dlsym_next(&real_mkostemps, "mkostemps");
	dlsym_next(&real_tmpfile, "tmpfile");
	dlsym_next(&real_mkstemp64, "mkstemp64");
	dlsym_next(&real_mkostemp64, "mkostemp64");
	dlsym_next(&real_mkstemps64, "mkstemps64");
	dlsym_next(&real_mkostemps64, "mkostemps64");
	dlsym_next(&real_tmpfile64, "tmpfile64");
	dlsym_next(&real_memfd_create, "memfd_create");
	dlsym_next(&real_eventfd, "eventfd");
	dlsym_next(&real_posix_openpt, "posix_openpt");
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

XSHIM_EXPORT int pipe(int fds[2])
{
	int r = REAL(pipe)(fds);
	if (r == 0) {
		xstream_number_reused(fds[0]);
		xstream_number_reused(fds[1]);
	}
	return r;
}

XSHIM_EXPORT int pipe2(int fds[2], int flags)
{
	int r = REAL(pipe2)(fds, flags);
	if (r == 0) {
		xstream_number_reused(fds[0]);
		xstream_number_reused(fds[1]);
	}
	return r;
}

/* open's mode is read only with O_CREAT or O_TMPFILE (as glibc does). */
static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

XSHIM_EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = REAL(open)(path, flags, mode);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = REAL(open64) ? real_open64(path, flags, mode) : REAL(open)(path, flags, mode);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = REAL(openat)(dirfd, path, flags, mode);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = REAL(openat64) ? real_openat64(dirfd, path, flags, mode) :
				  REAL(openat)(dirfd, path, flags, mode);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int creat(const char *path, mode_t mode)
{
	int fd = REAL(creat)(path, mode);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int creat64(const char *path, mode_t mode)
{
	int fd = REAL(creat64) ? real_creat64(path, mode) : REAL(creat)(path, mode);
	xstream_number_reused(fd);
	return fd;
}

/* What a program built with _FORTIFY_SOURCE calls for an open whose
 * flags the compiler could not see. */
XSHIM_EXPORT int __open_2(const char *path, int flags)
{
	int fd = REAL(__open_2) ? real___open_2(path, flags) : REAL(open)(path, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int __open64_2(const char *path, int flags)
{
	int fd = REAL(__open64_2) ? real___open64_2(path, flags) : REAL(open)(path, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT FILE *fopen(const char *path, const char *mode)
{
	FILE *f = REAL(fopen)(path, mode);
	if (f)
		xstream_number_reused(fileno(f));
	return f;
}

XSHIM_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	FILE *f = REAL(fopen64) ? real_fopen64(path, mode) : REAL(fopen)(path, mode);
	if (f)
		xstream_number_reused(fileno(f));
	return f;
}

/* Fds received with SCM_RIGHTS are new numbers too. libxcb's reads come
 * here (with a control buffer for fd passing): the walk happens only when
 * control messages came and a ring is attached. */
/* The fds of msg's SCM_RIGHTS messages are new numbers. */
static void received_fds(struct msghdr *msg)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int got;
			memcpy(&got, CMSG_DATA(c) + i * sizeof(int), sizeof(got));
			xstream_number_reused(got);
		}
	}
}

/* libxcb's reads come here (with a control buffer for fd passing): the
 * walk happens only when control messages came and a ring is attached. */
XSHIM_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	ssize_t n = REAL(recvmsg)(fd, msg, flags);
	if (n >= 0 && msg && msg->msg_controllen != 0 && xstream_any_attached())
		received_fds(msg);
	return n;
}

XSHIM_EXPORT int recvmmsg(
		int fd, struct mmsghdr *vec, unsigned int vlen, int flags, struct timespec *timeout)
{
	int n = REAL(recvmmsg)(fd, vec, vlen, flags, timeout);
	for (int i = 0; i < n && xstream_any_attached(); i++)
		if (vec[i].msg_hdr.msg_controllen != 0)
			received_fds(&vec[i].msg_hdr);
	return n;
}

/* Files libc opens by internal calls the open wrappers never see (and
 * their 64 forms, which a program built with _FILE_OFFSET_BITS=64 calls). */
XSHIM_EXPORT int mkstemp(char *tmpl)
{
	int fd = REAL(mkstemp)(tmpl);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkostemp(char *tmpl, int flags)
{
	int fd = REAL(mkostemp)(tmpl, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkstemps(char *tmpl, int suffixlen)
{
	int fd = REAL(mkstemps)(tmpl, suffixlen);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
	int fd = REAL(mkostemps)(tmpl, suffixlen, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT FILE *tmpfile(void)
{
	FILE *f = REAL(tmpfile)();
	if (f)
		xstream_number_reused(fileno(f));
	return f;
}

XSHIM_EXPORT int mkstemp64(char *tmpl)
{
	int fd = REAL(mkstemp64) ? real_mkstemp64(tmpl) : REAL(mkstemp)(tmpl);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkostemp64(char *tmpl, int flags)
{
	int fd = REAL(mkostemp64) ? real_mkostemp64(tmpl, flags) : REAL(mkostemp)(tmpl, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
	int fd = REAL(mkstemps64) ? real_mkstemps64(tmpl, suffixlen) :
				    REAL(mkstemps)(tmpl, suffixlen);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	int fd = REAL(mkostemps64) ? real_mkostemps64(tmpl, suffixlen, flags) :
				     REAL(mkostemps)(tmpl, suffixlen, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT FILE *tmpfile64(void)
{
	FILE *f = REAL(tmpfile64) ? real_tmpfile64() : REAL(tmpfile)();
	if (f)
		xstream_number_reused(fileno(f));
	return f;
}

/* Writable files made by their own syscalls (a memfd is a file, an eventfd
 * takes 8-byte writes, a pty master a terminal's input). */
XSHIM_EXPORT int memfd_create(const char *name, unsigned int flags)
{
	int fd = REAL(memfd_create)(name, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int eventfd(unsigned int initval, int flags)
{
	int fd = REAL(eventfd)(initval, flags);
	xstream_number_reused(fd);
	return fd;
}

XSHIM_EXPORT int posix_openpt(int flags)
{
	int fd = REAL(posix_openpt)(flags);
	xstream_number_reused(fd);
	return fd;
}
