/* The socket-submit path, ring sizes, budgets and resumption all give
 * identical pixels; submits are framed; resumed commands come from the
 * private copy, never from shared memory again. */
#include <stdatomic.h>
#include <time.h>

#include "common/monotonic_clock.h"
#include "tests/unit/test_ring_util.h"

#define W 80
#define H 60

/* A stream using every opcode. */
static void build(struct stream *s, uint64_t fence)
{
	static uint32_t img[16 * 12];
	static uint8_t atlas[8 * 8];
	for (int i = 0; i < 16 * 12; i++)
		img[i] = 0xff000000u | (uint32_t)i * 0x010305u;
	for (int i = 0; i < 64; i++)
		atlas[i] = (uint8_t)(i * 4);
	struct smt_rect rects[40], clip[2] = { { 0, 0, 70, 30 }, { 10, 30, 60, 30 } };
	for (int i = 0; i < 40; i++)
		rects[i] = (struct smt_rect){ i * 2 - 5, i, 10u + (uint32_t)i, 7 };
	struct smt_segment seg[12];
	for (int i = 0; i < 12; i++)
		seg[i] = (struct smt_segment){ i * 7, 0, 70 - i * 5, 59 };
	struct smt_point pts[30];
	for (int i = 0; i < 30; i++)
		pts[i] = (struct smt_point){ i * 3 % W, i * 7 % H };
	struct smt_glyph g[5];
	for (int i = 0; i < 5; i++)
		g[i] = (struct smt_glyph){ 0, 0, 8, 8, i * 9, 0 };

	ST(s, smt_encode_noop(st_at(s), SMT_OP_NOOP, 24));
	ST(s, smt_encode_create_pixmap(st_at(s), 5, 16, 12, SMT_FORMAT_ARGB8888));
	ST(s, smt_encode_create_pixmap(st_at(s), 6, 8, 8, SMT_FORMAT_A8));
	ST(s, smt_encode_set_target(st_at(s), 5));
	ST(s, smt_encode_put_image(st_at(s), 0, 0, 16, 12, SMT_FORMAT_ARGB8888, 64, img));
	ST(s, smt_encode_set_target(st_at(s), 6));
	ST(s, smt_encode_put_image(st_at(s), 0, 0, 8, 8, SMT_FORMAT_A8, 8, atlas));
	ST(s, smt_encode_set_target(st_at(s), 1));
	ST(s,
			smt_encode_fill_rects(st_at(s), SMT_PAINT_SRC, 0xff202020, 1,
					&(struct smt_rect){ 0, 0, W, H }));
	ST(s, smt_encode_fill_rects(st_at(s), SMT_PAINT_OVER, 0x80004000, 40, rects));
	ST(s, smt_encode_segments(st_at(s), SMT_PAINT_SRC, 0xffff0000, 0, 12, seg));
	ST(s, smt_encode_set_clip(st_at(s), 2, clip));
	ST(s, smt_encode_segments(st_at(s), SMT_PAINT_OVER, 0x80000060, 5, 12, seg));
	ST(s, smt_encode_points(st_at(s), SMT_PAINT_XOR, 0xffffffff, 30, pts));
	struct smt_segment many[120]; /* > one 64-segment chunk: resumable */
	for (int i = 0; i < 120; i++)
		many[i] = (struct smt_segment){ i % W, 0, W - i % W, H };
	ST(s, smt_encode_segments(st_at(s), SMT_PAINT_ADD, 0x10080400, 3, 120, many));
	ST(s, smt_encode_composite(st_at(s), SMT_PAINT_OVER, 5, 6, 0, 0, 0, 0, 30, 20, 16, 12));
	ST(s, smt_encode_glyphs(st_at(s), SMT_PAINT_OVER, 0xff00ffff, 6, 20, 45, 5, g));
	ST(s, smt_encode_present(st_at(s), 1, 7, 1, &(struct smt_rect){ 0, 0, 40, 40 }));
	ST(s, smt_encode_set_clip(st_at(s), 0, NULL));
	ST(s, smt_encode_copy_area(st_at(s), 1, 0, 5, W, H - 5, 0, 0)); /* scroll */
	ST(s, smt_encode_copy_area(st_at(s), 5, 0, 0, 16, 12, 60, 45));
	ST(s, smt_encode_free_pixmap(st_at(s), 5));
	ST(s, smt_encode_fence(st_at(s), fence));
}

