/*
 * smt-x11-procs CASE [N]: an ordinary xcb program (the session preloads
 * the X ring's shim into it) doing what programs do with fds and child
 * processes, for test_x11_ring_fds.py (issue 23). Each case ends with
 * round trips on the connection; it prints "ok CASE ..." and exits 0 when
 * the connection survived everything and the X server saw no error, else
 * says what broke and exits 1.
 *
 *   shm-burst N        N memfds attached with xcb_shm_attach_fd, unchecked,
 *                      back to back, then one round trip; every segment
 *                      works (ShmGetImage into the first and the last)
 *   vfork-close N      N times: vfork, the child close()s every fd from 3
 *                      up (the classic loop, as Java's VFORK mode does),
 *                      then execs /bin/true; a round trip after each
 *   vfork-closefrom N  the same with closefrom(3), and close_range(3, ~0)
 *   spawn N            posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK))
 *                      with close and closefrom file actions
 *   threads-vfork N    one thread makes round trips while another runs the
 *                      vfork + close loop N times
 *   threads-displays N N threads, each opening its own connection,
 *                      making round trips and closing it, 5 times over, all
 *                      at once (more than the 16 rings a process may have:
 *                      the rest on the socket)
 *   fork-shm           fork; the child's first request is ShmAttachFd
 *                      (checked), then its own round trip; the parent
 *                      waits and does not touch the connection again
 *   closefrom-own      the program itself closes every fd above the X
 *                      socket (the ring's own fds among them): the
 *                      connection goes on, on the socket
 *   rawfork-requests   like fork-shm, but the child is made by the raw
 *                      fork syscall (no libc fork, no pthread_atfork
 *                      handler runs): its ShmAttachFd and round trips are
 *                      served
 *   clone-requests     the same with a child made by glibc's clone()
 *   rawfork-reuse      a raw fork child closes the X socket with the raw
 *                      close syscall, puts a socketpair on its number and
 *                      writes there: the bytes reach the socketpair (not
 *                      the parent's ring); the parent's connection then
 *                      makes round trips as before
 *   dup2-restore       /dev/null put on the X socket's number with dup2,
 *                      then the socket (saved with dup) put back: the
 *                      connection goes on, on the ring (the saved copy
 *                      carries it meanwhile; session 34)
 *   drop-gid-exec CMD...  (no X connection) gives up a setgid gid, as
 *                      urxvt and other setgid programs do before they start
 *                      a child, and execs CMD: run from a setgid copy of
 *                      this program, CMD starts without LD_PRELOAD (ld.so
 *                      removed it) but out of secure mode
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xcb/shm.h>
#include <xcb/xcb.h>
#include "tests/tools/x11_round_trip.h"

extern char **environ;

static xcb_connection_t *conn;
static xcb_screen_t *screen;

static int fail(const char *what)
{
	printf("FAILED: %s\n", what);
	fflush(stdout);
	return 1;
}

static bool round_trip(void)
{
	return x11_round_trip(conn);
}

static int memfd_of(size_t size)
{
	int fd = memfd_create("smt-x11-procs", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0)
		return -1;
	return fd;
}

/* ShmGetImage of a 1x1 pixmap into segment seg: the server wrote it. */
static bool segment_works(xcb_shm_seg_t seg)
{
	xcb_pixmap_t pix = xcb_generate_id(conn);
	xcb_create_pixmap(conn, screen->root_depth, pix, screen->root, 1, 1);
	xcb_shm_get_image_reply_t *r = xcb_shm_get_image_reply(conn,
			xcb_shm_get_image(conn, pix, 0, 0, 1, 1, ~0u, XCB_IMAGE_FORMAT_Z_PIXMAP,
					seg, 0),
			NULL);
	xcb_free_pixmap(conn, pix);
	bool ok = r != NULL;
	free(r);
	return ok;
}

