/*
 * smt-demo — one window showing every ring command kind in labelled cells,
 * with an animated cell presented with per-frame damage.
 *
 *   smt-demo [--frames N] [--transport ring|socket] [--static] [--keep-on-resize]
 *            [--dump FILE] [--app-id ID]
 *
 * --static draws one deterministic frame, presents it, waits for a fence,
 * prints "DEMO_READY canvas=ID width=W height=H pool=ID pool_size=N" and
 * then only dispatches until killed (tests compare pixels).
 * --dump FILE writes every command byte the library generated (the whole
 * stream from connect to that fence, PADs excepted) to FILE and the image
 * pool's bytes to FILE.pool, so a test can replay the frame in-process.
 * --keep-on-resize does not redraw after a resize: it presents the canvas
 * as the compositor resized it (what fitted of the old frame) and prints
 * "KEPT WxH" once that PRESENT is reported (tests compare pixels).
 * --app-id ID sets the window's app id (default smt-demo), as shown by
 * `smtctl clients`.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clients/libsmt/smt.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define CELL_W 260
#define CELL_H 190
#define MARGIN 10
#define LABEL_H 22
#define WIN_W (3 * CELL_W + 4 * MARGIN)
#define WIN_H (3 * CELL_H + 4 * MARGIN)

struct demo {
	struct smt_ctx *ctx;
	struct smt_window *win;
	uint32_t canvas;
	struct smt_font *font, *big;
	struct smt_pool *pool;
	struct smt_image pool_img;
	uint32_t tile, argb, mask; /* pixmaps */
	uint64_t frame, max_frames;
	bool animate, waiting_present, running;
	bool keep_on_resize;
	uint32_t kept_serial; /* the PRESENT after a resize, until reported */
	struct timespec last_frame;
};

/* 0xAARRGGBB with the colour premultiplied by alpha. */
static uint32_t premul(uint32_t a, uint32_t r, uint32_t g, uint32_t b)
{
	return a << 24 | (r * a / 255) << 16 | (g * a / 255) << 8 | (b * a / 255);
}

static struct smt_rect cell(int i)
{
	return (struct smt_rect){ MARGIN + (i % 3) * (CELL_W + MARGIN),
		MARGIN + (i / 3) * (CELL_H + MARGIN), CELL_W, CELL_H };
}

/* Background and label; returns the content origin below the label. */
static void cell_frame(struct demo *d, int i, const char *label, int32_t *x, int32_t *y)
{
	struct smt_rect c = cell(i);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xff202428, c.x, c.y, c.width, c.height);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xff2e3440, c.x, c.y, c.width, LABEL_H);
	smt_draw_text(d->ctx, d->font, c.x + 6, c.y + 16, 0xffe5e9f0, label);
	*x = c.x + 8;
	*y = c.y + LABEL_H + 6;
}

static void draw_fills(struct demo *d)
{
	int32_t x, y;
	cell_frame(d, 0, "FILL_RECTS: src over add xor", &x, &y);
	struct smt_rect grid[48];
	for (int i = 0; i < 48; i++)
		grid[i] = (struct smt_rect){ x + (i % 12) * 20, y + (i / 12) * 12, 16, 8 };
	smt_fill_rects(d->ctx, SMT_PAINT_SRC, 0xff4c566a, 48, grid);
	y += 52;
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xffbf616a, x, y, 90, 90);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xffa3be8c, x + 60, y + 20, 90, 80);
	smt_fill_rect(d->ctx, SMT_PAINT_OVER, premul(128, 94, 129, 172), x + 30, y + 40, 110, 60);
	smt_fill_rect(d->ctx, SMT_PAINT_ADD, 0xff303000, x + 160, y, 70, 50);
	smt_fill_rect(d->ctx, SMT_PAINT_ADD, 0xff003030, x + 180, y + 25, 60, 50);
	smt_fill_rect(d->ctx, SMT_PAINT_XOR, premul(160, 235, 203, 139), x + 160, y + 60, 80, 40);
}

static void draw_points(struct demo *d)
{
	int32_t x, y;
	struct smt_point pts[2000];
	cell_frame(d, 1, "POINTS", &x, &y);
	for (int i = 0; i < 2000; i++) {
		double t = i * 2 * M_PI / 2000;
		pts[i] = (struct smt_point){ x + 120 + (int32_t)lround(110 * sin(3 * t)),
			y + 75 + (int32_t)lround(70 * sin(4 * t + 0.5)) };
	}
	smt_points(d->ctx, SMT_PAINT_SRC, 0xff88c0d0, 2000, pts);
	int n = 0;
	for (int j = 0; j < 16; j++)
		for (int i = 0; i < 24; i++)
			pts[n++] = (struct smt_point){ x + i * 10, y + j * 10 };
	smt_points(d->ctx, SMT_PAINT_SRC, 0xffebcb8b, (size_t)n, pts);
}

