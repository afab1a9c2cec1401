/*
 * The writing side of stream.h: libc's writev, sendmsg, sendmmsg, write,
 * send, sendto, close, close_range and closefrom wrapped for attached X sockets,
 * and fork and vfork handled; copies of the X fd (dup, dup2, dup3, fcntl's
 * F_DUPFD) are stream_fd_copies.c's.
 * Every process the session starts has the shim preloaded, so the common
 * case (no attached connection) is one load and a branch in front of the
 * real call.
 */
#define _GNU_SOURCE
#include "xwayland-glue/shim/stream_table.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/dlsym_next.h"
#include "xwayland-glue/stream/scm_rights.h"
#include "xwayland-glue/shim/syms.h"

#define XSTREAM_MAX 16

/* Free slots hold fd -1 (0 names a descriptor), from load time on: a
 * lookup on another thread never sees a slot that is not yet initialised.
 * (A range designator: GNU C, which gcc and clang, our two compilers, take.) */
static struct xstream slots[XSTREAM_MAX] = { [0 ... XSTREAM_MAX - 1] = { .fd = -1 } };
static atomic_int nattached;
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
/* Set on a thread from before it takes slots_lock until after it lets it
 * go. close and dup2 are async-signal-safe, and programs call them in
 * signal handlers (a SIGCHLD handler closing a child's pipe): a handler
 * that interrupts this thread inside the lock must not take it again.
 * Before (session 33), such a close waited for the lock its own thread
 * held, for ever (a SIGALRM handler's close during XOpenDisplay). */
static _Thread_local volatile sig_atomic_t slots_lock_here;

void xstream_lock_table(void)
{
	slots_lock_here = 1;
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(&slots_lock);
}

void xstream_unlock_table(void)
{
	pthread_mutex_unlock(&slots_lock);
	atomic_signal_fence(memory_order_seq_cst);
	slots_lock_here = 0;
}

bool xstream_table_locked_here(void)
{
	return slots_lock_here;
}

bool xstream_any_attached(void)
{
	return atomic_load_explicit(&nattached, memory_order_relaxed) != 0;
}
/* The process whose memory holds the slots: the attacher, or a fork child
 * (pthread_atfork) with its own copy. A vfork child, posix_spawn's child
 * (clone with CLONE_VM) or a thread of such a clone shares this memory but
 * has its own fd table: what it closes is closed for it alone, so it must
 * leave the slots, its parent's rings, alone. */
static atomic_int memory_owner;
/* A page the kernel zeroes in every child that gets a copy of this memory
 * (MADV_WIPEONFORK: fork, and clone without CLONE_VM), however the child
 * was made. libc's fork runs our pthread_atfork handler; a raw
 * syscall(SYS_fork), or clone() called directly, runs nothing of ours, and
 * its child, whose copy of the slots still names the parent's rings (their
 * memory is a shared mapping), would write into them. Reading 0 here is
 * how such a child finds out, with one load and no syscall on the write
 * path. Children that share this memory (vfork, posix_spawn, clone with
 * CLONE_VM) and threads see the owner's mark. NULL where the kernel lacks
 * MADV_WIPEONFORK (before Linux 4.14): raw fork children are then not
 * detected. */
static _Atomic(atomic_uchar *) copy_mark;
static void adopt_if_fork_copy(void);
/* The slot whose write lock this thread holds or is taking, from before it
 * takes it until after it lets it go (as slots_lock_here, for the same
 * reason: a signal handler's dup2 or close on this thread must not wait
 * for the lock its own thread holds). */
static _Thread_local struct xstream *volatile writing_here;

static ssize_t (*real_writev)(int, const struct iovec *, int);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static int (*real_sendmmsg)(int, struct mmsghdr *, unsigned int, int);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_send)(int, const void *, size_t, int);
static ssize_t (*real_sendto)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
static int (*real_close)(int);
static int (*real_close_range)(unsigned, unsigned, int);
static void (*real_closefrom)(int);

static void resolve_real(void)
{
	dlsym_next(&real_writev, "writev");
	dlsym_next(&real_sendmsg, "sendmsg");
	dlsym_next(&real_sendmmsg, "sendmmsg");
	dlsym_next(&real_write, "write");
	dlsym_next(&real_send, "send");
	dlsym_next(&real_sendto, "sendto");
	dlsym_next(&real_close, "close");
	dlsym_next(&real_close_range, "close_range");
	dlsym_next(&real_closefrom, "closefrom");
}

/* Fresh write locks: at start, and in a fork child (a lock another
 * thread of the parent held at the fork stays held in the child). */
