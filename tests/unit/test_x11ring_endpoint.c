/*
 * The X ring's discovery and statistics sockets (x11ring_endpoint.h), in a
 * runtime directory of the test's own: refused unless the directory is
 * private; a stale socket file replaced; a live holder reported and left
 * alone; connections that find the listener.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/smt-endpoint-XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	setenv("XDG_RUNTIME_DIR", dir, 1);
	test_private_dir_only();
	test_listen_connect();
	test_not_a_socket();
	char path[128];
	snprintf(path, sizeof(path), "%s/smtwc-x11ring-7.stats", dir);
	unlink(path);
	rmdir(dir);
	return failures != 0;
}
