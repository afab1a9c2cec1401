/*
 * x11-imgcheck: draws and reads images through XPutImage/XGetImage (and the
 * XCB equivalents) in a fixed pseudo-random sequence and prints one hash per
 * section. Run with and without the shim against the same kind of server,
 * the output must be byte for byte the same: the shim must never change what
 * is drawn, what is read, or which errors are reported.
 */
#ifndef SMT_IMGCHECK_H
#define SMT_IMGCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <X11/Xlib.h>

/* Deterministic generator (xorshift64*): same sequence on every run. */
struct rng {
	uint64_t s;
};
uint64_t rng_next(struct rng *r);
/* Uniform in [lo, hi]. */
int rng_range(struct rng *r, int lo, int hi);

/* FNV-1a, 64 bit. */
struct hash {
	uint64_t h;
};
void hash_init(struct hash *h);
void hash_bytes(struct hash *h, const void *p, size_t n);
void hash_u64(struct hash *h, uint64_t v);

/* Errors seen by the Xlib error handler, in order. */
void errors_install(void);
void errors_hash(struct hash *h, const char *section);

/* Prints "section <name> <hash>". */
void section_print(const char *name, const struct hash *h);

/* Hashes what an XImage holds that a program may rely on: geometry, format
 * and each row's meaningful bytes (row padding is not defined by X). */
void hash_ximage(struct hash *h, const XImage *img);

/* Iterations of the put/get sequences (--loops N). */
extern int loops;

void check_xcb_on_xlib(Display *dpy);
void check_xcb_pure(void);

#endif