static void init_write_locks(void)
{
	for (int i = 0; i < XSTREAM_MAX; i++)
		pthread_mutex_init(&slots[i].write_lock, NULL);
}

/* Early, and again on first use in case another library's constructor
 * writes before ours ran. */
__attribute__((constructor)) static void stream_init(void)
{
	resolve_real();
	init_write_locks();
}
#define REAL(name) (real_##name ? real_##name : (resolve_real(), real_##name))

struct xstream *xstream_find(int fd)
{
	if (atomic_load_explicit(&nattached, memory_order_relaxed) == 0 || fd < 0)
		return NULL;
	adopt_if_fork_copy();
	for (int i = 0; i < XSTREAM_MAX; i++) {
		if (atomic_load_explicit(&slots[i].fd, memory_order_acquire) == fd)
			return &slots[i];
	}
	if (!xstream_any_copies())
		return NULL;
	for (int i = 0; i < XSTREAM_MAX; i++) {
		if (atomic_load_explicit(&slots[i].fd, memory_order_acquire) >= 0 &&
				xstream_named_by_copy(&slots[i], fd))
			return &slots[i];
	}
	return NULL;
}

bool xstream_is_attached(int fd)
{
	return xstream_find(fd) != NULL;
}

/* The raw syscall: glibc caches nothing for getpid since 2.25, but a
 * process made with clone() directly would not even pass through it. */
static int current_pid(void)
{
	return (int)syscall(SYS_getpid);
}

/* May this process change the slots (detach a connection it closes)? */
bool xstream_owns_memory(void)
{
	return current_pid() == atomic_load_explicit(&memory_owner, memory_order_relaxed);
}

/* A fork child must not write into its parent's ring; its memory is its
 * own copy, so it closes (and unmaps) what it likes. */
static void forked_child(void)
{
	atomic_store_explicit(&memory_owner, current_pid(), memory_order_relaxed);
	writing_here = NULL;
	init_write_locks();
	for (int i = 0; i < XSTREAM_MAX; i++)
		slots[i].forked = true;
	atomic_uchar *mark = atomic_load_explicit(&copy_mark, memory_order_relaxed);
	if (mark)
		atomic_store_explicit(mark, 1, memory_order_relaxed);
}

/* The first time the slots are used in a copy of the owner's memory that
 * no pthread_atfork handler saw (raw fork, clone without CLONE_VM): become
 * its owner exactly as a fork child does, so every path that writes a ring
 * or closes one (writev, sendmsg, close and its kin, a new attach) treats
 * the inherited rings as a fork child's: REVERT on the first write. */
static void adopt_if_fork_copy(void)
{
	atomic_uchar *mark = atomic_load_explicit(&copy_mark, memory_order_relaxed);
	if (mark && atomic_load_explicit(mark, memory_order_relaxed) == 0)
		forked_child();
}

/* Set up once, by the first attach (so programs that never attach pay
 * nothing), under slots_lock. */
static void arm_copy_mark(void)
{
	if (atomic_load_explicit(&copy_mark, memory_order_relaxed))
		return;
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			0);
	if (p == MAP_FAILED)
		return;
	if (madvise(p, (size_t)page, MADV_WIPEONFORK) != 0) {
		munmap(p, (size_t)page);
		return;
	}
	atomic_store_explicit((atomic_uchar *)p, 1, memory_order_relaxed);
	atomic_store_explicit(&copy_mark, (atomic_uchar *)p, memory_order_relaxed);
}

static struct xstream_file_id file_id(int fd)
{
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return (struct xstream_file_id){ 0, 0 };
	return (struct xstream_file_id){ st.st_dev, st.st_ino };
}

/* Does fd still name the file it named at attach? The close wrappers see
 * every close made through libc; a raw close or close_range syscall (a
 * fork child's, or a program's own that closes every fd above 2) does
 * not. (Every eventfd shares one inode, so for the ring's eventfd this
 * tells only that the number names some eventfd.) */
static bool same_file(int fd, struct xstream_file_id id)
{
	struct xstream_file_id now = file_id(fd);
	return fd >= 0 && now.ino != 0 && now.dev == id.dev && now.ino == id.ino;
}

