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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload_path.h"

#ifndef SMT_X11RING_SERVER_INSTALLED
#error "SMT_X11RING_SERVER_INSTALLED must name the installed server half"
#endif

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
		if (preload_asan_runtime()) {
			const char *o = getenv("ASAN_OPTIONS");
			char opts[1024];
			snprintf(opts, sizeof(opts), "%s%sdetect_leaks=0", o ? o : "", o ? ":" : "");
			setenv("ASAN_OPTIONS", opts, 1);
		}
	} else {
		/* X programs learn it from Xwayland at their first connection
		 * (it closes the hello) and stay on the socket (docs/x11.md). */
		fprintf(stderr, "smt-xwayland: %s missing; Xwayland runs without the ring "
			"(X programs use the socket)\n", half);
	}
	free(list);
	/* wlroots' arguments, then -fp PATH if asked for, then the NULL. */
	const char *font_path = getenv("SMT_XWAYLAND_FONT_PATH");
	bool with_fp = font_path && *font_path;
	char **args = calloc((size_t)argc + 3, sizeof(*args));
	if (!args) {
		fprintf(stderr, "smt-xwayland: out of memory\n");
		return 127;
	}
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	args[0] = (char *)xwayland;
	if (with_fp) {
		args[argc] = "-fp";
		args[argc + 1] = (char *)font_path;
	}
	execv(xwayland, args);
	fprintf(stderr, "smt-xwayland: %s: %s\n", xwayland, strerror(errno));
	free(args);
	return 127;
}
