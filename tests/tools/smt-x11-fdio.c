/*
 * smt-x11-fdio CASE [N]: an ordinary X program (the session preloads the X
 * ring's shim into it) doing what event loops and toolkits do with the X
 * connection's fd and with signals, for test_x11_ring_fdio.py (session 33,
 * docs/x11.md "The X fd in the program's own hands"). Each case ends with
 * round trips; it prints "ok CASE ..." and exits 0 when every reply and
 * event came and the X server saw no error, else says what broke and exits 1.
 *
 *   fd-limit K        RLIMIT_NOFILE set so that only K fds are free when
 *                     the display is opened (a program that opened many
 *                     files first; its X fd above 1024): the connection
 *                     works, on the ring or the socket
 *   limit-after N     (session 41) RLIMIT_NOFILE set to 4 after the
 *                     display is open: N round trips, the close, a new
 *                     display refused at 4 and opened with the limit back
 *   select            the X fd watched with select() (an event loop of
 *                     the old kind): a PropertyNotify the program caused
 *                     wakes it and is read
 *   peek              ioctl(FIONREAD) and recv(MSG_PEEK) on the X fd
 *                     show the event before libxcb reads it
 *   fcntl             O_NONBLOCK set again, FD_CLOEXEC cleared and set,
 *                     F_DUPFD_CLOEXEC copies made and closed: round trips
 *   epoll-thread      XInitThreads; a thread waits in epoll on the X fd
 *                     while the main thread makes Xlib round trips
 *   take-socket       Xlib and xcb on one connection (XGetXCBConnection:
 *                     Xlib takes the socket with xcb_take_socket), their
 *                     requests interleaved; a second connection by xcb
 *   reopen N          XOpenDisplay, round trip, XCloseDisplay N times:
 *                     the process's fds and mappings are back each time
 *   sigalrm N         SIGALRM every 200 µs (no SA_RESTART) while
 *                     N ChangeProperty requests of 192 KiB fill the ring
 *                     (run it with a small SMT_X11RING_AREA) and round
 *                     trips run
 *   sigclose N        SIGALRM every 50 µs whose handler close()s a number
 *                     that is not open (as a SIGCHLD handler closes a
 *                     child's pipe; close is async-signal-safe), while
 *                     N displays are opened and closed beside one kept
 *                     open
 *   raw-write         the program writes a GetInputFocus itself, with
 *                     write(), send() and sendmmsg() on the X fd, inside
 *                     xcb_take_socket (as a library with its own writer
 *                     might), and reads the replies with libxcb
 *   dup-write N       copies of the X fd made with dup, F_DUPFD(_CLOEXEC),
 *                     dup2 and dup3 onto a free number; the program writes a
 *                     ChangeProperty and a GetInputFocus through the
 *                     copy between libxcb's own requests: the server must
 *                     take them in the order written (the property read
 *                     back is the copy's, the reply comes)
 *   dup-close N       the X fd saved with dup (F_DUPFD_CLOEXEC every
 *                     other round), closed, /dev/null opened (on its
 *                     number) and written, a GetInputFocus written through
 *                     the copy, the copy put back with dup2 and closed:
 *                     libxcb reads the reply and goes on
 *   dup-fork          a copy made, then fork: the child closes its copies
 *                     and exits; the parent goes on through the copy and
 *                     libxcb (on the ring)
 *   dup-fork-child    a copy made, then fork: the child writes through the
 *                     copy and makes round trips (as xclip's child uses
 *                     the connection); the parent then only disconnects
 *   dup-many N        N copies open at once, each written through, then
 *                     closed in turn, libxcb's round trips between
 *   dup-threads N     N round trips while another thread makes and closes
 *                     copies of the X fd (dup, F_DUPFD_CLOEXEC, dup2)
 *   sigdup N          as sigclose, the handler dup()s the kept display's
 *                     X fd and closes the copy; the kept display then
 *                     makes round trips
 *   spawn-dup2 N      (session 36) posix_spawn with a file action that
 *                     dup2()s the X fd onto 50 in the child (inside glibc,
 *                     out of the shim's sight); the child, this program
 *                     again as `child-write 50 W V`, writes a
 *                     ChangeProperty and a GetInputFocus raw on fd 50 and
 *                     exits; the parent is told, reads the reply and the
 *                     property, N rounds; closed, the connection gives
 *                     back the ring's mappings and fds
 *   vfork-dup2 N      as spawn-dup2, the copy made by dup2() in a vfork
 *                     child before it execs
 *   send-fd N         as spawn-dup2, the child given a Unix socket on 50
 *                     and the X fd through it (SCM_RIGHTS), as
 *                     `child-recv-write 50 W V`
 *   send-fd-mmsg N    (session 37) as send-fd, the X fd sent with
 *                     sendmmsg (one message)
 *   inherit N         as spawn-dup2, the X fd itself inherited (its
 *                     FD_CLOEXEC cleared, set again after the spawn)
 *   vfork-inherit N   as vfork-dup2, the vfork child clears FD_CLOEXEC on
 *                     the X fd itself and execs (the exec hands off)
 *   system-inherit N  (session 40) as inherit, the child started by
 *                     system() (glibc spawns it through internal calls)
 *   popen-dup N       as system-inherit, through popen(), the child
 *                     given a dup() copy (no FD_CLOEXEC), closed after
 *   vfork-execl N     as vfork-inherit, the child exec'd with execl(),
 *                     execle(), execlp() and fexecve() in turn
 *   fork-exec N       (session 41, not in the tests: the connection is
 *                     lost) as inherit, the child made by fork() and
 *                     exec'd with the X fd's FD_CLOEXEC cleared
 *   raw-dup N         (session 41, not in the tests: lost) the two
 *                     requests written by this program through a copy
 *                     made by the raw dup syscall
 *   rawclose N        (session 40) every fd above 2 closed with the raw
 *                     close_range syscall (the shim does not see it),
 *                     then a new display opened (on the X fd's old
 *                     number) and used; N rounds
 *   rawclose-file N   as rawclose, first a socket pair on the X fd's old
 *                     number written (write(), writev(), sendmsg() round
 *                     by round) and read back (session 41: in the tests;
 *                     hung before)
 *   rawclose-other N  (session 42) as rawclose-file, the old number
 *                     reused round by round by a pipe (its read end,
 *                     written: EBADF), a file from open(), a file from
 *                     fopen(), an fd received with SCM_RIGHTS, a file
 *                     from mkstemp(), from tmpfile(), a memfd, an
 *                     eventfd, each
 *                     written with writev (sendmsg for the received
 *                     socket) and read back (before: the bytes went
 *                     into the dead ring)
 *   rawclose-fork N   rawclose in a fork child; the parent's round trips
 *                     after it (its connection stays on the ring)
 *   closefrom-reopen N  as rawclose, through glibc's closefrom(3), which
 *                     the shim wraps
 *   helpers N         (session 37) N rounds of helpers started while
 *                     connected, each opening its own connection
 *                     (`child-connect`): through system(), popen(), and
 *                     fork + exec with the X fd's FD_CLOEXEC cleared
 *                     (inherited, never written), the parent's requests
 *                     answered meanwhile and after; its connection stays
 *                     on the ring
 *   child-connect     (helpers' child) its own connection, on the ring
 *   handed FD N       (session 41) the X connection on FD, connected by
 *                     another process (run as another uid), set up with
 *                     xcb_connect_to_fd: N round trips
 *   child-write FD W V  (the children above) the two requests, raw on FD
 *   child-recv-write SOCK W V  the same through the fd received on SOCK
 *   spawn-race N      N connections, each: a thread writes 8 KiB
 *                     ChangeProperty requests while the main thread adds
 *                     a posix_spawn dup2 action for the X fd (the hand-off
 *                     between whole writes), then a round trip
 *   revert-race N     (session 36) as spawn-race, the main thread taking
 *                     the older ways back to the socket in turn: dup2 of
 *                     an unseen copy (a raw dup syscall) onto the X fd's
 *                     number, an eighth copy of the X fd, closing the
 *                     ring's eventfd; then a round trip, and at the close
 *                     the ring's pages and fds given back
 *   sig-close-efd N   (session 37) N connections, each: SIGALRM every
 *                     200 µs whose handler, once, close()s the ring's
 *                     eventfd while the main thread writes 1 MiB
 *                     ChangeProperty requests (run it with a 64 KiB ring:
 *                     the writes wait for room); then the last property
 *                     read back and round trips
 *   sig-close-wake N  as sig-close-efd, the handler closes the ring's
 *                     wake socket
 *   sig-revert N      as sig-close-efd, the handler makes eight dup()
 *                     copies of the X fd and closes them (the eighth
 *                     reverts the connection from inside its own
 *                     thread's write)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <X11/Xlib-xcb.h>
#include <X11/Xlib.h>
#include <X11/Xatom.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>
#include "tests/tools/x11_round_trip.h"

static xcb_connection_t *conn;
static xcb_screen_t *screen;

static int fail(const char *what)
{
	printf("FAILED: %s (errno %d %s)\n", what, errno, strerror(errno));
	fflush(stdout);
	return 1;
}

static bool round_trip(void)
{
	return x11_round_trip(conn);
}

static bool connect_default(void)
{
	conn = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(conn))
		return false;
	screen = xcb_setup_roots_iterator(xcb_get_setup(conn)).data;
	return round_trip();
}

static int count_fds(void)
{
	int n = 0;
	for (int fd = 0; fd < 4096; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

static int count_ring_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	char line[512];
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "smt-x11ring") != NULL || strstr(line, "smt-stream") != NULL;
	fclose(f);
	return n;
}

/* ---- fd-limit ---------------------------------------------------------- */

