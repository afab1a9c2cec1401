/*
 * Finding the preload libraries and editing LD_PRELOAD, for the programs
 * that start others with a half of the X ring in them: smt-x11run (the
 * client shim), smt-xwayland (the server half) and the compositor.
 */
#ifndef SMT_PRELOAD_PATH_H
#define SMT_PRELOAD_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* $env_var if set; else `name` beside the running executable if it exists
 * there (the build tree); else `installed`. */
const char *preload_find(
		const char *env_var, const char *name, const char *installed, char *buf, size_t n);

/* `path` as ld.so resolves it per ELF class ($LIB), when a 32-bit x86
 * twin of it is installed (or built) beside it: 32-bit programs then load
 * the twin instead of failing loudly on a 64-bit library. Else `path`. */
const char *preload_per_class(const char *path, char *buf, size_t n);

/* LD_PRELOAD with `path` appended (once, per class: preload_per_class) and,
 * in a sanitizer build, preload_sanitizer_runtime(for_server) in front;
 * entries containing `drop` are removed. Returns a malloc'ed string, or NULL
 * (out of memory, or a path ld.so cannot take). */
char *preload_list(const char *current, const char *path, const char *drop, bool for_server);

/* The sanitizer's runtime a sanitizer build must preload first into
 * programs built without it, or NULL: ASan's for Xwayland (for_server) and
 * the X clients; gcc's TSan's for Xwayland only (xwayland-glue/meson.build
 * says why). */
const char *preload_sanitizer_runtime(bool for_server);

#endif
