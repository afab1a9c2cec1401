/* smt-perf's throughput mode: the x11perf-like cases over ring, socket
 * and local (main.c's comment says what each measures). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pixman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libsmt/smt.h"
#include "protocol/smt-ring.h"
#include "compositor/exec/executor.h"
#include "compositor/exec/ring_reader.h"
#include "clients/libsmt/ring-writer.h"
#include "clients/perf/perf.h"

/* ---- backends ------------------------------------------------------------ */

enum tkind {
	T_RING,
	T_SOCKET,
	T_LOCAL
};

struct be {
	enum tkind kind;
	/* remote */
	struct smt_ctx *ctx;
	struct smt_window *win;
	struct smt_pool *pool;
	/* local */
	struct smt_exec_ctx *ex;
	struct smt_ring_reader rd;
	struct smt_ring_writer w;
	uint8_t *ring_mem;
	struct smt_ring_status *status;
	struct smt_global_status *global;
	pixman_image_t *canvas_img;
	uint8_t *lpool;
	uint64_t lpool_size, lpool_used;
	uint32_t next_id;
	uint64_t lfence;
	uint64_t local_cmds;
	/* common */
	uint32_t canvas;
	uint32_t pool_id;
};

static void local_drain(struct be *b)
{
	smt_ring_writer_publish(&b->w);
	for (;;) {
		struct smt_exec_budget bud = { 0 };
		struct smt_exec_result res;
		enum smt_exec_stop st = smt_exec_run(b->ex, &b->rd, &bud, &res);
		b->local_cmds += res.commands;
		if (st == SMT_EXEC_ERROR) {
			fprintf(stderr, "smt-perf: local executor: %s\n", res.error.message);
			exit(1);
		}
		if (st == SMT_EXEC_EMPTY)
			return;
	}
}

static void *lbegin(struct be *b, uint32_t size)
{
	for (;;) {
		uint64_t need;
		void *p = smt_ring_writer_reserve(&b->w, size, &need);
		if (p)
			return p;
		local_drain(b);
	}
}

static void lend(struct be *b, uint32_t size)
{
	smt_ring_writer_commit(&b->w, size);
}

/* A remote command that failed (the connection lost with the compositor,
 * a protocol error) ends the run: a case's loop runs until its time is up,
 * and would otherwise spin on failing calls for the rest of it. */
static void remote_ok(struct be *b, int rc)
{
	if (rc) {
		fprintf(stderr, "smt-perf: %s\n", smt_error_message(b->ctx));
		exit(1);
	}
}

static void be_open(struct be *b, enum tkind kind)
{
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	if (kind == T_LOCAL) {
		uint32_t area = SMT_RING_AREA_DEFAULT;
		b->ring_mem = aligned_alloc(4096, SMT_RING_HEADER_SIZE + area);
		b->status = aligned_alloc(4096, SMT_STATUS_MAP_SIZE);
		b->global = aligned_alloc(4096, SMT_STATUS_MAP_SIZE);
		if (!b->ring_mem || !b->status || !b->global)
			die("out of memory");
		memset(b->ring_mem, 0, SMT_RING_HEADER_SIZE + area);
		memset(b->status, 0, SMT_STATUS_MAP_SIZE);
		memset(b->global, 0, SMT_STATUS_MAP_SIZE);
		smt_global_init(b->global);
		if (smt_ring_reader_init(&b->rd, b->ring_mem, SMT_RING_HEADER_SIZE + area, area,
				    b->status))
			die("ring reader init");
		smt_ring_writer_init(&b->w, (struct smt_ring_header *)b->ring_mem, b->status,
				b->global, b->ring_mem + SMT_RING_HEADER_SIZE, area);
		b->ex = smt_exec_create(NULL);
		b->canvas_img = pixman_image_create_bits(PIXMAN_a8r8g8b8, WIN_W, WIN_H, NULL, 0);
		b->canvas = 1;
		if (smt_exec_register_canvas(b->ex, b->canvas, b->canvas_img))
			die("register canvas");
		b->lpool_size = 8u << 20;
		b->lpool = aligned_alloc(4096, b->lpool_size);
		memset(b->lpool, 0, b->lpool_size);
		b->pool_id = 1;
		smt_exec_register_pool(b->ex, b->pool_id, b->lpool, b->lpool_size);
		b->next_id = 16;
	} else {
		struct smt_options o = { 0 };
		o.transport = kind == T_RING ? SMT_TRANSPORT_RING : SMT_TRANSPORT_SOCKET;
		o.area_size = opt_area;
		b->ctx = smt_connect(&o);
		if (!b->ctx)
			die("cannot connect to smtwc");
		if (smt_transport(b->ctx) != o.transport)
			die("requested transport not available");
		b->win = smt_window_create(b->ctx, "smt-perf", "smt-perf", WIN_W, WIN_H);
		if (!b->win)
			die("cannot create window");
		b->canvas = smt_window_canvas(b->win);
		b->pool = smt_pool_create(b->ctx, 8u << 20);
		if (!b->pool)
			die("cannot create pool");
		b->pool_id = smt_pool_id(b->pool);
	}
	/* target + background */
	if (kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_set_target);
		smt_encode_set_target(lbegin(b, sz), b->canvas);
		lend(b, sz);
	} else {
		remote_ok(b, smt_set_target(b->ctx, b->canvas));
	}
}

