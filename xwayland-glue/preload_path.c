/* See preload_path.h. */
#define _GNU_SOURCE
#include "preload_path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *preload_find(const char *env_var, const char *name, const char *installed,
			 char *buf, size_t n)
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

const char *preload_asan_runtime(void)
{
#ifdef SMT_ASAN_RUNTIME
	return SMT_ASAN_RUNTIME;
#else
	return NULL;
#endif
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

char *preload_list(const char *current, const char *path, const char *drop, bool asan_first)
{
	/* ld.so splits LD_PRELOAD at both; such a path cannot be preloaded. */
	if (strpbrk(path, ": "))
		return NULL;
	const char *asan = asan_first ? preload_asan_runtime() : NULL;
	if (!current)
		current = "";
	size_t cap = strlen(current) + strlen(path) + (asan ? strlen(asan) : 0) + 3;
	char *out = calloc(1, cap);
	if (!out)
		return NULL;
	if (asan)
		add(out, asan, strlen(asan));
	for (const char *p = current; *p;) {
		size_t l = strcspn(p, ": ");
		if (l && !(drop && memmem(p, l, drop, strlen(drop))))
			add(out, p, l);
		p += l;
		p += strspn(p, ": ");
	}
	add(out, path, strlen(path));
	return out;
}
