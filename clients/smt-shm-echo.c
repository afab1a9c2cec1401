/*
 * smt-shm-echo — input-to-frame latency of an ordinary wl_shm client (issue
 * 28: "a wl_shm client's (foot's) input-to-frame latency under the flood"),
 * drawn the way foot draws: into shared-memory buffers, a commit per frame
 * callback, the damage only. A virtual pointer (its own connection, in a
 * thread) moves every 1/N s to a position unique over 1024 moves; the window
 * draws a cursor cell there, at once if no frame callback is pending,
 * otherwise when it comes (a newer move replaces an older one, as a
 * terminal coalesces typing); the frame callback of the commit showing it
 * says when the compositor rendered that frame (as received: its delivery
 * included). Not wp_presentation: this client received no feedback event
 * from smtwc at all (neither presented nor discarded; noticed, not
 * investigated). Why not foot itself: typing into it gives no
 * timestamp to match to a frame; this client does what foot does on the
 * path measured (input event, software drawing, attach, damage, commit,
 * frame callback), timed.
 *
 *   smt-shm-echo [--seconds S] [--warmup S] [--hz N] [--csv FILE]
 *
 * Per move (CLOCK_MONOTONIC ns): send (just before the request), recv (the
 * motion event), display (the frame callback of the first commit drawn at
 * or after it). input-to-frame = display - send. Moves coalesced into a later
 * frame get that frame's time (their wait included). Start it last: its
 * window must be the topmost under the output's centre.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "common/monotonic_clock.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define WIN_W 800
#define WIN_H 600
#define GRID 32 /* GRID x GRID unique positions */
#define STEP 8
#define ORIGIN_X 200
#define ORIGIN_Y 150
#define CELL_W 8 /* a terminal's character cell */
#define CELL_H 16
#define EXTENT_W 1280 /* the headless output: absolute moves in its pixels */
#define EXTENT_H 720
#define BG 0xff1d2021u
#define FG 0xfffabd2fu
#define NBUF 2

struct move {
	uint64_t send, recv, display;
};

struct buffer {
	struct wl_buffer *wl;
	uint32_t *px;
	bool busy;
	bool drawn_once;
	int32_t cell_x, cell_y; /* the cell drawn into it last (-1: none) */
};

struct echo {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm;
	struct wl_seat *seat;
	struct wl_surface *surface;
	struct wl_pointer *pointer;
	struct buffer buf[NBUF];
	bool configured, running, frame_pending;
	bool entered;
	double offset_x, offset_y;
	/* the newest matched move not drawn yet, and the newest drawn */
	size_t want, drawn_upto, shown_upto;
	bool dirty;
	/* the "mouse" thread's connection */
	struct wl_display *vdisplay;
	struct wl_seat *vseat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
	struct zwlr_virtual_pointer_v1 *vptr;
	struct move *mv;
	size_t cap, next_match;
	_Atomic size_t sent;
	_Atomic bool stop, go;
	double hz;
	uint64_t unmatched;
};

static void pos_of(size_t seq, int32_t *x, int32_t *y)
{
	size_t k = seq % (GRID * GRID);
	*x = ORIGIN_X + (int32_t)(k % GRID) * STEP;
	*y = ORIGIN_Y + (int32_t)(k / GRID) * STEP;
}

/* ---- the "mouse" --------------------------------------------------------- */

static void vreg_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct echo *e = data;
	if (!strcmp(iface, wl_seat_interface.name) && !e->vseat)
		e->vseat = wl_registry_bind(reg, name, &wl_seat_interface, 1);
	else if (!strcmp(iface, zwlr_virtual_pointer_manager_v1_interface.name))
		e->manager = wl_registry_bind(
				reg, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
}
static void reg_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}
static const struct wl_registry_listener vreg_listener = { vreg_global, reg_remove };

static void move_to(struct echo *e, double lx, double ly)
{
	zwlr_virtual_pointer_v1_motion_absolute(e->vptr, (uint32_t)(monotonic_now_ns() / 1000000u),
			(uint32_t)lround(lx), (uint32_t)lround(ly), EXTENT_W, EXTENT_H);
	zwlr_virtual_pointer_v1_frame(e->vptr);
	wl_display_flush(e->vdisplay);
}

