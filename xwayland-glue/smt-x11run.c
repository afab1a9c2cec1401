/*
 * smt-x11run [--print-shim] [--] CMD [ARGS...]
 * smt-x11run --stats
 *
 * Runs an unmodified X program with the smt X11 shim preloaded, as the
 * session does for everything it starts: its requests go to the session's
 * Xwayland through a shared ring (docs/x11.md) and large XPutImage /
 * XGetImage through MIT-SHM. The shim is appended to any existing
 * LD_PRELOAD, so the program's children inherit it as well (it costs
 * nothing in programs that never talk X: it loads no X library itself).
 *
 * --stats prints, per X connection of the Xwayland behind $DISPLAY, whether
 * it uses the ring, its requests and bytes, and wake-ups each way.
 *
 * The shim is found, in order: $SMT_X11SHIM_LIB; next to this executable
 * (the build tree, where both are built side by side); the installed path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "preload_path.h"
#include "smt-ring.h"

#ifndef SMT_X11SHIM_INSTALLED
#error "SMT_X11SHIM_INSTALLED must name the installed shim"
#endif

static int usage(FILE *f)
{
	fputs("usage: smt-x11run [--print-shim] [--] CMD [ARGS...]\n"
	      "       smt-x11run --stats\n"
	      "Runs CMD with the smt X11 shim preloaded: X requests through the\n"
	      "shared ring, large images through MIT-SHM. --stats shows the X\n"
	      "connections of the Xwayland behind $DISPLAY.\n"
	      "Environment: SMT_X11RING=off keeps requests on the socket;\n"
	      "SMT_X11SHIM=off disables the shim; SMT_X11SHIM_STATS=1 prints\n"
	      "counters at exit; see docs/x11.md for the rest.\n", f);
	return f == stdout ? 0 : 2;
}

/* Connects to the X server's socket for $DISPLAY (":N" only: local). */
static int connect_display(void)
{
	const char *d = getenv("DISPLAY");
	const char *colon = d ? strrchr(d, ':') : NULL;
	if (!colon || colon != d)
		return -1;
	int num = atoi(colon + 1);
	for (int abstract = 1; abstract >= 0; abstract--) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int n = snprintf(a.sun_path + abstract, sizeof(a.sun_path) - 1,
				 "/tmp/.X11-unix/X%d", num);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + abstract +
					    (size_t)n + (abstract ? 0 : 1));
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, len) == 0)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

static int print_stats(void)
{
	int x = connect_display();
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	if (x < 0 || getsockopt(x, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		fprintf(stderr, "smt-x11run: no local X server on DISPLAY=%s\n",
			getenv("DISPLAY") ? getenv("DISPLAY") : "");
		return 1;
	}
	close(x);
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%sstats-%d",
			 SMT_STREAM_DISCOVERY, (int)cred.pid);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, len) != 0) {
		fprintf(stderr, "smt-x11run: the X server on DISPLAY=%s has no X ring "
			"(not the session's Xwayland, or it is not running yet)\n", getenv("DISPLAY"));
		return 1;
	}
	char buf[4096];
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)r, stdout);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *shim = preload_find("SMT_X11SHIM_LIB", "libsmt-x11shim.so",
					SMT_X11SHIM_INSTALLED, buf, sizeof(buf));
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--print-shim")) {
			puts(shim);
			return 0;
		} else if (!strcmp(argv[i], "--stats")) {
			return print_stats();
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage(stdout);
		} else {
			fprintf(stderr, "smt-x11run: unknown option %s\n", argv[i]);
			return usage(stderr);
		}
	}
	if (i >= argc)
		return usage(stderr);
	/* An instrumented shim (sanitizer build) needs ASan's runtime first. */
	char *list = preload_list(getenv("LD_PRELOAD"), shim, NULL, true);
	if (!list) {
		fprintf(stderr, "smt-x11run: cannot preload %s\n", shim);
		return 125;
	}
	setenv("LD_PRELOAD", list, 1);
	free(list);
	execvp(argv[i], argv + i);
	fprintf(stderr, "smt-x11run: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
