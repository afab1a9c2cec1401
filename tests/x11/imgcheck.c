/*
 * x11-imgcheck [--loops N] [--threads] [--displays]
 *
 * Xlib part of the checker (see imgcheck.h). Sections:
 *   window, pixmap-dN   XPutImage with random sizes, sub-image offsets (also
 *                       negative and past the edges), padded rows, GC
 *                       function / plane mask / clip rectangles, interleaved
 *                       with fills and copies (request order matters), and
 *                       the source buffer overwritten right after each call;
 *                       read back with XYPixmap (never converted) and ZPixmap
 *   get-*               XGetImage / XGetSubImage of random regions, plane
 *                       masks, regions out of bounds (errors)
 *   errors              bad drawable, depth mismatch: the error handler must
 *                       see the same codes
 *   xcb-*               the XCB entry points (imgcheck_xcb.c)
 *   --threads           XInitThreads, four threads drawing on one display
 *   --displays          two connections, one closed midway
 */
#include "tests/x11/imgcheck.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <X11/Xutil.h>

int loops = 120;

static XImage *random_image(Display *dpy, struct rng *r, int depth, int w, int h)
{
	XImage *img = XCreateImage(dpy, NULL, (unsigned)depth, ZPixmap, 0, NULL, (unsigned)w,
			(unsigned)h, 32, 0);
	if (!img)
		abort();
	/* Rows longer than needed: the shim must honour bytes_per_line. */
	int bpl = img->bytes_per_line + 4 * rng_range(r, 0, 3);
	XDestroyImage(img);
	img = XCreateImage(dpy, NULL, (unsigned)depth, ZPixmap, 0, NULL, (unsigned)w, (unsigned)h,
			32, bpl);
	size_t n = (size_t)bpl * (size_t)h;
	img->data = malloc(n);
	if (!img->data)
		abort();
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = rng_next(r);
		memcpy(img->data + i, &v, n - i < 8 ? n - i : 8);
	}
	return img;
}

/* Mostly small and large, some in between: both sides of the thresholds. */
static void random_size(struct rng *r, int *w, int *h)
{
	switch (rng_range(r, 0, 9)) {
	case 0:
	case 1:
	case 2:
	case 3:
		*w = rng_range(r, 1, 40);
		*h = rng_range(r, 1, 40);
		break;
	case 4:
	case 5:
	case 6:
		*w = rng_range(r, 40, 220);
		*h = rng_range(r, 40, 220);
		break;
	default:
		*w = rng_range(r, 200, 700);
		*h = rng_range(r, 150, 500);
		break;
	}
}

static void random_gc_state(Display *dpy, GC gc, struct rng *r, int depth, int dw, int dh)
{
	int mode = rng_range(r, 0, 9);
	XSetFunction(dpy, gc, mode == 0 ? GXxor : GXcopy);
	unsigned long pm = depth >= 32 ? 0xffffffffu : (1ul << depth) - 1;
	XSetPlaneMask(dpy, gc, mode == 1 ? pm & 0x00f0f0f0u : AllPlanes);
	if (mode == 2) {
		XRectangle rects[3];
		for (int i = 0; i < 3; i++) {
			rects[i].x = (short)rng_range(r, -50, dw);
			rects[i].y = (short)rng_range(r, -50, dh);
			rects[i].width = (unsigned short)rng_range(r, 1, dw / 2);
			rects[i].height = (unsigned short)rng_range(r, 1, dh / 2);
		}
		XSetClipRectangles(dpy, gc, 0, 0, rects, 3, Unsorted);
	} else {
		XSetClipMask(dpy, gc, None);
	}
}

static void put_sequence(Display *dpy, Drawable d, int depth, int dw, int dh, struct rng *r, int n)
{
	XGCValues v = { .graphics_exposures = False };
	GC gc = XCreateGC(dpy, d, GCGraphicsExposures, &v);
	GC fill = XCreateGC(dpy, d, GCGraphicsExposures, &v);
	for (int i = 0; i < n; i++) {
		int w, h;
		random_size(r, &w, &h);
		XImage *img = random_image(dpy, r, depth, w, h);
		random_gc_state(dpy, gc, r, depth, dw, dh);
		int sx = rng_range(r, -20, w + 10), sy = rng_range(r, -20, h + 10);
		unsigned pw = (unsigned)rng_range(r, 0, w + 40),
			 ph = (unsigned)rng_range(r, 0, h + 40);
		int dx = rng_range(r, -100, dw + 20), dy = rng_range(r, -100, dh + 20);
		XPutImage(dpy, d, gc, img, sx, sy, dx, dy, pw, ph);
		/* The caller may reuse its buffer as soon as the call returns. */
		memset(img->data, 0xee, (size_t)img->bytes_per_line * (size_t)h);
		XDestroyImage(img);
		if (rng_range(r, 0, 3) == 0) {
			XSetForeground(dpy, fill, rng_next(r));
			XFillRectangle(dpy, d, fill, rng_range(r, -20, dw), rng_range(r, -20, dh),
					(unsigned)rng_range(r, 1, 300),
					(unsigned)rng_range(r, 1, 300));
		}
		if (rng_range(r, 0, 4) == 0)
			XCopyArea(dpy, d, d, fill, rng_range(r, 0, dw / 2), rng_range(r, 0, dh / 2),
					(unsigned)rng_range(r, 1, dw / 2),
					(unsigned)rng_range(r, 1, dh / 2), rng_range(r, -50, dw),
					rng_range(r, -50, dh));
	}
	XFreeGC(dpy, gc);
	XFreeGC(dpy, fill);
}