static void *mouse_thread(void *data)
{
	struct echo *e = data;
	uint64_t period = (uint64_t)(1e9 / e->hz), t = monotonic_now_ns();
	for (size_t seq = 0; seq < e->cap && !atomic_load(&e->stop); seq++) {
		t += period;
		struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			;
		int32_t x, y;
		pos_of(seq, &x, &y);
		e->mv[seq].send = monotonic_now_ns();
		atomic_store(&e->sent, seq + 1);
		move_to(e, x + e->offset_x, y + e->offset_y);
		wl_display_dispatch_pending(e->vdisplay);
	}
	return NULL;
}

/* ---- drawing ------------------------------------------------------------- */

static void fill(uint32_t *px, int32_t x, int32_t y, int32_t w, int32_t h, uint32_t color)
{
	for (int32_t j = y; j < y + h; j++)
		for (int32_t i = x; i < x + w; i++)
			px[(size_t)j * WIN_W + (size_t)i] = color;
}

static void buffer_release(void *data, struct wl_buffer *wl)
{
	((struct buffer *)data)->busy = false;
}
static const struct wl_buffer_listener buffer_listener = { buffer_release };

static bool buffers_create(struct echo *e)
{
	size_t one = (size_t)WIN_W * WIN_H * 4;
	int fd = memfd_create("smt-shm-echo", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)(one * NBUF)) < 0)
		return false;
	uint8_t *map = mmap(NULL, one * NBUF, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return false;
	struct wl_shm_pool *pool = wl_shm_create_pool(e->shm, fd, (int32_t)(one * NBUF));
	for (int i = 0; i < NBUF; i++) {
		struct buffer *b = &e->buf[i];
		b->px = (uint32_t *)(map + one * (size_t)i);
		b->wl = wl_shm_pool_create_buffer(pool, (int32_t)(one * (size_t)i), WIN_W, WIN_H,
				WIN_W * 4, WL_SHM_FORMAT_XRGB8888);
		wl_buffer_add_listener(b->wl, &buffer_listener, b);
		b->cell_x = b->cell_y = -1;
	}
	wl_shm_pool_destroy(pool);
	close(fd);
	return true;
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time);
static const struct wl_callback_listener frame_listener = { frame_done };

/* A frame callback, and the moves its commit showed. */
struct frame {
	struct echo *e;
	size_t upto;
};

static void draw(struct echo *e)
{
	struct buffer *b = !e->buf[0].busy ? &e->buf[0] : !e->buf[1].busy ? &e->buf[1] : NULL;
	if (b == NULL)
		return; /* both on screen: drawn at the next release or frame */
	int32_t x, y;
	pos_of(e->want - 1, &x, &y);
	if (!b->drawn_once) {
		fill(b->px, 0, 0, WIN_W, WIN_H, BG);
		b->drawn_once = true;
	} else if (b->cell_x >= 0) {
		fill(b->px, b->cell_x, b->cell_y, CELL_W, CELL_H, BG);
	}
	/* the other buffer's cell too: this one becomes the whole picture */
	const struct buffer *o = b == &e->buf[0] ? &e->buf[1] : &e->buf[0];
	if (o->cell_x >= 0)
		fill(b->px, o->cell_x, o->cell_y, CELL_W, CELL_H, BG);
	fill(b->px, x, y, CELL_W, CELL_H, FG);
	wl_surface_attach(e->surface, b->wl, 0, 0);
	if (o->cell_x >= 0)
		wl_surface_damage_buffer(e->surface, o->cell_x, o->cell_y, CELL_W, CELL_H);
	wl_surface_damage_buffer(e->surface, x, y, CELL_W, CELL_H);
	b->cell_x = x;
	b->cell_y = y;
	b->busy = true;
	struct frame *f = calloc(1, sizeof(*f));
	if (f == NULL)
		return;
	f->e = e;
	f->upto = e->want;
	struct wl_callback *cb = wl_surface_frame(e->surface);
	wl_callback_add_listener(cb, &frame_listener, f);
	wl_surface_commit(e->surface);
	e->frame_pending = true;
	e->drawn_upto = e->want;
	e->dirty = false;
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct frame *f = data;
	struct echo *e = f->e;
	uint64_t t = monotonic_now_ns();
	for (size_t s = e->shown_upto; s < f->upto; s++) {
		if (e->mv[s].recv != 0 && e->mv[s].display == 0)
			e->mv[s].display = t;
	}
	if (f->upto > e->shown_upto)
		e->shown_upto = f->upto;
	free(f);
	wl_callback_destroy(cb);
	e->frame_pending = false;
	if (e->dirty)
		draw(e);
}