struct target {
	struct smt_exec_ctx *ctx;
	pixman_image_t *canvas;
	struct test_socket sock; /* the socket path's stream */
};

static void target_init(struct target *t)
{
	t->ctx = smt_exec_create(NULL);
	t->canvas = new_image(PIXMAN_a8r8g8b8, W, H);
	REQUIRE(smt_exec_register_canvas(t->ctx, 1, t->canvas) == 0, "register");
	ts_init(&t->sock);
}

static void target_fini(struct target *t)
{
	ts_fini(&t->sock);
	smt_exec_destroy(t->ctx);
	pixman_image_unref(t->canvas);
}

/* b, or (NULL) a fresh 20 us time slice */
static const struct smt_exec_budget *slice(const struct smt_exec_budget *b)
{
	static struct smt_exec_budget s;
	if (b)
		return b;
	s = (struct smt_exec_budget){ .deadline_ns = monotonic_now_ns() + 20000 };
	return &s;
}

/* Run through a ring with a budget, resuming after every stop. */
static void run_budgeted(struct target *t, const struct stream *s, uint32_t area,
		const struct smt_exec_budget *b, uint64_t *stops)
{
	struct test_ring r;
	struct smt_exec_result res;
	tr_init(&r, area);
	for (size_t off = 0; off < s->len;) {
		struct smt_cmd_header h;
		memcpy(&h, s->buf + off, sizeof(h));
		if (tr_push(&r, s->buf + off, h.size) == 0) {
			off += h.size;
			continue;
		}
		enum smt_exec_stop st = smt_exec_run(t->ctx, &r.reader, slice(b), &res);
		REQUIRE(st != SMT_EXEC_ERROR, "%s", res.error.message);
		(*stops)++;
	}
	enum smt_exec_stop st;
	while ((st = smt_exec_run(t->ctx, &r.reader, slice(b), &res)) != SMT_EXEC_EMPTY) {
		REQUIRE(st != SMT_EXEC_ERROR, "%s", res.error.message);
		(*stops)++;
	}
	tr_fini(&r);
}

static void test_paths_identical(void)
{
	struct stream s;
	struct smt_exec_result res;
	struct target ring, sock, tiny, pix, cmds, late;
	st_init(&s);
	build(&s, 3);

	target_init(&ring);
	expect_ok(run_ring(ring.ctx, &s, 64 * 1024, &res), &res, "ring");
	REQUIRE(res.fences == 1 && res.last_fence == 3, "fence in the last batch");

	target_init(&sock);
	expect_ok(run_submit(sock.ctx, &sock.sock, &s, 4096, &res), &res, "socket");
	REQUIRE(submit_area_pending(sock.sock.area, &sock.sock.reader) == 0, "queue drained");
	expect_same(sock.canvas, ring.canvas, "socket path == ring path");

	target_init(&tiny); /* 4 KiB ring: many PADs and wraps */
	expect_ok(run_ring(tiny.ctx, &s, 4096, &res), &res, "tiny ring");
	expect_same(tiny.canvas, ring.canvas, "4 KiB ring == 64 KiB ring");

	uint64_t stops = 0;
	target_init(&pix); /* one element per run */
	run_budgeted(&pix, &s, 4096, &(struct smt_exec_budget){ .max_pixels = 1 }, &stops);
	REQUIRE(stops > 80, "pixel budget stopped often (%" PRIu64 ")", stops);
	expect_same(pix.canvas, ring.canvas, "pixel-budgeted == unbudgeted");

	stops = 0;
	target_init(&cmds);
	run_budgeted(&cmds, &s, 8192, &(struct smt_exec_budget){ .max_commands = 1 }, &stops);
	REQUIRE(stops >= 20, "command budget stopped often (%" PRIu64 ")", stops);
	expect_same(cmds.canvas, ring.canvas, "command-budgeted == unbudgeted");

	stops = 0;
	target_init(&late); /* tiny slices: 20 us each */
	run_budgeted(&late, &s, 8192, NULL, &stops);
	expect_same(late.canvas, ring.canvas, "deadline-budgeted == unbudgeted");

	struct target *all[] = { &ring, &sock, &tiny, &pix, &cmds, &late };
	for (int i = 0; i < 6; i++)
		target_fini(all[i]);
	st_fini(&s);
}