static int fd_limit(int k)
{
	/* Open files first as a busy program would, to past 1024, then leave
	 * exactly k fds free under the limit. */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return fail("getrlimit");
	rlim_t want = 1100;
	if (rl.rlim_max < want + 64)
		return fail("the hard fd limit is too low for this case");
	int top = -1;
	for (;;) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail("open /dev/null");
		top = fd;
		if ((rlim_t)fd + 1 >= want)
			break;
	}
	rl.rlim_cur = (rlim_t)top + 1 + (rlim_t)k;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return fail("setrlimit");
	if (!connect_default())
		return fail("xcb_connect / the first round trip with few fds free");
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < 20; i++) {
		if (!round_trip())
			return fail("a round trip with few fds free");
	}
	printf("ok fd-limit %d X fd %d, limit %lu\n", k, xfd, (unsigned long)rl.rlim_cur);
	return 0;
}

/* Session 41: the fd limit lowered to 4 after the display is open (below
 * the fds already open: the X fd and the ring's two among them), as a
 * program that drops its limit after start-up does: round trips and
 * properties go on, the display closes, a new one cannot be opened (on the
 * socket as well: no fd for it) and can once the limit is back. */
static xcb_window_t make_window(void);
static void touch_property(xcb_window_t w, uint32_t v);
static bool property_is(xcb_window_t w, uint32_t want);

static int limit_after(int n)
{
	struct rlimit rl, low;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return fail("getrlimit");
	xcb_window_t w = make_window();
	low = rl;
	low.rlim_cur = 4;
	if (setrlimit(RLIMIT_NOFILE, &low) != 0)
		return fail("setrlimit 4");
	for (int i = 0; i < n; i++) {
		touch_property(w, 0x40000u + (uint32_t)i);
		if (!round_trip() || !property_is(w, 0x40000u + (uint32_t)i))
			return fail("a round trip with the fd limit at 4 after the connect");
	}
	xcb_disconnect(conn);
	conn = xcb_connect(NULL, NULL);
	bool refused = xcb_connection_has_error(conn);
	xcb_disconnect(conn);
	conn = NULL;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		return fail("setrlimit back");
	if (!connect_default())
		return fail("a display opened with the limit back");
	printf("ok limit-after %d round trips at limit 4, a display at 4 %s, one after\n", n,
			refused ? "refused" : "opened");
	return 0;
}

/* Session 41: an X connection another process connected and handed to
 * this one (inherited as fd), set up here with xcb_connect_to_fd, as a
 * program run under another uid by one of the session's would get it
 * (x11_ring_trust users). n round trips; prints its uid. */
static int handed(int fd, int n)
{
	conn = xcb_connect_to_fd(fd, NULL);
	if (xcb_connection_has_error(conn))
		return fail("xcb_connect_to_fd on the handed socket");
	for (int i = 0; i < n; i++)
		if (!round_trip())
			return fail("a round trip on the handed socket");
	printf("ok handed %d round trips as uid %d\n", n, (int)getuid());
	return 0;
}

/* ---- select, peek ------------------------------------------------------ */

static xcb_window_t make_window(void)
{
	xcb_window_t w = xcb_generate_id(conn);
	uint32_t mask = XCB_EVENT_MASK_PROPERTY_CHANGE;
	xcb_create_window(conn, XCB_COPY_FROM_PARENT, w, screen->root, 0, 0, 10, 10, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_EVENT_MASK,
			&mask);
	return w;
}

static void touch_property(xcb_window_t w, uint32_t v)
{
	xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			sizeof(v), &v);
	xcb_flush(conn);
}

static bool is_property_notify(xcb_generic_event_t *ev, xcb_window_t w)
{
	return ev && (ev->response_type & 0x7f) == XCB_PROPERTY_NOTIFY &&
			((xcb_property_notify_event_t *)ev)->window == w;
}

static int select_loop(int n)
{
	xcb_window_t w = make_window();
	int xfd = xcb_get_file_descriptor(conn);
	if (xfd >= FD_SETSIZE)
		return fail("the X fd is above FD_SETSIZE");
	for (int i = 0; i < n; i++) {
		touch_property(w, (uint32_t)i);
		xcb_generic_event_t *ev = NULL;
		for (int tries = 0; tries < 600 && !ev; tries++) {
			ev = xcb_poll_for_event(conn);
			if (ev)
				break;
			fd_set rd;
			FD_ZERO(&rd);
			FD_SET(xfd, &rd);
			struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
			if (select(xfd + 1, &rd, NULL, NULL, &tv) < 0 && errno != EINTR)
				return fail("select");
		}
		if (!is_property_notify(ev, w)) {
			free(ev);
			return fail("select: no PropertyNotify for the change");
		}
		free(ev);
	}
	if (!round_trip())
		return fail("a round trip after the select loop");
	printf("ok select %d events through select()\n", n);
	return 0;
}

static int peek(int n)
{
	xcb_window_t w = make_window();
	if (!round_trip())
		return fail("round trip");
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < n; i++) {
		touch_property(w, (uint32_t)i);
		/* As a toolkit asks "anything pending?" before it calls into the
		 * library: the 32-byte event must be there to see. */
		int avail = 0;
		for (int tries = 0; tries < 600 && avail < 32; tries++) {
			if (ioctl(xfd, FIONREAD, &avail) != 0)
				return fail("FIONREAD");
			if (avail < 32) {
				struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
				fd_set rd;
				FD_ZERO(&rd);
				FD_SET(xfd, &rd);
				select(xfd + 1, &rd, NULL, NULL, &tv);
			}
		}
		if (avail < 32)
			return fail("FIONREAD never showed the event");
		uint8_t b[32];
		ssize_t got = recv(xfd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT);
		if (got != 32 || (b[0] & 0x7f) != XCB_PROPERTY_NOTIFY)
			return fail("recv(MSG_PEEK) did not show a PropertyNotify");
		xcb_generic_event_t *ev = xcb_wait_for_event(conn);
		bool ok = is_property_notify(ev, w);
		free(ev);
		if (!ok)
			return fail("libxcb's next event is not the one peeked at");
	}
	if (!round_trip())
		return fail("a round trip after peeking");
	printf("ok peek %d events seen with FIONREAD and MSG_PEEK first\n", n);
	return 0;
}

/* ---- fcntl ------------------------------------------------------------- */

static int fcntls(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < n; i++) {
		int fl = fcntl(xfd, F_GETFL);
		if (fl < 0 || fcntl(xfd, F_SETFL, fl | O_NONBLOCK) != 0)
			return fail("F_SETFL O_NONBLOCK");
		if (fcntl(xfd, F_SETFD, 0) != 0 || fcntl(xfd, F_SETFD, FD_CLOEXEC) != 0)
			return fail("F_SETFD");
		int d = fcntl(xfd, F_DUPFD_CLOEXEC, 3);
		int d2 = fcntl(xfd, F_DUPFD, 100 + i);
		if (d < 0 || d2 < 0)
			return fail("F_DUPFD");
		if (!round_trip())
			return fail("a round trip with copies of the X fd open");
		close(d);
		close(d2);
		if (!round_trip())
			return fail("a round trip after the copies of the X fd were closed");
	}
	printf("ok fcntl %d rounds\n", n);
	return 0;
}

/* ---- epoll from another thread ----------------------------------------- */

static atomic_bool stop_watch;
static atomic_int watch_wakeups;

static void *watch(void *arg)
{
	int xfd = *(int *)arg;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event e = { .events = EPOLLIN, .data.fd = xfd };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, xfd, &e) != 0)
		return (void *)1;
	while (!atomic_load(&stop_watch)) {
		struct epoll_event out;
		if (epoll_wait(ep, &out, 1, 50) > 0) {
			atomic_fetch_add(&watch_wakeups, 1);
			usleep(1000); /* level-triggered: let the main thread read */
		}
	}
	close(ep);
	return NULL;
}

static int epoll_thread(int n)
{
	if (!XInitThreads())
		return fail("XInitThreads");
	Display *d = XOpenDisplay(NULL);
	if (!d)
		return fail("XOpenDisplay");
	int xfd = ConnectionNumber(d);
	pthread_t t;
	pthread_create(&t, NULL, watch, &xfd);
	Window root = DefaultRootWindow(d);
	for (int i = 0; i < n; i++) {
		Window r, c;
		int rx, ry, wx, wy;
		unsigned m;
		if (!XQueryPointer(d, root, &r, &c, &rx, &ry, &wx, &wy, &m))
			return fail("XQueryPointer");
		XSync(d, False);
	}
	atomic_store(&stop_watch, true);
	void *rv;
	pthread_join(t, &rv);
	if (rv)
		return fail("epoll on the X fd");
	XCloseDisplay(d);
	printf("ok epoll-thread %d round trips, watcher woke %d times\n", n,
			atomic_load(&watch_wakeups));
	return 0;
}

