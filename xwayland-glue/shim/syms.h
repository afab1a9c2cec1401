/*
 * The X11/XCB functions the shim calls, found at run time.
 *
 * The shim has no DT_NEEDED on libX11 or libxcb: LD_PRELOAD is inherited by
 * every child of an X program (shells in terminals, build tools, ...), and
 * those must not pay for loading X libraries they never use. So the "real"
 * entry points that the shim wraps are looked up with RTLD_NEXT (or in the
 * already-loaded library, for programs that dlopen() libX11 locally), and the
 * helpers of libxcb-shm / libX11-xcb, which the program may not load itself,
 * are dlopen()ed the first time a connection is set up.
 *
 * Types come from the real prototypes (__typeof__), so a mismatch is a
 * compile error, not a crash.
 */
#ifndef SMT_X11SHIM_SYMS_H
#define SMT_X11SHIM_SYMS_H

#include <stdbool.h>

#include <X11/Xlib.h>
#include <X11/Xlibint.h>
#include <X11/Xlib-xcb.h>
#include <X11/ImUtil.h>
#include <xcb/xcb.h>
#include <xcb/xcbext.h>
#include <xcb/shm.h>

/* Wrapped by the shim: resolved past the shim (RTLD_NEXT). */
#define XSHIM_SYMS_WRAPPED(X)                \
	X(libxcb, xcb_put_image)             \
	X(libxcb, xcb_put_image_checked)     \
	X(libxcb, xcb_get_image)             \
	X(libxcb, xcb_get_image_unchecked)   \
	X(libxcb, xcb_get_image_reply)       \
	X(libxcb, xcb_poll_for_event)        \
	X(libxcb, xcb_poll_for_queued_event) \
	X(libxcb, xcb_wait_for_event)        \
	X(libxcb, xcb_request_check)         \
	X(libxcb, xcb_wait_for_reply)        \
	X(libxcb, xcb_wait_for_reply64)      \
	X(libxcb, xcb_poll_for_reply)        \
	X(libxcb, xcb_poll_for_reply64)      \
	X(libxcb, xcb_discard_reply)         \
	X(libxcb, xcb_discard_reply64)       \
	X(libxcb, xcb_disconnect)            \
	X(libxcb, xcb_connect_to_fd)         \
	X(libx11, XPutImage)                 \
	X(libx11, XGetImage)

/* Helpers from libraries an X program has loaded anyway. */
#define XSHIM_SYMS_HELPERS(X)                      \
	X(libxcb, xcb_get_extension_data)          \
	X(libxcb, xcb_generate_id)                 \
	X(libxcb, xcb_flush)                       \
	X(libxcb, xcb_get_setup)                   \
	X(libxcb, xcb_setup_roots_iterator)        \
	X(libxcb, xcb_setup_pixmap_formats)        \
	X(libxcb, xcb_setup_pixmap_formats_length) \
	X(libxcb, xcb_get_file_descriptor)         \
	X(libxcb, xcb_connection_has_error)        \
	X(libxcb, xcb_get_maximum_request_length)  \
	X(libxcb, xcb_get_input_focus)             \
	X(libxcb, xcb_create_pixmap)               \
	X(libxcb, xcb_free_pixmap)                 \
	X(libxcb, xcb_create_gc)                   \
	X(libxcb, xcb_free_gc)                     \
	X(libxcb, xcb_poly_fill_rectangle)         \
	X(libx11, XCreateImage)                    \
	X(libx11, _XVIDtoVisual)                   \
	X(libx11, _XGetScanlinePad)                \
	X(libx11, _XFlushGCCache)

/* Helpers the program may not have loaded: dlopen()ed on demand. */
#define XSHIM_SYMS_SHM(X)                         \
	X(libxcbshm, xcb_shm_id)                  \
	X(libxcbshm, xcb_shm_query_version)       \
	X(libxcbshm, xcb_shm_attach_checked)      \
	X(libxcbshm, xcb_shm_attach_fd_checked)   \
	X(libxcbshm, xcb_shm_detach)              \
	X(libxcbshm, xcb_shm_put_image)           \
	X(libxcbshm, xcb_shm_put_image_checked)   \
	X(libxcbshm, xcb_shm_get_image)           \
	X(libxcbshm, xcb_shm_get_image_unchecked) \
	X(libx11xcb, XGetXCBConnection)

/* The shim is built with hidden visibility (its helpers must never take the
 * place of a program's own functions); only the wrapped entry points are
 * exported. */
#define XSHIM_EXPORT __attribute__((visibility("default")))

#define XSHIM_SYM_FIELD(lib, name) __typeof__(&name) name;
struct xshim_syms {
	XSHIM_SYMS_WRAPPED(XSHIM_SYM_FIELD)
	XSHIM_SYMS_HELPERS(XSHIM_SYM_FIELD)
	XSHIM_SYMS_SHM(XSHIM_SYM_FIELD)
};
#undef XSHIM_SYM_FIELD

/* Filled by xshim_syms_load(); fields may be NULL. */
extern struct xshim_syms xshim_real;

/* Resolves the wrapped and helper entry points (idempotent, thread-safe). */
void xshim_syms_load(void);

/* dlopen()s libxcb-shm and libX11-xcb; true when every SHM helper was found
 * (xcb_shm_attach_fd_checked is optional: MIT-SHM 1.2, libxcb >= 1.10). */
bool xshim_syms_load_shm(void);

/* True when every helper a conversion needs was found. */
bool xshim_syms_helpers_ok(void);

#endif