static int shm_burst(int n)
{
	xcb_shm_seg_t *segs = calloc((size_t)n, sizeof(*segs));
	if (!segs)
		return fail("out of memory");
	for (int i = 0; i < n; i++) {
		int fd = memfd_of(4096);
		if (fd < 0)
			return fail("memfd");
		segs[i] = xcb_generate_id(conn);
		/* libxcb closes the fd once sent. */
		xcb_shm_attach_fd(conn, segs[i], fd, 0);
	}
	if (!round_trip())
		return fail("the round trip after the attaches");
	if (!segment_works(segs[0]) || !segment_works(segs[n - 1]))
		return fail("a segment attached by fd does not work");
	for (int i = 0; i < n; i++)
		xcb_shm_detach(conn, segs[i]);
	if (!round_trip())
		return fail("the round trip after the detaches");
	free(segs);
	printf("ok shm-burst %d segments attached by fd\n", n);
	return 0;
}

static int max_fd(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur > 4096)
		return 4096;
	return (int)rl.rlim_cur;
}

enum child_close {
	CLOSE_LOOP,
	CLOSE_FROM
};

/* vfork, close in the child, exec: what Java's VFORK mode and many C
 * programs do. The child shares our memory until it execs. */
static bool vfork_close_exec(enum child_close how)
{
	char *const argv[] = { "true", NULL };
	volatile int top = max_fd();
	pid_t pid = vfork();
	if (pid == 0) {
		if (how == CLOSE_LOOP) {
			for (int fd = 3; fd < top; fd++)
				close(fd);
		} else {
			close_range(3, 3, 0);
			closefrom(3);
		}
		execve("/bin/true", argv, environ);
		_exit(127);
	}
	int status;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			WEXITSTATUS(status) == 0;
}

static int vfork_loop(int n, enum child_close how)
{
	for (int i = 0; i < n; i++) {
		if (!vfork_close_exec(how))
			return fail("the vfork child did not run /bin/true");
		if (!round_trip())
			return fail("the round trip after a vfork child closed its fds");
	}
	printf("ok vfork %d children closed their fds\n", n);
	return 0;
}

static int spawn_loop(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < n; i++) {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addclose(&fa, xfd);
		posix_spawn_file_actions_addclosefrom_np(&fa, 3);
		char *const argv[] = { "true", NULL };
		pid_t pid;
		int status;
		int e = posix_spawn(&pid, "/bin/true", &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		if (e != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
				WEXITSTATUS(status) != 0)
			return fail("posix_spawn /bin/true");
		if (!round_trip())
			return fail("the round trip after posix_spawn");
	}
	printf("ok spawn %d children\n", n);
	return 0;
}

static atomic_int spawner_done;
static int spawner_n;

static void *spawner(void *arg)
{
	(void)arg;
	for (int i = 0; i < spawner_n; i++) {
		if (!vfork_close_exec(CLOSE_LOOP)) {
			atomic_store(&spawner_done, -1);
			return NULL;
		}
	}
	atomic_store(&spawner_done, 1);
	return NULL;
}

static int threads_vfork(int n)
{
	spawner_n = n;
	pthread_t t;
	if (pthread_create(&t, NULL, spawner, NULL) != 0)
		return fail("pthread_create");
	int trips = 0;
	while (atomic_load(&spawner_done) == 0) {
		if (!round_trip())
			return fail("a round trip while another thread vforks");
		trips++;
	}
	pthread_join(t, NULL);
	if (atomic_load(&spawner_done) < 0)
		return fail("the vfork child did not run /bin/true");
	if (!round_trip())
		return fail("the round trip after the vforking thread");
	printf("ok threads-vfork %d children beside %d round trips\n", n, trips);
	return 0;
}

/* One thread of threads-displays: its own connections, one after another,
 * each made, used and closed while the other threads do the same. */
static atomic_int displays_failed;
static int displays_rounds;

static void *display_thread(void *arg)
{
	(void)arg;
	for (int r = 0; r < displays_rounds && !atomic_load(&displays_failed); r++) {
		xcb_connection_t *c = xcb_connect(NULL, NULL);
		bool ok = !xcb_connection_has_error(c);
		for (int i = 0; ok && i < 20; i++) {
			xcb_get_input_focus_reply_t *rep = xcb_get_input_focus_reply(
					c, xcb_get_input_focus(c), NULL);
			ok = rep != NULL;
			free(rep);
		}
		if (!ok)
			atomic_store(&displays_failed, 1);
		xcb_disconnect(c);
	}
	return NULL;
}

