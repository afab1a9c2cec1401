/*
 * smt-shm-echo — input-to-frame latency of an ordinary wl_shm client (issue
 * 28: "a wl_shm client's (foot's) input-to-frame latency under the flood"),
 * drawn the way foot draws: into shared-memory buffers, a commit per frame
 * callback, the damage only. The mouse (echo_client.h: a virtual pointer on
 * its own connection) moves every 1/N s to a position unique over 1024
 * moves; the window draws a cursor cell there, at once if no frame callback
 * is pending, otherwise when it comes (a newer move replaces an older one,
 * as a terminal coalesces typing). Every commit asks for wp_presentation
 * feedback: the `presented` time of the first presented commit drawn at or
 * after a move is when that move reached the screen. Why not foot itself:
 * typing into it gives no timestamp to match to a frame; this client does
 * what foot does on the path measured (input event, software drawing,
 * attach, damage, commit, frame callback), timed.
 *
 *   smt-shm-echo [--seconds S] [--warmup S] [--hz N] [--csv FILE]
 *
 * Per move (CLOCK_MONOTONIC ns): send (just before the request), recv (the
 * motion event), frame (receipt of the frame callback of the first commit
 * drawn at or after it) and present (that presented commit's feedback
 * time). input-to-present = present - send, the figure reported;
 * input-to-frame = frame - send for comparison. Moves coalesced into a
 * later commit get that commit's times (their wait included).
 *
 * The feedback itself is checked and counted on stdout ("feedback:"
 * line): every commit's feedback answered once, presented ones preceded by
 * sync_output, at a time between the commit and the event's receipt, in
 * commit order (the presentation clock must be CLOCK_MONOTONIC for the
 * times). Start it last: its window must be the topmost under the output's
 * centre.
 */
#define _GNU_SOURCE
#include <math.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>

#include "clients/echo_client.h"
#include "common/monotonic_clock.h"
#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

#define WIN_W 800
#define WIN_H 600
#define GRID 32 /* GRID x GRID unique positions */
#define STEP 8
#define ORIGIN_X 200
#define ORIGIN_Y 150
#define CELL_W 8 /* a terminal's character cell */
#define CELL_H 16
#define BG 0xff1d2021u
#define FG 0xfffabd2fu
#define NBUF 2
#define FEEDBACK_WAIT_NS 10000000000u /* a hang check at the end, not a duration */

struct move {
	uint64_t recv, frame, present;
};

struct buffer {
	struct wl_buffer *wl;
	uint32_t *px;
	bool busy;
	bool drawn_once;
	int32_t cell_x, cell_y; /* the cell drawn into it last (-1: none) */
};

enum answer {
	WAITING,
	PRESENTED,
	DISCARDED
};

/* One commit's feedback. */
struct commit {
	struct echo *e;
	size_t upto; /* the moves it shows */
	uint64_t commit_ns, receipt_ns, present_ns, seq;
	unsigned sync_outputs;
	bool sync_first; /* a sync_output came before presented */
	enum answer answer;
};

struct echo {
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm;
	struct wl_seat *seat;
	struct wp_presentation *presentation;
	struct wl_output *output; /* (bound for sync_output) */
	int64_t clock_id;         /* -1 until the clock_id event */
	struct wl_surface *surface;
	struct wl_pointer *pointer;
	struct buffer buf[NBUF];
	bool configured, running, frame_pending;
	bool entered, measuring;      /* measuring: the mouse thread runs */
	struct wl_callback *frame_cb; /* the pending frame callback, freed at the end */
	struct frame *frame;
	/* the newest matched move not drawn yet, the newest drawn, and the
	 * newest whose frame callback / presentation came */
	size_t want, drawn_upto, shown_upto, presented_upto;
	bool dirty;
	struct echo_mouse mouse;
	struct move *mv;
	size_t next_match;
	uint64_t unmatched;
	struct commit *commits; /* every commit after the probe, in order */
	size_t ncommits, commits_cap, answered;
};