struct xstream *xstream_claim_slot(void)
{
	static bool atfork;
	adopt_if_fork_copy();
	xstream_lock_table();
	if (!atfork)
		atfork = pthread_atfork(NULL, NULL, forked_child) == 0;
	arm_copy_mark();
	atomic_store_explicit(&memory_owner, current_pid(), memory_order_relaxed);
	struct xstream *s = NULL;
	for (int i = 0; i < XSTREAM_MAX && !s; i++) {
		if (atomic_load_explicit(&slots[i].fd, memory_order_relaxed) == -1) {
			s = &slots[i];
			atomic_store_explicit(&s->fd, -2, memory_order_relaxed); /* claimed */
		}
	}
	xstream_unlock_table();
	if (s) {
		s->map = NULL;
		s->status = NULL;
		s->global = NULL;
		s->server_efd = s->wake_fd = -1;
		s->head = s->wakeups_sent = s->full_waits = s->fd_messages = 0;
		s->forked = false;
		atomic_store_explicit(&s->handed_off, false, memory_order_relaxed);
		atomic_store_explicit(&s->revert_pending, false, memory_order_relaxed);
		for (int k = 0; k < XSTREAM_MAX_ALIASES; k++)
			atomic_store_explicit(&s->alias[k], -1, memory_order_relaxed);
	}
	return s;
}

void xstream_publish_slot(struct xstream *s, int fd)
{
	s->sock_id = file_id(fd);
	s->server_efd_id = file_id(s->server_efd);
	s->wake_id = file_id(s->wake_fd);
	atomic_store_explicit(&s->fd, fd, memory_order_release);
	atomic_fetch_add_explicit(&nattached, 1, memory_order_relaxed);
}

void xstream_unmap(struct xstream *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->status)
		munmap((void *)s->status, SMT_STATUS_MAP_SIZE);
	if (s->global)
		munmap((void *)s->global, SMT_STATUS_MAP_SIZE);
	/* The program may have closed them itself (a raw syscall: a fork
	 * child's, or the owner's close_range, session 40) and reused the
	 * numbers: close what is still ours only. */
	if (s->server_efd >= 0 && same_file(s->server_efd, s->server_efd_id))
		REAL(close)(s->server_efd);
	if (s->wake_fd >= 0 && same_file(s->wake_fd, s->wake_id))
		REAL(close)(s->wake_fd);
	s->map = NULL;
	s->status = NULL;
	s->global = NULL;
	s->server_efd = s->wake_fd = -1;
}

void xstream_free_slot(struct xstream *s)
{
	/* Out of every other thread's view before its fds are closed: once
	 * closed, their numbers are the next open's, and another thread that
	 * closes such a new fd must not find this slot by the old number
	 * (closing_ring_fd: a REVERT on a connection being closed, its pages
	 * already unmapped; 32 threads each opening and closing displays
	 * crashed there). */
	xstream_lock_table();
	atomic_store_explicit(&s->fd, -2, memory_order_release);
	xstream_forget_copies(s);
	xstream_unlock_table();
	xstream_unmap(s);
	xstream_lock_table();
	atomic_store_explicit(&s->fd, -1, memory_order_release);
	xstream_unlock_table();
}

static void detach(struct xstream *s)
{
	atomic_fetch_sub_explicit(&nattached, 1, memory_order_relaxed);
	xstream_free_slot(s);
}

static bool dead(const struct xstream *s)
{
	return atomic_load_explicit(&((struct smt_ring_status *)s->status)->flags,
			       memory_order_acquire) &
			SMT_SERVER_DEAD;
}

static void publish(struct xstream *s)
{
	if (smt_ring_client_publish(s->hdr, s->global, s->head)) {
		uint64_t one = 1;
		if (write(s->server_efd, &one, sizeof(one)) == sizeof(one)) {
			s->wakeups_sent++;
			atomic_store_explicit(&s->hdr->wakeups_sent, s->wakeups_sent,
					memory_order_relaxed);
		}
	}
}

/* A REVERT asked for inside this thread's write into s (a signal handler
 * that closed one of the ring's own fds, or handed the X fd off): the
 * ring may have lost its way to wake the X server, so a full ring is not
 * waited on but left (ring_write). */
static bool revert_asked(const struct xstream *s)
{
	return atomic_load_explicit(&s->revert_pending, memory_order_relaxed);
}

enum room {
	ROOM,
	ROOM_GONE,
	ROOM_REVERT
};

/* Ring full: wait until tail >= need, the server dies, the socket ends,
 * or a signal handler asks for a REVERT (a handler's close of the ring's
 * eventfd left no way to wake a sleeping server: before, session 37,
 * this waited for ever). The bytes so far are published (and the server
 * woken) first. A handler that comes between the look at revert_pending
 * and the poll costs that poll's timeout, no more. */