static int threads_displays(int n)
{
	pthread_t t[64];
	if (n > 64)
		n = 64;
	displays_rounds = 5;
	for (int i = 0; i < n; i++) {
		if (pthread_create(&t[i], NULL, display_thread, NULL) != 0)
			return fail("pthread_create");
	}
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (atomic_load(&displays_failed))
		return fail("a thread's own connection failed");
	if (!round_trip())
		return fail("the round trip after the threads' connections");
	printf("ok threads-displays %d threads, %d connections each\n", n, displays_rounds);
	return 0;
}

static int fork_shm(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		int fd = memfd_of(4096);
		xcb_shm_seg_t seg = xcb_generate_id(conn);
		xcb_generic_error_t *e = xcb_request_check(
				conn, xcb_shm_attach_fd_checked(conn, seg, fd, 0));
		if (e) {
			printf("FAILED: the child's ShmAttachFd: X error %u\n", e->error_code);
			_exit(1);
		}
		if (!segment_works(seg) || !round_trip())
			_exit(fail("the child's segment or round trip"));
		_exit(0);
	}
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			WEXITSTATUS(status) != 0)
		return fail("the forked child's first request with an fd");
	printf("ok fork-shm the child's ShmAttachFd worked\n");
	return 0;
}

/* A child made without libc's fork: nothing of the shim ran in it. */
enum raw_child {
	RAW_FORK,
	RAW_CLONE
};

static int clone_entry(void *arg)
{
	int (*fn)(void) = (int (*)(void))arg;
	return fn();
}

static pid_t start_raw_child(enum raw_child how, int (*fn)(void))
{
	if (how == RAW_FORK) {
		pid_t pid = (pid_t)syscall(SYS_fork);
		if (pid == 0)
			_exit(fn());
		return pid;
	}
	static char stack[256 * 1024] __attribute__((aligned(16)));
	void *fnp;
	memcpy(&fnp, &fn, sizeof(fnp));
	return clone(clone_entry, stack + sizeof(stack), SIGCHLD, fnp);
}

static bool child_succeeded(pid_t pid)
{
	int status;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
			WEXITSTATUS(status) == 0;
}

static int child_requests(void)
{
	int fd = memfd_of(4096);
	xcb_shm_seg_t seg = xcb_generate_id(conn);
	xcb_generic_error_t *e = xcb_request_check(
			conn, xcb_shm_attach_fd_checked(conn, seg, fd, 0));
	if (e) {
		printf("FAILED: the raw child's ShmAttachFd: X error %u\n", e->error_code);
		fflush(stdout);
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		if (!round_trip())
			return fail("a round trip of the raw child");
	}
	if (!segment_works(seg))
		return fail("the raw child's segment");
	fflush(stdout);
	return 0;
}

static int raw_child_requests(enum raw_child how)
{
	if (!child_succeeded(start_raw_child(how, child_requests)))
		return fail("the raw child's requests on the inherited connection");
	printf("ok %s-requests the child's requests were served\n",
			how == RAW_FORK ? "rawfork" : "clone");
	return 0;
}

static int child_reuses_x_number(void)
{
	int xfd = xcb_get_file_descriptor(conn);
	int sp[2];
	/* Raw syscalls: nothing of the shim sees the X socket go. */
	if (syscall(SYS_close, xfd) != 0 ||
			syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, sp) != 0)
		return fail("the raw child's socketpair");
	if (sp[0] != xfd && syscall(SYS_dup3, sp[0], xfd, 0) != xfd)
		return fail("the raw child's dup3 onto the X socket's number");
	static const char msg[] = "not an X request";
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = sizeof(msg) };
	if (writev(xfd, &iov, 1) != (ssize_t)sizeof(msg))
		return fail("the raw child's writev on its socketpair");
	char got[sizeof(msg)];
	if (recv(sp[1], got, sizeof(got), MSG_DONTWAIT) != (ssize_t)sizeof(msg) ||
			memcmp(got, msg, sizeof(msg)) != 0)
		return fail("the raw child's bytes did not reach its socketpair");
	close(xfd);
	fflush(stdout);
	return 0;
}

