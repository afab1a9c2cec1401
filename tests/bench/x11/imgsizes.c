/*
 * imgsizes put|get SECONDS N...: XPutImage or XGetImage of NxN ZPixmap
 * images into/from a 600x600 window, as many as fit in SECONDS per size,
 * synchronised at the end; prints "put N ops_per_second" per size.
 *
 * x11perf only knows 10, 100 and 500 pixels; this fills in between, to find
 * where the shim starts to pay off (run.py --sizes compiles and runs it with
 * and without the shim).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <X11/Xlib.h>
#include <X11/Xutil.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 4 || (strcmp(argv[1], "put") && strcmp(argv[1], "get"))) {
		fprintf(stderr, "usage: imgsizes put|get SECONDS N...\n");
		return 2;
	}
	int put = !strcmp(argv[1], "put");
	double secs = atof(argv[2]);
	Display *dpy = XOpenDisplay(NULL);
	if (!dpy) {
		fprintf(stderr, "imgsizes: cannot open display\n");
		return 1;
	}
	int scr = DefaultScreen(dpy);
	XSetWindowAttributes a = { .background_pixel = BlackPixel(dpy, scr),
		.override_redirect = True,
		.event_mask = ExposureMask };
	Window w = XCreateWindow(dpy, RootWindow(dpy, scr), 0, 0, 600, 600, 0, CopyFromParent,
			InputOutput, CopyFromParent, CWBackPixel | CWOverrideRedirect | CWEventMask,
			&a);
	XMapWindow(dpy, w);
	XEvent ev;
	XWindowEvent(dpy, w, ExposureMask, &ev);
	GC gc = XCreateGC(dpy, w, 0, NULL);
	/* The source: the window's own pixels, as x11perf does. */
	XImage *src = XGetImage(dpy, w, 0, 0, 600, 600, AllPlanes, ZPixmap);
	for (int i = 3; i < argc; i++) {
		unsigned n = (unsigned)atoi(argv[i]);
		long ops = 0;
		double t0 = now(), t;
		/* Synchronise now and then: puts would otherwise only queue. */
		int batch = put ? 200 : 20;
		do {
			for (int k = 0; k < batch; k++, ops++) {
				int x = (int)((ops * 37) % (600 - n + 1)),
				    y = (int)((ops * 11) % (600 - n + 1));
				if (put) {
					XPutImage(dpy, w, gc, src, x, y, y, x, n, n);
				} else {
					XImage *img = XGetImage(
							dpy, w, x, y, n, n, AllPlanes, ZPixmap);
					if (img)
						XDestroyImage(img);
				}
			}
			XSync(dpy, False);
			t = now() - t0;
		} while (t < secs);
		printf("%s %u %.0f\n", argv[1], n, (double)ops / t);
		fflush(stdout);
	}
	XDestroyImage(src);
	XCloseDisplay(dpy);
	return 0;
}