/* A run under a 1 ms deadline with a huge amount of work returns BUDGET
 * in reasonable time instead of finishing the whole command. */
static void test_deadline(void)
{
	struct target t;
	struct test_ring r;
	BUF_DECL(b, 64 * 1024);
	struct smt_rect big[1000];
	for (int i = 0; i < 1000; i++)
		big[i] = (struct smt_rect){ 0, 0, W, H };
	target_init(&t);
	tr_init(&r, 1u << 20);
	REQUIRE(tr_push(&r, b, smt_encode_set_target(b, 1)) == 0, "push");
	for (int i = 0; i < 30; i++)
		REQUIRE(tr_push(&r, b,
					smt_encode_fill_rects(b, SMT_PAINT_OVER, 0x01010101, 1000,
							big)) == 0,
				"push");
	struct smt_exec_result res;
	enum smt_exec_stop st = smt_exec_run(
			t.ctx, &r.reader, &(struct smt_exec_budget){ .deadline_ns = 1 }, &res);
	REQUIRE(st == SMT_EXEC_BUDGET && res.commands == 0 && res.pixels == 0,
			"an expired deadline runs nothing");
	/* The deadline is read from the clock before the run starts: a thread
	 * descheduled past it in between (a loaded machine) holds an expired
	 * deadline and runs nothing, as above, or is descheduled past it
	 * after the SET_TARGET. Such a run must have returned after its
	 * deadline; the next run goes on from where it stopped. */
	for (int tries = 0;; tries++) {
		uint64_t deadline = monotonic_now_ns() + 1000000;
		st = smt_exec_run(t.ctx, &r.reader,
				&(struct smt_exec_budget){ .deadline_ns = deadline }, &res);
		REQUIRE(st == SMT_EXEC_BUDGET, "budget stop (%d)", st);
		if (res.pixels > 0)
			break;
		REQUIRE(monotonic_now_ns() >= deadline,
				"a run stopped for its deadline before it, with nothing drawn");
		REQUIRE(tries < 100, "100 runs in a row descheduled past their deadline");
	}
	REQUIRE(res.pixels > 0 && res.pixels < 30ull * 1000 * W * H,
			"stopped early: %" PRIu64 " pixels", res.pixels);
	tr_fini(&r);
	target_fini(&t);
}

/* A budget's yield flag, raised by another thread (a ring worker's piece
 * ended for a more favoured client, ring_workers.c), ends a run as an
 * expired deadline does, where the executor looks at the clock: at a
 * command boundary. Lowered, the next run goes on with the next command,
 * so every command runs once and in order. */
static void test_yield(void)
{
	enum {
		FILLS = 2000
	};
	struct target t;
	struct test_ring r;
	BUF_DECL(b, 256);
	target_init(&t);
	tr_init(&r, 1u << 20);
	REQUIRE(tr_push(&r, b, smt_encode_set_target(b, 1)) == 0, "push");
	for (uint32_t i = 0; i < FILLS; i++)
		REQUIRE(tr_push(&r, b,
					smt_encode_fill_rects(b, SMT_PAINT_SRC, 0xff000000u | i, 1,
							&(struct smt_rect){ 0, 0, 1, 1 })) == 0,
				"push");
	atomic_bool yield = true;
	const struct smt_exec_budget budget = { .deadline_ns = UINT64_MAX / 2, .yield = &yield };
	struct smt_exec_result res;
	enum smt_exec_stop st = smt_exec_run(t.ctx, &r.reader, &budget, &res);
	REQUIRE(st == SMT_EXEC_BUDGET, "a raised flag ends the run (%d)", st);
	REQUIRE(res.commands > 0 && res.commands < FILLS / 4,
			"stopped at the first clock check: %" PRIu64 " commands", res.commands);
	uint64_t ran = res.commands;
	REQUIRE(pixel_at(t.canvas, 0, 0) == (0xff000000u | (uint32_t)(ran - 2)),
			"the fills ran in order up to the stop: %08x after %" PRIu64,
			pixel_at(t.canvas, 0, 0), ran);
	atomic_store(&yield, false);
	st = smt_exec_run(t.ctx, &r.reader, &budget, &res);
	REQUIRE(st == SMT_EXEC_EMPTY, "lowered, the run goes on to the end (%d)", st);
	REQUIRE(ran + res.commands == FILLS + 1, "every command once: %" PRIu64 " + %" PRIu64, ran,
			res.commands);
	REQUIRE(pixel_at(t.canvas, 0, 0) == (0xff000000u | (FILLS - 1)), "the last fill last");
	tr_fini(&r);
	target_fini(&t);
}

