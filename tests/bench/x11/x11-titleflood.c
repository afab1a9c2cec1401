/*
 * x11-titleflood: session 26's red-team attack on the window manager
 * (docs/x11.md "The window manager first"), as a Tk program looping
 * `wm title . $i` does it: a mapped top-level whose WM_NAME and
 * _NET_WM_NAME change as fast as the X server takes them. wlroots'
 * window manager answers each PropertyNotify with a synchronous
 * GetProperty from the compositor's main loop.
 *
 *   x11-titleflood (--count N | --seconds S | --until-usr2) [--start-on-usr1]
 *                  [--atoms K]
 *
 * --atoms K: instead of titles, new values of K properties the window
 * manager does not read (SMT_FLOOD_0 .. K-1, in turn), each a round trip
 * for wlroots' window manager to fetch and drop.
 * --until-usr2: floods until it gets SIGUSR2 (a test floods until the X
 * server's statistics show what it checks).
 * Prints "ready" once its window is mapped, then floods (with
 * --start-on-usr1: once it gets SIGUSR1, so that a test can read the
 * X server's statistics before); at the end sets
 * the title "final N" (N: the titles set before it), makes a round trip
 * so that everything reached the X server, prints "TITLES N SECONDS S"
 * and keeps the window mapped until killed.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xcb/xcb.h>

#include "common/monotonic_clock.h"

static volatile sig_atomic_t stop_flood;

static void on_usr2(int sig)
{
	(void)sig;
	stop_flood = 1;
}

static xcb_atom_t atom(xcb_connection_t *c, const char *name)
{
	xcb_intern_atom_reply_t *r = xcb_intern_atom_reply(
			c, xcb_intern_atom(c, 0, strlen(name), name), NULL);
	xcb_atom_t a = r ? r->atom : XCB_ATOM_NONE;
	free(r);
	return a;
}

static void set_title(xcb_connection_t *c, xcb_window_t w, xcb_atom_t net_name, xcb_atom_t utf8,
		const char *t)
{
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			strlen(t), t);
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, net_name, utf8, 8, strlen(t), t);
}

int main(int argc, char **argv)
{
	long count = -1;
	double seconds = -1;
	int on_usr1 = 0, until_usr2 = 0;
	long atoms = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--start-on-usr1") == 0) {
			on_usr1 = 1;
			continue;
		}
		if (strcmp(argv[i], "--until-usr2") == 0) {
			until_usr2 = 1;
			continue;
		}
		if (i + 1 >= argc)
			break;
		if (strcmp(argv[i], "--count") == 0)
			count = strtol(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--seconds") == 0)
			seconds = strtod(argv[i + 1], NULL);
		else if (strcmp(argv[i], "--atoms") == 0)
			atoms = strtol(argv[i + 1], NULL, 10);
		i++;
	}
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	if (on_usr1)
		sigprocmask(SIG_BLOCK, &usr1, NULL); /* pending until sigwait */
	if ((count >= 0) + (seconds >= 0) + until_usr2 != 1) {
		fprintf(stderr,
				"usage: x11-titleflood (--count N | --seconds S | --until-usr2) "
				"[--start-on-usr1]\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_usr2 };
	sigaction(SIGUSR2, &sa, NULL);
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11-titleflood: no X display\n");
		return 1;
	}
	xcb_screen_t *scr = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_window_t w = xcb_generate_id(c);
	uint32_t vals[] = { scr->white_pixel, XCB_EVENT_MASK_EXPOSURE };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, w, scr->root, 0, 0, 200, 100, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, scr->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, vals);
	xcb_atom_t net_name = atom(c, "_NET_WM_NAME"), utf8 = atom(c, "UTF8_STRING");
	set_title(c, w, net_name, utf8, "x11-titleflood");
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, XCB_ATOM_WM_CLASS, XCB_ATOM_STRING, 8, 30,
			"x11-titleflood\0x11-titleflood");
	xcb_map_window(c, w);
	xcb_flush(c);
	xcb_generic_event_t *e;
	while ((e = xcb_wait_for_event(c))) {
		int expose = (e->response_type & 0x7f) == XCB_EXPOSE;
		free(e);
		if (expose)
			break;
	}
	xcb_atom_t *flood_atoms = NULL;
	if (atoms > 0) {
		flood_atoms = calloc((size_t)atoms, sizeof(*flood_atoms));
		if (!flood_atoms)
			return 1;
		for (long k = 0; k < atoms; k++) {
			char name[32];
			snprintf(name, sizeof(name), "SMT_FLOOD_%ld", k);
			flood_atoms[k] = atom(c, name);
		}
	}
	printf("ready\n");
	fflush(stdout);
	int sig;
	if (on_usr1)
		sigwait(&usr1, &sig);

	uint64_t start = monotonic_now_ns();
	uint64_t end = seconds >= 0 ? start + (uint64_t)(seconds * 1e9) : 0;
	long n = 0;
	char t[64];
	for (;; n++) {
		if (count >= 0 ? n >= count :
				 (n & 63) == 0 && (until_usr2 ? stop_flood : monotonic_now_ns() >= end))
			break;
		snprintf(t, sizeof(t), "%010ld flood", n);
		if (atoms > 0)
			xcb_change_property(c, XCB_PROP_MODE_REPLACE, w, flood_atoms[n % atoms],
					XCB_ATOM_STRING, 8, strlen(t), t);
		else
			set_title(c, w, net_name, utf8, t);
		/* Written out in batches, as a toolkit's loop does (libxcb
		 * writes when its buffer fills anyway). */
		if ((n & 63) == 63)
			xcb_flush(c);
	}
	snprintf(t, sizeof(t), "final %ld", n);
	set_title(c, w, net_name, utf8, t);
	free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
	double took = (double)(monotonic_now_ns() - start) / 1e9;
	printf("TITLES %ld SECONDS %.3f\n", n, took);
	fflush(stdout);
	while ((e = xcb_wait_for_event(c)))
		free(e);
	xcb_disconnect(c);
	free(flood_atoms);
	return 0;
}
