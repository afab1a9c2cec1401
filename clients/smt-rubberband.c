/*
 * smt-rubberband — interactive echo latency, like the rubber-band test of the
 * fair-share scheduler paper (seed 001): a virtual pointer moves over the
 * window at a fixed rate and the window draws a rubber-band line from a fixed
 * anchor to the pointer after every motion event.
 *
 *   smt-rubberband [--seconds S] [--warmup S] [--hz N] [--csv FILE]
 *
 * The mouse (echo_client.h: a virtual pointer on its own connection, in a
 * thread) sends an absolute move every 1/N s, timestamped. Each position is
 * unique over 1024 events (a 32x32 raster with 4-pixel steps), so a motion
 * event is matched to the move that caused it by its position, even if the
 * compositor coalesces motion.
 *
 * Per event (all CLOCK_MONOTONIC ns):
 *   send     the thread's timestamp, just before the request is sent
 *   recv     the pointer_motion callback ran (receipt = recv - send)
 *   exec     the compositor executed the PRESENT of the new line
 *   display  the frame showing the line was presented by the output
 *
 * exec for every event: after the visible PRESENT the client presents a
 * 1x1 rectangle of the canvas that is off the screen (the window is wider
 * than the output, so it is placed at x = 0 and its right end is outside).
 * The compositor reports such a PRESENT at once, with its execution time;
 * it runs right after the visible one in the same ring. The visible PRESENT
 * is reported when its frame is presented, unless a later PRESENT of the
 * canvas replaced it before that frame; an event's display time is the one
 * of the first reported visible PRESENT at or after its own.
 *
 * The window must be the topmost one under the output centre: start this
 * client last. CSV columns: seq,due_ns,send_ns,recv_ns,exec_ns,display_ns
 * (due: when the thread meant to send, so send - due is how late the machine
 * woke it; 0 = unknown: a motion event coalesced away, or not presented
 * before the end).
 * A summary is printed on stdout.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "common/monotonic_clock.h"
#include "clients/echo_client.h"
#include "clients/present_log.h"
#include "clients/libsmt/smt.h"

#define WIN_W 1500 /* wider than the 1280-pixel output: placed at x = 0 */
#define WIN_H 600
#define MARK_X (WIN_W - 4)
#define GRID 32 /* GRID x GRID unique positions */
#define STEP 4
#define BG 0xff1d2021u
#define FG 0xfffabd2fu

struct event {
	uint64_t recv, exec, display; /* (due and send: the mouse's) */
	uint32_t vis_serial, mark_serial;
};

struct rb {
	struct smt_ctx *ctx;
	struct smt_window *win;
	uint32_t canvas;
	bool entered, measuring;    /* measuring: the mouse thread runs */
	int32_t origin_x, origin_y; /* window-local top-left of the raster */
	struct echo_mouse mouse;
	struct event *ev;
	/* matching */
	size_t next_match; /* events before this are settled */
	struct smt_rect last_line;
	bool have_line;
	struct present_log presents; /* items are events */
	uint64_t received, unmatched;
	bool running;
};

static void pos_of(void *data, size_t seq, int32_t *x, int32_t *y)
{
	const struct rb *r = data;
	size_t k = seq % (GRID * GRID);
	*x = r->origin_x + (int32_t)(k % GRID) * STEP;
	*y = r->origin_y + (int32_t)(k / GRID) * STEP;
}

/* ---- the window --------------------------------------------------------- */

static struct smt_rect line_box(int32_t x0, int32_t y0, int32_t x1, int32_t y1)
{
	int32_t lx = x0 < x1 ? x0 : x1, ly = y0 < y1 ? y0 : y1;
	int32_t hx = x0 < x1 ? x1 : x0, hy = y0 < y1 ? y1 : y0;
	return (struct smt_rect){ lx - 2, ly - 2, (uint32_t)(hx - lx + 5),
		(uint32_t)(hy - ly + 5) };
}

static struct smt_rect rect_union(struct smt_rect a, struct smt_rect b)
{
	int32_t x0 = a.x < b.x ? a.x : b.x, y0 = a.y < b.y ? a.y : b.y;
	int32_t x1 = a.x + (int32_t)a.width > b.x + (int32_t)b.width ? a.x + (int32_t)a.width :
								       b.x + (int32_t)b.width;
	int32_t y1 = a.y + (int32_t)a.height > b.y + (int32_t)b.height ? a.y + (int32_t)a.height :
									 b.y + (int32_t)b.height;
	return (struct smt_rect){ x0, y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0) };
}

