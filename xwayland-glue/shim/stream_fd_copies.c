/*
 * Copies of the X fd: dup, dup2, dup3 and fcntl's F_DUPFD(_CLOEXEC)
 * wrapped for attached X sockets (split from stream.c, session 35).
 *
 * A copy of the X fd is not another connection: it names the same socket,
 * so whatever the program writes through it belongs in the same byte
 * stream, in the order it writes. Each copy is therefore recorded as one
 * more name of the connection (the slot's alias list): its bytes go into
 * the ring, and the ring ends when the last name is closed. Before
 * (session 34), bytes written through a copy reached the socket raw, where
 * the X server half reads only fd messages, and the connection was lost.
 */
/* fcntl and fcntl64 are both wrapped (a program built with
 * _FILE_OFFSET_BITS=64 calls the second); with the macro set here,
 * <fcntl.h> would name the first the second. */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/shim/stream_table.h"
#include "xwayland-glue/shim/syms.h"

/* Copies named in slots' alias lists, so that a process with none looks
 * at no list. */
static atomic_int naliases;

static int (*real_dup)(int);
static int (*real_fcntl)(int, int, ...);
static int (*real_fcntl64)(int, int, ...);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_posix_spawn_file_actions_adddup2)(posix_spawn_file_actions_t *, int, int);

static void resolve_real(void)
{
	dlsym_next(&real_dup, "dup");
	dlsym_next(&real_fcntl, "fcntl");
	dlsym_next(&real_fcntl64, "fcntl64");
	dlsym_next(&real_dup2, "dup2");
	dlsym_next(&real_dup3, "dup3");
	dlsym_next(&real_posix_spawn_file_actions_adddup2, "posix_spawn_file_actions_adddup2");
}

/* Early, and again on first use in case another library's constructor
 * copies an fd before ours ran. */
__attribute__((constructor)) static void fd_copies_init(void)
{
	resolve_real();
}
#define REAL(name) (real_##name ? real_##name : (resolve_real(), real_##name))

bool xstream_any_copies(void)
{
	return atomic_load_explicit(&naliases, memory_order_relaxed) != 0;
}

bool xstream_named_by_copy(struct xstream *s, int fd)
{
	for (int k = 0; k < XSTREAM_MAX_ALIASES; k++) {
		if (atomic_load_explicit(&s->alias[k], memory_order_acquire) == fd)
			return true;
	}
	return false;
}

void xstream_forget_copies(struct xstream *s)
{
	for (int k = 0; k < XSTREAM_MAX_ALIASES; k++) {
		if (atomic_exchange_explicit(&s->alias[k], -1, memory_order_relaxed) >= 0)
			atomic_fetch_sub_explicit(&naliases, 1, memory_order_relaxed);
	}
}

void xstream_drop_copies_in(struct xstream *s, unsigned first, unsigned last)
{
	for (int k = 0; k < XSTREAM_MAX_ALIASES; k++) {
		int a = atomic_load_explicit(&s->alias[k], memory_order_relaxed);
		if (a >= 0 && (unsigned)a >= first && (unsigned)a <= last)
			xstream_drop_name_locked(s, a);
	}
}

/* Records newfd as another name of s; false when s has no room left
 * (the caller reverts the connection to the socket). Under the table's lock. */
static bool add_name(struct xstream *s, int newfd)
{
	for (int k = 0; k < XSTREAM_MAX_ALIASES; k++) {
		if (atomic_load_explicit(&s->alias[k], memory_order_relaxed) == -1) {
			atomic_store_explicit(&s->alias[k], newfd, memory_order_release);
			atomic_fetch_add_explicit(&naliases, 1, memory_order_relaxed);
			return true;
		}
	}
	return false;
}

/* fd, a name of s, is going away. True when s keeps another name (fd is
 * dropped from the list: the connection stays on the ring); false when fd
 * is its last. Under the table's lock. A copy takes the place of the primary
 * name before it leaves the list, so a lookup on another thread finds the
 * slot by it at every moment. */
static bool drop_name(struct xstream *s, int fd)
{
	int primary = atomic_load_explicit(&s->fd, memory_order_relaxed);
	for (int k = 0; k < XSTREAM_MAX_ALIASES; k++) {
		int a = atomic_load_explicit(&s->alias[k], memory_order_relaxed);
		if (a < 0 || (a != fd && primary != fd))
			continue;
		if (a != fd)
			atomic_store_explicit(&s->fd, a, memory_order_release);
		atomic_store_explicit(&s->alias[k], -1, memory_order_release);
		atomic_fetch_sub_explicit(&naliases, 1, memory_order_relaxed);
		return true;
	}
	return false;
}

/* As drop_name, taking the table's lock; false also where the table
 * cannot be changed (a signal handler on a thread inside the lock). */
bool xstream_drop_name_locked(struct xstream *s, int fd)
{
	if (xstream_table_locked_here())
		return false;
	xstream_lock_table();
	bool kept = atomic_load_explicit(&s->fd, memory_order_relaxed) >= 0 && drop_name(s, fd);
	xstream_unlock_table();
	return kept;
}

