/*
 * smt-anim — animation jitter, like the modified xengine of the fair-share
 * scheduler paper (seed 001): a frame is drawn every --period-ms (15 ms) on a
 * fixed CLOCK_MONOTONIC schedule, whatever happened to earlier frames.
 *
 *   smt-anim [--seconds S] [--warmup S] [--period-ms MS] [--csv FILE]
 *
 * Per frame (CLOCK_MONOTONIC ns):
 *   issue    the client started writing the frame's commands
 *   exec     the compositor executed the frame's PRESENT
 *   display  the output presented the frame showing it
 * Drawing latency is exec - issue (and display - issue); the frame interval
 * is the time between consecutive execs (the paper's "time between frames",
 * measured where the server finished each frame); display intervals are
 * recorded too but are quantised by the 60 Hz output.
 *
 * exec for every frame comes from a 1x1 PRESENT of an off-screen part of
 * the canvas, written right after the frame's PRESENT: the window is wider
 * than the output, so it is placed at x = 0 and its right end is outside; the
 * compositor reports such a PRESENT at once with its execution time, while a
 * visible PRESENT that a later one replaces before the next output frame is
 * never reported. A frame's display time is the one of the first reported
 * visible PRESENT at or after its own.
 *
 * CSV columns: frame,due_ns,issue_ns,exec_ns,display_ns (due: the schedule,
 * so issue - due is the machine's wake-up lateness; 0 = unknown).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/monotonic_clock.h"
#include "clients/echo_client.h"
#include "clients/present_log.h"
#include "clients/libsmt/smt.h"

#define WIN_W 1500 /* wider than the 1280-pixel output: placed at x = 0 */
#define WIN_H 260
#define MARK_X (WIN_W - 4)
#define SQ 48
#define BG 0xff282828u

struct frame {
	uint64_t due, issue, exec, display;
	uint32_t vis_serial, mark_serial;
};

struct anim {
	struct smt_ctx *ctx;
	struct smt_window *win;
	struct frame *f;
	size_t n, cap;
	struct present_log presents;
	struct smt_rect last;
	bool running;
};

static void on_presented(void *data, struct smt_window *w, uint32_t serial, uint64_t exec_ns,
		uint64_t display_ns)
{
	struct anim *a = data;
	size_t frame = present_log_presented(&a->presents, serial, display_ns);
	if (frame != SIZE_MAX)
		a->f[frame].exec = exec_ns;
}

static void on_close(void *data, struct smt_window *w)
{
	((struct anim *)data)->running = false;
}
static const struct smt_window_listener listener = { .close = on_close, .presented = on_presented };

static void draw_frame(struct anim *a, size_t i)
{
	/* a square bouncing along a line: a triangle wave */
	int32_t span = 1000, p = (int32_t)((i * 6) % (2 * (size_t)span));
	int32_t x = 40 + (p > span ? 2 * span - p : p), y = 100;
	struct frame *fr = &a->f[i];
	fr->issue = monotonic_now_ns();
	smt_fill_rect(a->ctx, SMT_PAINT_SRC, BG, a->last.x, a->last.y, a->last.width,
			a->last.height);
	smt_fill_rect(a->ctx, SMT_PAINT_SRC, 0xff83a598u, x, y, SQ, SQ);
	smt_fill_rect(a->ctx, SMT_PAINT_SRC, 0xfffe8019u, x + 8, y + 8, SQ - 16, SQ - 16);
	struct smt_rect now = { x, y, SQ, SQ };
	int32_t x0 = a->last.x < x ? a->last.x : x;
	int32_t x1 = a->last.x + (int32_t)a->last.width > x + SQ ?
			a->last.x + (int32_t)a->last.width :
			x + SQ;
	struct smt_rect dmg = { x0, y, (uint32_t)(x1 - x0), SQ };
	a->last = now;
	struct smt_rect mark = { MARK_X, (int32_t)(i % 2), 1, 1 };
	smt_fill_rect(a->ctx, SMT_PAINT_SRC, 0xff000000u | (uint32_t)i, mark.x, mark.y, 1, 1);
	uint32_t vis = 0, m = 0;
	smt_window_present(a->win, 1, &dmg, &vis);
	smt_window_present(a->win, 1, &mark, &m);
	smt_flush(a->ctx);
	fr->vis_serial = vis;
	fr->mark_serial = m;
	present_log_mark(&a->presents, m, i);
}