static enum room wait_for_room(struct xstream *s, int fd, uint64_t need)
{
	if (revert_asked(s))
		return ROOM_REVERT;
	publish(s);
	s->full_waits++;
	atomic_store_explicit(&s->hdr->full_waits, s->full_waits, memory_order_relaxed);
	while (smt_ring_client_begin_wait(s->hdr, s->status, need)) {
		struct pollfd p[2] = {
			{ .fd = s->wake_fd, .events = POLLIN },
			{ .fd = fd, .events = POLLRDHUP },
		};
		int n = poll(p, 2, 1000);
		smt_ring_client_end_wait(s->hdr);
		if (n > 0 && (p[0].revents & POLLIN)) {
			char buf[64];
			while (recv(s->wake_fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
			}
		}
		if (n > 0 && (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR)))
			return ROOM_GONE;
		if (revert_asked(s))
			return ROOM_REVERT;
	}
	return dead(s) ? ROOM_GONE : ROOM;
}

/* The rest of a write whose ring was left for the socket at a byte
 * position (ring_write): the REVERT went at the position reached, so the
 * stream goes on there, on the socket. The piece p, len of iov[i], then
 * the iovecs after it, as many as fit in one call; a short count is a
 * writer's to retry, as on any socket. */
static ssize_t rest_to_socket(
		int fd, const struct iovec *iov, int iovcnt, int i, const uint8_t *p, size_t len)
{
	struct iovec rest[64];
	int k = 0;
	rest[k++] = (struct iovec){ .iov_base = (void *)p, .iov_len = len };
	for (int j = i + 1; j < iovcnt && k < 64; j++)
		rest[k++] = iov[j];
	return REAL(writev)(fd, rest, k);
}

static bool revert_locked(struct xstream *s, int fd);

static ssize_t ring_write(struct xstream *s, int fd, const struct iovec *iov, int iovcnt)
{
	if (dead(s)) {
		errno = EPIPE;
		return -1;
	}
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t len = iov[i].iov_len;
		while (len > 0) {
			uint64_t tail = atomic_load_explicit(
					&((struct smt_ring_status *)s->status)->tail,
					memory_order_acquire);
			uint64_t used = s->head - tail;
			if (used > s->area_size) { /* the server lost its mind */
				errno = EPIPE;
				return -1;
			}
			uint32_t room = s->area_size - (uint32_t)used;
			if (room == 0) {
				/* Wait for half the ring, not for this piece: a client
				 * that fills the ring keeps writing, and waking it per
				 * piece made the server send a wake-up every few KiB
				 * (x11perf -rect1: one wait per two requests). */
				uint64_t want = s->area_size / 2;
				enum room r = wait_for_room(s, fd, s->head + want - s->area_size);
				if (r == ROOM_REVERT) {
					/* The stream is bytes: the REVERT may go at any
					 * position this writer reached (it holds the write
					 * lock), and it wakes the server through the
					 * socket. */
					publish(s);
					if (!revert_locked(s, fd)) {
						errno = EPIPE;
						return total ? (ssize_t)total : -1;
					}
					ssize_t more = rest_to_socket(fd, iov, iovcnt, i, p, len);
					if (more < 0)
						return total ? (ssize_t)total : -1;
					return (ssize_t)(total + (size_t)more);
				}
				if (r == ROOM_GONE) {
					errno = EPIPE;
					return -1;
				}
				continue;
			}
			uint32_t n = len < room ? (uint32_t)len : room;
			smt_stream_copy_in(s->area, s->area_size, s->head, p, n);
			s->head += n;
			p += n;
			len -= n;
			total += n;
		}
	}
	publish(s);
	return (ssize_t)total;
}

/* Sends one fd message on the socket, however long the socket is full. */
static bool send_fd_message(struct xstream *s, int fd, uint32_t kind, const int *fds, unsigned nfds)
{
	struct smt_stream_fd_msg m = {
		.magic = SMT_STREAM_FD_MAGIC,
		.kind = kind,
		.position = s->head,
	};
	union scm_rights_buf u;
	struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	scm_rights_attach(&msg, &u, fds, nfds);
	for (;;) {
		ssize_t n = REAL(sendmsg)(fd, &msg, MSG_NOSIGNAL);
		if (n == (ssize_t)sizeof(m))
			break;
		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return false; /* a 16-byte message is never cut */
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		poll(&p, 1, 1000);
	}
	/* Counted before the bytes that need the fds are published (release). */
	s->fd_messages++;
	atomic_store_explicit(&s->hdr->fd_messages, s->fd_messages, memory_order_relaxed);
	return true;
}

static bool handed_off(struct xstream *s)
{
	return atomic_load_explicit(&s->handed_off, memory_order_acquire);
}