/* The rubber band: from the anchor (raster centre) to the pointer. */
static void draw_event(struct rb *r, size_t seq, int32_t px, int32_t py)
{
	int32_t ax = r->origin_x + GRID * STEP / 2, ay = r->origin_y - 40;
	struct smt_rect box = line_box(ax, ay, px, py);
	struct smt_rect dmg = r->have_line ? rect_union(box, r->last_line) : box;
	if (r->have_line)
		smt_fill_rect(r->ctx, SMT_PAINT_SRC, BG, r->last_line.x, r->last_line.y,
				r->last_line.width, r->last_line.height);
	struct smt_segment s = { ax, ay, px, py };
	smt_segments(r->ctx, SMT_PAINT_SRC, FG, 2, 1, &s);
	r->last_line = box;
	r->have_line = true;
	struct smt_rect mark = { MARK_X, (int32_t)(seq % 2), 1, 1 };
	smt_fill_rect(r->ctx, SMT_PAINT_SRC, 0xff000000u | (uint32_t)seq, mark.x, mark.y, 1, 1);
	uint32_t vis = 0, m = 0;
	smt_window_present(r->win, 1, &dmg, &vis);
	smt_window_present(r->win, 1, &mark, &m);
	smt_flush(r->ctx);
	r->ev[seq].vis_serial = vis;
	r->ev[seq].mark_serial = m;
	present_log_mark(&r->presents, m, seq);
}

static void on_enter(void *data, struct smt_window *w, double x, double y)
{
	struct rb *r = data;
	if (!r->entered) {
		r->entered = true;
		/* the probe move went to the output's centre */
		echo_mouse_set_offset(&r->mouse, x, y);
	}
}

static void on_motion(void *data, struct smt_window *w, uint32_t time_ms, double x, double y)
{
	struct rb *r = data;
	uint64_t t = monotonic_now_ns();
	if (!r->measuring)
		return;
	int32_t px = (int32_t)lround(x), py = (int32_t)lround(y);
	/* the latest sent move with this position, not before the last match */
	size_t seq = echo_match_move(
			&r->mouse, r->next_match, px - r->origin_x, py - r->origin_y, STEP, GRID);
	if (seq == SIZE_MAX) {
		r->unmatched++;
		return;
	}
	r->ev[seq].recv = t;
	r->next_match = seq + 1;
	r->received++;
	draw_event(r, seq, px, py);
}

static const struct smt_input_listener input_listener = {
	.pointer_enter = on_enter,
	.pointer_motion = on_motion,
};

static void on_presented(void *data, struct smt_window *w, uint32_t serial, uint64_t exec_ns,
		uint64_t display_ns)
{
	struct rb *r = data;
	size_t seq = present_log_presented(&r->presents, serial, display_ns);
	if (seq != SIZE_MAX)
		r->ev[seq].exec = exec_ns;
}

static void on_close(void *data, struct smt_window *w)
{
	((struct rb *)data)->running = false;
}
static const struct smt_window_listener win_listener = { .close = on_close,
	.presented = on_presented };

