/* See preload_path.h. */
#define _GNU_SOURCE
#include "xwayland-glue/preload_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *preload_find(
		const char *env_var, const char *name, const char *installed, char *buf, size_t n)
{
	const char *env = getenv(env_var);
	if (env && *env)
		return env;
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);
	if (len > 0) {
		buf[len] = '\0';
		char *slash = strrchr(buf, '/');
		size_t need = strlen(name) + 1;
		if (slash && (size_t)(slash + 1 - buf) + need <= n) {
			memcpy(slash + 1, name, need);
			if (access(buf, R_OK) == 0)
				return buf;
		}
	}
	return installed;
}

const char *preload_sanitizer_runtime(bool for_server)
{
#if defined(SMT_SANITIZER_RUNTIME_SERVER_ONLY)
	return for_server ? SMT_SANITIZER_RUNTIME : NULL;
#elif defined(SMT_SANITIZER_RUNTIME)
	(void)for_server;
	return SMT_SANITIZER_RUNTIME;
#else
	(void)for_server;
	return NULL;
#endif
}

/* ld.so's $LIB for 32-bit x86 programs (Debian's multiarch directory). */
static const char lib_elf32[] = "lib/i386-linux-gnu";

static bool readable(const char *path)
{
	return access(path, R_OK) == 0;
}

const char *preload_per_class(const char *path, char *buf, size_t n)
{
#ifdef SMT_MULTIARCH
	static const char lib_own[] = "lib/" SMT_MULTIARCH;
	char own[PATH_MAX], twin[PATH_MAX];
	/* Installed: .../lib/x86_64-linux-gnu/smtwc/NAME beside
	 * .../lib/i386-linux-gnu/smtwc/NAME. */
	const char *at = strstr(path, "/lib/" SMT_MULTIARCH "/");
	if (at) {
		int pre = (int)(at + 1 - path);
		const char *post = at + 1 + strlen(lib_own);
		if (snprintf(twin, sizeof(twin), "%.*s%s%s", pre, path, lib_elf32, post) <
						(int)sizeof(twin) &&
				readable(twin) &&
				snprintf(buf, n, "%.*s$LIB%s", pre, path, post) < (int)n)
			return buf;
		return path;
	}
	/* The build tree: DIR/NAME with DIR/lib/x86_64-linux-gnu/NAME and
	 * DIR/lib/i386-linux-gnu/NAME (xwayland-glue/shim_class_dirs.sh). */
	const char *slash = strrchr(path, '/');
	if (!slash)
		return path;
	int dir = (int)(slash - path);
	if (snprintf(own, sizeof(own), "%.*s/%s%s", dir, path, lib_own, slash) < (int)sizeof(own) &&
			snprintf(twin, sizeof(twin), "%.*s/%s%s", dir, path, lib_elf32, slash) <
					(int)sizeof(twin) &&
			readable(own) && readable(twin) &&
			snprintf(buf, n, "%.*s/$LIB%s", dir, path, slash) < (int)n)
		return buf;
#else
	(void)buf;
	(void)n;
	(void)lib_elf32;
	(void)readable;
#endif
	return path;
}

/* Appends entry to out (':'-separated) unless already there. */
static void add(char *out, const char *entry, size_t len)
{
	for (const char *p = out; *p;) {
		size_t l = strcspn(p, ":");
		if (l == len && !strncmp(p, entry, len))
			return;
		p += l;
		p += strspn(p, ":");
	}
	if (*out)
		strcat(out, ":");
	strncat(out, entry, len);
}

char *preload_list(const char *current, const char *path, const char *drop, bool for_server)
{
	/* ld.so splits LD_PRELOAD at both; such a path cannot be preloaded. */
	if (strpbrk(path, ": "))
		return NULL;
	/* The plain path, if already there, gives way to the per-class one. */
	const char *plain = path;
	char per_class[PATH_MAX];
	path = preload_per_class(path, per_class, sizeof(per_class));
	const char *runtime = preload_sanitizer_runtime(for_server);
	if (!current)
		current = "";
	size_t cap = strlen(current) + strlen(path) + (runtime ? strlen(runtime) : 0) + 3;
	char *out = calloc(1, cap);
	if (!out)
		return NULL;
	if (runtime)
		add(out, runtime, strlen(runtime));
	for (const char *p = current; *p;) {
		size_t l = strcspn(p, ": ");
		bool is_plain = path != plain && l == strlen(plain) && !strncmp(p, plain, l);
		if (l && !is_plain && !(drop && memmem(p, l, drop, strlen(drop))))
			add(out, p, l);
		p += l;
		p += strspn(p, ": ");
	}
	add(out, path, strlen(path));
	return out;
}
