/*
 * The X ring's discovery and statistics sockets (x11ring_endpoint.h), in a
 * runtime directory of the test's own: refused unless the directory is
 * private; a stale socket file replaced; a live holder reported and left
 * alone; connections that find the listener, also when a signal interrupts
 * one waiting for room in the listener's backlog.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "tests/unit/unit_check.h"
#include "xwayland-glue/x11ring_endpoint.h"

static char dir[64];
static char why[256];

static void test_private_dir_only(void)
{
	current_test = "private_dir_only";
	char path[108];
	CHECK(x11ring_endpoint_path(
			X11RING_ENDPOINT_STATS, 42, path, sizeof(path), why, sizeof(why)));
	char want[128];
	snprintf(want, sizeof(want), "%s/smtwc-x11ring-42.stats", dir);
	CHECK_STR(path, want);
	chmod(dir, 0755);
	CHECK_INT(x11ring_endpoint_listen(X11RING_ENDPOINT_DISCOVERY, 42, why, sizeof(why)), -1);
	CHECK(strstr(why, "not private") != NULL);
	chmod(dir, 0700);
	unsetenv("XDG_RUNTIME_DIR");
	CHECK_INT(x11ring_endpoint_connect(X11RING_ENDPOINT_DISCOVERY, 42, NULL, why, sizeof(why)),
			-1);
	CHECK(strstr(why, "not set") != NULL);
	setenv("XDG_RUNTIME_DIR", dir, 1);
}

static void test_listen_connect(void)
{
	current_test = "listen_connect";
	int l = x11ring_endpoint_listen(X11RING_ENDPOINT_STATS, 7, why, sizeof(why));
	CHECK(l >= 0);
	CHECK(fcntl(l, F_GETFL) & O_NONBLOCK);
	CHECK(fcntl(l, F_GETFD) & FD_CLOEXEC);
	pid_t peer = 0;
	int c = x11ring_endpoint_connect(X11RING_ENDPOINT_STATS, 7, &peer, why, sizeof(why));
	CHECK(c >= 0);
	CHECK_INT(peer, getpid());
	CHECK(x11ring_peer_is_us(c, NULL));
	/* A second listener on a live name: reported, and the first kept. */
	CHECK_INT(x11ring_endpoint_listen(X11RING_ENDPOINT_STATS, 7, why, sizeof(why)), -1);
	CHECK(strstr(why, "already served by pid") != NULL);
	close(c);
	c = x11ring_endpoint_connect(X11RING_ENDPOINT_STATS, 7, NULL, why, sizeof(why));
	CHECK(c >= 0);
	close(c);
	/* Nobody listens any more: the file is stale and replaced. */
	close(l);
	CHECK_INT(x11ring_endpoint_connect(X11RING_ENDPOINT_STATS, 7, NULL, why, sizeof(why)), -1);
	l = x11ring_endpoint_listen(X11RING_ENDPOINT_STATS, 7, why, sizeof(why));
	CHECK(l >= 0);
	c = x11ring_endpoint_connect(X11RING_ENDPOINT_STATS, 7, NULL, why, sizeof(why));
	CHECK(c >= 0);
	close(c);
	close(l);
}

static void test_not_a_socket(void)
{
	current_test = "not_a_socket";
	char path[108];
	CHECK(x11ring_endpoint_path(
			X11RING_ENDPOINT_DISCOVERY, 9, path, sizeof(path), why, sizeof(why)));
	int f = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	CHECK(f >= 0);
	close(f);
	/* A regular file by that name is not ours to delete. */
	CHECK_INT(x11ring_endpoint_listen(X11RING_ENDPOINT_DISCOVERY, 9, why, sizeof(why)), -1);
	struct stat st;
	CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
	unlink(path);
}

/* A program's SIGALRM while its connect waits in a full backlog (the
 * compositor's main loop accepts discovery connections; under load it
 * lags): the connect is made, not reported failed. Before (session 37)
 * the shim then took the X server for one without rings. */
static atomic_int alarms;
static atomic_bool connect_done;
static pid_t main_tid;

static void on_alarm(int sig)
{
	(void)sig;
	atomic_fetch_add(&alarms, 1);
}

static bool main_thread_sleeps(void)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)main_tid);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return false;
	ssize_t n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return false;
	buf[n] = 0;
	const char *state = strrchr(buf, ')'); /* "pid (comm) S ..." */
	return state && state[1] == ' ' && state[2] == 'S';
}

static void *interrupt_then_accept(void *arg)
{
	int l = *(int *)arg;
	/* Asleep in connect: nothing else in this test sleeps. */
	while (!main_thread_sleeps())
		sched_yield();
	for (int i = 0; i < 5; i++) {
		syscall(SYS_tgkill, getpid(), main_tid, SIGALRM);
		usleep(1000);
	}
	while (!atomic_load(&connect_done)) {
		int a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
		if (a >= 0)
			close(a);
		else
			usleep(1000);
	}
	return NULL;
}

static void test_connect_interrupted(void)
{
	current_test = "connect_interrupted";
	struct sigaction sa = { .sa_handler = on_alarm }; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	CHECK(sigaction(SIGALRM, &sa, NULL) == 0);
	int l = x11ring_endpoint_listen(X11RING_ENDPOINT_DISCOVERY, 11, why, sizeof(why));
	CHECK(l >= 0);
	char path[108];
	CHECK(x11ring_endpoint_path(
			X11RING_ENDPOINT_DISCOVERY, 11, path, sizeof(path), why, sizeof(why)));
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	memcpy(a.sun_path, path, strlen(path) + 1);
	/* The backlog filled by connections nobody accepts yet. */
	int held[64], nheld = 0;
	while (nheld < 64) {
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		CHECK(c >= 0);
		if (connect(c, (struct sockaddr *)&a, sizeof(a)) != 0) {
			CHECK_INT(errno, EAGAIN);
			close(c);
			break;
		}
		held[nheld++] = c;
	}
	CHECK(nheld > 0 && nheld < 64);
	main_tid = (pid_t)syscall(SYS_gettid);
	pthread_t t;
	CHECK(pthread_create(&t, NULL, interrupt_then_accept, &l) == 0);
	int c = x11ring_endpoint_connect(X11RING_ENDPOINT_DISCOVERY, 11, NULL, why, sizeof(why));
	atomic_store(&connect_done, true);
	pthread_join(t, NULL);
	if (c < 0)
		fprintf(stderr, "connect_interrupted: %s\n", why);
	CHECK(c >= 0);
	CHECK(atomic_load(&alarms) > 0);
	if (c >= 0)
		close(c);
	for (int i = 0; i < nheld; i++)
		close(held[i]);
	close(l);
	unlink(path);
	signal(SIGALRM, SIG_DFL);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smt-endpoint-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	setenv("XDG_RUNTIME_DIR", dir, 1);
	test_private_dir_only();
	test_listen_connect();
	test_not_a_socket();
	test_connect_interrupted();
	char path[128];
	snprintf(path, sizeof(path), "%s/smtwc-x11ring-7.stats", dir);
	unlink(path);
	rmdir(dir);
	return failures != 0;
}