/* After a partial FILL_RECTS, the client scribbles over the command in the
 * ring. The rest still comes from the private copy. */
static void test_resume_uses_private_copy(void)
{
	struct target a, b;
	struct test_ring r;
	struct smt_exec_result res;
	BUF_DECL(buf, 4096);
	struct smt_rect rects[50];
	for (int i = 0; i < 50; i++)
		rects[i] = (struct smt_rect){ i, i, 5, 5 };
	uint32_t n = smt_encode_fill_rects(buf, SMT_PAINT_OVER, 0x80808080, 50, rects);

	target_init(&a);

	tr_init(&r, 8192);
	BUF_DECL(st, 16);
	REQUIRE(tr_push(&r, st, smt_encode_set_target(st, 1)) == 0, "push");
	REQUIRE(tr_push(&r, buf, n) == 0, "push");
	REQUIRE(smt_exec_run(a.ctx, &r.reader, NULL, &res) == SMT_EXEC_EMPTY, "reference");
	tr_fini(&r);

	target_init(&b);
	tr_init(&r, 8192);
	REQUIRE(tr_push(&r, st, smt_encode_set_target(st, 1)) == 0, "push");
	uint64_t at = r.head;
	REQUIRE(tr_push(&r, buf, n) == 0, "push");
	REQUIRE(smt_exec_run(b.ctx, &r.reader, &(struct smt_exec_budget){ .max_pixels = 1 },
				&res) == SMT_EXEC_BUDGET,
			"partial");
	/* hostile client: rewrite the pending command (size, count, rects) */
	memset(smt_ring_at(r.area, r.area_size, at), 0xff, n);
	while (smt_exec_run(b.ctx, &r.reader, &(struct smt_exec_budget){ .max_pixels = 1 }, &res) ==
			SMT_EXEC_BUDGET)
		;
	REQUIRE(res.stop == SMT_EXEC_EMPTY, "finished: %s", res.error.message);
	expect_same(b.canvas, a.canvas, "resume from the private copy");
	tr_fini(&r);
	target_fini(&a);
	target_fini(&b);
}