static void pos_of(void *data, size_t seq, int32_t *x, int32_t *y)
{
	(void)data;
	size_t k = seq % (GRID * GRID);
	*x = ORIGIN_X + (int32_t)(k % GRID) * STEP;
	*y = ORIGIN_Y + (int32_t)(k / GRID) * STEP;
}

/* ---- presentation feedback ---------------------------------------------- */

static void feedback_sync_output(
		void *data, struct wp_presentation_feedback *fb, struct wl_output *output)
{
	((struct commit *)data)->sync_outputs++;
}

static void feedback_presented(void *data, struct wp_presentation_feedback *fb, uint32_t tv_sec_hi,
		uint32_t tv_sec_lo, uint32_t tv_nsec, uint32_t refresh, uint32_t seq_hi,
		uint32_t seq_lo, uint32_t flags)
{
	struct commit *c = data;
	struct echo *e = c->e;
	c->receipt_ns = monotonic_now_ns();
	c->present_ns = (((uint64_t)tv_sec_hi << 32) | tv_sec_lo) * 1000000000u + tv_nsec;
	c->seq = ((uint64_t)seq_hi << 32) | seq_lo;
	c->sync_first = c->sync_outputs > 0;
	c->answer = PRESENTED;
	e->answered++;
	for (size_t s = e->presented_upto; s < c->upto; s++) {
		if (e->mv[s].recv != 0 && e->mv[s].present == 0)
			e->mv[s].present = c->present_ns;
	}
	if (c->upto > e->presented_upto)
		e->presented_upto = c->upto;
	wp_presentation_feedback_destroy(fb);
}

static void feedback_discarded(void *data, struct wp_presentation_feedback *fb)
{
	struct commit *c = data;
	c->answer = DISCARDED;
	c->e->answered++;
	/* its moves are shown by a later commit */
	wp_presentation_feedback_destroy(fb);
}

static const struct wp_presentation_feedback_listener feedback_listener = {
	.sync_output = feedback_sync_output,
	.presented = feedback_presented,
	.discarded = feedback_discarded,
};

static void presentation_clock_id(void *data, struct wp_presentation *p, uint32_t clk_id)
{
	((struct echo *)data)->clock_id = clk_id;
}
static const struct wp_presentation_listener presentation_listener = { presentation_clock_id };

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

/* The commit's feedback (after the probe: the measured commits). */
static void ask_feedback(struct echo *e)
{
	if (!e->measuring || e->ncommits == e->commits_cap)
		return;
	struct commit *c = &e->commits[e->ncommits++];
	c->e = e;
	c->upto = e->want;
	c->commit_ns = monotonic_now_ns();
	struct wp_presentation_feedback *fb = wp_presentation_feedback(e->presentation, e->surface);
	wp_presentation_feedback_add_listener(fb, &feedback_listener, c);
}

static void draw(struct echo *e)
{
	struct buffer *b = !e->buf[0].busy ? &e->buf[0] : !e->buf[1].busy ? &e->buf[1] : NULL;
	if (b == NULL)
		return; /* both on screen: drawn at the next release or frame */
	int32_t x, y;
	pos_of(NULL, e->want - 1, &x, &y);
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
	e->frame_cb = cb;
	e->frame = f;
	ask_feedback(e);
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
		if (e->mv[s].recv != 0 && e->mv[s].frame == 0)
			e->mv[s].frame = t;
	}
	if (f->upto > e->shown_upto)
		e->shown_upto = f->upto;
	free(f);
	wl_callback_destroy(cb);
	e->frame_cb = NULL;
	e->frame = NULL;
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
		echo_mouse_set_offset(&e->mouse, wl_fixed_to_double(x), wl_fixed_to_double(y));
	}
}
static void p_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s)
{
}
static void p_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t fx, wl_fixed_t fy)
{
	struct echo *e = data;
	uint64_t t = monotonic_now_ns();
	if (!e->measuring)
		return;
	size_t seq = echo_match_move(&e->mouse, e->next_match,
			(int32_t)lround(wl_fixed_to_double(fx)) - ORIGIN_X,
			(int32_t)lround(wl_fixed_to_double(fy)) - ORIGIN_Y, STEP, GRID);
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
	else if (!strcmp(iface, wp_presentation_interface.name))
		e->presentation = wl_registry_bind(reg, name, &wp_presentation_interface, 1);
	else if (!strcmp(iface, wl_output_interface.name) && !e->output)
		e->output = wl_registry_bind(reg, name, &wl_output_interface, 1);
}
static void reg_remove(void *data, struct wl_registry *reg, uint32_t name)
{
}
static const struct wl_registry_listener reg_listener = { reg_global, reg_remove };