/* ---- the window and its pointer ------------------------------------------ */

static void p_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s,
		wl_fixed_t x, wl_fixed_t y)
{
	struct echo *e = data;
	if (!e->entered) {
		e->entered = true;
		/* the probe move went to the output's centre */
		e->offset_x = EXTENT_W / 2 - lround(wl_fixed_to_double(x));
		e->offset_y = EXTENT_H / 2 - lround(wl_fixed_to_double(y));
	}
}
static void p_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s)
{
}
static void p_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t fx, wl_fixed_t fy)
{
	struct echo *e = data;
	uint64_t t = monotonic_now_ns();
	if (!atomic_load(&e->go))
		return;
	int32_t dx = (int32_t)lround(wl_fixed_to_double(fx)) - ORIGIN_X;
	int32_t dy = (int32_t)lround(wl_fixed_to_double(fy)) - ORIGIN_Y;
	if (dx < 0 || dy < 0 || dx % STEP || dy % STEP || dx / STEP >= GRID || dy / STEP >= GRID) {
		e->unmatched++;
		return;
	}
	size_t k = (size_t)(dy / STEP * GRID + dx / STEP), sent = atomic_load(&e->sent);
	size_t seq = SIZE_MAX;
	for (size_t s = sent; s-- > e->next_match;) {
		if (s % (GRID * GRID) == k) {
			seq = s;
			break;
		}
	}
	if (seq == SIZE_MAX) {
		e->unmatched++;
		return;
	}
	e->mv[seq].recv = t;
	e->next_match = seq + 1;
	e->want = seq + 1;
	e->dirty = true;
	if (!e->frame_pending)
		draw(e);
}
static void p_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
		uint32_t button, uint32_t state)
{
}
static void p_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t v)
{
}
static const struct wl_pointer_listener pointer_listener = {
	.enter = p_enter,
	.leave = p_leave,
	.motion = p_motion,
	.button = p_button,
	.axis = p_axis,
};

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}
static const struct xdg_wm_base_listener wm_listener = { wm_ping };

static void xs_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	xdg_surface_ack_configure(xs, serial);
	((struct echo *)data)->configured = true;
}
static const struct xdg_surface_listener xs_listener = { xs_configure };

static void top_configure(
		void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
}
static void top_close(void *data, struct xdg_toplevel *t)
{
	((struct echo *)data)->running = false;
}
static const struct xdg_toplevel_listener top_listener = {
	.configure = top_configure,
	.close = top_close,
};