static void draw_segments(struct demo *d)
{
	int32_t x, y;
	struct smt_segment s[24];
	cell_frame(d, 2, "SEGMENTS: thin and wide", &x, &y);
	for (int i = 0; i < 24; i++) {
		double a = i * 2 * M_PI / 24;
		s[i] = (struct smt_segment){ x + 70, y + 75, x + 70 + (int32_t)lround(65 * cos(a)),
			y + 75 + (int32_t)lround(65 * sin(a)) };
	}
	smt_segments(d->ctx, SMT_PAINT_SRC, 0xffd8dee9, 0, 24, s);
	static const uint32_t widths[3] = { 3, 8, 15 };
	for (int i = 0; i < 3; i++) {
		struct smt_segment w = { x + 155 + i * 30, y + 10, x + 170 + i * 30, y + 140 };
		smt_segments(d->ctx, SMT_PAINT_SRC, 0xffd08770, widths[i], 1, &w);
	}
}

static void draw_put_image(struct demo *d)
{
	enum {
		W = 240,
		H = 150
	};
	static uint32_t px[W * H];
	int32_t x, y;
	cell_frame(d, 3, "PUT_IMAGE (inline gradient)", &x, &y);
	for (int j = 0; j < H; j++)
		for (int i = 0; i < W; i++)
			px[j * W + i] = 0xff000000u | (uint32_t)(i * 255 / (W - 1)) << 16 |
					(uint32_t)(j * 255 / (H - 1)) << 8 |
					(uint32_t)(255 - i * 255 / (W - 1));
	/* one command if the ring is big enough, row bands otherwise */
	if (smt_put_image(d->ctx, x, y, W, H, SMT_FORMAT_XRGB8888, W * 4, px) == -E2BIG)
		smt_put_image_rows(d->ctx, x, y, W, H, SMT_FORMAT_XRGB8888, W * 4, px);
}

static void draw_pool_image(struct demo *d)
{
	enum {
		W = 240,
		H = 150
	};
	int32_t x, y;
	cell_frame(d, 4, "PUT_IMAGE_POOL (zero copy)", &x, &y);
	if (!d->pool)
		return;
	/* A fresh image per full redraw; the previous one may still be read
	 * by the compositor, so it is freed only after a fence written now,
	 * behind every command that used it. */
	if (d->pool_img.data)
		smt_pool_free_after(d->pool, d->pool_img.offset, smt_fence(d->ctx));
	d->pool_img.data = NULL;
	if (smt_image_alloc(d->pool, W, H, SMT_FORMAT_XRGB8888, &d->pool_img))
		return;
	for (int j = 0; j < H; j++) {
		uint32_t *row = (uint32_t *)((uint8_t *)d->pool_img.data +
				(size_t)j * d->pool_img.stride);
		for (int i = 0; i < W; i++) {
			int r = (int)lround(hypot(i - W / 2, j - H / 2));
			row[i] = (r / 8) % 2 ? 0xff5e81ac : 0xffe5e9f0;
		}
	}
	smt_put_image_pool(d->ctx, d->pool, &d->pool_img, x, y);
}

static void draw_copy_area(struct demo *d)
{
	int32_t x, y;
	cell_frame(d, 5, "COPY_AREA + overlapping scroll", &x, &y);
	/* ten stripes, then scroll the block up by 12 pixels in place: an
	 * overlapping copy within the canvas */
	for (int i = 0; i < 10; i++)
		smt_fill_rect(d->ctx, SMT_PAINT_SRC,
				i % 2 ? 0xff434c5e : premul(255, 40 + i * 20, 90, 160), x,
				y + i * 12, 120, 12);
	smt_copy_area(d->ctx, d->canvas, x, y + 12, 120, 108, x, y);
	/* a pixmap tile copied twice */
	smt_copy_area(d->ctx, d->tile, 0, 0, 48, 48, x + 140, y);
	smt_copy_area(d->ctx, d->tile, 8, 8, 40, 40, x + 190, y + 60);
}