static void be_sync(struct be *b)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_fence);
		smt_encode_fence(lbegin(b, sz), ++b->lfence);
		lend(b, sz);
		local_drain(b);
	} else if (smt_sync(b->ctx)) {
		fprintf(stderr, "smt-perf: sync failed: %s\n", smt_error_message(b->ctx));
		exit(1);
	}
}

static void be_close(struct be *b)
{
	if (b->kind == T_LOCAL) {
		smt_exec_destroy(b->ex);
		smt_ring_reader_fini(&b->rd);
		pixman_image_unref(b->canvas_img);
		free(b->ring_mem);
		free(b->status);
		free(b->global);
		free(b->lpool);
	} else {
		smt_disconnect(b->ctx);
	}
}

#define ARR_SIZE(T, n, E) smt_cmd_array_size(sizeof(T), (n), sizeof(E))

/* Room for a batch of commands of at least `size` bytes, up to `max`
 * (smt_reserve; locally the same ring writer call). */
static uint8_t *batch_begin(struct be *b, uint32_t size, uint32_t max, uint32_t *room)
{
	if (b->kind == T_LOCAL) {
		void *p = lbegin(b, size);
		*room = smt_ring_writer_room(&b->w, max);
		return p;
	}
	uint8_t *p = smt_reserve(b->ctx, size, max, room);
	if (!p)
		die("smt_reserve failed");
	return p;
}

static void batch_end(struct be *b, uint32_t bytes, uint32_t commands)
{
	if (b->kind == T_LOCAL)
		smt_ring_writer_commit_many(&b->w, bytes, commands);
	else if (smt_commit(b->ctx, bytes, commands))
		die("smt_commit failed");
}

static void op_noop(struct be *b)
{
	if (b->kind == T_LOCAL) {
		smt_encode_noop(lbegin(b, 8), SMT_OP_NOOP, 8);
		lend(b, 8);
	} else {
		remote_ok(b, smt_noop(b->ctx, 8));
	}
}

static void op_fill(struct be *b, uint32_t colour, uint32_t n, const struct smt_rect *r)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = ARR_SIZE(struct smt_cmd_fill_rects, n, *r);
		smt_encode_fill_rects(lbegin(b, sz), SMT_PAINT_SRC, colour, n, r);
		lend(b, sz);
	} else {
		remote_ok(b, smt_fill_rects(b->ctx, SMT_PAINT_SRC, colour, n, r));
	}
}

static void op_points(struct be *b, uint32_t colour, uint32_t n, const struct smt_point *p)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = ARR_SIZE(struct smt_cmd_points, n, *p);
		smt_encode_points(lbegin(b, sz), SMT_PAINT_SRC, colour, n, p);
		lend(b, sz);
	} else {
		remote_ok(b, smt_points(b->ctx, SMT_PAINT_SRC, colour, n, p));
	}
}

static void op_segs(
		struct be *b, uint32_t colour, uint32_t lw, uint32_t n, const struct smt_segment *s)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = ARR_SIZE(struct smt_cmd_segments, n, *s);
		smt_encode_segments(lbegin(b, sz), SMT_PAINT_SRC, colour, lw, n, s);
		lend(b, sz);
	} else {
		remote_ok(b, smt_segments(b->ctx, SMT_PAINT_SRC, colour, lw, n, s));
	}
}

