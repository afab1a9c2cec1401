/*
 * x11-echo: seed 001's echo measurement for an X client, for
 * tests/bench/x11/interactive.py. Every period it draws a rectangle into
 * its window, changes a property of it and times the PropertyNotify that
 * comes back: the time the X server took to get to the client's requests,
 * which is what a person typing into an X program waits for.
 *
 *   x11-echo --seconds S [--warmup S] [--period-ms MS] --csv PATH [--keys]
 *            [--expose] [--xi2] [--rects N] [--min-answers N]
 *   x11-echo --mapped
 *
 * --min-answers N (timer mode): the run goes on past S seconds until N
 * echoes were answered (at most MIN_ANSWERS_GRACE_S seconds more): a test
 * that needs N answers gets them however slow a loaded machine makes each
 * one, instead of asserting a rate (tests/integration/harness/x11_flood.py).
 *
 * --keys: instead of a timer, a KeyPress the window receives (its focus,
 * keys from the compositor) starts an echo: the event's arrival in the
 * client is "due" and the same requests follow; keys that arrive while an
 * echo is on its way are answered by it. Samples that arrive during
 * --warmup are not written.
 *
 * --xi2: with --keys, the keys come as XInput 2 events (XI_KeyPress, as
 * GTK 3 and other XI2 programs take them) instead of core KeyPress.
 *
 * --rects N (1-400, default 1): each echo draws N rectangles of 100x100
 * in one request instead of one of 20x20 (at most 3.2 KiB, read whole
 * under a light grant): a program whose redraw costs the X server more,
 * still idle between redraws (integration/x11_light_many).
 *
 * --expose (a diagnosis, docs/x11.md "Scheduling X clients"): each echo
 * begins with a ClearArea that exposes one pixel, so the server delivers
 * the client an Expose, one of the events for which Xwayland's smart
 * scheduler praises a client (+1), as it does for key, button and motion
 * events.
 *
 * --mapped: a start-up and nothing else (tests/bench/x11/startup.py): the
 * window created, named, mapped, and the client exits 0 at its first
 * Expose.
 *
 * CSV: seq,due_ns,send_ns,recv_ns (CLOCK_MONOTONIC; recv_ns 0: no
 * PropertyNotify within a second, counted as lost). Prints "ready" once its
 * window is mapped, and "samples N lost L run_delay_ms D" at the end: D
 * the time it waited for a CPU while measuring (/proc/self/schedstat).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xcb/xcb.h>
#include <xcb/xinput.h>

#include "common/monotonic_clock.h"

#define LOST_AFTER_NS 1000000000ull
#define MAX_RECTS 400
#define MIN_ANSWERS_GRACE_S 120u

static void sleep_until(uint64_t ns)
{
	struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

/* Keys come as core KeyPress or, with --xi2, as XI_KeyPress. */
static int use_xi2;
static uint8_t xi_opcode;

static int is_key(const xcb_generic_event_t *e)
{
	uint8_t t = e->response_type & 0x7f;
	if (!use_xi2)
		return t == XCB_KEY_PRESS;
	const xcb_ge_generic_event_t *ge = (const xcb_ge_generic_event_t *)e;
	return t == XCB_GE_GENERIC && ge->extension == xi_opcode &&
			ge->event_type == XCB_INPUT_KEY_PRESS;
}

#define ANY_KEY 0xff /* wait_event's type for a key, core or XI2 */

/* The next event of type `type` (sent events included) before deadline_ns;
 * others are dropped. NULL on timeout or a dead connection. */
static xcb_generic_event_t *wait_event(xcb_connection_t *c, uint8_t type, uint64_t deadline_ns)
{
	for (;;) {
		xcb_generic_event_t *e;
		while ((e = xcb_poll_for_event(c)) != NULL) {
			uint8_t t = e->response_type & 0x7f;
			if (type == ANY_KEY ? is_key(e) : t == type)
				return e;
			free(e);
		}
		if (xcb_connection_has_error(c))
			return NULL;
		uint64_t now = monotonic_now_ns();
		if (now >= deadline_ns)
			return NULL;
		struct pollfd p = { xcb_get_file_descriptor(c), POLLIN, 0 };
		uint64_t left_ms = (deadline_ns - now + 999999) / 1000000;
		poll(&p, 1, left_ms > 1000 ? 1000 : (int)left_ms);
	}
}

/* The time this process waited runnable for a CPU (ns): the machine's share
 * of its latency, which no X server setting changes. */