/* ---- Xlib and xcb ------------------------------------------------------ */

static int take_socket(int n)
{
	Display *d = XOpenDisplay(NULL);
	if (!d)
		return fail("XOpenDisplay");
	xcb_connection_t *xc = XGetXCBConnection(d);
	if (!connect_default())
		return fail("a second connection by xcb");
	Window root = DefaultRootWindow(d);
	for (int i = 0; i < n; i++) {
		/* Xlib's request (queued by Xlib, which owns the socket), then
		 * xcb's on the same connection (libxcb takes it back). */
		XChangeProperty(d, root, XA_CUT_BUFFER7, XA_STRING, 8, PropModeReplace,
				(const unsigned char *)"smt", 3);
		if (!x11_round_trip(xc))
			return fail("an xcb round trip on Xlib's connection");
		Atom type;
		int fmt;
		unsigned long nitems, after;
		unsigned char *data = NULL;
		if (XGetWindowProperty(d, root, XA_CUT_BUFFER7, 0, 4, False, XA_STRING, &type, &fmt,
				    &nitems, &after, &data) != Success ||
				nitems != 3 || memcmp(data, "smt", 3))
			return fail("XGetWindowProperty after xcb's round trip");
		XFree(data);
		if (!round_trip())
			return fail("a round trip on the second connection");
	}
	xcb_disconnect(conn);
	conn = NULL;
	XCloseDisplay(d);
	printf("ok take-socket %d rounds, Xlib and xcb interleaved, two connections\n", n);
	return 0;
}

static int reopen(int n)
{
	int fds0 = -1, maps0 = -1;
	for (int i = 0; i < n; i++) {
		Display *d = XOpenDisplay(NULL);
		if (!d)
			return fail("XOpenDisplay");
		XSync(d, False);
		/* The count below must be able to see a ring's mapping. */
		if (i == 0 && count_ring_maps() < 1)
			return fail("no ring mapping seen while the display was open");
		XCloseDisplay(d);
		int fds = count_fds(), maps = count_ring_maps();
		if (i == 0) {
			fds0 = fds;
			maps0 = maps;
		} else if (fds != fds0 || maps != maps0) {
			printf("round %d: %d fds, %d ring mappings; after the first %d, %d\n", i,
					fds, maps, fds0, maps0);
			return fail("XCloseDisplay left fds or mappings behind");
		}
	}
	printf("ok reopen %d displays opened and closed, %d fds, %d ring mappings\n", n, fds0,
			maps0);
	return 0;
}

/* ---- signals ----------------------------------------------------------- */

static atomic_int alarms;

static void on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&alarms, 1);
}

static int sigalrm(int n)
{
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	setitimer(ITIMER_REAL, &it, NULL);
	if (!connect_default())
		return fail("xcb_connect under SIGALRM");
	/* ChangeProperty of 192 KiB (no image, so nothing of it goes through
	 * MIT-SHM): through a 64 KiB ring every one waits for room. */
	xcb_window_t w = make_window();
	size_t len = 192u * 1024u;
	uint8_t *data = malloc(len);
	for (int i = 0; i < n; i++) {
		memset(data, i, len);
		xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_CUT_BUFFER0,
				XCB_ATOM_STRING, 8, (uint32_t)len, data);
		if (i % 8 == 7 && !round_trip())
			return fail("a round trip under SIGALRM");
	}
	xcb_get_property_reply_t *r = xcb_get_property_reply(conn,
			xcb_get_property(conn, 0, w, XCB_ATOM_CUT_BUFFER0, XCB_ATOM_STRING,
					(uint32_t)(len / 4 - 1), 1),
			NULL);
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	if (!r)
		return fail("GetProperty under SIGALRM");
	uint8_t last = (uint8_t)(n - 1);
	bool right = xcb_get_property_value_length(r) == 4 &&
			((uint8_t *)xcb_get_property_value(r))[3] == last;
	free(r);
	free(data);
	if (!right)
		return fail("the last ChangeProperty's bytes are not there");
	if (!round_trip())
		return fail("a round trip after SIGALRM");
	printf("ok sigalrm %d properties of 192 KiB, %d alarms\n", n, atomic_load(&alarms));
	return 0;
}

/* sigdup: the kept display's X fd, which the handler copies and closes. */
static volatile sig_atomic_t sig_dup_fd = -1;

static void on_alarm_close(int sig)
{
	(void)sig;
	int saved = errno;
	if (sig_dup_fd >= 0) {
		int d = dup(sig_dup_fd); /* dup and close: async-signal-safe */
		if (d >= 0)
			close(d);
	} else {
		close(FD_SETSIZE + 7); /* never opened here: EBADF */
	}
	errno = saved;
	atomic_fetch_add(&alarms, 1);
}

static int sigclose(int n, bool copies)
{
	struct sigaction sa = { .sa_handler = on_alarm_close }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	Display *keep = XOpenDisplay(NULL); /* an attached ring: close looks at the table */
	if (!keep)
		return fail("XOpenDisplay");
	if (copies)
		sig_dup_fd = ConnectionNumber(keep);
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < n; i++) {
		Display *d = XOpenDisplay(NULL);
		if (!d)
			return fail("XOpenDisplay under SIGALRM");
		XSync(d, False);
		XCloseDisplay(d);
	}
	it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &it, NULL);
	sig_dup_fd = -1;
	for (int i = 0; i < 20; i++) {
		Window r, c;
		int rx, ry, wx, wy;
		unsigned m;
		if (!XQueryPointer(keep, DefaultRootWindow(keep), &r, &c, &rx, &ry, &wx, &wy, &m))
			return fail("a round trip on the kept display");
	}
	XCloseDisplay(keep);
	printf("ok %s %d displays opened and closed, %d alarms\n", copies ? "sigdup" : "sigclose",
			n, atomic_load(&alarms));
	return 0;
}

/* ---- the program's own writer ------------------------------------------ */

static void return_socket(void *closure)
{
	(void)closure;
}

/* The program wrote `requests` requests itself inside xcb_take_socket
 * (which reported `sent`), the last a GetInputFocus: libxcb is told, and
 * the GetInputFocus's reply must come. */
static bool told_and_answered(uint64_t sent, unsigned requests)
{
	struct iovec none = { .iov_base = NULL, .iov_len = 0 };
	if (!xcb_writev(conn, &none, 0, requests))
		return false;
	xcb_get_input_focus_cookie_t ck = { (unsigned)(sent + requests) };
	xcb_get_input_focus_reply_t *r = xcb_get_input_focus_reply(conn, ck, NULL);
	bool answered = r != NULL;
	free(r);
	return answered;
}

static int raw_write(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < n; i++) {
		uint64_t sent = 0;
		if (!xcb_take_socket(conn, return_socket, NULL, 0, &sent))
			return fail("xcb_take_socket");
		/* GetInputFocus: opcode 43, length 1 (4 bytes). */
		uint8_t req[4] = { 43, 0, 1, 0 };
		ssize_t w = -1;
		if (i % 3 == 0) {
			w = write(xfd, req, sizeof(req));
		} else if (i % 3 == 1) {
			w = send(xfd, req, sizeof(req), MSG_NOSIGNAL);
		} else { /* one message through sendmmsg (session 37) */
			struct iovec iov = { .iov_base = req, .iov_len = sizeof(req) };
			struct mmsghdr mm = { .msg_hdr = { .msg_iov = &iov, .msg_iovlen = 1 } };
			if (sendmmsg(xfd, &mm, 1, MSG_NOSIGNAL) == 1)
				w = (ssize_t)mm.msg_len;
		}
		if (w != (ssize_t)sizeof(req))
			return fail("the program's own write on the X fd");
		if (!told_and_answered(sent, 1))
			return fail("no reply to the program's own GetInputFocus");
		if (!round_trip())
			return fail("a round trip after the program's own write");
	}
	printf("ok raw-write %d requests written by the program itself\n", n);
	return 0;
}

/* ---- copies of the X fd ------------------------------------------------- */

/* The program's own ChangeProperty of WM_NAME on w to the 4 bytes v, and
 * GetInputFocus, written with write() on fd (any number naming the X
 * socket), between libxcb's requests: libxcb's buffer is flushed first
 * (xcb_take_socket) and is told afterwards what went out. Then the
 * GetInputFocus's reply must come, and WM_NAME must read v: what the
 * program wrote through fd went to the server after libxcb's earlier
 * requests and before its later ones. */
static bool write_own_requests(int fd, xcb_window_t w, uint32_t v)
{
	uint8_t req[28] = { XCB_CHANGE_PROPERTY, XCB_PROP_MODE_REPLACE, 7, 0 };
	uint32_t words[5] = { w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8, 4 };
	memcpy(req + 4, words, sizeof(words));
	memcpy(req + 24, &v, 4);
	uint8_t focus[4] = { XCB_GET_INPUT_FOCUS, 0, 1, 0 };
	return write(fd, req, sizeof(req)) == (ssize_t)sizeof(req) &&
			write(fd, focus, sizeof(focus)) == (ssize_t)sizeof(focus);
}