/* Contents, read twice: XYPixmap (never converted: the reference) and
 * ZPixmap (converted when large). */
static void hash_drawable(Display *dpy, Drawable d, int dw, int dh, struct hash *h)
{
	XImage *xy = XGetImage(dpy, d, 0, 0, (unsigned)dw, (unsigned)dh, AllPlanes, XYPixmap);
	hash_ximage(h, xy);
	if (xy)
		XDestroyImage(xy);
	XImage *z = XGetImage(dpy, d, 0, 0, (unsigned)dw, (unsigned)dh, AllPlanes, ZPixmap);
	hash_ximage(h, z);
	if (z)
		XDestroyImage(z);
}

static void get_sequence(
		Display *dpy, Drawable d, int depth, int dw, int dh, struct rng *r, struct hash *h)
{
	XImage *dest = random_image(dpy, r, depth, 400, 300);
	for (int i = 0; i < loops / 2; i++) {
		int w, hh;
		random_size(r, &w, &hh);
		/* Mostly inside; sometimes past the edge (BadMatch). */
		bool out = rng_range(r, 0, 7) == 0;
		int x = out ? rng_range(r, dw - w / 2, dw) : rng_range(r, 0, dw > w ? dw - w : 0);
		int y = out ? rng_range(r, -hh, 0) : rng_range(r, 0, dh > hh ? dh - hh : 0);
		if (!out) {
			w = w < dw ? w : dw;
			hh = hh < dh ? hh : dh;
		}
		unsigned long pm = rng_range(r, 0, 4) == 0 ? 0x00ff00ffu : AllPlanes;
		XImage *img = XGetImage(dpy, d, x, y, (unsigned)w, (unsigned)hh, pm, ZPixmap);
		hash_ximage(h, img);
		if (img) {
			/* The image is the caller's: XPutPixel and XDestroyImage work. */
			XPutPixel(img, 0, 0, XGetPixel(img, img->width - 1, img->height - 1));
			hash_ximage(h, img);
			XDestroyImage(img);
		}
		if (rng_range(r, 0, 3) == 0 && !out && w <= 400 && hh <= 300) {
			XImage *s = XGetSubImage(dpy, d, x, y, (unsigned)w, (unsigned)hh, AllPlanes,
					ZPixmap, dest, 400 - w, 300 - hh);
			hash_u64(h, s != NULL);
			hash_ximage(h, dest);
		}
	}
	XDestroyImage(dest);
}

static void check_drawable(Display *dpy, const char *name, Drawable d, int depth, int dw, int dh,
		uint64_t seed)
{
	struct rng r = { seed };
	struct hash h;
	hash_init(&h);
	put_sequence(dpy, d, depth, dw, dh, &r, loops);
	hash_drawable(dpy, d, dw, dh, &h);
	XSync(dpy, False);
	errors_hash(&h, name);
	section_print(name, &h);

	char gname[64];
	snprintf(gname, sizeof(gname), "get-%s", name);
	hash_init(&h);
	get_sequence(dpy, d, depth, dw, dh, &r, &h);
	XSync(dpy, False);
	errors_hash(&h, gname);
	section_print(gname, &h);
}

static void check_window(Display *dpy)
{
	int scr = DefaultScreen(dpy);
	XSetWindowAttributes a = { .background_pixel = BlackPixel(dpy, scr),
		.event_mask = ExposureMask,
		.override_redirect = True };
	Window w = XCreateWindow(dpy, RootWindow(dpy, scr), 0, 0, 900, 700, 0, CopyFromParent,
			InputOutput, CopyFromParent, CWBackPixel | CWEventMask | CWOverrideRedirect,
			&a);
	XMapWindow(dpy, w);
	XEvent ev;
	XWindowEvent(dpy, w, ExposureMask, &ev); /* drawn into only once visible */
	check_drawable(dpy, "window", w, DefaultDepth(dpy, scr), 900, 700, 1);
	XDestroyWindow(dpy, w);
}

static void check_pixmaps(Display *dpy)
{
	static const int depths[] = { 24, 32, 16, 8, 1 };
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		Pixmap p = XCreatePixmap(
				dpy, DefaultRootWindow(dpy), 800, 600, (unsigned)depths[i]);
		XGCValues v = { .foreground = 0 };
		GC gc = XCreateGC(dpy, p, GCForeground, &v);
		XFillRectangle(dpy, p, gc, 0, 0, 800, 600);
		XFreeGC(dpy, gc);
		char name[32];
		snprintf(name, sizeof(name), "pixmap-d%d", depths[i]);
		check_drawable(dpy, name, p, depths[i], 800, 600, 100 + i);
		XFreePixmap(dpy, p);
	}
}