int main(int argc, char **argv)
{
	struct echo_options opt = { .seconds = 10, .warmup = 1, .rate = 15 };
	if (!echo_options_parse(argc, argv, "smt-anim", "--period-ms", 1, 1e6, &opt))
		return 2;
	double seconds = opt.seconds, warmup = opt.warmup, period_ms = opt.rate;
	const char *csv = opt.csv;
	struct anim a = { .running = true, .last = { 40, 100, SQ, SQ } };
	if (!(a.ctx = smt_connect(NULL)))
		return 1;
	a.win = smt_window_create(a.ctx, "smt-anim", "smt-anim", WIN_W, WIN_H);
	if (!a.win) {
		fprintf(stderr, "smt-anim: %s\n", smt_error_message(a.ctx));
		return 1;
	}
	smt_window_set_listener(a.win, &listener, &a);
	smt_set_target(a.ctx, smt_window_canvas(a.win));
	smt_fill_rect(a.ctx, SMT_PAINT_SRC, BG, 0, 0, WIN_W, WIN_H);
	smt_window_present(a.win, 0, NULL, NULL);
	smt_sync(a.ctx);

	uint64_t period = (uint64_t)(period_ms * 1e6);
	a.cap = (size_t)((seconds + warmup) * 1e3 / period_ms) + 4;
	a.f = calloc(a.cap, sizeof(*a.f));
	uint64_t start = monotonic_now_ns(), next = start;
	while (a.running && a.n < a.cap) {
		a.f[a.n].due = next;
		draw_frame(&a, a.n++);
		next += period;
		uint64_t t = monotonic_now_ns();
		if (next < t)
			next = t; /* fell behind: no burst of catch-up frames */
		if (smt_dispatch_until(a.ctx, next, &a.running) < 0)
			break;
	}
	smt_sync(a.ctx);
	smt_dispatch_until(a.ctx, monotonic_now_ns() + 200000000u, &a.running);

	size_t cursor = 0;
	for (size_t i = 0; i < a.n; i++)
		a.f[i].display = present_log_display(&a.presents, a.f[i].vis_serial, &cursor);
	uint64_t t0 = start + (uint64_t)(warmup * 1e9);
	FILE *f = csv ? fopen(csv, "w") : NULL;
	if (csv && !f)
		perror(csv);
	if (f)
		fprintf(f, "frame,due_ns,issue_ns,exec_ns,display_ns\n");
	uint64_t *lat = calloc(a.n + 1, 8), *iv = calloc(a.n + 1, 8);
	size_t nl = 0, ni = 0;
	uint64_t prev = 0;
	for (size_t i = 0; i < a.n; i++) {
		struct frame *fr = &a.f[i];
		if (fr->issue < t0)
			continue;
		if (f)
			fprintf(f, "%zu,%llu,%llu,%llu,%llu\n", i, (unsigned long long)fr->due,
					(unsigned long long)fr->issue, (unsigned long long)fr->exec,
					(unsigned long long)fr->display);
		if (fr->exec) {
			lat[nl++] = fr->exec - fr->issue;
			if (prev)
				iv[ni++] = fr->exec - prev;
			prev = fr->exec;
		}
	}
	if (f)
		fclose(f);
	printf("anim: %zu frames, %llu marker presents on screen (must be 0)\n", a.n,
			(unsigned long long)a.presents.marks_on_screen);
	echo_summary("anim", "drawing", lat, nl);
	echo_summary("anim", "interval", iv, ni);
	int rc = smt_failed(a.ctx) ? 1 : 0;
	smt_disconnect(a.ctx);
	present_log_finish(&a.presents);
	return rc;
}