static bool own_requests_through(int fd, xcb_window_t w, uint32_t v)
{
	uint64_t sent = 0;
	if (!xcb_take_socket(conn, return_socket, NULL, 0, &sent))
		return false;
	return write_own_requests(fd, w, v) && told_and_answered(sent, 2);
}

/* libxcb's own ChangeProperty to v, then WM_NAME read back must be want. */
static bool property_is(xcb_window_t w, uint32_t want)
{
	xcb_get_property_reply_t *r = xcb_get_property_reply(conn,
			xcb_get_property(conn, 0, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 0, 1),
			NULL);
	bool ok = r && xcb_get_property_value_length(r) == 4 &&
			!memcmp(xcb_get_property_value(r), &want, 4);
	free(r);
	return ok;
}

/* libxcb's ChangeProperty (queued), the program's own through fd, libxcb's
 * read: the read must see the program's value. */
static bool interleaved(int fd, xcb_window_t w, uint32_t i)
{
	touch_property(w, 0x10000 + i);
	return own_requests_through(fd, w, 0x20000 + i) && property_is(w, 0x20000 + i) &&
			round_trip();
}

static int free_number(int from)
{
	while (fcntl(from, F_GETFD) >= 0)
		from++;
	return from;
}

static int dup_write(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	xcb_window_t w = make_window();
	for (int i = 0; i < n; i++) {
		int d;
		const char *how;
		switch (i % 5) {
		case 0:
			how = "dup";
			d = dup(xfd);
			break;
		case 1:
			how = "F_DUPFD_CLOEXEC";
			d = fcntl(xfd, F_DUPFD_CLOEXEC, 3);
			break;
		case 2:
			how = "F_DUPFD";
			d = fcntl(xfd, F_DUPFD, 100);
			break;
		case 3:
			how = "dup2";
			d = dup2(xfd, free_number(200 + i));
			break;
		default:
			how = "dup3";
			d = dup3(xfd, free_number(300 + i), O_CLOEXEC);
			break;
		}
		if (d < 0)
			return fail(how);
		if (!interleaved(d, w, (uint32_t)i)) {
			printf("round %d, a copy made with %s\n", i, how);
			return fail("requests written through a copy of the X fd");
		}
		close(d);
		if (!round_trip())
			return fail("a round trip after the copy was closed");
	}
	printf("ok dup-write %d rounds through copies of the X fd, in order\n", n);
	return 0;
}

static int dup_close(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	int reused = 0; /* rounds in which /dev/null took the X fd's number */
	for (int i = 0; i < n; i++) {
		uint64_t sent = 0;
		if (!xcb_take_socket(conn, return_socket, NULL, 0, &sent))
			return fail("xcb_take_socket");
		int save = (i & 1) ? fcntl(xfd, F_DUPFD_CLOEXEC, 3) : dup(xfd);
		if (save < 0 || close(xfd) != 0)
			return fail("dup / close of the X fd");
		/* Another file on the number, written: its bytes are its own. */
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
		uint8_t focus[4] = { XCB_GET_INPUT_FOCUS, 0, 1, 0 };
		if (null < 0 || write(null, focus, sizeof(focus)) != (ssize_t)sizeof(focus))
			return fail("a write to /dev/null after the X fd was closed");
		reused += null == xfd;
		close(null);
		if (write(save, focus, sizeof(focus)) != (ssize_t)sizeof(focus))
			return fail("a write through the copy after the X fd was closed");
		if (dup2(save, xfd) != xfd || close(save) != 0)
			return fail("the copy put back with dup2");
		if (!told_and_answered(sent, 1))
			return fail("no reply to the GetInputFocus written through the copy");
		if (!round_trip())
			return fail("a round trip after the X fd was put back");
	}
	if (reused != n) /* else the write to /dev/null above proves nothing */
		return fail("/dev/null did not take the closed X fd's number every round");
	printf("ok dup-close %d rounds: X fd closed, written through its copy, put back; "
	       "/dev/null on its number in %d\n",
			n, reused);
	return 0;
}

static int dup_fork(bool child_writes)
{
	int xfd = xcb_get_file_descriptor(conn);
	xcb_window_t w = make_window();
	int d = dup(xfd);
	if (d < 0 || !round_trip())
		return fail("dup");
	pid_t pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		if (!child_writes) {
			close(d);
			_exit(0);
		}
		/* Its first write is through the copy. */
		bool ok = own_requests_through(d, w, 99) && property_is(w, 99);
		for (uint32_t i = 0; i < 10 && ok; i++)
			ok = interleaved(d, w, 100 + i);
		_exit(ok ? 0 : 3);
	}
	int status = 0;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("child status %#x\n", status);
		return fail(child_writes ? "the fork child writing through the copy" :
					   "the fork child");
	}
	if (child_writes) {
		/* The connection is the child's now, as on a socket after
		 * xclip's fork: the parent only lets it go. */
		close(d);
		printf("ok dup-fork-child the child wrote through the copy\n");
		return 0;
	}
	for (uint32_t i = 0; i < 10; i++) {
		if (!interleaved(i & 1 ? d : xfd, w, 200 + i))
			return fail("the parent's requests through the copy after the fork");
	}
	close(d);
	printf("ok dup-fork the parent went on through the copy\n");
	return 0;
}

static atomic_bool stop_copying;

/* Copies of the X fd made and closed on another thread, none written. */
static void *copy_and_close(void *arg)
{
	int xfd = *(int *)arg;
	long rounds = 0;
	while (!atomic_load(&stop_copying)) {
		int d = rounds % 3 == 0         ? dup(xfd) :
				rounds % 3 == 1 ? fcntl(xfd, F_DUPFD_CLOEXEC, 50) :
						  dup2(xfd, 90);
		if (d < 0 || close(d) != 0)
			return (void *)1;
		rounds++;
	}
	return (void *)rounds;
}

static int dup_threads(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	pthread_t t;
	if (pthread_create(&t, NULL, copy_and_close, &xfd) != 0)
		return fail("pthread_create");
	bool ok = true;
	for (int i = 0; i < n && ok; i++)
		ok = round_trip();
	atomic_store(&stop_copying, true);
	void *rounds;
	pthread_join(t, &rounds);
	if (!ok)
		return fail("a round trip while another thread copies the X fd");
	if (rounds == (void *)1)
		return fail("dup or close on the copying thread");
	printf("ok dup-threads %d round trips, %ld copies made and closed meanwhile\n", n,
			(long)rounds);
	return 0;
}

static int dup_many(int n)
{
	int xfd = xcb_get_file_descriptor(conn);
	xcb_window_t w = make_window();
	int *d = calloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
		d[i] = dup(xfd);
		if (d[i] < 0)
			return fail("dup");
		if (!interleaved(d[i], w, (uint32_t)i))
			return fail("requests through one of many copies");
	}
	for (int i = 0; i < n; i++) {
		close(d[i]);
		if (!interleaved(i + 1 < n ? d[i + 1] : xfd, w, 1000 + (uint32_t)i))
			return fail("requests after a copy was closed");
	}
	free(d);
	printf("ok dup-many %d copies open at once, each written through\n", n);
	return 0;
}

/* ---- copies the shim cannot see (session 36) ---------------------------- */

enum escape {
	SPAWN_DUP2,
	VFORK_DUP2,
	SEND_FD,
	SEND_FD_MMSG,
	INHERIT,
	VFORK_INHERIT,
	SYSTEM_INHERIT,
	POPEN_DUP,
	VFORK_EXECL,
	FORK_EXEC,
	RAW_DUP
};
static bool self_path(char *buf, size_t n);

/* Session 40: the child started the ways glibc starts programs through
 * internal calls no wrapper of posix_spawn or execve sees: system() with
 * the X fd's FD_CLOEXEC cleared, popen() holding a dup() copy (copies
 * have no FD_CLOEXEC), execl() and its kin or fexecve() in a vfork child
 * with FD_CLOEXEC cleared there. The child writes its requests raw on the number it inherited. */
static int child_writes_via_libc(enum escape how, int xfd, char *const argv[])
{
	char self[4096], cmd[4400];
	if (!self_path(self, sizeof(self)))
		return -1;
	int fd = how == POPEN_DUP ? dup(xfd) : xfd;
	if (fd < 0)
		return -1;
	snprintf(cmd, sizeof(cmd), "exec '%s' child-write %d %s %s", self, fd, argv[3], argv[4]);
	int rc = -1;
	if (how == SYSTEM_INHERIT) {
		if (fcntl(xfd, F_SETFD, 0) != 0)
			return -1;
		int status = system(cmd);
		fcntl(xfd, F_SETFD, FD_CLOEXEC);
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	} else if (how == POPEN_DUP) {
		FILE *f = popen(cmd, "r");
		int status = f ? pclose(f) : -1;
		close(fd);
		rc = status < 0                   ? -1 :
				WIFEXITED(status) ? WEXITSTATUS(status) :
						    128 + WTERMSIG(status);
	} else {
		/* Each round another of the exec calls glibc makes through
		 * internal ones: execl, execle, execlp, fexecve. */
		static unsigned round;
		unsigned way = round++ % 4;
		extern char **environ;
		char fd_arg[16];
		snprintf(fd_arg, sizeof(fd_arg), "%d", xfd);
		char *child_argv[] = { "smt-x11-fdio", "child-write", fd_arg, argv[3], argv[4],
			NULL };
		int exe = way == 3 ? open(self, O_RDONLY | O_CLOEXEC) : -1;
		pid_t pid = vfork();
		if (pid == 0) {
			if (fcntl(xfd, F_SETFD, 0) != 0)
				_exit(127);
			if (way == 0)
				execl(self, "smt-x11-fdio", "child-write", fd_arg, argv[3], argv[4],
						(char *)NULL);
			else if (way == 1)
				execle(self, "smt-x11-fdio", "child-write", fd_arg, argv[3],
						argv[4], (char *)NULL, environ);
			else if (way == 2)
				execlp(self, "smt-x11-fdio", "child-write", fd_arg, argv[3],
						argv[4], (char *)NULL);
			else
				fexecve(exe, child_argv, environ);
			_exit(127);
		}
		if (exe >= 0)
			close(exe);
		int status = 0;
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return -1;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	}
	return rc;
}
#define CHILD_FD 50