/* Takes s's write lock; false when this thread holds it already: a signal
 * handler (dup2 and close are async-signal-safe) that interrupted this
 * thread's write into the ring, which must finish before any REVERT. */
static bool lock_writes(struct xstream *s)
{
	if (writing_here == s)
		return false;
	struct xstream *outer = writing_here; /* a handler's, inside another's write */
	writing_here = s;
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(&s->write_lock);
	s->outer_writing = outer;
	return true;
}

/* Marked until after the unlock: a handler that comes between finds the
 * mark and leaves its REVERT to the next write's end (end_write). */
static void unlock_writes(struct xstream *s)
{
	struct xstream *outer = s->outer_writing;
	pthread_mutex_unlock(&s->write_lock);
	atomic_signal_fence(memory_order_seq_cst);
	writing_here = outer;
}

/* The REVERT itself, under s's write lock: sent once, at a position where
 * a whole write ended; from here every write of every thread goes to the
 * socket (ring_of, lock_for_write). False when it could not be sent (the
 * server is gone, or fd no longer names the socket). */
static bool revert_locked(struct xstream *s, int fd)
{
	bool ok = handed_off(s) || (!dead(s) && send_fd_message(s, fd, SMT_STREAM_REVERT, NULL, 0));
	atomic_store_explicit(&s->handed_off, true, memory_order_release);
	atomic_store_explicit(&s->revert_pending, false, memory_order_relaxed);
	return ok;
}

/* The connection goes back to the socket from here, at fd, one of its
 * names. One way for every cause: a fork child's first write, a copy of
 * the socket leaving the shim's sight (a posix_spawn file action, a copy
 * made in a vfork child, the socket sent as SCM_RIGHTS, a name without
 * FD_CLOEXEC at a spawn or exec: the program it reaches writes the socket
 * raw, where the X server half reads only fd messages), the only known
 * name replaced by dup2 or dup3, one copy more than a slot has names for,
 * one of the ring's own fds closed. The REVERT goes between two whole
 * writes (write_lock: the cause may come on another thread than libxcb's
 * writes, or from a vfork child, which has our memory but its own fd
 * table), and the slot stays, handed off, until the owner closes the
 * socket's last name. Before (session 36), every cause but a hand-off
 * freed the slot at once, unmapping the ring under another thread's write
 * (SIGSEGV: smt-x11-fdio revert-race; spawn-race for the hand-off), and a
 * vfork child could not close the owner's eventfd and wake socket. A
 * signal handler that interrupted this thread's write into the same ring
 * leaves the REVERT to the end of that write (revert_pending).
 *
 * A fork child's fd that no longer names the X socket (the child closed
 * it with a raw syscall and the number was reused) is a stale name:
 * dropped (the slot with it if it was the last), and the write goes to
 * whatever fd names now. */
bool xstream_revert(struct xstream *s, int fd)
{
	if (s->forked && xstream_owns_memory() && !same_file(fd, s->sock_id)) {
		if (xstream_drop_last_name(s, fd))
			detach(s);
		return true;
	}
	if (!lock_writes(s)) {
		atomic_store_explicit(&s->revert_pending, true, memory_order_relaxed);
		return true;
	}
	bool ok = revert_locked(s, fd);
	unlock_writes(s);
	return ok;
}

/* A program is about to be exec'd (posix_spawn, exec, a vfork child's
 * exec): the names of X sockets without FD_CLOEXEC will be plain numbers
 * in it, so their connections are handed off. Not a fork child's (a
 * REVERT there would take the connection from the parent, which may go
 * on using it, whether or not the program exec'd ever writes). */
void xstream_hand_off_inherited(void)
{
	if (atomic_load_explicit(&nattached, memory_order_relaxed) == 0 || slots_lock_here)
		return;
	adopt_if_fork_copy();
	for (int i = 0; i < XSTREAM_MAX; i++) {
		struct xstream *s = &slots[i];
		int names[1 + XSTREAM_MAX_ALIASES];
		names[0] = atomic_load_explicit(&s->fd, memory_order_acquire);
		if (names[0] < 0 || s->forked ||
				atomic_load_explicit(&s->handed_off, memory_order_relaxed))
			continue;
		for (int k = 0; k < XSTREAM_MAX_ALIASES; k++)
			names[1 + k] = atomic_load_explicit(&s->alias[k], memory_order_relaxed);
		for (int k = 0; k <= XSTREAM_MAX_ALIASES; k++) {
			int flags = names[k] >= 0 ? fcntl(names[k], F_GETFD) : -1;
			if (flags >= 0 && !(flags & FD_CLOEXEC)) {
				xstream_revert(s, names[k]);
				break;
			}
		}
	}
}