bool xstream_drop_last_name(struct xstream *s, int fd)
{
	if (xstream_table_locked_here())
		return false;
	xstream_lock_table();
	int primary = atomic_load_explicit(&s->fd, memory_order_relaxed);
	bool last = primary >= 0 && !drop_name(s, fd) && primary == fd;
	if (last)
		atomic_store_explicit(&s->fd, -2, memory_order_release);
	xstream_unlock_table();
	return last;
}

/* newfd is about to name another file (dup2, dup3). If it is a name of
 * an attached X socket that has others (copies the program made), the
 * connection goes on through those, on the ring. If it is its only known
 * name, the socket may still live on under a number the shim never saw (a
 * copy made by a raw syscall, or in a signal handler inside the table's
 * lock): the rest of its stream goes through the socket, so it works
 * wherever the socket is written from next. If it was the last reference,
 * the X server reads the REVERT, then the end. The slot stays, named by
 * newfd, until newfd is closed or replaced (as a close: the connection is
 * on the socket already). */
static void replacing(int newfd)
{
	struct xstream *s = xstream_find(newfd);
	if (s && xstream_table_locked_here())
		return; /* a signal handler inside the lock: not seen, as in closing */
	if (s && !s->forked && xstream_owns_memory() &&
			!atomic_load_explicit(&s->handed_off, memory_order_acquire)) {
		if (!xstream_drop_name_locked(s, newfd))
			xstream_revert(s, newfd);
	} else {
		xstream_closing(newfd);
	}
}

/* newfd is a copy of oldfd just made (dup, F_DUPFD, dup2, dup3). If oldfd
 * names an attached connection, newfd is recorded as another of its names.
 * Where it cannot be (more copies than a slot has names for), the
 * connection goes back to the socket at once, where every copy writes
 * right. A copy made in a process that only shares the owner's memory (a
 * vfork child: its numbers mean nothing to the owner) is for the program
 * it execs, which the shim cannot follow: handed off, the connection goes
 * back to the socket. Not recorded: a fork child's copies beyond the
 * names (a REVERT there would take the connection from the parent, which
 * may go on using it), and copies made by a signal handler on a thread
 * inside the table's lock. */
static void copied(int oldfd, int newfd)
{
	if (newfd < 0 || oldfd == newfd)
		return;
	struct xstream *s = xstream_find(oldfd);
	if (!s || xstream_table_locked_here())
		return;
	if (!xstream_owns_memory()) {
		xstream_revert(s, newfd);
		return;
	}
	xstream_lock_table();
	bool named = atomic_load_explicit(&s->fd, memory_order_relaxed) >= 0 && add_name(s, newfd);
	xstream_unlock_table();
	if (!named && !s->forked)
		xstream_revert(s, newfd);
}

/* Will dup2/dup3 from oldfd replace what newfd names? Not when oldfd is
 * not open: they fail with EBADF and leave newfd as it was, so a name of
 * a connection stays its name. (A syscall only while a ring is attached.) */
static bool may_replace(int oldfd)
{
	return !xstream_any_attached() || REAL(fcntl)(oldfd, F_GETFD) >= 0;
}

XSHIM_EXPORT int dup(int oldfd)
{
	int newfd = REAL(dup)(oldfd);
	copied(oldfd, newfd);
	return newfd;
}

XSHIM_EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd && may_replace(oldfd))
		replacing(newfd);
	int r = REAL(dup2)(oldfd, newfd);
	copied(oldfd, r);
	return r;
}

XSHIM_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && may_replace(oldfd))
		replacing(newfd);
	int r = REAL(dup3)(oldfd, newfd, flags);
	copied(oldfd, r);
	return r;
}

/* glibc makes this copy in the child, after the clone, where no wrapper
 * runs, and the child execs: the connection is handed off now, so the
 * program spawned writes the socket as it would without the ring. Also
 * when fd == newfd: the action then clears FD_CLOEXEC (glibc 2.35), and
 * the child inherits the X fd itself. */
XSHIM_EXPORT int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int fd, int newfd)
{
	struct xstream *s = xstream_find(fd);
	if (s && !xstream_table_locked_here())
		xstream_revert(s, fd);
	return REAL(posix_spawn_file_actions_adddup2)(fa, fd, newfd);
}

/* Every fcntl command takes an int, a long or a pointer, all passed as a
 * word: glibc's own fcntl forwards its argument as a void *. */
static int fcntl_with(int (*real)(int, int, ...), int fd, int cmd, void *arg)
{
	if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)
		return real(fd, cmd, arg);
	int newfd = real(fd, cmd, (int)(intptr_t)arg);
	copied(fd, newfd);
	return newfd;
}

XSHIM_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_with(REAL(fcntl), fd, cmd, arg);
}

XSHIM_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	return fcntl_with(REAL(fcntl64) ? real_fcntl64 : REAL(fcntl), fd, cmd, arg);
}