/* Session 41: a copy made by the raw dup syscall (the shim never sees
 * it), written by this process itself with write(), then closed raw. */
static int raw_dup_writes(int xfd, char *const argv[])
{
	int copy = (int)syscall(SYS_dup, xfd);
	if (copy < 0)
		return -1;
	int rc = write_own_requests(copy, (xcb_window_t)strtoul(argv[3], NULL, 10),
				 (uint32_t)strtoul(argv[4], NULL, 10)) ?
			0 :
			3;
	syscall(SYS_close, copy);
	return rc;
}

/* This program again as `child-write 50 W V`, fd 50 a copy of the X fd
 * made in the child (a posix_spawn file action, or dup2 in a vfork child
 * before it execs); its exit status. */
static int child_writes(enum escape how, int xfd, xcb_window_t w, uint32_t v)
{
	extern char **environ;
	char fd_arg[16], w_arg[16], v_arg[16];
	snprintf(fd_arg, sizeof(fd_arg), "%d", CHILD_FD);
	snprintf(w_arg, sizeof(w_arg), "%u", (unsigned)w);
	snprintf(v_arg, sizeof(v_arg), "%u", (unsigned)v);
	bool sends = how == SEND_FD || how == SEND_FD_MMSG;
	char *argv[] = { "smt-x11-fdio", sends ? "child-recv-write" : "child-write", fd_arg, w_arg,
		v_arg, NULL };
	pid_t pid = -1;
	if (how == RAW_DUP)
		return raw_dup_writes(xfd, argv);
	if (how >= SYSTEM_INHERIT && how <= VFORK_EXECL)
		return child_writes_via_libc(how, xfd, argv);
	if (how == INHERIT) {
		/* The X fd itself, its FD_CLOEXEC cleared: no file action. */
		snprintf(fd_arg, sizeof(fd_arg), "%d", xfd);
		if (fcntl(xfd, F_SETFD, 0) != 0 ||
				posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0)
			return -1;
		fcntl(xfd, F_SETFD, FD_CLOEXEC);
	} else if (sends) {
		/* The child gets a Unix socket on 50 and the X fd through it
		 * (sendmsg, or sendmmsg with one message). */
		int pair[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
			return -1;
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, pair[1], CHILD_FD);
		int e = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		close(pair[1]);
		union {
			char buf[CMSG_SPACE(sizeof(int))];
			struct cmsghdr align;
		} u;
		memset(&u, 0, sizeof(u));
		struct iovec iov = { .iov_base = "x", .iov_len = 1 };
		struct msghdr m = { .msg_iov = &iov,
			.msg_iovlen = 1,
			.msg_control = u.buf,
			.msg_controllen = sizeof(u.buf) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &xfd, sizeof(int));
		struct mmsghdr mm = { .msg_hdr = m };
		bool sent = e == 0 &&
				(how == SEND_FD ? sendmsg(pair[0], &m, MSG_NOSIGNAL) == 1 :
						  sendmmsg(pair[0], &mm, 1, MSG_NOSIGNAL) == 1);
		close(pair[0]);
		if (e != 0)
			return -1;
		if (!sent)
			kill(pid, SIGKILL);
	} else if (how == SPAWN_DUP2) {
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, xfd, CHILD_FD);
		int e = posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
		if (e != 0)
			return -1;
	} else if (how == FORK_EXEC) {
		/* Session 41: a fork child (libc's fork) that execs a program
		 * inheriting the X fd (FD_CLOEXEC cleared in the child); the
		 * parent keeps its connection meanwhile. */
		snprintf(fd_arg, sizeof(fd_arg), "%d", xfd);
		pid = fork();
		if (pid == 0) {
			if (fcntl(xfd, F_SETFD, 0) == 0)
				execve("/proc/self/exe", argv, environ);
			_exit(127);
		}
	} else {
		if (how == VFORK_INHERIT)
			snprintf(fd_arg, sizeof(fd_arg), "%d", xfd);
		pid = vfork();
		if (pid == 0) {
			/* The child's fd table is its own: the parent's X fd keeps
			 * FD_CLOEXEC. */
			if (how == VFORK_INHERIT ? fcntl(xfd, F_SETFD, 0) == 0 :
						   dup2(xfd, CHILD_FD) == CHILD_FD)
				execve("/proc/self/exe", argv, environ);
			_exit(127);
		}
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static atomic_bool stop_writing;

/* libxcb's requests, flushed one by one, until told to stop. */
static void *write_properties(void *arg)
{
	(void)arg;
	static uint8_t big[8192];
	while (!atomic_load(&stop_writing)) {
		xcb_change_property(conn, XCB_PROP_MODE_REPLACE, screen->root, XCB_ATOM_CUT_BUFFER0,
				XCB_ATOM_STRING, 8, sizeof(big), big);
		xcb_flush(conn);
	}
	return NULL;
}

/* Starts write_properties on a thread of its own, after a pause that
 * differs by connection k (the race's other side lands at different
 * points of the writes); false if no thread. */
static bool start_writer(pthread_t *t, int k)
{
	atomic_store(&stop_writing, false);
	if (pthread_create(t, NULL, write_properties, NULL) != 0)
		return false;
	usleep((useconds_t)(k % 10) * 200);
	return true;
}

/* Lets the writer go on a moment past the main thread's part, then ends it. */
static void stop_writer(pthread_t t)
{
	usleep(1000);
	atomic_store(&stop_writing, true);
	pthread_join(t, NULL);
}

/* The hand-off on the main thread while another writes; n connections. */
static int spawn_race(int n)
{
	for (int k = 0; k < n; k++) {
		if (!connect_default())
			return fail("xcb_connect");
		pthread_t t;
		if (!start_writer(&t, k))
			return fail("pthread_create");
		posix_spawn_file_actions_t fa;
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, xcb_get_file_descriptor(conn), CHILD_FD);
		posix_spawn_file_actions_destroy(&fa);
		stop_writer(t);
		if (!round_trip()) {
			printf("connection %d\n", k);
			return fail("a round trip after a hand-off beside another thread's writes");
		}
		xcb_disconnect(conn);
	}
	conn = NULL;
	printf("ok spawn-race %d connections handed off beside another thread's writes\n", n);
	return 0;
}

/* The ring's eventfd, found as a program that closes what it does not
 * know would find it; -1 if none. */