static int rawfork_reuse(void)
{
	if (!child_succeeded(start_raw_child(RAW_FORK, child_reuses_x_number)))
		return fail("the raw fork child writing on the X socket's number");
	for (int i = 0; i < 10; i++) {
		if (!round_trip())
			return fail("a round trip of the parent after its raw fork child");
	}
	printf("ok rawfork-reuse the parent's connection went on\n");
	return 0;
}

static int closefrom_own(void)
{
	int xfd = xcb_get_file_descriptor(conn);
	closefrom(xfd + 1);
	for (int i = 0; i < 10; i++) {
		if (!round_trip())
			return fail("a round trip after closefrom above the X socket");
	}
	printf("ok closefrom-own the connection went on\n");
	return 0;
}

/* The program puts another file on the X socket's number and the socket
 * back (saved with dup), as a program may around a library that writes to
 * fixed numbers; then it goes on. Before session 33, the ring ended with
 * the first dup2 and libxcb's next bytes reached the X server raw on a
 * connection it read as a ring's: the connection was closed; in session
 * 33 the first dup2 reverted it to the socket; since session 34 the saved
 * copy is a name of the connection and it stays on the ring. */
static int dup2_restore(void)
{
	int xfd = xcb_get_file_descriptor(conn);
	int save = dup(xfd);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (save < 0 || null < 0)
		return fail("dup / open /dev/null");
	if (dup2(null, xfd) != xfd || dup2(save, xfd) != xfd)
		return fail("dup2");
	close(save);
	close(null);
	for (int i = 0; i < 10; i++) {
		if (!round_trip())
			return fail("a round trip after the X socket was put back on its number");
	}
	printf("ok dup2-restore the connection went on\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
				"usage: smt-x11-procs shm-burst|vfork-close|vfork-closefrom|spawn|"
				"threads-vfork|threads-displays N | fork-shm | closefrom-own | rawfork-requests | "
				"clone-requests | rawfork-reuse | dup2-restore | drop-gid-exec CMD...\n");
		return 2;
	}
	const char *c = argv[1];
	if (!strcmp(c, "drop-gid-exec") && argc > 2) {
		if (setgid(getgid()) != 0)
			return fail("setgid(getgid())");
		execvp(argv[2], argv + 2);
		return fail("exec");
	}
	int n = argc > 2 ? atoi(argv[2]) : 1;
	if (n < 1)
		n = 1;
	conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn))
		return fail("xcb_connect");
	screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	if (!round_trip())
		return fail("the first round trip");
	int rc;
	if (!strcmp(c, "shm-burst"))
		rc = shm_burst(n);
	else if (!strcmp(c, "vfork-close"))
		rc = vfork_loop(n, CLOSE_LOOP);
	else if (!strcmp(c, "vfork-closefrom"))
		rc = vfork_loop(n, CLOSE_FROM);
	else if (!strcmp(c, "spawn"))
		rc = spawn_loop(n);
	else if (!strcmp(c, "threads-vfork"))
		rc = threads_vfork(n);
	else if (!strcmp(c, "threads-displays"))
		rc = threads_displays(n);
	else if (!strcmp(c, "fork-shm"))
		rc = fork_shm();
	else if (!strcmp(c, "dup2-restore"))
		rc = dup2_restore();
	else if (!strcmp(c, "closefrom-own"))
		rc = closefrom_own();
	else if (!strcmp(c, "rawfork-requests"))
		rc = raw_child_requests(RAW_FORK);
	else if (!strcmp(c, "clone-requests"))
		rc = raw_child_requests(RAW_CLONE);
	else if (!strcmp(c, "rawfork-reuse"))
		rc = rawfork_reuse();
	else
		return fail("unknown case");
	fflush(stdout);
	xcb_disconnect(conn);
	return rc;
}
