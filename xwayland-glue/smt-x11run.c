/*
 * smt-x11run [--print-shim] [--] CMD [ARGS...]
 *
 * Runs an unmodified X program with the smt X11 shared-memory shim preloaded:
 * large XPutImage/XGetImage (and xcb_put_image/xcb_get_image) then go through
 * MIT-SHM instead of the socket. The shim's path is appended to any existing
 * LD_PRELOAD, so the program's children inherit it as well (the shim costs
 * nothing in programs that never draw images: it loads no X library itself).
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
#include <unistd.h>

#ifndef SMT_X11SHIM_INSTALLED
#error "SMT_X11SHIM_INSTALLED must name the installed shim"
#endif
#define SHIM_NAME "libsmt-x11shim.so"

static const char *shim_path(char *buf, size_t n)
{
	const char *env = getenv("SMT_X11SHIM_LIB");
	if (env && *env)
		return env;
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);
	if (len > 0) {
		buf[len] = '\0';
		char *slash = strrchr(buf, '/');
		if (slash && (size_t)(slash + 1 - buf) + sizeof(SHIM_NAME) <= n) {
			memcpy(slash + 1, SHIM_NAME, sizeof(SHIM_NAME));
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return SMT_X11SHIM_INSTALLED;
}

/* Is path already one of LD_PRELOAD's entries (separated by ':' or ' ')? */
static int preloaded(const char *list, const char *path)
{
	size_t n = strlen(path);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ": ");
		if (len == n && !strncmp(p, path, n))
			return 1;
		p += len;
		p += strspn(p, ": ");
	}
	return 0;
}

static int usage(FILE *f)
{
	fputs("usage: smt-x11run [--print-shim] [--] CMD [ARGS...]\n"
	      "Runs CMD with the smt X11 shared-memory shim preloaded.\n"
	      "Environment: SMT_X11SHIM=off disables it; SMT_X11SHIM_STATS=1 prints\n"
	      "counters at exit; see docs/x11.md for the rest.\n", f);
	return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
	char buf[PATH_MAX];
	const char *shim = shim_path(buf, sizeof(buf));
	int i = 1;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "--print-shim")) {
			puts(shim);
			return 0;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage(stdout);
		} else {
			fprintf(stderr, "smt-x11run: unknown option %s\n", argv[i]);
			return usage(stderr);
		}
	}
	if (i >= argc)
		return usage(stderr);
	/* ld.so splits LD_PRELOAD at both; such a path cannot be preloaded. */
	if (strpbrk(shim, ": ")) {
		fprintf(stderr, "smt-x11run: cannot preload a path with ':' or ' ': %s\n", shim);
		return 125;
	}

	const char *old = getenv("LD_PRELOAD");
	if (!old || !*old) {
		setenv("LD_PRELOAD", shim, 1);
	} else if (!preloaded(old, shim)) {
		size_t n = strlen(old) + 1 + strlen(shim) + 1;
		char *v = malloc(n);
		if (!v) {
			perror("smt-x11run");
			return 125;
		}
		snprintf(v, n, "%s:%s", old, shim);
		setenv("LD_PRELOAD", v, 1);
		free(v);
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "smt-x11run: %s: %s\n", argv[i], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