static void reg_global(void *data, struct wl_registry *reg, uint32_t name, const char *iface,
		uint32_t version)
{
	struct echo *e = data;
	if (!strcmp(iface, wl_compositor_interface.name))
		e->compositor = wl_registry_bind(reg, name, &wl_compositor_interface, 4);
	else if (!strcmp(iface, wl_shm_interface.name))
		e->shm = wl_registry_bind(reg, name, &wl_shm_interface, 1);
	else if (!strcmp(iface, xdg_wm_base_interface.name))
		e->wm = wl_registry_bind(reg, name, &xdg_wm_base_interface, 1);
	else if (!strcmp(iface, wl_seat_interface.name) && !e->seat)
		e->seat = wl_registry_bind(reg, name, &wl_seat_interface, 1);
}
static const struct wl_registry_listener reg_listener = { reg_global, reg_remove };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int usage(void)
{
	fprintf(stderr, "usage: smt-shm-echo [--seconds S] [--warmup S] [--hz N] [--csv FILE]\n");
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
	struct echo e = { .running = true, .hz = hz };
	e.cap = (size_t)((seconds + warmup + 1) * hz) + 16;
	e.mv = calloc(e.cap, sizeof(*e.mv));
	e.display = wl_display_connect(NULL);
	e.vdisplay = wl_display_connect(NULL);
	if (e.mv == NULL || e.display == NULL || e.vdisplay == NULL) {
		fprintf(stderr, "smt-shm-echo: cannot connect\n");
		return 1;
	}
	struct wl_registry *reg = wl_display_get_registry(e.display);
	wl_registry_add_listener(reg, &reg_listener, &e);
	wl_display_roundtrip(e.display);
	struct wl_registry *vreg = wl_display_get_registry(e.vdisplay);
	wl_registry_add_listener(vreg, &vreg_listener, &e);
	wl_display_roundtrip(e.vdisplay);
	if (!e.compositor || !e.shm || !e.wm || !e.seat || !e.manager || !buffers_create(&e)) {
		fprintf(stderr, "smt-shm-echo: a global is missing or no memory\n");
		return 1;
	}
	e.vptr = zwlr_virtual_pointer_manager_v1_create_virtual_pointer(e.manager, e.vseat);
	xdg_wm_base_add_listener(e.wm, &wm_listener, &e);
	e.pointer = wl_seat_get_pointer(e.seat);
	wl_pointer_add_listener(e.pointer, &pointer_listener, &e);
	e.surface = wl_compositor_create_surface(e.compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(e.wm, e.surface);
	xdg_surface_add_listener(xs, &xs_listener, &e);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
	xdg_toplevel_add_listener(top, &top_listener, &e);
	xdg_toplevel_set_title(top, "smt-shm-echo");
	xdg_toplevel_set_app_id(top, "smt-shm-echo");
	wl_surface_commit(e.surface);
	while (!e.configured && wl_display_dispatch(e.display) >= 0)
		;
	e.want = 1; /* the first picture: the background and a cell at move 0's place */
	draw(&e);
	wl_display_roundtrip(e.display);
	/* the probe: the pointer to the output's centre, which the window covers */
	uint64_t probe_end = monotonic_now_ns() + 5000000000u;
	while (!e.entered && monotonic_now_ns() < probe_end) {
		move_to(&e, EXTENT_W / 2, EXTENT_H / 2);
		wl_display_roundtrip(e.vdisplay);
		wl_display_roundtrip(e.display);
	}
	if (!e.entered) {
		fprintf(stderr, "smt-shm-echo: the pointer never entered the window\n");
		return 1;
	}
	e.want = e.drawn_upto = e.shown_upto = 0;
	atomic_store(&e.go, true);
	pthread_t mouse;
	if (pthread_create(&mouse, NULL, mouse_thread, &e) != 0)
		return 1;
	uint64_t end = monotonic_now_ns() + (uint64_t)((seconds + warmup) * 1e9);
	while (e.running && monotonic_now_ns() < end) {
		if (wl_display_dispatch(e.display) < 0)
			break;
	}
	atomic_store(&e.stop, true);
	pthread_join(mouse, NULL);
	wl_display_roundtrip(e.display);
	size_t sent = atomic_load(&e.sent), skip = (size_t)(warmup * hz), n = 0, lost = 0;
	uint64_t *lat = calloc(sent + 1, sizeof(*lat));
	FILE *out = csv ? fopen(csv, "w") : NULL;
	if (out)
		fprintf(out, "seq,send_ns,recv_ns,display_ns\n");
	for (size_t s = 0; s < sent; s++) {
		if (out)
			fprintf(out, "%zu,%llu,%llu,%llu\n", s, (unsigned long long)e.mv[s].send,
					(unsigned long long)e.mv[s].recv,
					(unsigned long long)e.mv[s].display);
		if (s < skip)
			continue;
		if (e.mv[s].recv && e.mv[s].display > e.mv[s].send)
			lat[n++] = e.mv[s].display - e.mv[s].send;
		else
			lost++;
	}
	if (out)
		fclose(out);
	if (n == 0) {
		printf("shm-echo: input-to-frame no samples (%zu moves, %llu unmatched)\n", sent,
				(unsigned long long)e.unmatched);
		return 1;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("shm-echo: input-to-frame n=%zu p50=%.3f p99=%.3f max=%.3f ms (%zu moves without a "
	       "frame)\n",
			n, (double)lat[n / 2] / 1e6, (double)lat[(n * 99) / 100] / 1e6,
			(double)lat[n - 1] / 1e6, lost);
	free(lat);
	return 0;
}