static void test_submit_framing(void)
{
	struct target t;
	struct smt_exec_result res;
	BUF_DECL(b, 256);
	uint32_t n1 = smt_encode_set_target(b, 1);
	uint32_t n2 = smt_encode_fence(b + n1, 5);

	target_init(&t); /* ends in the middle of a command */
	REQUIRE(ts_submit(t.ctx, &t.sock, b, n1 + n2 - 8, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_TRUNCATED &&
					res.error.offset == n1,
			"command spans submits: %s", res.error.message);
	REQUIRE(smt_exec_run(t.ctx, &t.sock.reader, NULL, &res) == SMT_EXEC_ERROR,
			"dead stays dead");
	target_fini(&t);

	target_init(&t); /* ends inside a header */
	REQUIRE(ts_submit(t.ctx, &t.sock, b, n1 + 4, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_TRUNCATED,
			"partial header");
	target_fini(&t);

	target_init(&t); /* offsets count across submits */
	REQUIRE(ts_submit(t.ctx, &t.sock, b, n1 + n2, NULL, &res) == SMT_EXEC_EMPTY &&
					res.fences == 1 && res.last_fence == 5,
			"ok submit");
	uint8_t bad[24];
	memcpy(bad, b, 16);
	struct smt_cmd_header h = { SMT_OP_NOOP, 0, 0 };
	memcpy(bad + 16, &h, 8);
	REQUIRE(ts_submit(t.ctx, &t.sock, bad, 24, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_BAD_SIZE &&
					res.error.offset == n1 + n2 + 16,
			"offset %" PRIu64, res.error.offset);
	target_fini(&t);

	target_init(&t); /* bad opcode found at execution */
	h = (struct smt_cmd_header){ 200, 0, 8 };
	memcpy(bad, &h, 8);
	REQUIRE(ts_submit(t.ctx, &t.sock, bad, 8, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_BAD_OPCODE &&
					res.error.opcode == 200,
			"opcode");
	target_fini(&t);

	/* queue without running, then run */
	target_init(&t);
	REQUIRE(ts_queue(t.ctx, &t.sock, b, n1 + n2, &res) == SMT_EXEC_BUDGET &&
					res.commands == 0 &&
					submit_area_pending(t.sock.area, &t.sock.reader) == n1 + n2,
			"queued only");
	REQUIRE(smt_exec_run(t.ctx, &t.sock.reader, NULL, &res) == SMT_EXEC_EMPTY &&
					res.fences == 1,
			"ran later");
	REQUIRE(ts_queue(t.ctx, &t.sock, b, 4, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_TRUNCATED,
			"queue checks framing");
	target_fini(&t);

	/* a budget stop leaves the rest queued; a new submit appends behind it */
	target_init(&t);
	struct stream s;
	st_init(&s);
	build(&s, 1);
	REQUIRE(ts_submit(t.ctx, &t.sock, s.buf, s.len,
				&(struct smt_exec_budget){ .max_commands = 3 },
				&res) == SMT_EXEC_BUDGET,
			"budget");
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) > 0, "queued");
	uint32_t nf = smt_encode_fence(b, 77);
	enum smt_exec_stop stop = ts_submit(t.ctx, &t.sock, b, nf, NULL, &res);
	uint64_t last = res.last_fence;
	while (stop == SMT_EXEC_PRESENT) {
		stop = smt_exec_run(t.ctx, &t.sock.reader, NULL, &res);
		if (res.fences)
			last = res.last_fence;
	}
	REQUIRE(stop == SMT_EXEC_EMPTY && last == 77 &&
					submit_area_pending(t.sock.area, &t.sock.reader) == 0,
			"appended submit ran last");
	st_fini(&s);
	target_fini(&t);
}

/* A socket ring's area (ring/submit_area.h): it grows while commands wait
 * (one of them half run), wraps with PADs of its own, and what the client
 * sees counts only its bytes: the bound, the offsets, the counters. */
/* A fresh 4 KiB area where 3 KiB ran and 2 KiB more wait behind a 1 KiB
 * PAD: stream positions 4-6 KiB, the client's 3-5 KiB. */
static void wrap_behind_pad(struct target *t, uint8_t *noop)
{
	struct smt_exec_result res;
	/* 2 + 1 KiB: a 3 KiB command would grow the area (at most half of it) */
	REQUIRE(ts_queue(t->ctx, &t->sock, noop,
				smt_encode_noop(noop, SMT_OP_NOOP, 2048) +
						smt_encode_noop(noop + 2048, SMT_OP_NOOP, 1024),
				&res) == SMT_EXEC_BUDGET,
			"3 KiB");
	REQUIRE(smt_exec_run(t->ctx, &t->sock.reader, NULL, &res) == SMT_EXEC_EMPTY, "ran");
	REQUIRE(ts_queue(t->ctx, &t->sock, noop, smt_encode_noop(noop, SMT_OP_NOOP, 2048), &res) ==
					SMT_EXEC_BUDGET,
			"2 KiB");
	REQUIRE(submit_area_client_offset(t->sock.area, 6144) == 5120, "a 1 KiB PAD at 3 KiB");
}

static void test_submit_area(void)
{
	struct target ref, t;
	struct smt_exec_result res;
	struct stream s;
	st_init(&s);
	for (int i = 0; i < 40; i++) {
		build(&s, (uint64_t)i + 1);
		ST(&s, smt_encode_free_pixmap(st_at(&s), 6)); /* build creates it again */
	}
	target_init(&ref);
	expect_ok(run_ring(ref.ctx, &s, 64 * 1024, &res), &res, "reference");

	/* One command at a time with a pixel budget of 1: PADs at every
	 * wrap of the 4 KiB area, commands left half run. Every 50th command
	 * the rest of the stream's next 200 KiB go in without running, so the
	 * area grows under a pending command. */
	target_init(&t);
	const struct smt_exec_budget one = { .max_pixels = 1 };
	uint64_t written = 0, commands = 0, ran = 0, pads_seen = 0;
	for (size_t off = 0; off < s.len;) {
		size_t len = 0;
		do {
			struct smt_cmd_header h;
			memcpy(&h, s.buf + off + len, sizeof(h));
			len += h.size;
			commands++;
		} while (commands % 50 == 0 && off + len < s.len && len < 200 * 1024);
		REQUIRE(ts_queue(t.ctx, &t.sock, s.buf + off, len, &res) != SMT_EXEC_ERROR, "%s",
				res.error.message);
		written += len;
		off += len;
		REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) <= written - ran,
				"pending counts command bytes only");
		enum smt_exec_stop st = smt_exec_run(t.ctx, &t.sock.reader, &one, &res);
		REQUIRE(st != SMT_EXEC_ERROR, "%s", res.error.message);
		uint64_t pads, pad_bytes;
		submit_area_pads_passed(t.sock.area, &t.sock.reader, &pads, &pad_bytes);
		ran += res.bytes - pad_bytes;
		pads_seen += pads;
	}
	enum smt_exec_stop st;
	while ((st = smt_exec_run(t.ctx, &t.sock.reader, NULL, &res)) != SMT_EXEC_EMPTY)
		REQUIRE(st != SMT_EXEC_ERROR, "%s", res.error.message);
	uint64_t pads, pad_bytes;
	submit_area_pads_passed(t.sock.area, &t.sock.reader, &pads, &pad_bytes);
	pads_seen += pads;
	REQUIRE(pads_seen > 0, "the area wrapped with PADs");
	REQUIRE(t.sock.reader.commands - pads_seen == commands,
			"commands counted without the PADs: %" PRIu64 " - %" PRIu64 " vs %" PRIu64,
			t.sock.reader.commands, pads_seen, commands);
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == 0, "drained");
	expect_same(t.canvas, ref.canvas, "grown and wrapped area == ring path");
	target_fini(&t);
	target_fini(&ref);
	st_fini(&s);

	/* A PAD is not the client's: after 3 KiB ran, 2 KiB more wrap the
	 * 4 KiB area behind a 1 KiB PAD; 2 KiB wait, and a bad command
	 * after them is at offset 5 KiB, as the client counts. */
	static _Alignas(8) uint8_t noop[64 * 1024];
	target_init(&t);
	wrap_behind_pad(&t, noop);
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == 2048,
			"2 KiB wait, not the PAD");
	struct smt_cmd_header bad = { SMT_OP_FENCE, 0, 12 };
	REQUIRE(ts_queue(t.ctx, &t.sock, &bad, 8, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_BAD_SIZE &&
					res.error.offset == 5120,
			"offset without the PAD: %s", res.error.message);
	target_fini(&t);

	/* The same, found by the executor, not the submit's framing: an
	 * unknown opcode after the PAD is at 5 KiB in the error and in its
	 * message (the area position is 6 KiB). */
	target_init(&t);
	wrap_behind_pad(&t, noop);
	struct smt_cmd_header unknown = { 0x7ff0, 0, 8 };
	REQUIRE(ts_queue(t.ctx, &t.sock, &unknown, 8, &res) == SMT_EXEC_BUDGET, "queued");
	REQUIRE(smt_exec_run(t.ctx, &t.sock.reader, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_BAD_OPCODE &&
					res.error.offset == 5120 &&
					strstr(res.error.message, "offset 5120") != NULL,
			"executor's fault offset without the PAD: %s", res.error.message);
	target_fini(&t);

	/* The bound: SMT_SUBMIT_QUEUE_MAX bytes may wait, 8 more may not. */
	target_init(&t);
	for (int i = 0; i < 16; i++)
		REQUIRE(ts_queue(t.ctx, &t.sock, noop, smt_encode_noop(noop, SMT_OP_NOOP, 65536),
					&res) == SMT_EXEC_BUDGET,
				"%d: %s", i, res.error.message);
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == SMT_SUBMIT_QUEUE_MAX, "1 MiB");
	REQUIRE(ts_queue(t.ctx, &t.sock, noop, smt_encode_noop(noop, SMT_OP_NOOP, 8), &res) ==
							SMT_EXEC_ERROR &&
					res.error.code == SMT_ERROR_LIMIT &&
					res.error.offset == SMT_SUBMIT_QUEUE_MAX &&
					strstr(res.error.message, "submit queue full") != NULL,
			"%s", res.error.message);
	target_fini(&t);

	/* Run some, and the room comes back (the area stays 2 MiB). */
	target_init(&t);
	for (int round = 0; round < 64; round++) {
		for (int i = 0; i < 15; i++)
			REQUIRE(ts_queue(t.ctx, &t.sock, noop,
						smt_encode_noop(noop, SMT_OP_NOOP,
								65536 - 8 * (uint32_t)round),
						&res) == SMT_EXEC_BUDGET,
					"%d/%d: %s", round, i, res.error.message);
		REQUIRE(smt_exec_run(t.ctx, &t.sock.reader, NULL, &res) == SMT_EXEC_EMPTY, "ran");
	}
	target_fini(&t);
}