static void op_put(struct be *b, int32_t x, int32_t y, uint32_t w, uint32_t h, const void *px)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = smt_cmd_put_image_size(w * 4, h);
		smt_encode_put_image(lbegin(b, sz), x, y, w, h, SMT_FORMAT_ARGB8888, w * 4, px);
		lend(b, sz);
	} else {
		if (smt_put_image(b->ctx, x, y, w, h, SMT_FORMAT_ARGB8888, w * 4, px))
			die("put_image failed");
	}
}

struct img {
	struct smt_image si; /* remote */
	uint64_t off;        /* local */
	uint32_t w, h;
};

static void img_alloc(struct be *b, struct img *im, uint32_t w, uint32_t h)
{
	im->w = w;
	im->h = h;
	uint8_t *data;
	if (b->kind == T_LOCAL) {
		im->off = b->lpool_used;
		b->lpool_used += ((uint64_t)w * h * 4 + 63) & ~63ull;
		if (b->lpool_used > b->lpool_size)
			die("local pool too small");
		data = b->lpool + im->off;
	} else {
		if (smt_image_alloc(b->pool, w, h, SMT_FORMAT_ARGB8888, &im->si))
			die("image alloc");
		data = im->si.data;
	}
	for (uint32_t i = 0; i < w * h; i++)
		((uint32_t *)data)[i] = 0xff000000u | (i * 2654435761u >> 8);
}

static void op_put_pool(struct be *b, struct img *im, int32_t x, int32_t y)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_put_image_pool);
		smt_encode_put_image_pool(lbegin(b, sz), b->pool_id, im->off, im->w * 4, im->w,
				im->h, SMT_FORMAT_ARGB8888, x, y);
		lend(b, sz);
	} else {
		remote_ok(b, smt_put_image_pool(b->ctx, b->pool, &im->si, x, y));
	}
}

static void op_copy(struct be *b, uint32_t src, int32_t sx, int32_t sy, uint32_t w, uint32_t h,
		int32_t dx, int32_t dy)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_copy_area);
		smt_encode_copy_area(lbegin(b, sz), src, sx, sy, w, h, dx, dy);
		lend(b, sz);
	} else {
		remote_ok(b, smt_copy_area(b->ctx, src, sx, sy, w, h, dx, dy));
	}
}

static void op_composite(struct be *b, uint32_t src, int32_t dx, int32_t dy, uint32_t w, uint32_t h)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_composite);
		smt_encode_composite(
				lbegin(b, sz), SMT_PAINT_OVER, src, 0, 0, 0, 0, 0, dx, dy, w, h);
		lend(b, sz);
	} else {
		int rc = smt_composite(b->ctx, SMT_PAINT_OVER, src, 0, 0, 0, 0, 0, dx, dy, w, h);
		remote_ok(b, rc);
	}
}

static void op_glyphs(struct be *b, uint32_t atlas, int32_t x, int32_t y, uint32_t n,
		const struct smt_glyph *g)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = ARR_SIZE(struct smt_cmd_glyphs, n, *g);
		smt_encode_glyphs(lbegin(b, sz), SMT_PAINT_OVER, 0xff000000u, atlas, x, y, n, g);
		lend(b, sz);
	} else {
		remote_ok(b, smt_glyphs(b->ctx, SMT_PAINT_OVER, 0xff000000u, atlas, x, y, n, g));
	}
}

static uint32_t be_pixmap(struct be *b, uint32_t w, uint32_t h, uint32_t format)
{
	if (b->kind == T_LOCAL) {
		uint32_t id = b->next_id++;
		uint32_t sz = sizeof(struct smt_cmd_create_pixmap);
		smt_encode_create_pixmap(lbegin(b, sz), id, w, h, format);
		lend(b, sz);
		return id;
	}
	uint32_t id = smt_create_pixmap(b->ctx, w, h, format);
	if (!id)
		die("create pixmap");
	return id;
}

static void be_target(struct be *b, uint32_t id)
{
	if (b->kind == T_LOCAL) {
		uint32_t sz = sizeof(struct smt_cmd_set_target);
		smt_encode_set_target(lbegin(b, sz), id);
		lend(b, sz);
	} else {
		remote_ok(b, smt_set_target(b->ctx, id));
	}
}

/* ---- cases ---------------------------------------------------------------- */