/* fd, a name of s, no longer names s's socket: the program closed it
 * with a raw syscall (close_range above 2, as a daemonising program
 * does) and the kernel gave the number to another file. The name is
 * dropped, and the slot with its last name (its ring's fds closed only
 * if their numbers still name them). True when it was so. Before
 * (session 40), the next file on that number had its bytes written
 * into the dead ring, and a display opened on it wrote its setup there
 * and waited for ever (smt-x11-fdio rawclose). */
static bool forget_if_stale(struct xstream *s, int fd)
{
	if (xstream_table_locked_here() || same_file(fd, s->sock_id))
		return false;
	if (xstream_drop_last_name(s, fd))
		detach(s);
	return true;
}

void xstream_forget_stale(int fd)
{
	struct xstream *s;
	while ((s = xstream_find(fd)) && forget_if_stale(s, fd)) {
	}
}

/* The kernel never gives out an open number: a new file on a number the
 * table names means the socket once there was closed unseen. Not in a
 * vfork child (its fd table is its own, the slots are its parent's). */
void xstream_number_reused(int fd)
{
	if (fd >= 0 && xstream_find(fd) && xstream_owns_memory())
		xstream_forget_stale(fd);
}

/* The ring of fd, NULL when fd's bytes go to the socket (not attached,
 * or handed off) or to another file: a ring the X server has ended is
 * looked at once more (one fstat), in case its number was closed where
 * the shim could not see (forget_if_stale). */
static struct xstream *ring_of(int fd)
{
	struct xstream *s = xstream_find(fd);
	if (s && s->status && dead(s) && forget_if_stale(s, fd))
		return NULL;
	return s && !handed_off(s) ? s : NULL;
}

/* Locks s for one write into its ring; false (unlocked) when it was
 * handed off meanwhile (the write goes to the socket), or when this
 * thread is inside a write into it already (a signal handler's write:
 * its bytes would land inside the interrupted request; they go to the
 * socket, as on a connection without a ring). */
static bool lock_for_write(struct xstream *s)
{
	if (!lock_writes(s))
		return false;
	if (!handed_off(s))
		return true;
	unlock_writes(s);
	return false;
}

/* The end of a write into s's ring: a REVERT a signal handler asked for
 * during it goes here, after the whole write. */
static void end_write(struct xstream *s, int fd)
{
	if (atomic_load_explicit(&s->revert_pending, memory_order_relaxed))
		revert_locked(s, fd);
	unlock_writes(s);
}

XSHIM_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct xstream *s = ring_of(fd);
	if (s && s->forked && !xstream_revert(s, fd)) {
		errno = EPIPE;
		return -1;
	}
	if (!s || s->forked || !lock_for_write(s))
		return REAL(writev)(fd, iov, iovcnt);
	ssize_t n = ring_write(s, fd, iov, iovcnt);
	end_write(s, fd);
	return n;
}

/* The program's own writer on the X fd (write, send: a library that took
 * the socket with xcb_take_socket and writes it itself, a program that
 * speaks some X requests on its own): the same bytes the socket would
 * take, so they go where libxcb's go, into the ring. Before (session 33),
 * they reached the socket raw, where the X server half reads only fd
 * messages: the connection was closed ("a socket message that is no fd
 * message"). */
static ssize_t write_bytes(int fd, const void *buf, size_t len)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	return writev(fd, &iov, 1);
}

/* Is fd, written by the program's own writer (write, send, sendto), a
 * name of an attached X socket? libxcb never writes with these (it uses
 * writev and sendmsg), so here, and only here, the number is looked at
 * each time (one fstat): a program that closed the X fd with a raw
 * syscall and got the number back for a file of its own (a socket pair,
 * a log) writes that file, and the stale name is dropped. Before (session
 * 40's rawclose-file), those bytes went into the old connection's ring
 * while the X server had not yet seen the socket's end, and the program
 * waited for ever for them. A vfork child leaves the table alone. */
static bool own_writer_on_ring(int fd)
{
	struct xstream *s = xstream_find(fd);
	if (!s)
		return false;
	if (same_file(fd, s->sock_id))
		return true;
	if (xstream_owns_memory())
		xstream_forget_stale(fd);
	return false;
}

XSHIM_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	if (!own_writer_on_ring(fd))
		return REAL(write)(fd, buf, len);
	return write_bytes(fd, buf, len);
}

/* MSG_NOSIGNAL, MSG_DONTWAIT and MSG_MORE mean nothing to a ring (it
 * signals nothing and takes every byte, as libxcb's writev does); other
 * flags (MSG_OOB) and an address are left to the socket, as before. */