/* The area's memory is the client's: charged before it is allocated (8
 * KiB, then each growth, then an incomplete command's buffer), refused by
 * name, released whole. */
static void test_submit_area_charged(void)
{
	struct smt_usage total = { .level = SMT_LEVEL_TOTAL };
	struct smt_usage client = { .level = SMT_LEVEL_CLIENT, .parent = &total };
	client.max[SMT_RES_MEMORY] = 16 * 1024;
	struct smt_usage_refusal why = { .asked = 0 };
	struct smt_ring_reader reader;
	struct submit_area *a = submit_area_create(&reader, &client, &why);
	REQUIRE(a != NULL && client.used[SMT_RES_MEMORY] == 8192 &&
					total.used[SMT_RES_MEMORY] == 8192,
			"8 KiB charged at every level");
	static _Alignas(8) uint8_t noop[16 * 1024];
	struct smt_fault f;
	REQUIRE(submit_area_write(a, &reader, noop, smt_encode_noop(noop, SMT_OP_NOOP, 4096), &f) ==
					0,
			"4 KiB fit the first area");
	REQUIRE(submit_area_write(a, &reader, noop, smt_encode_noop(noop, SMT_OP_NOOP, 4096), &f) ==
							0 &&
					client.used[SMT_RES_MEMORY] == 12288,
			"grown to 8 KiB: 4 KiB more charged");
	REQUIRE(submit_area_write(a, &reader, noop, smt_encode_noop(noop, SMT_OP_NOOP, 8192), &f) <
							0 &&
					f.code == SMT_ERROR_LIMIT &&
					strstr(f.what, "client-memory-mib") != NULL &&
					client.used[SMT_RES_MEMORY] == 12288,
			"a growth past the limit: %s", f.what);
	submit_area_destroy(a, &reader);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0 && total.used[SMT_RES_MEMORY] == 0, "released");

	client.max[SMT_RES_MEMORY] = 4096;
	REQUIRE(submit_area_create(&reader, &client, &why) == NULL && why.asked == 8192 &&
					client.used[SMT_RES_MEMORY] == 0,
			"the first 8 KiB refused");

	client.max[SMT_RES_MEMORY] = 16 * 1024;
	a = submit_area_create(&reader, &client, &why);
	struct smt_cmd_header h = { SMT_OP_NOOP, 0, 65536 };
	memcpy(noop, &h, 8);
	REQUIRE(submit_area_submit(a, &reader, noop, 4096, &f) == SUBMIT_OK &&
					client.used[SMT_RES_MEMORY] == 8192 + 4096,
			"an incomplete command's buffer");
	REQUIRE(submit_area_submit(a, &reader, noop, 8192, &f) == SUBMIT_FAULT &&
					f.code == SMT_ERROR_LIMIT &&
					client.used[SMT_RES_MEMORY] == 8192 + 4096,
			"its growth refused");
	submit_area_destroy(a, &reader);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0, "released");

	/* Whole commands and the start of another in one submit, the rest's
	 * buffer refused: nothing of it is published. */
	client.max[SMT_RES_MEMORY] = 8192 + 100;
	a = submit_area_create(&reader, &client, &why);
	uint32_t n = smt_encode_fence(noop, 1);
	h = (struct smt_cmd_header){ SMT_OP_NOOP, 0, 1024 };
	memcpy(noop + n, &h, 8);
	REQUIRE(submit_area_submit(a, &reader, noop, n + 200, &f) == SUBMIT_FAULT &&
					f.code == SMT_ERROR_LIMIT &&
					smt_ring_reader_published(&reader) == 0 &&
					!smt_ring_reader_has_work(&reader),
			"refused, nothing published");
	submit_area_destroy(a, &reader);
	REQUIRE(client.used[SMT_RES_MEMORY] == 0, "released");
}