static void draw_composite(struct demo *d)
{
	int32_t x, y;
	cell_frame(d, 6, "COMPOSITE over, A8 mask", &x, &y);
	struct smt_rect checks[60];
	int n = 0;
	for (int j = 0; j < 6; j++)
		for (int i = 0; i < 10; i++)
			if ((i + j) % 2 == 0 && n < 60)
				checks[n++] = (struct smt_rect){ x + i * 24, y + j * 24, 24, 24 };
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xff9aa0a6, x, y, 240, 144);
	smt_fill_rects(d->ctx, SMT_PAINT_SRC, 0xff5f6368, (size_t)n, checks);
	smt_composite(d->ctx, SMT_PAINT_OVER, d->argb, 0, 0, 0, 0, 0, x + 10, y + 20, 96, 96);
	smt_composite(d->ctx, SMT_PAINT_OVER, d->argb, d->mask, 0, 0, 0, 0, x + 130, y + 20, 96,
			96);
}

static void draw_text(struct demo *d)
{
	int32_t x, y;
	cell_frame(d, 7, "GLYPHS", &x, &y);
	smt_draw_text(d->ctx, d->big, x, y + 40, 0xffeceff4, "smtwc ring demo");
	smt_draw_text(d->ctx, d->font, x, y + 75, 0xffa3be8c, "The quick brown fox jumps");
	smt_draw_text(d->ctx, d->font, x, y + 95, 0xffebcb8b, "over the lazy dog 0123456789");
	smt_draw_text(d->ctx, d->font, x, y + 115, premul(160, 191, 97, 106),
			"!\"#$%&'()*+,-./:;<=>?@[]");
}

static void draw_anim(struct demo *d)
{
	int32_t x, y;
	char buf[64];
	cell_frame(d, 8, "animated (damage per frame)", &x, &y);
	/* a bouncing square: a triangle wave in each axis */
	uint64_t t = d->frame;
	int32_t px = (int32_t)(t * 3 % 400), py = (int32_t)(t * 2 % 240);
	px = px > 200 ? 400 - px : px;
	py = py > 120 ? 240 - py : py;
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xffb48ead, x + px, y + py, 40, 30);
	snprintf(buf, sizeof(buf), "frame %llu", (unsigned long long)d->frame);
	smt_draw_text(d->ctx, d->font, x + 150, y + 150, 0xffd8dee9, buf);
}

/* Pixmaps used by several cells: created once, before the first frame. */
static void make_pixmaps(struct demo *d)
{
	enum {
		S = 96
	};
	static uint32_t argb[S * S];
	static uint8_t mask[S * S];
	d->tile = smt_create_pixmap(d->ctx, 48, 48, SMT_FORMAT_XRGB8888);
	smt_set_target(d->ctx, d->tile);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xffebcb8b, 0, 0, 48, 48);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xffbf616a, 8, 8, 16, 16);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xff5e81ac, 24, 24, 16, 16);

	for (int j = 0; j < S; j++)
		for (int i = 0; i < S; i++) {
			double r = hypot(i - S / 2.0, j - S / 2.0) / (S / 2.0);
			uint32_t a = r >= 1 ? 0 : (uint32_t)lround(255 * (1 - r));
			argb[j * S + i] = premul(a, 208, 135, 112);
			mask[j * S + i] = (uint8_t)(i * 255 / (S - 1));
		}
	d->argb = smt_create_pixmap(d->ctx, S, S, SMT_FORMAT_ARGB8888);
	smt_set_target(d->ctx, d->argb);
	smt_put_image_rows(d->ctx, 0, 0, S, S, SMT_FORMAT_ARGB8888, S * 4, argb);
	d->mask = smt_create_pixmap(d->ctx, S, S, SMT_FORMAT_A8);
	smt_set_target(d->ctx, d->mask);
	smt_put_image_rows(d->ctx, 0, 0, S, S, SMT_FORMAT_A8, S, mask);
	smt_set_target(d->ctx, d->canvas);
}

static void draw_all(struct demo *d)
{
	smt_set_target(d->ctx, d->canvas);
	smt_fill_rect(d->ctx, SMT_PAINT_SRC, 0xff101214, 0, 0, smt_window_width(d->win),
			smt_window_height(d->win));
	draw_fills(d);
	draw_points(d);
	draw_segments(d);
	draw_put_image(d);
	draw_pool_image(d);
	draw_copy_area(d);
	draw_composite(d);
	draw_text(d);
	draw_anim(d);
}

static void next_frame(struct demo *d)
{
	struct smt_rect dmg = cell(8);
	draw_anim(d);
	smt_window_present(d->win, 1, &dmg, NULL);
	smt_flush(d->ctx);
	d->frame++;
	d->waiting_present = true;
	clock_gettime(CLOCK_MONOTONIC, &d->last_frame);
	if (d->max_frames && d->frame >= d->max_frames)
		d->running = false;
}

static void on_presented(void *data, struct smt_window *w, uint32_t serial, uint64_t exec_ns,
		uint64_t display_ns)
{
	struct demo *d = data;
	d->waiting_present = false;
	if (d->kept_serial != 0 && serial >= d->kept_serial) {
		d->kept_serial = 0;
		printf("KEPT %ux%u\n", smt_window_width(d->win), smt_window_height(d->win));
		fflush(stdout);
	}
}