/* Dispatches what arrives within timeout_ms; -1 if the connection failed. */
static int dispatch_for(struct wl_display *display, int timeout_ms)
{
	while (wl_display_prepare_read(display) != 0)
		wl_display_dispatch_pending(display);
	wl_display_flush(display);
	struct pollfd pfd = { wl_display_get_fd(display), POLLIN, 0 };
	if (poll(&pfd, 1, timeout_ms) > 0) {
		if (wl_display_read_events(display) < 0)
			return -1;
	} else {
		wl_display_cancel_read(display);
	}
	return wl_display_dispatch_pending(display);
}

/* The feedback's own check: what the protocol promises, counted. */
static void feedback_report(const struct echo *e)
{
	size_t presented = 0, discarded = 0, unanswered = 0, no_sync = 0, outside = 0, disorder = 0;
	const struct commit *prev = NULL;
	for (size_t i = 0; i < e->ncommits; i++) {
		const struct commit *c = &e->commits[i];
		if (c->answer == WAITING) {
			unanswered++;
			continue;
		}
		if (c->answer == DISCARDED) {
			discarded++;
			continue;
		}
		presented++;
		no_sync += !c->sync_first;
		if (e->clock_id == CLOCK_MONOTONIC &&
				(c->present_ns < c->commit_ns || c->present_ns > c->receipt_ns))
			outside++;
		if (prev != NULL && (c->present_ns < prev->present_ns || c->seq < prev->seq))
			disorder++;
		prev = c;
	}
	printf("shm-echo: feedback: %zu commits, %zu presented, %zu discarded, %zu unanswered; "
	       "clock %lld; presented without sync_output first %zu, outside commit..receipt "
	       "%zu, out of order %zu; last seq %llu\n",
			e->ncommits, presented, discarded, unanswered, (long long)e->clock_id,
			no_sync, outside, disorder, prev ? (unsigned long long)prev->seq : 0ull);
}