static bool ring_send_flags(int flags)
{
	return (flags & ~(MSG_NOSIGNAL | MSG_DONTWAIT | MSG_MORE)) == 0;
}

XSHIM_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	if (!ring_send_flags(flags) || !own_writer_on_ring(fd))
		return REAL(send)(fd, buf, len, flags);
	return write_bytes(fd, buf, len);
}

XSHIM_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		const struct sockaddr *to, socklen_t tolen)
{
	if (to || !ring_send_flags(flags) || !own_writer_on_ring(fd))
		return REAL(sendto)(fd, buf, len, flags, to, tolen);
	return write_bytes(fd, buf, len);
}

/* The fds of one sendmsg, in messages of at most SMT_STREAM_MAX_FDS, all
 * at the position of its bytes: the server hands them over together, in
 * order, as the socket would (a socket takes up to 253 in one message). */
static bool send_fds(struct xstream *s, int fd, const struct msghdr *msg)
{
	int fds[SMT_STREAM_MAX_FDS];
	unsigned nfds = 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm;
			cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			memcpy(&fds[nfds++], CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (nfds == SMT_STREAM_MAX_FDS) {
				if (!send_fd_message(s, fd, SMT_STREAM_FDS, fds, nfds))
					return false;
				nfds = 0;
			}
		}
	}
	return !nfds || send_fd_message(s, fd, SMT_STREAM_FDS, fds, nfds);
}

/* A message on another socket that carries a name of an attached X
 * socket (SCM_RIGHTS) gives a copy to whoever receives it, where the shim
 * cannot follow: handed off, as a posix_spawn file action's copy is. */
static void passing_fds(const struct msghdr *msg)
{
	if (atomic_load_explicit(&nattached, memory_order_relaxed) == 0 || !msg ||
			!msg->msg_control || msg->msg_controllen < sizeof(struct cmsghdr))
		return;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm;
			cm = CMSG_NXTHDR((struct msghdr *)msg, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		/* The kernel refuses a header longer than the buffer; so do we,
		 * before reading past it. */
		size_t room = (size_t)((const char *)msg->msg_control + msg->msg_controllen -
				(const char *)CMSG_DATA(cm));
		if (cm->cmsg_len < CMSG_LEN(0) || cm->cmsg_len - CMSG_LEN(0) > room)
			break;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int passed;
			memcpy(&passed, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			struct xstream *x = xstream_find(passed);
			if (x && !slots_lock_here)
				xstream_revert(x, passed);
		}
	}
}

XSHIM_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct xstream *s = ring_of(fd);
	if (!s)
		passing_fds(msg);
	if (s && s->forked && !xstream_revert(s, fd)) {
		errno = EPIPE;
		return -1;
	}
	if (!s || s->forked || !lock_for_write(s))
		return REAL(sendmsg)(fd, msg, flags);
	ssize_t n = -1;
	if (dead(s) || !send_fds(s, fd, msg))
		errno = EPIPE;
	else
		n = ring_write(s, fd, msg->msg_iov, (int)msg->msg_iovlen);
	end_write(s, fd);
	return n;
}

/* Several messages in one call: on another socket, each message's
 * SCM_RIGHTS may hand an X fd off, as sendmsg's may (before, session 37,
 * not wrapped: the receiver's raw bytes closed the connection); on the X
 * fd itself, message by message through sendmsg above, into the ring.
 * The kernel takes at most UIO_MAXIOV (1024) messages a call. */
XSHIM_EXPORT int sendmmsg(int fd, struct mmsghdr *vec, unsigned int vlen, int flags)
{
	if (vlen > 1024)
		vlen = 1024;
	if (atomic_load_explicit(&nattached, memory_order_relaxed) != 0 && vec && ring_of(fd)) {
		unsigned int i = 0;
		for (; i < vlen; i++) {
			ssize_t n = sendmsg(fd, &vec[i].msg_hdr, flags);
			if (n < 0)
				return i ? (int)i : -1;
			vec[i].msg_len = (unsigned int)n;
		}
		return (int)i;
	}
	for (unsigned int i = 0; vec && i < vlen; i++)
		passing_fds(&vec[i].msg_hdr);
	if (!REAL(sendmmsg)) {
		errno = ENOSYS;
		return -1;
	}
	return REAL(sendmmsg)(fd, vec, vlen, flags);
}

/* fd, one of a ring's own fds (its eventfd or wake socket), is being
 * closed by the program (a close loop, closefrom): the connection cannot
 * go on through the ring without it, so it goes back to the socket, as a
 * fork child's does, and keeps working. */