static void on_resize(void *data, struct smt_window *w, uint32_t width, uint32_t height)
{
	struct demo *d = data;
	if (d->keep_on_resize) {
		smt_window_present(d->win, 0, NULL, &d->kept_serial);
		smt_flush(d->ctx);
		return;
	}
	draw_all(d);
	smt_window_present(d->win, 0, NULL, NULL);
}

static void on_close(void *data, struct smt_window *w)
{
	((struct demo *)data)->running = false;
}

static const struct smt_window_listener listener = { on_resize, on_close, on_presented };

static void tap(void *data, const void *cmd, size_t size)
{
	fwrite(cmd, 1, size, data);
}

static double ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) * 1e3 + (double)(now.tv_nsec - t->tv_nsec) / 1e6;
}

static int usage(void)
{
	fprintf(stderr,
			"usage: smt-demo [--frames N] [--transport ring|socket] [--static] "
			"[--keep-on-resize] [--dump FILE] [--app-id ID]\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct demo d = { .animate = true, .running = true };
	struct smt_options opts = { 0 };
	const char *dump = NULL, *app_id = "smt-demo";
	FILE *dump_f = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--frames") && i + 1 < argc)
			d.max_frames = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--transport") && i + 1 < argc) {
			if (!smt_transport_from_name(argv[++i], &opts.transport))
				return usage();
		} else if (!strcmp(argv[i], "--static"))
			d.animate = false;
		else if (!strcmp(argv[i], "--keep-on-resize"))
			d.keep_on_resize = true;
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
			dump = argv[++i];
		else if (!strcmp(argv[i], "--app-id") && i + 1 < argc)
			app_id = argv[++i];
		else
			return usage();
	}
	if (!(d.ctx = smt_connect(&opts)))
		return 1;
	if (dump) {
		if (!(dump_f = fopen(dump, "wb"))) {
			perror(dump);
			return 1;
		}
		smt_set_tap(d.ctx, tap, dump_f);
	}
	d.win = smt_window_create(d.ctx, "smt-demo", app_id, WIN_W, WIN_H);
	d.font = smt_font_load(d.ctx, "monospace", 13);
	d.big = smt_font_load(d.ctx, "monospace:bold", 26);
	d.pool = smt_pool_create(d.ctx, 256 * 1024);
	if (!d.win || !d.font || !d.big) {
		fprintf(stderr, "smt-demo: setup failed: %s\n", smt_error_message(d.ctx));
		smt_disconnect(d.ctx);
		return 1;
	}
	d.canvas = smt_window_canvas(d.win);
	smt_window_set_listener(d.win, &listener, &d);
	make_pixmaps(&d);
	draw_all(&d);
	smt_window_present(d.win, 0, NULL, NULL);
	if (smt_sync(d.ctx)) {
		fprintf(stderr, "smt-demo: %s\n", smt_error_message(d.ctx));
		return 1;
	}

	if (!d.animate) {
		if (dump_f) {
			smt_set_tap(d.ctx, NULL, NULL);
			fclose(dump_f);
			char path[4096];
			snprintf(path, sizeof(path), "%s.pool", dump);
			FILE *pf = d.pool ? fopen(path, "wb") : NULL;
			if (pf) {
				fwrite(smt_pool_ptr(d.pool, 0), 1, smt_pool_size(d.pool), pf);
				fclose(pf);
			}
		}
		printf("DEMO_READY canvas=%u width=%u height=%u pool=%u pool_size=%llu\n", d.canvas,
				smt_window_width(d.win), smt_window_height(d.win),
				d.pool ? smt_pool_id(d.pool) : 0,
				(unsigned long long)(d.pool ? smt_pool_size(d.pool) : 0));
		fflush(stdout);
		while (d.running && smt_dispatch(d.ctx, -1) >= 0)
			;
	} else {
		d.frame = 1;
		clock_gettime(CLOCK_MONOTONIC, &d.last_frame);
		while (d.running) {
			/* paced by presented events; a 100 ms timer keeps going
			 * if one is lost (smt_dispatch wakes every 16 ms) */
			if (!d.waiting_present || ms_since(&d.last_frame) >= 100)
				next_frame(&d);
			if (smt_dispatch(d.ctx, 16) < 0)
				break;
		}
		smt_sync(d.ctx);
	}
	if (dump_f && d.animate)
		fclose(dump_f);
	int rc = smt_failed(d.ctx) ? 1 : 0;
	smt_disconnect(d.ctx);
	return rc;
}
