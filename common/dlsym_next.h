/*
 * The one way a definition of ours that wraps a library's finds the one it
 * wraps (the preloaded shim in X programs and server half in Xwayland; the
 * compositor's own, which wlroots' calls reach: the X window manager's
 * xcb calls, xkbcommon's contexts): the next one in the lookup order after
 * ours (dlsym(RTLD_NEXT)), stored into a function pointer. Include after
 * defining _GNU_SOURCE (RTLD_NEXT).
 */
#ifndef SMT_DLSYM_NEXT_H
#define SMT_DLSYM_NEXT_H

#include <dlfcn.h>
#include <string.h>

/* POSIX guarantees dlsym's object pointer can hold a function pointer; copy
 * the bits rather than cast, which ISO C does not define. fn_field points
 * at the function pointer. */
static inline void dlsym_store(void *fn_field, void *symbol)
{
	memcpy(fn_field, &symbol, sizeof(symbol));
}

/* The definition the program would have called without us; NULL if none. */
static inline void dlsym_next(void *fn_field, const char *name)
{
	dlsym_store(fn_field, dlsym(RTLD_NEXT, name));
}

#endif