/* submit_area_submit: the glue's entry point. A command split over
 * submits is written (published) only once whole; an impossible header
 * fails at once; too much of an incomplete command is refused. */
static void test_submit_pieces(void)
{
	struct target t;
	struct smt_fault f;
	struct smt_exec_result res;
	BUF_DECL(b, 256);
	uint32_t n1 = smt_encode_set_target(b, 1);
	uint32_t n2 = smt_encode_fill_rects(
			b + n1, SMT_PAINT_SRC, 0xff00ff00, 1, &(struct smt_rect){ 0, 0, 4, 4 });
	uint32_t n3 = smt_encode_fence(b + n1 + n2, 9);

	target_init(&t);
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, b, n1 + 3, &f) == SUBMIT_OK,
			"a command and 3 bytes");
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == n1, "only the whole one");
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, b + n1 + 3, 9, &f) == SUBMIT_OK,
			"header done, body not");
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == n1, "still only the first");
	REQUIRE(smt_ring_reader_published(&t.sock.reader) == n1, "published: the first only");
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, b + n1 + 12, n2 + n3 - 12, &f) ==
					SUBMIT_OK,
			"the rest");
	REQUIRE(submit_area_pending(t.sock.area, &t.sock.reader) == n1 + n2 + n3, "all whole");
	REQUIRE(smt_exec_run(t.ctx, &t.sock.reader, NULL, &res) == SMT_EXEC_EMPTY &&
					res.commands == 3 && res.last_fence == 9,
			"ran: %s", res.error.message);
	REQUIRE(pixel_at(t.canvas, 1, 1) == 0xff00ff00, "drawn");
	target_fini(&t);

	target_init(&t); /* an impossible size fails with no more bytes */
	struct smt_cmd_header h = { SMT_OP_NOOP, 0, 12 };
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, &h, 8, &f) == SUBMIT_FAULT &&
					f.code == SMT_ERROR_BAD_SIZE && f.offset == 0,
			"bad size");
	target_fini(&t);

	/* A size above what may wait is TOO_LARGE at its header, not a
	 * command that spans submits. */
	target_init(&t);
	h = (struct smt_cmd_header){ SMT_OP_NOOP, 0, SMT_SUBMIT_QUEUE_MAX + 8 };
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, &h, 8, &f) == SUBMIT_FAULT &&
					f.code == SMT_ERROR_TOO_LARGE && f.offset == 0,
			"above the bound: %s", f.what);
	target_fini(&t);

	/* Whole commands before a bad header in the same submit: the fault
	 * names the header's offset, and nothing is published. */
	target_init(&t);
	BUF_DECL(two, 64);
	memcpy(two, b, n1);
	h = (struct smt_cmd_header){ SMT_OP_FENCE, 0, 12 };
	memcpy(two + n1, &h, 8);
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, two, n1 + 8, &f) == SUBMIT_FAULT &&
					f.code == SMT_ERROR_BAD_SIZE && f.offset == n1 &&
					f.opcode == SMT_OP_FENCE,
			"bad header after a whole command: %s at %" PRIu64, f.what, f.offset);
	REQUIRE(smt_ring_reader_published(&t.sock.reader) == 0, "nothing published");
	target_fini(&t);

	/* More than SMT_SUBMIT_PARTIAL_MAX of a command would wait: refused
	 * (libwayland's 4 KiB messages never get there; a bigger array would). */
	target_init(&t);
	static _Alignas(8) uint8_t big[SMT_SUBMIT_QUEUE_MAX];
	h = (struct smt_cmd_header){ SMT_OP_NOOP, 0, SMT_SUBMIT_QUEUE_MAX };
	memcpy(big, &h, 8);
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, big, SMT_SUBMIT_QUEUE_MAX - 8,
				&f) == SUBMIT_OK &&
					submit_area_pending(t.sock.area, &t.sock.reader) == 0,
			"all but 8 bytes of a 1 MiB NOOP wait");
	REQUIRE(submit_area_submit(t.sock.area, &t.sock.reader, big, SMT_CMD_CONTROL_MAX + 16,
				&f) == SUBMIT_TOO_MUCH,
			"too much incomplete");
	target_fini(&t);
}

int main(void)
{
	test_paths_identical();
	test_deadline();
	test_yield();
	test_resume_uses_private_copy();
	test_submit_framing();
	test_submit_area();
	test_submit_pieces();
	test_submit_area_charged();
	printf("test_ring_submit: ok\n");
	return 0;
}