int main(int argc, char **argv)
{
	struct echo_options opt = { .seconds = 10, .warmup = 1, .rate = 100 };
	if (!echo_options_parse(argc, argv, "smt-rubberband", "--hz", 1e-3, 10000, &opt))
		return 2;
	double seconds = opt.seconds, warmup = opt.warmup, hz = opt.rate;
	const char *csv = opt.csv;

	struct rb r = { .running = true, .origin_x = 400, .origin_y = 200 };
	size_t cap = (size_t)((seconds + warmup) * hz) + 16;
	struct smt_options opts = { .input = &input_listener, .input_data = &r };
	if (!(r.ctx = smt_connect(&opts)))
		return 1;
	r.win = smt_window_create(r.ctx, "smt-rubberband", "smt-rubberband", WIN_W, WIN_H);
	if (!r.win || !echo_mouse_open(&r.mouse, "smt-rubberband", cap)) {
		fprintf(stderr, "smt-rubberband: setup failed: %s\n", smt_error_message(r.ctx));
		return 1;
	}
	smt_window_set_listener(r.win, &win_listener, &r);
	r.canvas = smt_window_canvas(r.win);
	smt_set_target(r.ctx, r.canvas);
	smt_fill_rect(r.ctx, SMT_PAINT_SRC, BG, 0, 0, WIN_W, WIN_H);
	smt_window_present(r.win, 0, NULL, NULL);
	smt_sync(r.ctx);

	/* Find where the window is: move to the output centre, wait for enter. */
	r.ev = calloc(cap, sizeof(*r.ev));
	uint64_t deadline = monotonic_now_ns() + 3000000000u;
	while (!r.entered && monotonic_now_ns() < deadline) {
		echo_mouse_move(&r.mouse, ECHO_OUTPUT_W / 2, ECHO_OUTPUT_H / 2);
		smt_dispatch_until(r.ctx, monotonic_now_ns() + 100000000u, &r.running);
	}
	if (!r.entered) {
		fprintf(stderr,
				"smt-rubberband: the pointer never entered the window "
				"(is another window on top at the output centre?)\n");
		return 1;
	}
	/* raster: inside the visible part of the window */
	int32_t want_x = 500 - (int32_t)r.mouse.offset_x, want_y = 260 - (int32_t)r.mouse.offset_y;
	r.origin_x = want_x < 8 ? 8 : want_x;
	r.origin_y = want_y < 48 ? 48 : want_y;
	r.measuring = true;
	uint64_t start = monotonic_now_ns();
	if (!echo_mouse_start(&r.mouse, hz, pos_of, &r)) {
		fprintf(stderr, "smt-rubberband: pthread_create failed\n");
		return 1;
	}
	smt_dispatch_until(r.ctx, start + (uint64_t)((seconds + warmup) * 1e9), &r.running);
	echo_mouse_stop(&r.mouse);
	/* let the last presents come back */
	smt_sync(r.ctx);
	smt_dispatch_until(r.ctx, monotonic_now_ns() + 200000000u, &r.running);

	/* display time: first reported visible PRESENT at or after the event's */
	size_t sent = atomic_load(&r.mouse.sent), cursor = 0;
	for (size_t s = 0; s < sent; s++) {
		struct event *e = &r.ev[s];
		if (e->recv && e->vis_serial)
			e->display = present_log_display(&r.presents, e->vis_serial, &cursor);
	}
	uint64_t t0 = start + (uint64_t)(warmup * 1e9);
	FILE *f = csv ? fopen(csv, "w") : NULL;
	if (csv && !f)
		perror(csv);
	if (f)
		fprintf(f, "seq,due_ns,send_ns,recv_ns,exec_ns,display_ns\n");
	uint64_t *rec = calloc(sent + 1, 8), *ex = calloc(sent + 1, 8), *di = calloc(sent + 1, 8);
	size_t nr = 0, ne = 0, nd = 0, measured = 0;
	for (size_t s = 0; s < sent; s++) {
		struct event *e = &r.ev[s];
		uint64_t send = r.mouse.send_ns[s];
		if (send < t0)
			continue;
		measured++;
		if (f)
			fprintf(f, "%zu,%llu,%llu,%llu,%llu,%llu\n", s,
					(unsigned long long)r.mouse.due_ns[s],
					(unsigned long long)send, (unsigned long long)e->recv,
					(unsigned long long)e->exec,
					(unsigned long long)e->display);
		if (e->recv)
			rec[nr++] = e->recv - send;
		if (e->exec)
			ex[ne++] = e->exec - send;
		if (e->display)
			di[nd++] = e->display - send;
	}
	if (f)
		fclose(f);
	printf("rubberband: %zu moves sent in the measured %.1f s, %zu received, %llu unmatched "
	       "motion events, %llu marker presents on screen (must be 0)\n",
			measured, seconds, nr, (unsigned long long)r.unmatched,
			(unsigned long long)r.presents.marks_on_screen);
	echo_summary("rubberband", "receipt", rec, nr);
	echo_summary("rubberband", "echo", ex, ne);
	echo_summary("rubberband", "display", di, nd);
	free(rec);
	free(ex);
	free(di);
	free(r.ev);
	int rc = smt_failed(r.ctx) ? 1 : 0;
	smt_disconnect(r.ctx);
	echo_mouse_close(&r.mouse);
	present_log_finish(&r.presents);
	return rc;
}
