/* Helpers of x11-imgcheck: generator, hash, error log. */
#include "tests/x11/imgcheck.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <X11/Xutil.h>

uint64_t rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dull;
}

int rng_range(struct rng *r, int lo, int hi)
{
	return lo + (int)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

void hash_init(struct hash *h)
{
	h->h = 0xcbf29ce484222325ull;
}

void hash_bytes(struct hash *h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h->h ^= b[i];
		h->h *= 0x100000001b3ull;
	}
}

void hash_u64(struct hash *h, uint64_t v)
{
	hash_bytes(h, &v, sizeof(v));
}

void section_print(const char *name, const struct hash *h)
{
	printf("section %s %016llx\n", name, (unsigned long long)h->h);
	fflush(stdout);
}

void hash_ximage(struct hash *h, const XImage *img)
{
	if (!img) {
		hash_u64(h, 0xdead);
		return;
	}
	hash_u64(h, (uint64_t)img->width);
	hash_u64(h, (uint64_t)img->height);
	hash_u64(h, (uint64_t)img->depth);
	hash_u64(h, (uint64_t)img->format);
	hash_u64(h, (uint64_t)img->bits_per_pixel);
	hash_u64(h, (uint64_t)img->bytes_per_line);
	hash_u64(h, (uint64_t)img->byte_order);
	if (img->format == ZPixmap && img->bits_per_pixel < 8) {
		/* Bits past the width in a row's last byte are not defined. */
		for (int y = 0; y < img->height; y++)
			for (int x = 0; x < img->width; x++)
				hash_u64(h, XGetPixel((XImage *)img, x, y));
		return;
	}
	size_t row = img->format == ZPixmap ?
			((size_t)img->width * (size_t)img->bits_per_pixel + 7) / 8 :
			(size_t)img->bytes_per_line;
	size_t rows = (size_t)img->height * (img->format == ZPixmap ? 1 : (size_t)img->depth);
	for (size_t y = 0; y < rows; y++)
		hash_bytes(h, img->data + y * (size_t)img->bytes_per_line, row);
}

#define MAX_ERRORS 256
static struct {
	unsigned char code, request, minor;
} errors[MAX_ERRORS];
static int nerrors;

static int on_error(Display *dpy, XErrorEvent *e)
{
	(void)dpy;
	if (nerrors < MAX_ERRORS) {
		errors[nerrors].code = e->error_code;
		errors[nerrors].request = e->request_code;
		errors[nerrors].minor = e->minor_code;
		nerrors++;
	}
	return 0;
}

void errors_install(void)
{
	XSetErrorHandler(on_error);
}

/* Folds the errors seen so far into h, prints them (for the log) and
 * forgets them. */
void errors_hash(struct hash *h, const char *section)
{
	for (int i = 0; i < nerrors; i++) {
		printf("error %s code=%d request=%d minor=%d\n", section, errors[i].code,
				errors[i].request, errors[i].minor);
		hash_bytes(h, &errors[i], sizeof(errors[i]));
	}
	hash_u64(h, (uint64_t)nerrors);
	nerrors = 0;
}