int main(int argc, char **argv)
{
	struct echo_options opt = { .seconds = 10, .warmup = 1, .rate = 100 };
	if (!echo_options_parse(argc, argv, "smt-shm-echo", "--hz", 1e-3, 10000, &opt))
		return 2;
	struct echo e = { .running = true, .clock_id = -1 };
	size_t cap = (size_t)((opt.seconds + opt.warmup + 1) * opt.rate) + 16;
	e.mv = calloc(cap, sizeof(*e.mv));
	e.commits_cap = cap + 4; /* a commit shows at least one new move */
	e.commits = calloc(e.commits_cap, sizeof(*e.commits));
	e.display = wl_display_connect(NULL);
	if (e.mv == NULL || e.commits == NULL || e.display == NULL ||
			!echo_mouse_open(&e.mouse, "smt-shm-echo", cap)) {
		fprintf(stderr, "smt-shm-echo: cannot connect\n");
		return 1;
	}
	struct wl_registry *reg = wl_display_get_registry(e.display);
	wl_registry_add_listener(reg, &reg_listener, &e);
	wl_display_roundtrip(e.display);
	if (!e.compositor || !e.shm || !e.wm || !e.seat || !e.presentation || !buffers_create(&e)) {
		fprintf(stderr, "smt-shm-echo: a global is missing or no memory\n");
		return 1;
	}
	wp_presentation_add_listener(e.presentation, &presentation_listener, &e);
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
		echo_mouse_move(&e.mouse, ECHO_OUTPUT_W / 2, ECHO_OUTPUT_H / 2);
		wl_display_roundtrip(e.mouse.display);
		wl_display_roundtrip(e.display);
	}
	if (!e.entered) {
		fprintf(stderr, "smt-shm-echo: the pointer never entered the window\n");
		return 1;
	}
	e.want = e.drawn_upto = e.shown_upto = 0;
	e.measuring = true;
	if (!echo_mouse_start(&e.mouse, opt.rate, pos_of, &e))
		return 1;
	uint64_t end = monotonic_now_ns() + (uint64_t)((opt.seconds + opt.warmup) * 1e9);
	while (e.running && monotonic_now_ns() < end) {
		if (wl_display_dispatch(e.display) < 0)
			break;
	}
	echo_mouse_stop(&e.mouse);
	/* every commit's feedback comes back (the frames are rendered) */
	uint64_t wait_end = monotonic_now_ns() + FEEDBACK_WAIT_NS;
	while (e.answered < e.ncommits && monotonic_now_ns() < wait_end &&
			dispatch_for(e.display, 100) >= 0)
		;
	size_t sent = atomic_load(&e.mouse.sent), skip = (size_t)(opt.warmup * opt.rate);
	uint64_t *to_frame = calloc(sent + 1, sizeof(uint64_t));
	uint64_t *to_present = calloc(sent + 1, sizeof(uint64_t));
	size_t nf = 0, np = 0, lost = 0;
	FILE *out = opt.csv ? fopen(opt.csv, "w") : NULL;
	if (out)
		fprintf(out, "seq,send_ns,recv_ns,frame_ns,present_ns\n");
	for (size_t s = 0; s < sent; s++) {
		uint64_t send = e.mouse.send_ns[s];
		const struct move *m = &e.mv[s];
		if (out)
			fprintf(out, "%zu,%llu,%llu,%llu,%llu\n", s, (unsigned long long)send,
					(unsigned long long)m->recv, (unsigned long long)m->frame,
					(unsigned long long)m->present);
		if (s < skip)
			continue;
		if (m->recv && m->frame > send)
			to_frame[nf++] = m->frame - send;
		if (m->recv && m->present > send)
			to_present[np++] = m->present - send;
		else
			lost++;
	}
	if (out)
		fclose(out);
	printf("shm-echo: %zu moves sent, %llu unmatched motion events, %zu measured moves "
	       "without a presented frame\n",
			sent, (unsigned long long)e.unmatched, lost);
	feedback_report(&e);
	echo_summary("shm-echo", "callback", to_frame, nf);
	echo_summary("shm-echo", "presented", to_present, np);
	echo_mouse_close(&e.mouse);
	/* (everything freed: the sanitizer build's leak check) */
	if (e.frame_cb != NULL) {
		wl_callback_destroy(e.frame_cb);
		free(e.frame);
	}
	for (int i = 0; i < NBUF; i++)
		wl_buffer_destroy(e.buf[i].wl);
	xdg_toplevel_destroy(top);
	xdg_surface_destroy(xs);
	wl_surface_destroy(e.surface);
	wl_pointer_destroy(e.pointer);
	if (e.output != NULL)
		wl_output_destroy(e.output);
	wp_presentation_destroy(e.presentation);
	xdg_wm_base_destroy(e.wm);
	wl_seat_destroy(e.seat);
	wl_shm_destroy(e.shm);
	wl_compositor_destroy(e.compositor);
	wl_registry_destroy(reg);
	wl_display_disconnect(e.display);
	free(to_frame);
	free(to_present);
	free(e.mv);
	free(e.commits);
	return np > 0 ? 0 : 1;
}
