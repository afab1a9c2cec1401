/*
 * smt-xwayland ARGS...: what the compositor names in WLR_XWAYLAND. Starts
 * Debian's unmodified Xwayland with the server half of the X ring preloaded
 * (libsmt-x11ring-server.so, docs/x11.md). Xwayland cannot be rebuilt from
 * Debian packages, so the ring lives around the binary instead of in it.
 *
 *   SMT_XWAYLAND_BINARY        the Xwayland to run (default /usr/bin/Xwayland)
 *   SMT_X11RING_SERVER_LIB     the server half (default: beside this program,
 *                              else the installed one)
 *   SMT_XWAYLAND_FONT_PATH     Xwayland's core font path (-fp) instead of its
 *                              compiled-in one, which takes in whatever font
 *                              packages add under /usr/share/fonts/X11 (the
 *                              test suite pins it to xfonts-base's)
 *   SMT_XWAYLAND_SCHED_INTERVAL_MS, SMT_XWAYLAND_SCHED_MAX_MS
 *                              the compositor's [xwayland] settings, passed on
 *                              as -schedInterval and -schedMax (docs/x11.md
 *                              "Scheduling X clients"); unset: Xwayland's own
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xwayland-glue/preload_path.h"

#ifndef SMT_X11RING_SERVER_INSTALLED
#error "SMT_X11RING_SERVER_INSTALLED must name the installed server half"
#endif

/* An [xwayland] setting from the environment as Xwayland's option, appended
 * to args (which has room); a value that is not 1-1000 is left out, said. */
static void add_sched_option(
		char **args, int *n, const char *env, const char *option, char value[static 8])
{
	const char *v = getenv(env);
	if (!v || !*v)
		return;
	char *end;
	errno = 0;
	long ms = strtol(v, &end, 10);
	if (errno || *end || ms < 1 || ms > 1000) {
		fprintf(stderr,
				"smt-xwayland: %s=%s is not 1-1000 ms; Xwayland keeps its "
				"own %s\n",
				env, v, option);
		return;
	}
	snprintf(value, 8, "%ld", ms);
	args[(*n)++] = (char *)option;
	args[(*n)++] = value;
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *half = preload_find("SMT_X11RING_SERVER_LIB", "libsmt-x11ring-server.so",
			SMT_X11RING_SERVER_INSTALLED, buf, sizeof(buf));
	const char *xwayland = getenv("SMT_XWAYLAND_BINARY");
	if (!xwayland || !*xwayland)
		xwayland = "/usr/bin/Xwayland";
	/* The client shim the session preloads has no business in the server. */
	char *list = preload_list(getenv("LD_PRELOAD"), half, "libsmt-x11shim", true);
	if (list && access(half, R_OK) == 0) {
		setenv("LD_PRELOAD", list, 1);
		if (preload_sanitizer_runtime(true)) {
			const char *o = getenv("ASAN_OPTIONS");
			char opts[1024];
			snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", o ? o : "",
					o ? ":" : "");
			setenv("ASAN_OPTIONS", opts, 1);
		}
	} else {
		/* X programs learn it from Xwayland at their first connection
		 * (it closes the hello) and stay on the socket (docs/x11.md). */
		fprintf(stderr,
				"smt-xwayland: %s missing; Xwayland runs without the ring "
				"(X programs use the socket)\n",
				half);
	}
	free(list);
	/* wlroots' own arguments, then ours (Xwayland takes options in any
	 * order): -fp PATH if asked for, the scheduler's settings. */
	const char *font_path = getenv("SMT_XWAYLAND_FONT_PATH");
	char **args = calloc((size_t)argc + 7, sizeof(*args));
	if (!args) {
		fprintf(stderr, "smt-xwayland: out of memory\n");
		return 127;
	}
	int n = 0;
	args[n++] = (char *)xwayland;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	if (font_path && *font_path) {
		args[n++] = "-fp";
		args[n++] = (char *)font_path;
	}
	char interval[8], max[8];
	add_sched_option(args, &n, "SMT_XWAYLAND_SCHED_INTERVAL_MS", "-schedInterval", interval);
	add_sched_option(args, &n, "SMT_XWAYLAND_SCHED_MAX_MS", "-schedMax", max);
	args[n] = NULL;
	execv(xwayland, args);
	fprintf(stderr, "smt-xwayland: %s: %s\n", xwayland, strerror(errno));
	free(args);
	return 127;
}
