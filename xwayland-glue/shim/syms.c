/* Run-time lookup of the X11/XCB entry points; see syms.h for why. */
#define _GNU_SOURCE
#include "xwayland-glue/shim/syms.h"

#include <pthread.h>
#include <string.h>

#include "common/dlsym_next.h"

struct xshim_syms xshim_real;

static const char *const soname_libxcb = "libxcb.so.1";
static const char *const soname_libx11 = "libX11.so.6";
static const char *const soname_libxcbshm = "libxcb-shm.so.0";
static const char *const soname_libx11xcb = "libX11-xcb.so.1";

/* Past the shim first: that is the definition the program would have called.
 * Then the library itself if it is loaded but not global (dlopen'ed with
 * RTLD_LOCAL by a plugin). */
static void *find_loaded(const char *soname, const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	if (p)
		return p;
	void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return NULL;
	p = dlsym(h, name);
	dlclose(h); /* NOLOAD took a reference; the library stays loaded */
	return p;
}

static void load_once(void)
{
#define LOAD(lib, name) dlsym_store(&xshim_real.name, find_loaded(soname_##lib, #name));
	XSHIM_SYMS_WRAPPED(LOAD)
	XSHIM_SYMS_HELPERS(LOAD)
#undef LOAD
}

void xshim_syms_load(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, load_once);
}

static bool shm_ok;

static void load_shm_once(void)
{
	/* These stay loaded for the life of the process (never dlclose'd): the
	 * shim keeps calling them. */
	void *shm = dlopen(soname_libxcbshm, RTLD_LAZY | RTLD_LOCAL);
	void *x11xcb = dlopen(soname_libx11xcb, RTLD_LAZY | RTLD_LOCAL);
	void *libxcbshm = shm, *libx11xcb = x11xcb;
	bool ok = true;
#define LOAD(lib, name)                                                \
	dlsym_store(&xshim_real.name, lib ? dlsym(lib, #name) : NULL); \
	ok = ok && (xshim_real.name || !strcmp(#name, "xcb_shm_attach_fd_checked"));
	XSHIM_SYMS_SHM(LOAD)
#undef LOAD
	shm_ok = ok;
}

bool xshim_syms_load_shm(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	xshim_syms_load();
	pthread_once(&once, load_shm_once);
	return shm_ok;
}

bool xshim_syms_helpers_ok(void)
{
	bool ok = true;
#define CHECK(lib, name) ok = ok && xshim_real.name;
	XSHIM_SYMS_HELPERS(CHECK)
#undef CHECK
	return ok;
}