static int ring_eventfd(void)
{
	for (int fd = 0; fd < 4096; fd++) {
		char path[64], link[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t k = readlink(path, link, sizeof(link) - 1);
		if (k > 0) {
			link[k] = '\0';
			if (strstr(link, "eventfd"))
				return fd;
		}
	}
	return -1;
}

/* One of the older ways back to the socket, taken while another thread
 * writes: 0 dup2 of an unseen copy onto the X fd's number, 1 an eighth
 * copy, 2 the ring's eventfd closed. False if the program's own part
 * failed. */
static bool revert_by(int way, int xfd)
{
	if (way == 0) {
		/* A copy the shim does not see, put back on the X fd's number:
		 * the number is replaced, the socket stays under it. */
		int unseen = (int)syscall(SYS_dup, xfd);
		bool ok = unseen >= 0 && dup2(unseen, xfd) == xfd;
		if (unseen >= 0)
			syscall(SYS_close, unseen);
		return ok;
	}
	if (way == 1) {
		int copies[8], made = 0;
		while (made < 8 && (copies[made] = dup(xfd)) >= 0)
			made++;
		for (int i = 0; i < made; i++)
			close(copies[i]);
		return made == 8;
	}
	int efd = ring_eventfd();
	return efd >= 0 && close(efd) == 0;
}

/* The older REVERTs on the main thread while another writes; n
 * connections, the three ways in turn. */
static int revert_race(int n)
{
	static const char *const ways[] = { "dup2 onto the X fd", "an eighth copy",
		"closing the ring's eventfd" };
	for (int k = 0; k < n; k++) {
		if (!connect_default())
			return fail("xcb_connect");
		int fds = count_fds();
		if (count_ring_maps() < 1)
			return fail("the connection is not on the ring");
		pthread_t t;
		if (!start_writer(&t, k))
			return fail("pthread_create");
		bool done = revert_by(k % 3, xcb_get_file_descriptor(conn));
		stop_writer(t);
		if (!done) {
			printf("connection %d: %s\n", k, ways[k % 3]);
			return fail("the program's own part");
		}
		if (!round_trip()) {
			printf("connection %d: %s\n", k, ways[k % 3]);
			return fail("a round trip after a REVERT beside another thread's writes");
		}
		xcb_disconnect(conn);
		/* The X socket, the ring's eventfd (closed by the program in
		 * the third way) and its wake socket. */
		int left = count_fds();
		if (count_ring_maps() != 0 || left != fds - 3) {
			printf("connection %d: %s: %d ring mappings, %d fds (%d before the close)\n",
					k, ways[k % 3], count_ring_maps(), left, fds);
			return fail("the ring's resources after the close");
		}
	}
	conn = NULL;
	printf("ok revert-race %d connections reverted beside another thread's writes\n", n);
	return 0;
}

/* ---- a signal handler inside its own thread's write (session 37) ------ */

/* What the handler acts on, set before the timer runs; it acts once,
 * at the first alarm that comes while the main thread is inside a 1 MiB
 * request's call (sig_in_writes), which is libxcb's writev into the
 * ring nearly all its time. */
static volatile sig_atomic_t sig_ring_fd = -1, sig_xfd = -1, sig_acted, sig_in_writes;

/* Closes one of the ring's own fds (close is async-signal-safe), as a
 * handler closing fds it believes are its own would. */
static void on_alarm_close_ring_fd(int sig)
{
	(void)sig;
	int saved = errno;
	if (!sig_acted && sig_in_writes) {
		sig_acted = 1;
		close(sig_ring_fd);
	}
	errno = saved;
}

/* Eight copies of the X fd made and closed (dup and close are
 * async-signal-safe): one more than the shim keeps names for, a REVERT
 * asked for inside this thread's write. */
static void on_alarm_eight_copies(int sig)
{
	(void)sig;
	int saved = errno;
	if (!sig_acted && sig_in_writes) {
		sig_acted = 1;
		int copies[8], made = 0;
		while (made < 8 && (copies[made] = dup(sig_xfd)) >= 0)
			made++;
		for (int i = 0; i < made; i++)
			close(copies[i]);
	}
	errno = saved;
}

/* What the handler does. */
enum in_write {
	CLOSE_EVENTFD,
	CLOSE_WAKE_SOCKET,
	EIGHT_COPIES
};

/* The ring's wake socket: the one socket besides the X fd. */
static int ring_wake_socket(int xfd)
{
	for (int fd = 0; fd < 4096; fd++) {
		char path[64], link[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t k = readlink(path, link, sizeof(link) - 1);
		if (k > 0 && fd != xfd) {
			link[k] = '\0';
			if (!strncmp(link, "socket:", 7))
				return fd;
		}
	}
	return -1;
}

/* n connections; on each the handler acts once while 1 MiB requests go
 * through a (small) ring (each write waits for room many times); every
 * request must arrive and the connection go on. */
static int sig_in_write(int n, enum in_write how)
{
	static const char *const names[] = { "sig-close-efd", "sig-close-wake", "sig-revert" };
	const char *name = names[how];
	struct sigaction sa = {
		.sa_handler = how == EIGHT_COPIES ? on_alarm_eight_copies : on_alarm_close_ring_fd
	}; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	size_t len = 1024u * 1024u; /* BigRequests: libxcb's own */
	uint8_t *data = malloc(len);
	for (int k = 0; k < n; k++) {
		if (!connect_default())
			return fail("xcb_connect");
		/* BigRequests' round trip now, not inside the first request's
		 * call (where the handler would come during libxcb's wait
		 * for its reply, outside any write). */
		xcb_get_maximum_request_length(conn);
		if (count_ring_maps() < 1)
			return fail("the connection is not on the ring");
		xcb_window_t w = make_window();
		sig_xfd = xcb_get_file_descriptor(conn);
		sig_ring_fd = how == CLOSE_WAKE_SOCKET ? ring_wake_socket(sig_xfd) : ring_eventfd();
		if (sig_ring_fd < 0)
			return fail("no ring eventfd or wake socket");
		sig_acted = 0;
		struct itimerval it = { { 0, 200 }, { 0, 200 } };
		setitimer(ITIMER_REAL, &it, NULL);
		uint8_t last = 0;
		for (int i = 0; i < 8 || !sig_acted; i++) {
			last = (uint8_t)(k * 8 + i);
			memset(data, last, len);
			sig_in_writes = 1;
			xcb_change_property(conn, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_CUT_BUFFER0,
					XCB_ATOM_STRING, 8, (uint32_t)len, data);
			xcb_flush(conn);
			sig_in_writes = 0;
		}
		it = (struct itimerval){ { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &it, NULL);
		xcb_get_property_reply_t *r = xcb_get_property_reply(conn,
				xcb_get_property(conn, 0, w, XCB_ATOM_CUT_BUFFER0, XCB_ATOM_STRING,
						(uint32_t)(len / 4 - 1), 1),
				NULL);
		bool right = r && xcb_get_property_value_length(r) == 4 &&
				((uint8_t *)xcb_get_property_value(r))[3] == last;
		free(r);
		if (!right || !round_trip()) {
			printf("connection %d\n", k);
			return fail("the last property or a round trip after the handler");
		}
		xcb_disconnect(conn);
	}
	conn = NULL;
	free(data);
	printf("ok %s %d connections, the handler inside a request's call in each\n", name, n);
	return 0;
}

/* ---- helpers started while connected (session 37) ----------------------- */

/* This program's own path, for children started through a shell. */
static bool self_path(char *buf, size_t n)
{
	ssize_t k = readlink("/proc/self/exe", buf, n - 1);
	if (k <= 0)
		return false;
	buf[k] = '\0';
	return true;
}

/* A helper: its own X connection, on the ring, round trips; the X fd it
 * may have inherited from its parent is left alone. */
static int child_connect(void)
{
	if (!connect_default())
		return 3;
	bool ok = count_ring_maps() >= 1;
	for (int i = 0; i < 5 && ok; i++)
		ok = round_trip();
	xcb_disconnect(conn);
	printf("ok child-connect\n");
	return ok ? 0 : 4;
}

/* The parent's requests go on, and are answered, while and after a
 * helper runs. */
static bool parent_draws(xcb_window_t w, uint32_t v)
{
	touch_property(w, v);
	return property_is(w, v) && round_trip();
}

/* Helpers started the ways programs start them while connected (xdg-open
 * and friends, a terminal's or an editor's shell commands): system(),
 * popen(), and fork + exec with the X fd's FD_CLOEXEC cleared (the child
 * inherits it and never writes it), each helper opening its own
 * connection; n rounds. The parent's connection stays on the ring. */
static int helpers(int n)
{
	char self[4096], cmd[4200];
	if (!self_path(self, sizeof(self)))
		return fail("readlink /proc/self/exe");
	snprintf(cmd, sizeof(cmd), "exec '%s' child-connect", self);
	int xfd = xcb_get_file_descriptor(conn);
	xcb_window_t w = make_window();
	for (int i = 0; i < n; i++) {
		uint32_t v = 0x40000u + (uint32_t)i * 4u;
		int rc = system(cmd);
		if (rc != 0 || !parent_draws(w, v)) {
			printf("round %d: system() %d\n", i, rc);
			return fail("a helper through system(), or the parent after it");
		}
		FILE *f = popen(cmd, "r");
		char line[64] = "";
		bool said = f && fgets(line, sizeof(line), f) &&
				!strcmp(line, "ok child-connect\n");
		rc = f ? pclose(f) : -1;
		if (!said || rc != 0 || !parent_draws(w, v + 1)) {
			printf("round %d: popen() %d, said '%s'\n", i, rc, line);
			return fail("a helper through popen(), or the parent after it");
		}
		if (fcntl(xfd, F_SETFD, 0) != 0)
			return fail("FD_CLOEXEC cleared");
		pid_t pid = fork();
		if (pid == 0) {
			execl(self, "smt-x11-fdio", "child-connect", (char *)NULL);
			_exit(127);
		}
		fcntl(xfd, F_SETFD, FD_CLOEXEC);
		/* The parent draws while the child holds a copy of its X fd. */
		int status = -1;
		bool ok = pid > 0;
		for (uint32_t k = 0; ok; k++) {
			ok = parent_draws(w, v + 2 + (k & 1));
			pid_t done = waitpid(pid, &status, WNOHANG);
			if (done == pid)
				break;
			if (done < 0)
				ok = false;
		}
		if (!ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
				!parent_draws(w, v + 3)) {
			printf("round %d: fork+exec status %d\n", i, status);
			return fail("a fork+exec helper holding the X fd, or the parent beside it");
		}
	}
	if (count_ring_maps() < 1)
		return fail("the parent's connection left the ring");
	printf("ok helpers %d rounds of system(), popen() and fork+exec with the X fd inherited\n",
			n);
	return 0;
}

/* The fd that came with one byte on the Unix socket sock; -1 if none. */
static int received_fd(int sock)
{
	char byte;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr m = { .msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = u.buf,
		.msg_controllen = sizeof(u.buf) };
	if (recvmsg(sock, &m, 0) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	int fd = -1;
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

static int escaped(enum escape how, int n)
{
	static const char *const names[] = { "spawn-dup2", "vfork-dup2", "send-fd", "send-fd-mmsg",
		"inherit", "vfork-inherit", "system-inherit", "popen-dup", "vfork-execl",
		"fork-exec", "raw-dup" };
	int xfd = xcb_get_file_descriptor(conn);
	xcb_window_t w = make_window();
	int fds = count_fds(); /* the X socket and the ring's eventfd and wake socket among them */
	if (count_ring_maps() < 1)
		return fail("the connection is not on the ring");
	for (int i = 0; i < n; i++) {
		uint32_t v = 0x30000u + (uint32_t)i;
		touch_property(w, 0x10000u + (uint32_t)i);
		uint64_t sent = 0;
		if (!xcb_take_socket(conn, return_socket, NULL, 0, &sent))
			return fail("xcb_take_socket");
		int rc = child_writes(how, xfd, w, v);
		if (rc != 0) {
			printf("round %d: the child exited with %d\n", i, rc);
			return fail("the child writing the X fd");
		}
		if (!told_and_answered(sent, 2)) {
			printf("round %d\n", i);
			return fail("no reply to the GetInputFocus written through the unseen copy");
		}
		if (!property_is(w, v) || !round_trip()) {
			printf("round %d\n", i);
			return fail("the property written through the unseen copy");
		}
	}
	/* Handed off, the slot keeps the ring's pages and fds until the
	 * connection is closed: then all are given back. */
	xcb_disconnect(conn);
	conn = NULL;
	if (count_ring_maps() != 0 || count_fds() != fds - 3) {
		printf("%d ring mappings, %d fds (%d before the close)\n", count_ring_maps(),
				count_fds(), fds);
		return fail("the ring's resources after the close");
	}
	printf("ok %s %d rounds written through a copy the shim did not see\n", names[how], n);
	return 0;
}

/* ---- fds closed where the shim cannot see (session 40) ----------------- */

/* A socket pair on the closed X fd's number xfd keeps its own bytes. It
 * takes the lowest numbers, the X fd's among them (libxcb's first
 * connection has the lowest free). */
static bool file_on_old_number(int xfd, int i)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		fail("socketpair");
		return false;
	}
	if (sv[0] != xfd && sv[1] != xfd && dup2(sv[0], xfd) == xfd) {
		close(sv[0]);
		sv[0] = xfd;
	}
	int wr = sv[1] == xfd ? sv[1] : sv[0];
	int rd = wr == sv[0] ? sv[1] : sv[0];
	char got[8] = "";
	/* Written as a program's own writer (write), and as libxcb and
	 * libwayland write (writev, sendmsg), round by round. */
	struct iovec iov = { .iov_base = "pipe!", .iov_len = 5 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t w = i % 3 == 0     ? write(wr, "pipe!", 5) :
			i % 3 == 1 ? writev(wr, &iov, 1) :
				     sendmsg(wr, &m, MSG_NOSIGNAL);
	bool piped = w == 5 && read(rd, got, sizeof(got)) == 5 && !memcmp(got, "pipe!", 5);
	close(wr);
	close(rd);
	if (!piped) {
		printf("round %d: the socket on %d (writing %d) read back '%.5s'\n", i, xfd, wr,
				got);
		fail("bytes written to a socket on the closed X fd's number");
		return false;
	}
	return true;
}

/* ---- the old number reused by files that are no new socket (session 42) */

#define CARRIER_FD 500

/* A socket pair to carry an fd (carry) and the socket pair whose one end
 * it passes (passed), all four above CARRIER_FD - 1, where the raw close
 * does not reach. */
static bool carrier_above(int carry[2], int passed[2])
{
	int a[2], b[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, a) != 0 ||
			socketpair(AF_UNIX, SOCK_STREAM, 0, b) != 0) {
		fail("socketpair for the carrier");
		return false;
	}
	int from[4] = { a[0], a[1], b[0], b[1] };
	int *to[4] = { &carry[0], &carry[1], &passed[0], &passed[1] };
	for (int k = 0; k < 4; k++) {
		*to[k] = fcntl(from[k], F_DUPFD, CARRIER_FD + k);
		close(from[k]);
		if (*to[k] < CARRIER_FD) {
			fail("the carrier above the raw close");
			return false;
		}
	}
	return true;
}

/* Holds every free number below xfd (/dev/null), so that the next new
 * file takes xfd; returns how many, their numbers in held. */
static int hold_below(int xfd, int held[], int max)
{
	int k = 0;
	for (int fd = 3; fd < xfd && k < max; fd++)
		if (fcntl(fd, F_GETFD) < 0 && (held[k] = open("/dev/null", O_RDONLY)) >= 0)
			k++;
	return k;
}

static bool read_back(int fd, const char *what, int i, int xfd)
{
	char got[8] = "";
	bool ok = pread(fd, got, 5, 0) == 5 && !memcmp(got, "pipe!", 5);
	if (!ok) {
		printf("round %d: %s on %d read back '%.5s'\n", i, what, xfd, got);
		fail("bytes written to a file on the closed X fd's number");
	}
	return ok;
}

/* Round i puts on the closed X fd's number xfd, in turn: a pipe's read
 * end (a write to it is refused, EBADF, as the kernel does; before, the
 * shim took the bytes into the dead ring), a file from open(), a file
 * from fopen(), a socket received with SCM_RIGHTS through carry (the
 * other end of passed), a file from mkstemp(), one from tmpfile(), a
 * memfd, an eventfd (its count read back). Each written at once with writev (sendmsg on the
 * socket), as libxcb writes, before the X server has seen the old
 * socket's end, and read back. */
static bool other_file_on_old_number(int xfd, int i, int carry[2], int passed[2])
{
	int held[64];
	int nheld = hold_below(xfd, held, 64);
	char path[64];
	snprintf(path, sizeof(path), "/tmp/smt-x11-fdio-%d", (int)getpid());
	struct iovec iov = { .iov_base = "pipe!", .iov_len = 5 };
	int kind = i % 8, fd = -1, other = -1;
	char tmpl[] = "/tmp/smt-x11-fdio-XXXXXX";
	bool ok = false;
	FILE *f = NULL;
	const char *what = kind == 0 ? "a pipe's read end" :
			kind == 1    ? "a file from open()" :
			kind == 2    ? "a file from fopen()" :
			kind == 3    ? "a socket received with SCM_RIGHTS" :
			kind == 4    ? "a file from mkstemp()" :
			kind == 5    ? "a file from tmpfile()" :
			kind == 6    ? "a memfd" :
				       "an eventfd";
	if (kind == 0) {
		int p[2];
		if (pipe(p) == 0) {
			fd = p[0];
			other = p[1];
		}
	} else if (kind == 1) {
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	} else if (kind == 2) {
		f = fopen(path, "w+");
		fd = f ? fileno(f) : -1;
	} else if (kind == 4) {
		fd = mkstemp(tmpl);
		if (fd >= 0)
			unlink(tmpl);
	} else if (kind == 5) {
		f = tmpfile();
		fd = f ? fileno(f) : -1;
	} else if (kind == 6) {
		fd = memfd_create("smt-x11-fdio", 0);
	} else if (kind == 7) {
		fd = eventfd(0, 0);
	} else {
		char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
		char byte = 'f';
		struct iovec one = { .iov_base = &byte, .iov_len = 1 };
		struct msghdr m = { .msg_iov = &one,
			.msg_iovlen = 1,
			.msg_control = cbuf,
			.msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &passed[0], sizeof(int));
		if (sendmsg(carry[0], &m, MSG_NOSIGNAL) == 1) {
			memset(cbuf, 0, sizeof(cbuf));
			m.msg_controllen = sizeof(cbuf);
			if (recvmsg(carry[1], &m, 0) == 1 && (c = CMSG_FIRSTHDR(&m)) &&
					c->cmsg_type == SCM_RIGHTS)
				memcpy(&fd, CMSG_DATA(c), sizeof(int));
		}
	}
	if (fd != xfd) {
		printf("round %d: %s got %d, not the X fd's old %d\n", i, what, fd, xfd);
		fail("a file on the closed X fd's number");
		goto out;
	}
	if (kind == 0) {
		errno = 0;
		ssize_t w = writev(fd, &iov, 1);
		char got[8] = "";
		ok = w < 0 && errno == EBADF && write(other, "pipe!", 5) == 5 &&
				read(fd, got, sizeof(got)) == 5 && !memcmp(got, "pipe!", 5);
		if (!ok) {
			printf("round %d: writev on %s on %d gave %zd (errno %d), read '%.5s'\n", i,
					what, fd, w, errno, got);
			fail("a write to a pipe's read end on the closed X fd's number");
		}
	} else if (kind == 3) {
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		char got[8] = "";
		ok = sendmsg(fd, &m, MSG_NOSIGNAL) == 5 && read(passed[1], got, 5) == 5 &&
				!memcmp(got, "pipe!", 5);
		if (!ok) {
			printf("round %d: %s on %d read back '%.5s'\n", i, what, fd, got);
			fail("bytes written to a received socket on the closed X fd's number");
		}
	} else if (kind == 7) {
		uint64_t one = 1, got = 0;
		struct iovec e = { .iov_base = &one, .iov_len = sizeof(one) };
		ok = writev(fd, &e, 1) == sizeof(one) &&
				read(fd, &got, sizeof(got)) == sizeof(got) && got == 1;
		if (!ok) {
			printf("round %d: %s on %d counted %llu\n", i, what, fd,
					(unsigned long long)got);
			fail("a write to an eventfd on the closed X fd's number");
		}
	} else {
		ok = writev(fd, &iov, 1) == 5 && read_back(fd, what, i, xfd);
		if (!ok)
			printf("round %d: writev on %s failed or its bytes went elsewhere\n", i,
					what);
	}
out:
	if (f)
		fclose(f);
	else if (fd >= 0)
		close(fd);
	if (other >= 0)
		close(other);
	unlink(path);
	for (int k = 0; k < nheld; k++)
		close(held[k]);
	for (int k = 0; k < 2; k++) {
		close(carry[k]);
		close(passed[k]);
	}
	return ok;
}

/* The program closes every fd above 2 with the raw close_range syscall
 * (code written before glibc's wrapper, or another libc), the X fd and the
 * ring's own among them, as a daemonising program does; libxcb is not
 * told (its connection is left, never disconnected: that would close
 * whatever has the number then). Then, n rounds: a new display opened (its
 * socket gets the old number), its round trips answered; that one closed
 * with close_range again. With `file` (rawclose-file), first a socket pair
 * on the old number, written (write, writev, sendmsg in turn) and read
 * back (lost, hung, until session 41 when it came before the X server had
 * seen the old socket's end: docs/x11.md). */
enum reuse {
	REUSE_NONE,
	REUSE_SOCKETPAIR,
	REUSE_OTHER
};

static int rawclose(int n, enum reuse file, bool libc)
{
	int xfd = xcb_get_file_descriptor(conn);
	for (int i = 0; i < n; i++) {
		/* rawclose-other's carrier for SCM_RIGHTS and the socket it
		 * passes, above every number the raw close takes. */
		int carry[2] = { -1, -1 }, passed[2] = { -1, -1 };
		if (file == REUSE_OTHER && !carrier_above(carry, passed))
			return 1;
		if (libc)
			closefrom(3);
		else if (syscall(SYS_close_range, 3u, file == REUSE_OTHER ? CARRIER_FD - 1u : ~0u,
					 0u) != 0)
			return fail("close_range");
		conn = NULL;
		if (file == REUSE_SOCKETPAIR && !file_on_old_number(xfd, i))
			return 1;
		if (file == REUSE_OTHER && !other_file_on_old_number(xfd, i, carry, passed))
			return 1;
		if (!connect_default()) {
			printf("round %d\n", i);
			return fail("a display opened after the raw close_range");
		}
		int nfd = xcb_get_file_descriptor(conn);
		for (int k = 0; k < 5; k++) {
			if (!round_trip()) {
				printf("round %d: new X fd %d (old %d)\n", i, nfd, xfd);
				return fail("a round trip on the display opened after the raw close");
			}
		}
		xfd = nfd;
	}
	printf("ok %s %d rounds of every fd above 2 closed, then a display on the numbers\n",
			libc                                     ? "closefrom-reopen" :
					file == REUSE_SOCKETPAIR ? "rawclose-file" :
					file == REUSE_OTHER      ? "rawclose-other" :
								   "rawclose",
			n);
	return 0;
}

/* rawclose in a fork child (a helper that forks, closes every inherited
 * fd with the raw syscall and opens its own display); the parent's
 * connection, which the child never wrote, stays on the ring. */
static int rawclose_fork(int n)
{
	pid_t pid = fork();
	if (pid == 0)
		_exit(rawclose(n, REUSE_NONE, false));
	int status = -1;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
			WEXITSTATUS(status) != 0) {
		printf("the child: status %d\n", status);
		return fail("rawclose in a fork child");
	}
	for (int k = 0; k < 5; k++)
		if (!round_trip())
			return fail("the parent's round trips after the child's");
	printf("ok rawclose-fork %d rounds in a fork child %d, the parent answered after\n", n,
			(int)pid);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr,
				"usage: smt-x11-fdio fd-limit K | select N | peek N | fcntl N | "
				"epoll-thread N | take-socket N | reopen N | sigalrm N | sigclose N | raw-write N | "
				"dup-write N | dup-close N | dup-fork | dup-fork-child | dup-many N | "
				"dup-threads N | sigdup N | spawn-dup2 N | vfork-dup2 N | send-fd N | send-fd-mmsg N | inherit N | vfork-inherit N | system-inherit N | popen-dup N | vfork-execl N | spawn-race N | revert-race N | sig-close-efd N | sig-close-wake N | sig-revert N | helpers N\n");
		return 2;
	}
	const char *c = argv[1];
	int n = argc > 2 ? atoi(argv[2]) : 10;
	if (n < 0)
		n = 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(c, "child-recv-write") && argc == 5)
		return write_own_requests(received_fd(atoi(argv[2])),
				       (xcb_window_t)strtoul(argv[3], NULL, 10),
				       (uint32_t)strtoul(argv[4], NULL, 10)) ?
				0 :
				3;
	if (!strcmp(c, "child-write") && argc == 5)
		return write_own_requests(atoi(argv[2]), (xcb_window_t)strtoul(argv[3], NULL, 10),
				       (uint32_t)strtoul(argv[4], NULL, 10)) ?
				0 :
				3;
	if (!strcmp(c, "child-connect"))
		return child_connect();
	if (!strcmp(c, "handed") && argc == 4)
		return handed(atoi(argv[2]), atoi(argv[3]));
	if (!strcmp(c, "fd-limit"))
		return fd_limit(n);
	if (!strcmp(c, "spawn-race"))
		return spawn_race(n);
	if (!strcmp(c, "revert-race"))
		return revert_race(n);
	if (!strcmp(c, "sig-close-efd"))
		return sig_in_write(n, CLOSE_EVENTFD);
	if (!strcmp(c, "sig-close-wake"))
		return sig_in_write(n, CLOSE_WAKE_SOCKET);
	if (!strcmp(c, "sig-revert"))
		return sig_in_write(n, EIGHT_COPIES);
	if (!strcmp(c, "epoll-thread"))
		return epoll_thread(n);
	if (!strcmp(c, "take-socket"))
		return take_socket(n);
	if (!strcmp(c, "reopen"))
		return reopen(n);
	if (!strcmp(c, "sigalrm"))
		return sigalrm(n);
	if (!strcmp(c, "sigclose"))
		return sigclose(n, false);
	if (!strcmp(c, "sigdup"))
		return sigclose(n, true);
	if (!connect_default())
		return fail("xcb_connect");
	int rc;
	if (!strcmp(c, "select"))
		rc = select_loop(n);
	else if (!strcmp(c, "peek"))
		rc = peek(n);
	else if (!strcmp(c, "fcntl"))
		rc = fcntls(n);
	else if (!strcmp(c, "raw-write"))
		rc = raw_write(n);
	else if (!strcmp(c, "dup-write"))
		rc = dup_write(n);
	else if (!strcmp(c, "dup-close"))
		rc = dup_close(n);
	else if (!strcmp(c, "dup-fork"))
		rc = dup_fork(false);
	else if (!strcmp(c, "dup-fork-child"))
		rc = dup_fork(true);
	else if (!strcmp(c, "dup-many"))
		rc = dup_many(n);
	else if (!strcmp(c, "dup-threads"))
		rc = dup_threads(n);
	else if (!strcmp(c, "spawn-dup2"))
		rc = escaped(SPAWN_DUP2, n);
	else if (!strcmp(c, "vfork-dup2"))
		rc = escaped(VFORK_DUP2, n);
	else if (!strcmp(c, "send-fd"))
		rc = escaped(SEND_FD, n);
	else if (!strcmp(c, "helpers"))
		rc = helpers(n);
	else if (!strcmp(c, "send-fd-mmsg"))
		rc = escaped(SEND_FD_MMSG, n);
	else if (!strcmp(c, "inherit"))
		rc = escaped(INHERIT, n);
	else if (!strcmp(c, "vfork-inherit"))
		rc = escaped(VFORK_INHERIT, n);
	else if (!strcmp(c, "rawclose"))
		rc = rawclose(n, REUSE_NONE, false);
	else if (!strcmp(c, "rawclose-file"))
		rc = rawclose(n, REUSE_SOCKETPAIR, false);
	else if (!strcmp(c, "rawclose-other"))
		rc = rawclose(n, REUSE_OTHER, false);
	else if (!strcmp(c, "rawclose-fork"))
		rc = rawclose_fork(n);
	else if (!strcmp(c, "closefrom-reopen"))
		rc = rawclose(n, REUSE_NONE, true);
	else if (!strcmp(c, "system-inherit"))
		rc = escaped(SYSTEM_INHERIT, n);
	else if (!strcmp(c, "popen-dup"))
		rc = escaped(POPEN_DUP, n);
	else if (!strcmp(c, "vfork-execl"))
		rc = escaped(VFORK_EXECL, n);
	else if (!strcmp(c, "limit-after"))
		rc = limit_after(n);
	else if (!strcmp(c, "fork-exec"))
		rc = escaped(FORK_EXEC, n);
	else if (!strcmp(c, "raw-dup"))
		rc = escaped(RAW_DUP, n);
	else
		return fail("unknown case");
	if (conn)
		xcb_disconnect(conn);
	return rc;
}