static void check_errors(Display *dpy)
{
	struct rng r = { 7 };
	struct hash h;
	hash_init(&h);
	Window root = DefaultRootWindow(dpy);
	Pixmap gone = XCreatePixmap(dpy, root, 600, 600, 24);
	GC gc = XCreateGC(dpy, gone, 0, NULL);
	XFreePixmap(dpy, gone);
	XImage *big = random_image(dpy, &r, 24, 500, 400);
	XImage *big16 = random_image(dpy, &r, 16, 500, 400);
	Pixmap p = XCreatePixmap(dpy, root, 600, 600, 24);

	XPutImage(dpy, gone, gc, big, 0, 0, 0, 0, 500, 400); /* BadDrawable */
	XPutImage(dpy, p, gc, big16, 0, 0, 0, 0, 500, 400);  /* BadMatch: depth */
	XPutImage(dpy, p, gc, big, 0, 0, 10, 10, 500, 400);  /* fine */
	XImage *none = XGetImage(dpy, gone, 0, 0, 500, 400, AllPlanes, ZPixmap);
	hash_u64(&h, none == NULL);
	none = XGetImage(dpy, p, 300, 300, 500, 400, AllPlanes, ZPixmap); /* BadMatch */
	hash_u64(&h, none == NULL);
	hash_drawable(dpy, p, 600, 600, &h);
	XSync(dpy, False);
	errors_hash(&h, "errors");
	section_print("errors", &h);
	XDestroyImage(big);
	XDestroyImage(big16);
	XFreeGC(dpy, gc);
	XFreePixmap(dpy, p);
}

struct thread_arg {
	Display *dpy;
	Pixmap p;
	uint64_t seed;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	struct rng r = { a->seed };
	put_sequence(a->dpy, a->p, 24, 640, 480, &r, loops);
	XSync(a->dpy, False);
	return NULL;
}

static void check_threads(Display *dpy)
{
	enum {
		N = 4
	};
	pthread_t t[N];
	struct thread_arg a[N];
	for (int i = 0; i < N; i++) {
		a[i] = (struct thread_arg){ dpy,
			XCreatePixmap(dpy, DefaultRootWindow(dpy), 640, 480, 24),
			1000u + (uint64_t)i };
		pthread_create(&t[i], NULL, thread_main, &a[i]);
	}
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	struct hash h;
	hash_init(&h);
	for (int i = 0; i < N; i++) {
		hash_drawable(dpy, a[i].p, 640, 480, &h);
		XFreePixmap(dpy, a[i].p);
	}
	XSync(dpy, False);
	errors_hash(&h, "threads");
	section_print("threads", &h);
}

static void check_displays(Display *dpy)
{
	Display *second = XOpenDisplay(NULL);
	if (!second) {
		fprintf(stderr, "x11-imgcheck: cannot open a second display\n");
		exit(1);
	}
	struct rng r1 = { 31 }, r2 = { 32 };
	struct hash h;
	hash_init(&h);
	Pixmap p1 = XCreatePixmap(dpy, DefaultRootWindow(dpy), 640, 480, 24);
	Pixmap p2 = XCreatePixmap(second, DefaultRootWindow(second), 640, 480, 24);
	for (int i = 0; i < 4; i++) {
		put_sequence(dpy, p1, 24, 640, 480, &r1, loops / 4);
		put_sequence(second, p2, 24, 640, 480, &r2, loops / 4);
	}
	hash_drawable(second, p2, 640, 480, &h);
	XCloseDisplay(second); /* its state goes; the first carries on */
	put_sequence(dpy, p1, 24, 640, 480, &r1, loops / 4);
	hash_drawable(dpy, p1, 640, 480, &h);
	XFreePixmap(dpy, p1);
	XSync(dpy, False);
	errors_hash(&h, "displays");
	section_print("displays", &h);
}

int main(int argc, char **argv)
{
	bool threads = false, displays = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--loops") && i + 1 < argc)
			loops = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--threads"))
			threads = true;
		else if (!strcmp(argv[i], "--displays"))
			displays = true;
		else {
			fprintf(stderr, "usage: x11-imgcheck [--loops N] [--threads] [--displays]\n");
			return 2;
		}
	}
	if (threads)
		XInitThreads();
	Display *dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "x11-imgcheck: cannot open display\n");
		return 1;
	}
	errors_install();
	if (threads) {
		check_threads(dpy);
	} else if (displays) {
		check_displays(dpy);
	} else {
		check_window(dpy);
		check_pixmaps(dpy);
		check_errors(dpy);
		check_xcb_on_xlib(dpy);
		check_xcb_pure();
	}
	XCloseDisplay(dpy);
	return 0;
}