static uint64_t run_delay_ns(void)
{
	unsigned long long run = 0, wait = 0;
	FILE *f = fopen("/proc/self/schedstat", "r");
	if (f) {
		if (fscanf(f, "%llu %llu", &run, &wait) != 2)
			wait = 0;
		fclose(f);
	}
	return wait;
}

struct sample {
	uint64_t due, send, recv;
};

int main(int argc, char **argv)
{
	double seconds = 0, warmup = 1, period_ms = 10;
	const char *csv = NULL;
	int keys_mode = 0, expose = 0, rects = 1, mapped_only = 0;
	long min_answers = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--mapped") == 0)
			mapped_only = 1;
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--warmup") == 0 && i + 1 < argc)
			warmup = atof(argv[++i]);
		else if (strcmp(argv[i], "--period-ms") == 0 && i + 1 < argc)
			period_ms = atof(argv[++i]);
		else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
			csv = argv[++i];
		else if (strcmp(argv[i], "--keys") == 0)
			keys_mode = 1;
		else if (strcmp(argv[i], "--expose") == 0)
			expose = 1;
		else if (strcmp(argv[i], "--xi2") == 0)
			use_xi2 = 1;
		else if (strcmp(argv[i], "--rects") == 0 && i + 1 < argc)
			rects = atoi(argv[++i]);
		else if (strcmp(argv[i], "--min-answers") == 0 && i + 1 < argc)
			min_answers = atol(argv[++i]);
		else
			seconds = -1;
	}
	if (mapped_only && argc == 2) {
		seconds = 1; /* what the checks below ask; nothing is timed */
		csv = "-";
	}
	if (!(seconds > 0 && seconds <= 3600 && warmup >= 0 && warmup <= 60 && period_ms >= 1 &&
			    period_ms <= 1000 && csv && rects >= 1 && rects <= MAX_RECTS &&
			    min_answers >= 0 && min_answers <= 100000 &&
			    !(keys_mode && min_answers))) {
		fprintf(stderr,
				"usage: x11-echo --seconds S [--warmup S] [--period-ms MS] "
				"--csv PATH [--keys] [--expose] [--xi2] [--rects 1-%d] "
				"[--min-answers N, not with --keys]\n",
				MAX_RECTS);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "x11-echo: cannot connect to $DISPLAY\n");
		return 1;
	}
	xcb_screen_t *s = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	xcb_window_t win = xcb_generate_id(c);
	uint32_t values[2] = { s->white_pixel,
		XCB_EVENT_MASK_PROPERTY_CHANGE | XCB_EVENT_MASK_EXPOSURE |
				(use_xi2 ? 0 : XCB_EVENT_MASK_KEY_PRESS) };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, win, s->root, 0, 0, 200, 100, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, s->root_visual,
			XCB_CW_BACK_PIXEL | XCB_CW_EVENT_MASK, values);
	static const char name[] = "x11-echo";
	xcb_change_property(c, XCB_PROP_MODE_REPLACE, win, XCB_ATOM_WM_NAME, XCB_ATOM_STRING, 8,
			sizeof(name) - 1, name);
	xcb_intern_atom_reply_t *a = xcb_intern_atom_reply(
			c, xcb_intern_atom(c, 0, 8, "SMT_ECHO"), NULL);
	if (!a) {
		fprintf(stderr, "x11-echo: InternAtom failed\n");
		return 1;
	}
	xcb_atom_t echo_atom = a->atom;
	free(a);
	xcb_gcontext_t gc = xcb_generate_id(c);
	uint32_t fg = s->black_pixel;
	xcb_create_gc(c, gc, win, XCB_GC_FOREGROUND, &fg);
	if (use_xi2) {
		const xcb_query_extension_reply_t *xi = xcb_get_extension_data(c, &xcb_input_id);
		xcb_input_xi_query_version_reply_t *v = xi && xi->present ?
				xcb_input_xi_query_version_reply(
						c, xcb_input_xi_query_version(c, 2, 2), NULL) :
				NULL;
		if (!v || v->major_version < 2) {
			fprintf(stderr, "x11-echo: the server has no XInput 2\n");
			return 1;
		}
		free(v);
		xi_opcode = xi->major_opcode;
		struct {
			xcb_input_event_mask_t head;
			uint32_t mask;
		} m = { { XCB_INPUT_DEVICE_ALL_MASTER, 1 }, XCB_INPUT_XI_EVENT_MASK_KEY_PRESS };
		xcb_input_xi_select_events(c, win, 1, &m.head);
	}
	xcb_map_window(c, win);
	xcb_flush(c);
	free(wait_event(c, XCB_EXPOSE, monotonic_now_ns() + 30 * 1000000000ull));
	printf("ready\n");
	fflush(stdout);
	if (mapped_only) {
		xcb_disconnect(c);
		return 0;
	}

	size_t cap = (size_t)((seconds + warmup + (min_answers ? MIN_ANSWERS_GRACE_S : 0)) *
				     1000.0 / period_ms) +
			16;
	if (keys_mode)
		cap = (size_t)((seconds + warmup) * 2000.0) + 16; /* up to 2,000 keys/s */
	struct sample *v = calloc(cap, sizeof(*v));
	if (!v)
		return 1;
	size_t n = 0, lost = 0;
	uint64_t grace_end = 0;
	uint64_t start = monotonic_now_ns(), measure_from = start + (uint64_t)(warmup * 1e9),
		 end = measure_from + (uint64_t)(seconds * 1e9),
		 period = (uint64_t)(period_ms * 1e6), due = start + period;
	uint32_t seq = 0;
	uint64_t delay0 = 0;
	int measuring = 0;
	while (n < cap && !xcb_connection_has_error(c)) {
		if (keys_mode) {
			/* Keys that came while the last echo was on its way are
			 * answered by it, as a program redraws once for what was
			 * typed meanwhile: echoing them back to back would time the
			 * server staying with the client it runs, not reaching it. */
			xcb_generic_event_t *k = wait_event(c, ANY_KEY, end);
			if (!k)
				break;
			free(k);
			due = monotonic_now_ns();
		} else {
			sleep_until(due);
		}
		if (due >= end) {
			if (n - lost >= (size_t)min_answers)
				break;
			/* (timer mode only: keys mode ended at `end` above) */
			if (grace_end == 0)
				grace_end = end + MIN_ANSWERS_GRACE_S * 1000000000ull;
			if (due >= grace_end)
				break;
		}
		if (!measuring && due >= measure_from) {
			measuring = 1;
			delay0 = run_delay_ns();
		}
		uint64_t send = monotonic_now_ns();
		seq++;
		if (expose) /* its Expose is dropped by wait_event */
			xcb_clear_area(c, 1, win, 199, 99, 1, 1);
		xcb_rectangle_t r[MAX_RECTS];
		for (int i = 0; i < rects; i++) {
			uint32_t k = seq + (uint32_t)i;
			r[i] = rects == 1 ? (xcb_rectangle_t){ (int16_t)(k % 180),
				(int16_t)(k / 180 % 80), 20, 20 } :
					    (xcb_rectangle_t){ (int16_t)(k % 100), 0, 100, 100 };
		}
		xcb_poly_fill_rectangle(c, win, gc, (uint32_t)rects, r);
		xcb_change_property(c, XCB_PROP_MODE_REPLACE, win, echo_atom, XCB_ATOM_CARDINAL, 32,
				1, &seq);
		xcb_flush(c);
		/* The window manager changes properties of ours too: only our
		 * atom's notification answers. */
		uint64_t recv = 0;
		xcb_generic_event_t *e;
		while ((e = wait_event(c, XCB_PROPERTY_NOTIFY, send + LOST_AFTER_NS)) != NULL) {
			int ours = ((xcb_property_notify_event_t *)e)->atom == echo_atom;
			free(e);
			if (ours) {
				recv = monotonic_now_ns();
				break;
			}
		}
		if (due >= measure_from) {
			v[n++] = (struct sample){ due, send, recv };
			lost += recv == 0;
		}
		if (!keys_mode) {
			due += period;
			uint64_t now = monotonic_now_ns();
			if (due < now) /* late: the next one from now, not a burst */
				due = now + period - (now - due) % period;
		}
	}
	double delay_ms = measuring ? (double)(run_delay_ns() - delay0) / 1e6 : 0.0;
	FILE *f = fopen(csv, "w");
	if (!f) {
		fprintf(stderr, "x11-echo: %s: %s\n", csv, strerror(errno));
		return 1;
	}
	fprintf(f, "seq,due_ns,send_ns,recv_ns\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu,%llu,%llu,%llu\n", i, (unsigned long long)v[i].due,
				(unsigned long long)v[i].send, (unsigned long long)v[i].recv);
	fclose(f);
	free(v);
	printf("samples %zu lost %zu run_delay_ms %.1f\n", n, lost, delay_ms);
	xcb_disconnect(c);
	return 0;
}