struct cstate {
	uint32_t pix; /* composite source / glyph atlas */
	struct img im;
	uint32_t *pixels;
	struct smt_glyph glyphs[80];
	uint32_t nglyphs;
	/* x11perf batching: the same objects in every command, as x11perf
	 * sends the same request again (only the colour changes) */
	uint32_t n;
	struct smt_point *pts;
	struct smt_rect *rects;
	struct smt_segment *segs;
};

struct pcase {
	const char *name;    /* short name */
	const char *desc;    /* x11perf-like description */
	const char *x11perf; /* matching x11perf test, or NULL */
	uint32_t size;       /* rect / line / image size */
	int kind;
	bool pool;        /* put-image from a pool */
	uint32_t objects; /* per command: x11perf's objects per request */
};

enum {
	K_NOOP,
	K_DOT,
	K_RECT,
	K_SEG,
	K_WSEG,
	K_PUT,
	K_COPY,
	K_COMP,
	K_GLYPHS
};

static const struct pcase cases[] = {
	{ "noop", "NOOP command", "noop", 0, K_NOOP, false, 1 },
	{ "dot", "Dot", "dot", 1, K_DOT, false, 1000 },
	{ "rect1", "1x1 rectangle", "rect1", 1, K_RECT, false, 1000 },
	{ "rect10", "10x10 rectangle", "rect10", 10, K_RECT, false, 1000 },
	{ "rect100", "100x100 rectangle", "rect100", 100, K_RECT, false, 36 },
	{ "rect500", "500x500 rectangle", "rect500", 500, K_RECT, false, 1 },
	{ "seg10", "10-pixel line segment", "seg10", 10, K_SEG, false, 1000 },
	{ "seg100", "100-pixel line segment", "seg100", 100, K_SEG, false, 1000 },
	{ "seg500", "500-pixel line segment", "seg500", 500, K_SEG, false, 1000 },
	{ "wseg100", "100-pixel wide (10px) segment", NULL, 100, K_WSEG, false, 100 },
	{ "put10", "PutImage 10x10 inline", "putimage10", 10, K_PUT, false, 1 },
	{ "put100", "PutImage 100x100 inline", "putimage100", 100, K_PUT, false, 1 },
	{ "poolput10", "PutImage 10x10 from pool", "shmput10", 10, K_PUT, true, 1 },
	{ "poolput100", "PutImage 100x100 from pool", "shmput100", 100, K_PUT, true, 1 },
	{ "poolput500", "PutImage 500x500 from pool", "shmput500", 500, K_PUT, true, 1 },
	{ "copy10", "Copy 10x10 canvas->canvas", "copywinwin10", 10, K_COPY, false, 1 },
	{ "copy100", "Copy 100x100 canvas->canvas", "copywinwin100", 100, K_COPY, false, 1 },
	{ "copy500", "Copy 500x500 canvas->canvas", "copywinwin500", 500, K_COPY, false, 1 },
	{ "comp100", "Composite OVER 100x100 ARGB (alpha)", NULL, 100, K_COMP, false, 1 },
	{ "text", "Glyph in an 80-glyph line (6x13, A8 atlas)", "ftext", 80, K_GLYPHS, false, 80 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static uint32_t case_objects(const struct pcase *c)
{
	return opt_single ? 1 : c->objects;
}

/* n rectangles of s x s on a grid of cells 1 pixel apart, wrapping. */
static struct smt_rect *grid_rects(uint32_t s, uint32_t n)
{
	struct smt_rect *r = calloc(n, sizeof(*r));
	uint32_t per = s + 1, cells = (WIN_W - s) / per + 1;
	for (uint32_t k = 0; k < n; k++)
		r[k] = (struct smt_rect){ (int32_t)(k % cells * per),
			(int32_t)(k / cells % cells * per), s, s };
	return r;
}

/* n segments of length s: one per s x s square, squares down then across
 * the window, the end points turning clockwise round the square from one
 * segment to the next, so every direction is drawn. */
static struct smt_segment *fan_segments(uint32_t s, uint32_t n)
{
	struct smt_segment *g = calloc(n, sizeof(*g));
	int32_t S = (int32_t)s, margin = (S + 19) / 20;
	uint32_t turn = 8 * s / n ? 8 * s / n : 1;
	int32_t x = margin, y = margin;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t a = k * turn % (8 * s);
		int32_t t = (int32_t)(a % s);
		int32_t e[8][4] = {
			{ 0, 0, S, t },
			{ t, 0, S, S },
			{ S, 0, S - t, S },
			{ S, t, 0, S },
			{ S, S, 0, S - t },
			{ S - t, S, 0, 0 },
			{ 0, S, t, 0 },
			{ 0, S - t, S, 0 },
		};
		const int32_t *p = e[a / s];
		g[k] = (struct smt_segment){ x + p[0], y + p[1], x + p[2], y + p[3] };
		y += S;
		if (y >= WIN_H - S - margin) {
			y = margin;
			x += S;
			if (x >= WIN_W - S - margin)
				x = margin;
		}
	}
	return g;
}

static void case_setup(struct be *b, const struct pcase *c, struct cstate *st)
{
	memset(st, 0, sizeof(*st));
	uint32_t s = c->size;
	st->n = case_objects(c);
	if (st->n > 1 && c->kind == K_DOT) {
		st->pts = calloc(st->n, sizeof(*st->pts));
		for (uint32_t k = 0; k < st->n; k++) /* 40 rows, 15 and 24 apart */
			st->pts[k] = (struct smt_point){ (int32_t)(k / 40 * 24 % WIN_W + 5),
				(int32_t)(k % 40 * 15 + 5) };
	} else if (st->n > 1 && c->kind == K_RECT) {
		st->rects = grid_rects(s, st->n);
	} else if (st->n > 1 && (c->kind == K_SEG || c->kind == K_WSEG)) {
		st->segs = fan_segments(s, st->n);
	}
	if (c->kind == K_PUT && !c->pool) {
		st->pixels = malloc((size_t)s * s * 4);
		for (uint32_t i = 0; i < s * s; i++)
			st->pixels[i] = 0xff000000u | (i * 2654435761u >> 8);
	} else if (c->kind == K_PUT) {
		img_alloc(b, &st->im, s, s);
	} else if (c->kind == K_COMP) {
		/* an ARGB pixmap with a translucent gradient */
		st->pix = be_pixmap(b, s, s, SMT_FORMAT_ARGB8888);
		be_target(b, st->pix);
		for (uint32_t y = 0; y < s; y += 10) {
			uint32_t a = 40 + (y * 200 / s);
			struct smt_rect r = { 0, (int32_t)y, s, 10 };
			op_fill(b, (a << 24) | ((a / 2) << 16) | (a / 3), 1, &r);
		}
		be_target(b, b->canvas);
	} else if (c->kind == K_GLYPHS) {
		/* A8 atlas of 95 6x13 cells with a synthetic pattern */
		uint32_t aw = 95 * 6, ah = 13;
		st->pix = be_pixmap(b, aw, ah, SMT_FORMAT_A8);
		be_target(b, st->pix);
		for (uint32_t g = 0; g < 95; g++)
			for (uint32_t k = 0; k < 6; k++) {
				struct smt_rect r = { (int32_t)(g * 6 + 1 + (g + k) % 3),
					(int32_t)(1 + 2 * k), 2, 1 + (g * 7 + k) % 2 };
				op_fill(b, 0xff000000u, 1, &r);
			}
		be_target(b, b->canvas);
		st->nglyphs = st->n;
		for (uint32_t i = 0; i < st->nglyphs; i++) {
			uint32_t ch = (i * 37) % 95;
			st->glyphs[i] = (struct smt_glyph){ (uint16_t)(ch * 6), 0, 6, 13,
				(int32_t)(i * 6), -10 };
		}
	}
	be_sync(b);
}

static void case_cleanup(struct be *b, const struct pcase *c, struct cstate *st)
{
	(void)c;
	free(st->pixels);
	free(st->pts);
	free(st->rects);
	free(st->segs);
	if (b->kind != T_LOCAL && c->kind == K_PUT && c->pool)
		smt_pool_free(b->pool, st->im.si.offset);
	if (b->kind == T_LOCAL && c->kind == K_PUT && c->pool)
		b->lpool_used = 0;
	if (st->pix) {
		if (b->kind == T_LOCAL) {
			uint32_t sz = sizeof(struct smt_cmd_free_pixmap);
			smt_encode_free_pixmap(lbegin(b, sz), st->pix);
			lend(b, sz);
		} else {
			smt_free_pixmap(b->ctx, st->pix);
		}
	}
	be_sync(b);
}

static uint32_t op_colour(uint64_t i)
{
	return 0xff000000u | (uint32_t)(i * 0x010307u);
}

/* Where operation i of size s goes: spread over the window. */
static int32_t op_x(uint64_t i, uint32_t s)
{
	return (int32_t)((i * 7) % (WIN_W > s ? WIN_W - s : 1));
}

static int32_t op_y(uint64_t i, uint32_t s)
{
	return (int32_t)((i * 13) % (WIN_H > s ? WIN_H - s : 1));
}

static void case_op(struct be *b, const struct pcase *c, struct cstate *st, uint64_t i)
{
	uint32_t s = c->size;
	uint32_t colour = op_colour(i);
	uint32_t span = WIN_W > s ? WIN_W - s : 1;
	int32_t x = op_x(i, s), y = op_y(i, s);
	switch (c->kind) {
	case K_NOOP:
		op_noop(b);
		break;
	case K_DOT: {
		if (st->pts) {
			op_points(b, colour, st->n, st->pts);
			break;
		}
		struct smt_point p = { (int32_t)(i % WIN_W), (int32_t)((i / WIN_W) % WIN_H) };
		op_points(b, colour, 1, &p);
		break;
	}
	case K_RECT: {
		if (st->rects) {
			op_fill(b, colour, st->n, st->rects);
			break;
		}
		struct smt_rect r = { x, y, s, s };
		op_fill(b, colour, 1, &r);
		break;
	}
	case K_SEG:
	case K_WSEG: {
		if (st->segs) {
			op_segs(b, colour, c->kind == K_WSEG ? 10 : 0, st->n, st->segs);
			break;
		}
		/* alternate directions like x11perf's fan; length s */
		struct smt_segment sg;
		int32_t off = (int32_t)(i % 50);
		switch (i & 3) {
		case 0:
			sg = (struct smt_segment){ 50, 50 + off, 50 + (int32_t)s, 50 + off };
			break;
		case 1:
			sg = (struct smt_segment){ 50 + off, 50, 50 + off, 50 + (int32_t)s };
			break;
		case 2:
			sg = (struct smt_segment){ 50, 50, 50 + (int32_t)s, 50 + (int32_t)s / 2 };
			break;
		default:
			sg = (struct smt_segment){ 50, 50 + (int32_t)s, 50 + (int32_t)s / 2, 50 };
			break;
		}
		op_segs(b, colour, c->kind == K_WSEG ? 10 : 0, 1, &sg);
		break;
	}
	case K_PUT:
		if (c->pool)
			op_put_pool(b, &st->im, x, y);
		else
			op_put(b, x, y, s, s, st->pixels);
		break;
	case K_COPY: {
		int32_t sx = (int32_t)((i * 3) % span), sy = (int32_t)((i * 5) % span);
		op_copy(b, b->canvas, sx, sy, s, s, x, y);
		break;
	}
	case K_COMP:
		op_composite(b, st->pix, x, y, s, s);
		break;
	case K_GLYPHS:
		op_glyphs(b, st->pix, 10 + (st->nglyphs == 1 ? (int32_t)(i * 6 % (WIN_W - 20)) : 0),
				20 + (int32_t)((i * 13) % (WIN_H - 30)), st->nglyphs, st->glyphs);
		break;
	}
}

/*
 * Operations i .. i + want - 1 of case c; returns how many were written
 * (at least one). NOOPs and one-object 1x1 fills, the cases bounded by the
 * writer's cost per command, are written as one batch (smt_reserve /
 * smt_commit: one reservation for up to `want` commands, as a program
 * drawing many small things would); the others one at a time.
 */
static uint32_t case_ops(
		struct be *b, const struct pcase *c, struct cstate *st, uint64_t i, uint32_t want)
{
	bool fill1 = c->kind == K_RECT && !st->rects && c->size == 1;
	if (want < 2 || (c->kind != K_NOOP && !fill1)) {
		case_op(b, c, st, i);
		return 1;
	}
	uint32_t size = fill1 ? ARR_SIZE(struct smt_cmd_fill_rects, 1, struct smt_rect) : 8;
	uint32_t room;
	uint8_t *p = batch_begin(b, size, want * size, &room);
	uint32_t n = room / size;
	for (uint32_t k = 0; k < n; k++, p += size) {
		if (fill1) {
			struct smt_rect r = { op_x(i + k, 1), op_y(i + k, 1), 1, 1 };
			smt_encode_fill_rects(p, SMT_PAINT_SRC, op_colour(i + k), 1, &r);
		} else {
			smt_encode_noop(p, SMT_OP_NOOP, 8);
		}
	}
	batch_end(b, n * size, n);
	return n;
}

struct counters {
	uint64_t cmds, wake_c2s, wake_s2c, full_waits, sleeps;
	uint64_t spins, spins_reached, spins_server_asleep, spin_skips, slow_drain_sleeps;
};

static void read_counters(struct be *b, struct counters *k)
{
	memset(k, 0, sizeof(*k));
	if (b->kind == T_LOCAL) {
		k->cmds = b->w.commands;
		return;
	}
	struct smt_stats s;
	smt_get_stats(b->ctx, &s);
	k->cmds = s.commands_written;
	k->wake_c2s = s.wakeups_sent;
	k->wake_s2c = s.wakeups_to_client;
	k->full_waits = s.full_waits;
	k->sleeps = s.sleeps;
	k->spins = s.spins;
	k->spins_reached = s.spins_reached;
	k->spins_server_asleep = s.spins_server_asleep;
	k->spin_skips = s.spin_skips;
	k->slow_drain_sleeps = s.slow_drain_sleeps;
}

struct result {
	double ops_per_s;
	uint64_t ops;
	double secs;
	/* the measured interval (CLOCK_MONOTONIC): several processes' totals
	 * are taken over their common span (tests/bench/workers/report.py) */
	uint64_t start_ns, end_ns;
	struct counters d;
};

static void run_case(
		struct be *b, const struct pcase *c, double secs, double warm, struct result *out)
{
	struct cstate st;
	case_setup(b, c, &st);
	uint64_t i = 0;
	uint64_t t0 = monotonic_now_ns(), end = t0 + (uint64_t)(warm * 1e9);
	while (monotonic_now_ns() < end)
		i += case_ops(b, c, &st, i, 16);
	be_sync(b);
	struct counters k0, k1;
	read_counters(b, &k0);
	uint64_t n = 0;
	t0 = monotonic_now_ns();
	end = t0 + (uint64_t)(secs * 1e9);
	/* check the clock every `batch` operations; keep batches short for
	 * slow operations */
	uint32_t batch = 1;
	for (;;) {
		for (uint32_t k = 0; k < batch;) {
			uint32_t d = case_ops(b, c, &st, i, batch - k);
			i += d;
			k += d;
		}
		n += batch;
		uint64_t t = monotonic_now_ns();
		if (t >= end)
			break;
		if (batch < 256 && t - t0 < (uint64_t)(secs * 1e9 / 8))
			batch = (uint32_t)(n < 256 ? n : 256);
	}
	be_sync(b);
	uint64_t t1 = monotonic_now_ns();
	read_counters(b, &k1);
	out->ops = n * case_objects(c); /* objects, like x11perf */
	out->secs = (double)(t1 - t0) / 1e9;
	out->start_ns = t0;
	out->end_ns = t1;
	out->ops_per_s = (double)out->ops / out->secs;
	out->d.cmds = k1.cmds - k0.cmds;
	out->d.wake_c2s = k1.wake_c2s - k0.wake_c2s;
	out->d.wake_s2c = k1.wake_s2c - k0.wake_s2c;
	out->d.full_waits = k1.full_waits - k0.full_waits;
	out->d.sleeps = k1.sleeps - k0.sleeps;
	out->d.spins = k1.spins - k0.spins;
	out->d.spins_reached = k1.spins_reached - k0.spins_reached;
	out->d.spins_server_asleep = k1.spins_server_asleep - k0.spins_server_asleep;
	out->d.spin_skips = k1.spin_skips - k0.spin_skips;
	out->d.slow_drain_sleeps = k1.slow_drain_sleeps - k0.slow_drain_sleeps;
	case_cleanup(b, c, &st);
}

void list_cases(void)
{
	for (size_t i = 0; i < NCASES; i++)
		printf("%-11s %-14s %5" PRIu32 "  %s\n", cases[i].name,
				cases[i].x11perf ? cases[i].x11perf : "-", cases[i].objects,
				cases[i].desc);
}

static bool case_selected(const char *list, const char *name)
{
	if (!list || !*list)
		return true;
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && strncmp(p, name, n) == 0)
			return true;
		p += l + (e ? 1 : 0);
	}
	return false;
}

