/*
 * smt-rubberband — interactive echo latency, like the rubber-band test of the
 * fair-share scheduler paper (seed 001): a virtual pointer moves over the
 * window at a fixed rate and the window draws a rubber-band line from a fixed
 * anchor to the pointer after every motion event.
 *
 *   smt-rubberband [--seconds S] [--warmup S] [--hz N] [--csv FILE]
 *
 * A second thread owns a second Wayland connection with a
 * zwlr_virtual_pointer_v1 (the "mouse"): every 1/N s it takes a
 * CLOCK_MONOTONIC timestamp and sends an absolute move. Each position is
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
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "common/monotonic_clock.h"
#include "clients/present_log.h"
#include "clients/libsmt/smt.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define WIN_W 1500 /* wider than the 1280-pixel output: placed at x = 0 */
#define WIN_H 600
#define MARK_X (WIN_W - 4)
#define GRID 32 /* GRID x GRID unique positions */
#define STEP 4
#define EXTENT_W 1280 /* the headless output: absolute moves in its pixels */
#define EXTENT_H 720
#define BG 0xff1d2021u
#define FG 0xfffabd2fu

struct event {
	uint64_t due, send, recv, exec, display;
	uint32_t vis_serial, mark_serial;
};

struct rb {
	struct smt_ctx *ctx;
	struct smt_window *win;
	uint32_t canvas;
	/* pointer placement: layout = local + offset */
	bool entered;
	double offset_x, offset_y;
	int32_t origin_x, origin_y; /* window-local top-left of the raster */
	/* the thread's moves */
	struct event *ev;
	size_t cap;
	_Atomic size_t sent;
	_Atomic bool stop, go;
	double hz;
	/* matching */
	size_t next_match; /* events before this are settled */
	struct smt_rect last_line;
	bool have_line;
	struct present_log presents; /* items are events */
	uint64_t received, unmatched;
	struct wl_display *vdisplay;
	struct zwlr_virtual_pointer_v1 *vptr;
	struct wl_seat *seat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
	bool running;
};

static void pos_of(struct rb *r, size_t seq, int32_t *x, int32_t *y)
{
	size_t k = seq % (GRID * GRID);
	*x = r->origin_x + (int32_t)(k % GRID) * STEP;
	*y = r->origin_y + (int32_t)(k / GRID) * STEP;
}

/* ---- the "mouse": a thread with its own connection ---------------------- */

static void reg_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct rb *r = data;
	if (!strcmp(iface, wl_seat_interface.name) && !r->seat)
		r->seat = wl_registry_bind(reg, name, &wl_seat_interface, 1);
	else if (!strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name))
		r->manager = wl_registry_bind(
				reg, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}
static void reg_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}
static const struct wl_registry_listener reg_listener = { reg_global, reg_remove };

static bool vpointer_open(struct rb *r)
{
	r->vdisplay = wl_display_connect(NULL);
	if (!r->vdisplay) {
		fprintf(stderr, "smt-rubberband: cannot connect for the virtual pointer\n");
		return false;
	}
	struct wl_registry *reg = wl_display_get_registry(r->vdisplay);
	wl_registry_add_listener(reg, &reg_listener, r);
	wl_display_roundtrip(r->vdisplay);
	if (!r->manager) {
		fprintf(stderr, "smt-rubberband: no zwlr_virtual_pointer_manager_v1\n");
		return false;
	}
	r->vptr = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(r->manager, r->seat);
	wl_display_roundtrip(r->vdisplay);
	return true;
}

static void vpointer_move(struct rb *r, double lx, double ly)
{
	zwlr_virtual_pointer_v1_motion_absolute(r->vptr, (uint32_t)(monotonic_now_ns() / 1000000u),
			(uint32_t)lround(lx), (uint32_t)lround(ly), EXTENT_W, EXTENT_H);
	zwlr_virtual_pointer_v1_frame(r->vptr);
	wl_display_flush(r->vdisplay);
}

static void *mouse_thread(void *data)
{
	struct rb *r = data;
	uint64_t period = (uint64_t)(1e9 / r->hz);
	uint64_t t = monotonic_now_ns();
	for (size_t seq = 0; seq < r->cap && !atomic_load(&r->stop); seq++) {
		t += period;
		struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		int32_t x, y;
		pos_of(r, seq, &x, &y);
		r->ev[seq].due = t;
		r->ev[seq].send = monotonic_now_ns();
		atomic_store(&r->sent, seq + 1);
		vpointer_move(r, x + r->offset_x, y + r->offset_y);
		/* nothing is expected back; keep the queue from growing anyway */
		wl_display_dispatch_pending(r->vdisplay);
	}
	return NULL;
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
		/* the probe move went to (EXTENT_W/2, EXTENT_H/2) */
		r->offset_x = EXTENT_W / 2 - lround(x);
		r->offset_y = EXTENT_H / 2 - lround(y);
	}
}