static void closing_ring_fd(int fd)
{
	if (atomic_load_explicit(&nattached, memory_order_relaxed) == 0 || fd < 0)
		return;
	adopt_if_fork_copy();
	/* A signal handler's close on a thread inside the lock: the table
	 * cannot be looked at. Only a ring's own fd would be found, and a
	 * handler that closes those closes what it never opened. */
	if (!xstream_owns_memory() || slots_lock_here)
		return;
	/* Matched under the lock that xstream_free_slot takes before it
	 * closes a slot's fds, so a number another thread's connection just
	 * gave back is never taken for that connection's. */
	struct xstream *found = NULL;
	xstream_lock_table();
	for (int i = 0; i < XSTREAM_MAX && !found; i++) {
		struct xstream *s = &slots[i];
		if (atomic_load_explicit(&s->fd, memory_order_acquire) >= 0 &&
				(s->server_efd == fd || s->wake_fd == fd))
			found = s;
	}
	xstream_unlock_table();
	if (!found)
		return;
	/* The fd leaves the slot between two whole writes (a write on
	 * another thread uses both), and the REVERT goes there, so taken
	 * before the table's lock; matched again under it. A signal handler
	 * inside this thread's write into the ring: the write finishes with
	 * the fd gone (its wake-up is lost; the REVERT follows it). */
	bool locked = lock_writes(found);
	xstream_lock_table();
	int sock = atomic_load_explicit(&found->fd, memory_order_acquire);
	bool still = sock >= 0 && (found->server_efd == fd || found->wake_fd == fd);
	if (still && found->server_efd == fd)
		found->server_efd = -1; /* the caller closes it */
	else if (still)
		found->wake_fd = -1;
	xstream_unlock_table();
	if (still && !found->forked) { /* a fork child reverts when it writes */
		if (locked)
			revert_locked(found, sock);
		else
			atomic_store_explicit(&found->revert_pending, true, memory_order_relaxed);
	}
	if (locked)
		unlock_writes(found);
}

/* fd is being closed (or replaced) in this process: one name of its
 * connection goes, and its ring with its last name, unless this process
 * only shares its parent's memory (vfork, posix_spawn). A signal handler
 * on a thread inside the table's lock cannot change the table: its close
 * of an X fd is not seen. */
void xstream_closing(int fd)
{
	struct xstream *s = xstream_find(fd);
	if (s && xstream_owns_memory()) {
		if (!slots_lock_here && xstream_drop_last_name(s, fd))
			detach(s);
	} else if (!s) {
		closing_ring_fd(fd);
	}
}

XSHIM_EXPORT int close(int fd)
{
	xstream_closing(fd);
	return REAL(close)(fd);
}

/* Every attached connection in [first, last]; a close loop's cost when
 * nothing is attached is one load. */
static void closing_range(unsigned first, unsigned last)
{
	if (atomic_load_explicit(&nattached, memory_order_relaxed) == 0)
		return;
	adopt_if_fork_copy();
	if (!xstream_owns_memory())
		return;
	for (int i = 0; i < XSTREAM_MAX; i++) {
		struct xstream *s = &slots[i];
		if (atomic_load_explicit(&s->fd, memory_order_acquire) < 0)
			continue;
		/* Its copies in the range, then its primary name: the ring goes
		 * with the last of them. */
		xstream_drop_copies_in(s, first, last);
		int fd = atomic_load_explicit(&s->fd, memory_order_acquire);
		if (fd >= 0 && (unsigned)fd >= first && (unsigned)fd <= last &&
				xstream_drop_last_name(s, fd)) {
			detach(s);
			continue;
		}
		int own[2] = { s->server_efd, s->wake_fd };
		for (int k = 0; k < 2; k++) {
			if (own[k] >= 0 && (unsigned)own[k] >= first && (unsigned)own[k] <= last)
				closing_ring_fd(own[k]);
		}
	}
}

XSHIM_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	/* CLOSE_RANGE_CLOEXEC only marks them: exec ends the rings (their own
	 * fds are close-on-exec too). */
	if (!(flags & CLOSE_RANGE_CLOEXEC))
		closing_range(first, last);
	if (!REAL(close_range)) {
		errno = ENOSYS;
		return -1;
	}
	return REAL(close_range)(first, last, flags);
}

XSHIM_EXPORT void closefrom(int lowfd)
{
	closing_range(lowfd < 0 ? 0u : (unsigned)lowfd, ~0u);
	if (REAL(closefrom))
		REAL(closefrom)(lowfd);
}