static int cmp_res(const void *a, const void *b)
{
	double x = ((const struct result *)a)->ops_per_s, y = ((const struct result *)b)->ops_per_s;
	return x < y ? -1 : x > y;
}

/* Every case runs on every transport back to back, `rounds` times, and the
 * median round is reported: the machine is shared and noisy, and side by
 * side in time is what makes the ratios meaningful. */
int throughput(const char *tlist, double secs, double warm, int rounds, const char *list,
		const char *csv)
{
	struct be b[3];
	const char *names[3];
	int nb = 0;
	char *dup = strdup(tlist), *save = NULL;
	for (char *t = strtok_r(dup, ",", &save); t && nb < 3; t = strtok_r(NULL, ",", &save)) {
		enum tkind kind;
		if (!strcmp(t, "ring"))
			kind = T_RING;
		else if (!strcmp(t, "socket"))
			kind = T_SOCKET;
		else if (!strcmp(t, "local"))
			kind = T_LOCAL;
		else
			usage();
		names[nb] = t;
		be_open(&b[nb++], kind);
	}
	FILE *f = NULL;
	if (csv) {
		f = fopen(csv, "a");
		if (!f)
			die("cannot open csv");
		fseek(f, 0, SEEK_END);
		if (ftell(f) == 0)
			fprintf(f,
					"transport,case,x11perf,objects_per_command,ops_per_s,ops,seconds,"
					"commands,wakeups_c2s,wakeups_s2c,full_waits,sleeps,min_ops_per_s,"
					"max_ops_per_s,rounds,spins,spins_reached,spins_server_asleep,"
					"spin_skips,slow_drain_sleeps,start_ns,end_ns\n");
	}
	printf("# smt-perf transports=%s window=%dx%d seconds=%.2f warmup=%.2f rounds=%d "
	       "objects=%s (median round)\n",
			tlist, WIN_W, WIN_H, secs, warm, rounds,
			opt_single ? "1 per command" : "x11perf's per request");
	printf("%-11s %-7s %5s %14s %10s %9s %9s %9s  %s\n", "case", "transp", "objs", "objects/s",
			"commands", "c2s/10k", "s2c/10k", "fullwait", "description");
	struct result *rs = calloc((size_t)rounds, sizeof(*rs));
	for (size_t ci = 0; ci < NCASES; ci++) {
		const struct pcase *c = &cases[ci];
		if (!case_selected(list, c->name))
			continue;
		struct result all[3][16];
		for (int r = 0; r < rounds; r++)
			for (int k = 0; k < nb; k++)
				run_case(&b[k], c, secs, warm, &all[k][r]);
		for (int k = 0; k < nb; k++) {
			memcpy(rs, all[k], sizeof(*rs) * (size_t)rounds);
			qsort(rs, (size_t)rounds, sizeof(*rs), cmp_res);
			struct result *m = &rs[rounds / 2];
			double per = m->d.cmds ? 10000.0 / (double)m->d.cmds : 0;
			printf("%-11s %-7s %5" PRIu32 " %14.1f %10" PRIu64 " %9.4f %9.4f %9" PRIu64
			       "  %s\n",
					c->name, names[k], case_objects(c), m->ops_per_s, m->d.cmds,
					(double)m->d.wake_c2s * per, (double)m->d.wake_s2c * per,
					m->d.full_waits, c->desc);
			if (f)
				fprintf(f,
						"%s,%s,%s,%" PRIu32 ",%.1f,%" PRIu64
						",%.4f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
						",%" PRIu64 ",%.1f,%.1f,%d,%" PRIu64 ",%" PRIu64
						",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
						",%" PRIu64 "\n",
						names[k], c->name, c->x11perf ? c->x11perf : "",
						case_objects(c), m->ops_per_s, m->ops, m->secs,
						m->d.cmds, m->d.wake_c2s, m->d.wake_s2c,
						m->d.full_waits, m->d.sleeps, rs[0].ops_per_s,
						rs[rounds - 1].ops_per_s, rounds, m->d.spins,
						m->d.spins_reached, m->d.spins_server_asleep,
						m->d.spin_skips, m->d.slow_drain_sleeps,
						m->start_ns, m->end_ns);
		}
		fflush(stdout);
		if (f)
			fflush(f);
	}
	free(rs);
	if (f)
		fclose(f);
	for (int k = 0; k < nb; k++)
		be_close(&b[k]);
	free(dup);
	return 0;
}
