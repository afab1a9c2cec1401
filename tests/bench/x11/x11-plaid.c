/*
 * x11-plaid: an X flooder for tests/bench/x11/interactive.py, the X twin of
 * smt-plaid: an endless stream of PolyFillRectangle requests of 50
 * rectangles of 40x40 into its own window, and a GetInputFocus round trip
 * every 2,000 requests so that it never runs more than that ahead of the
 * server (issue 26's antagonist).
 *
 *   x11-plaid [--size WxH] [--keys]
 *
 * Prints "ready" once its first round trip returned (the server runs its
 * requests), and on SIGUSR1 "processed N ns T": the requests the server has
 * executed (a round trip first, so none is merely queued) at CLOCK_MONOTONIC
 * T. Ends on SIGTERM or SIGINT, or when the server goes away.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "common/monotonic_clock.h"

#define RECTS_PER_REQUEST 50
#define SIDE 40
#define REQUESTS_PER_SYNC 2000

static volatile sig_atomic_t report_asked, stop_asked;

static void on_usr1(int sig)
{
	(void)sig;
	report_asked = 1;
}

static void on_stop(int sig)
{
	(void)sig;
	stop_asked = 1;
}

/* A round trip: every request sent before it has been executed. */
static int sync_server(xcb_connection_t *c)
{
	xcb_get_input_focus_reply_t *r = xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL);
	if (!r)
		return -1;
	free(r);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned w = 400, h = 300;
	uint32_t keys = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--size") == 0 && i + 1 < argc &&
				sscanf(argv[++i], "%ux%u", &w, &h) == 2 && w >= SIDE && h >= SIDE &&
				w <= 4096 && h <= 4096)
			continue;
		/* A busy program typed into (the input boost's worst case,
		 * docs/x11.md): its window takes key presses, which it never
		 * looks at (libxcb queues them). */
		if (strcmp(argv[i], "--keys") == 0) {
			keys = XCB_EVENT_MASK_KEY_PRESS;
			continue;
		}
		fprintf(stderr, "usage: x11-plaid [--size WxH] [--keys] (40x40 to 4096x4096)\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_usr1 };
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);

	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11-plaid: cannot connect to $DISPLAY\n");
		return 1;
	}
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_window_t win = xcb_generate_id(c);
	uint32_t values[2] = { s->black_pixel, keys };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, win, s->root, 0, 0, (uint16_t)w, (uint16_t)h, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	static const char name[] = "x11-plaid";
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			sizeof(name) - 1, name);
	xcb_map_window(c, win);
	xcb_gcontext_t gc[2] = { xcb_generate_id(c), xcb_generate_id(c) };
	/* Two colours from the pid, so neighbouring flooders differ. */
	uint32_t colour[2] = { 0x400000u | ((uint32_t)getpid() * 2654435761u & 0x3fffffu),
		0xc0c0c0u ^ ((uint32_t)getpid() * 40503u & 0x3f3f3fu) };
	for (int i = 0; i < 2; i++)
		xcb_create_gc(c, gc[i], win, XCB_GC_FOREGROUND, &colour[i]);
	if (sync_server(c) != 0) {
		fprintf(stderr, "x11-plaid: the server went away\n");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);

	xcb_rectangle_t r[RECTS_PER_REQUEST];
	uint64_t processed = 0, sent = 0;
	unsigned step = 0;
	while (!stop_asked) {
		/* A plaid: rows of blocks that walk across the window. */
		for (int i = 0; i < RECTS_PER_REQUEST; i++, step++) {
			unsigned cols = w / SIDE, rows = h / SIDE;
			r[i] = (xcb_rectangle_t){ (int16_t)((step % cols) * SIDE),
				(int16_t)((step / cols % rows) * SIDE), SIDE, SIDE };
		}
		xcb_poly_fill_rectangle(
				c, win, gc[(step / RECTS_PER_REQUEST) & 1], RECTS_PER_REQUEST, r);
		if (++sent % REQUESTS_PER_SYNC == 0 || report_asked) {
			if (sync_server(c) != 0)
				break;
			processed = sent;
		}
		if (report_asked) {
			report_asked = 0;
			printf("processed %llu ns %llu\n", (unsigned long long)processed,
					(unsigned long long)monotonic_now_ns());
			fflush(stdout);
		}
	}
	int gone = xcb_connection_has_error(c);
	xcb_disconnect(c);
	if (gone && !stop_asked) {
		fprintf(stderr, "x11-plaid: the server went away\n");
		return 1;
	}
	return 0;
}
