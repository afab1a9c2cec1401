/*
 * fstat-each-write.so: preloaded before the X ring's shim by
 * write_fstat.py, it adds one fstat of the written fd to every writev and
 * sendmsg (libxcb's writes) before the shim's own. It measures what
 * session 40 named as the mend for a number closed by a raw syscall and
 * reused before the X server saw the close: "is this number still the X
 * socket?" asked on every write (docs/benchmarks.md, "An fstat per X
 * write, session 41"). Never part of a session.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	static ssize_t (*next)(int, const struct iovec *, int);
	if (!next)
		next = (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	struct stat st;
	(void)fstat(fd, &st);
	return next(fd, iov, iovcnt);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static ssize_t (*next)(int, const struct msghdr *, int);
	if (!next)
		next = (ssize_t(*)(int, const struct msghdr *, int))dlsym(RTLD_NEXT, "sendmsg");
	struct stat st;
	(void)fstat(fd, &st);
	return next(fd, msg, flags);
}
