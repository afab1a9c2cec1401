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
 * it uses the ring, its requests and bytes, and wake-ups each way: only
 * from a server of our own uid, and only lines of the statistics' form.
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

#include "xwayland-glue/preload_path.h"
#include "xwayland-glue/x11ring_endpoint.h"

/* What --stats reads at most: one line per X client of the server, each
 * under 400 bytes; Xwayland serves a few hundred clients. */
#define STATS_BYTES_MAX (1 << 20)
#define STATS_LINE_MAX 1024

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
	      "counters at exit; see docs/x11.md for the rest.\n",
			f);
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

/* A statistics line as the server half writes it (xserver/stats.c): only
 * key=value words of printable characters, nothing a terminal would act
 * on. */
static bool is_stats_line(const char *l, size_t n)
{
	if (n == 0 || n > STATS_LINE_MAX)
		return false;
	bool in_key = true, seen_eq = false;
	size_t key_len = 0;
	for (size_t i = 0; i < n; i++) {
		char c = l[i];
		if (c == ' ') {
			if (!seen_eq || key_len == 0 || l[i - 1] == '=')
				return false;
			in_key = true, seen_eq = false, key_len = 0;
		} else if (in_key && c == '=') {
			if (key_len == 0)
				return false;
			in_key = false, seen_eq = true;
		} else if (in_key) {
			if (!((c >= 'a' && c <= 'z') || c == '_'))
				return false;
			key_len++;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
					   (c >= '0' && c <= '9') || c == '.' || c == '_' ||
					   c == '-' || c == '?')) {
			return false;
		}
	}
	return seen_eq && l[n - 1] != '=';
}

static int print_stats(void)
{
	const char *display = getenv("DISPLAY") ? getenv("DISPLAY") : "";
	int x = connect_display();
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	if (x < 0 || getsockopt(x, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
		fprintf(stderr, "smt-x11run: no local X server on DISPLAY=%s\n", display);
		if (x >= 0)
			close(x);
		return 1;
	}
	close(x);
	/* Only from a process of our own uid, in our private runtime
	 * directory (x11ring_endpoint.h). */
	char why[256];
	int fd = x11ring_endpoint_connect(
			X11RING_ENDPOINT_STATS, (long)cred.pid, NULL, why, sizeof(why));
	if (fd < 0) {
		fprintf(stderr,
				"smt-x11run: no X ring statistics for DISPLAY=%s (%s): not the "
				"session's Xwayland, not running yet, or running without the ring's "
				"server half (then every connection is on the socket)\n",
				display, why);
		return 1;
	}
	/* Bounded, and only what has the form of a statistics line. */
	static char buf[STATS_BYTES_MAX + 1];
	size_t len = 0;
	ssize_t r;
	while (len < STATS_BYTES_MAX && (r = read(fd, buf + len, STATS_BYTES_MAX - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
	}
	bool truncated = len == STATS_BYTES_MAX;
	close(fd);
	unsigned dropped = 0;
	for (size_t at = 0; at < len;) {
		char *nl = memchr(buf + at, '\n', len - at);
		if (!nl) {
			dropped++; /* an unfinished last line */
			break;
		}
		size_t n = (size_t)(nl - (buf + at));
		if (is_stats_line(buf + at, n))
			fwrite(buf + at, 1, n + 1, stdout);
		else
			dropped++;
		at += n + 1;
	}
	if (dropped)
		fprintf(stderr,
				"smt-x11run: %u line%s from the statistics socket %s not "
				"statistics: left out\n",
				dropped, dropped == 1 ? "" : "s", dropped == 1 ? "was" : "were");
	if (truncated)
		fprintf(stderr, "smt-x11run: statistics cut at %d bytes\n", STATS_BYTES_MAX);
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
	/* An instrumented shim (sanitizer build) needs the sanitizer's runtime first. */
	char *list = preload_list(getenv("LD_PRELOAD"), shim, NULL, false);
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