static void on_motion(void *data, struct smt_window *w, uint32_t time_ms, double x, double y)
{
	struct rb *r = data;
	uint64_t t = monotonic_now_ns();
	if (!atomic_load(&r->go))
		return;
	int32_t px = (int32_t)lround(x), py = (int32_t)lround(y);
	int32_t dx = px - r->origin_x, dy = py - r->origin_y;
	size_t sent = atomic_load(&r->sent);
	if (dx < 0 || dy < 0 || dx % STEP || dy % STEP || dx / STEP >= GRID || dy / STEP >= GRID) {
		r->unmatched++;
		return;
	}
	size_t k = (size_t)(dy / STEP * GRID + dx / STEP);
	/* the latest sent move with this position, not before the last match */
	size_t seq = SIZE_MAX;
	for (size_t s = sent; s-- > r->next_match;) {
		if (s % (GRID * GRID) == k) {
			seq = s;
			break;
		}
	}
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void summary(const char *name, uint64_t *v, size_t n)
{
	if (!n) {
		printf("rubberband: %-8s no samples\n", name);
		return;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	printf("rubberband: %-8s n=%zu mean=%.3f p50=%.3f p99=%.3f max=%.3f ms\n", name, n,
			sum / (double)n / 1e6, (double)v[n / 2] / 1e6,
			(double)v[(n * 99) / 100] / 1e6, (double)v[n - 1] / 1e6);
}

static int usage(void)
{
	fprintf(stderr, "usage: smt-rubberband [--seconds S] [--warmup S] [--hz N] [--csv FILE]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double seconds = 10, warmup = 1, hz = 100;
	const char *csv = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--warmup") && i + 1 < argc)
			warmup = atof(argv[++i]);
		else if (!strcmp(argv[i], "--hz") && i + 1 < argc)
			hz = atof(argv[++i]);
		else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			csv = argv[++i];
		else
			return usage();
	}
	if (seconds <= 0 || warmup < 0 || hz <= 0 || hz > 10000)
		return usage();

	struct rb r = { .running = true, .hz = hz, .origin_x = 400, .origin_y = 200 };
	struct smt_options opts = { .input = &input_listener, .input_data = &r };
	if (!(r.ctx = smt_connect(&opts)))
		return 1;
	r.win = smt_window_create(r.ctx, "smt-rubberband", "smt-rubberband", WIN_W, WIN_H);
	if (!r.win || !vpointer_open(&r)) {
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
	r.cap = (size_t)((seconds + warmup) * hz) + 16;
	r.ev = calloc(r.cap, sizeof(*r.ev));
	uint64_t deadline = monotonic_now_ns() + 3000000000u;
	while (!r.entered && monotonic_now_ns() < deadline) {
		vpointer_move(&r, EXTENT_W / 2, EXTENT_H / 2);
		smt_dispatch_until(r.ctx, monotonic_now_ns() + 100000000u, &r.running);
	}
	if (!r.entered) {
		fprintf(stderr,
				"smt-rubberband: the pointer never entered the window "
				"(is another window on top at the output centre?)\n");
		return 1;
	}
	/* raster: inside the visible part of the window */
	int32_t want_x = 500 - (int32_t)r.offset_x, want_y = 260 - (int32_t)r.offset_y;
	r.origin_x = want_x < 8 ? 8 : want_x;
	r.origin_y = want_y < 48 ? 48 : want_y;
	atomic_store(&r.go, true);
	pthread_t th;
	uint64_t start = monotonic_now_ns();
	if (pthread_create(&th, NULL, mouse_thread, &r)) {
		fprintf(stderr, "smt-rubberband: pthread_create failed\n");
		return 1;
	}
	smt_dispatch_until(r.ctx, start + (uint64_t)((seconds + warmup) * 1e9), &r.running);
	atomic_store(&r.stop, true);
	pthread_join(th, NULL);
	/* let the last presents come back */
	smt_sync(r.ctx);
	smt_dispatch_until(r.ctx, monotonic_now_ns() + 200000000u, &r.running);

	/* display time: first reported visible PRESENT at or after the event's */
	size_t sent = atomic_load(&r.sent), cursor = 0;
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
		if (e->send < t0)
			continue;
		measured++;
		if (f)
			fprintf(f, "%zu,%llu,%llu,%llu,%llu,%llu\n", s, (unsigned long long)e->due,
					(unsigned long long)e->send, (unsigned long long)e->recv,
					(unsigned long long)e->exec,
					(unsigned long long)e->display);
		if (e->recv)
			rec[nr++] = e->recv - e->send;
		if (e->exec)
			ex[ne++] = e->exec - e->send;
		if (e->display)
			di[nd++] = e->display - e->send;
	}
	if (f)
		fclose(f);
	printf("rubberband: %zu moves sent in the measured %.1f s, %zu received, %llu unmatched "
	       "motion events, %llu marker presents on screen (must be 0)\n",
			measured, seconds, nr, (unsigned long long)r.unmatched,
			(unsigned long long)r.presents.marks_on_screen);
	summary("receipt", rec, nr);
	summary("echo", ex, ne);
	summary("display", di, nd);
	int rc = smt_failed(r.ctx) ? 1 : 0;
	smt_disconnect(r.ctx);
	wl_display_disconnect(r.vdisplay);
	present_log_finish(&r.presents);
	return rc;
}
