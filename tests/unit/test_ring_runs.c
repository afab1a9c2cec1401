/* Runs of FILL_RECTS (executor.c, run_fill_rects: framed in one reader
 * call) draw, fail, stop and resume exactly where one command at a time
 * does. The reference is the same stream run with a budget of one
 * command per call, which never forms a run: same pixels, same error
 * (code, opcode, offset, element), same published tail and counters. */
#include "tests/unit/test_ring_util.h"

#define W 64
#define H 48
#define CANVAS 1
#define PIXMAP 2

struct side {
	struct smt_exec_ctx *ctx;
	pixman_image_t *canvas;
	struct smt_exec_result res; /* the last call's */
	enum smt_exec_stop stop;
	uint64_t commands, calls, tail, executed;
};

static void side_init(struct side *s)
{
	memset(s, 0, sizeof(*s));
	s->ctx = smt_exec_create(NULL);
	REQUIRE(s->ctx, "ctx");
	s->canvas = new_image(PIXMAN_a8r8g8b8, W, H);
	pattern(s->canvas, 3);
	REQUIRE(smt_exec_register_canvas(s->ctx, CANVAS, s->canvas) == 0, "canvas");
}

static void side_fini(struct side *s)
{
	smt_exec_destroy(s->ctx);
	pixman_image_unref(s->canvas);
}

static const struct smt_exec_budget one_command = { .max_commands = 1 };

/* Calls until EMPTY or ERROR (PRESENT and BUDGET are resumed). */
static void run_calls(struct side *s, struct smt_ring_reader *r, const struct smt_exec_budget *b)
{
	do {
		s->stop = smt_exec_run(s->ctx, r, b, &s->res);
		s->commands += s->res.commands;
		s->calls++;
	} while (s->stop == SMT_EXEC_BUDGET || s->stop == SMT_EXEC_PRESENT);
}

/* The stream through a ring of `area` bytes, written as room allows (PAD
 * where a command would wrap), each call under budget b. */
static void run_ring_budget(struct side *s, const struct stream *st, uint32_t area,
		const struct smt_exec_budget *b)
{
	struct test_ring t;
	tr_init(&t, area);
	for (size_t off = 0; off < st->len && s->stop != SMT_EXEC_ERROR;) {
		struct smt_cmd_header h;
		memcpy(&h, st->buf + off, sizeof(h));
		if (tr_write(&t, st->buf + off, h.size) == 0) {
			off += h.size;
			continue;
		}
		tr_publish(&t);
		run_calls(s, &t.reader, b);
	}
	if (s->stop != SMT_EXEC_ERROR) {
		tr_publish(&t);
		run_calls(s, &t.reader, b);
	}
	s->tail = atomic_load(&t.status->tail);
	s->executed = atomic_load(&t.status->commands_executed);
	tr_fini(&t);
}

/* The stream as one socket submit, each call under budget b. */
static void run_socket_budget(
		struct side *s, const struct stream *st, const struct smt_exec_budget *b)
{
	struct test_socket t;
	ts_init(&t);
	s->stop = ts_queue(s->ctx, &t, st->buf, st->len, &s->res);
	if (s->stop != SMT_EXEC_ERROR)
		run_calls(s, &t.reader, b);
	s->tail = t.reader.tail;
	s->executed = t.reader.commands;
	ts_fini(&t);
}

/* Runs vs one command per call, on a ring (area) and the socket path: the
 * same outcome. Returns the ring side's result in *out (caller fini's it). */
static void expect_as_one_by_one(
		const struct stream *st, uint32_t area, const char *what, struct side *out)
{
	struct side ring, ref, sock, sock_ref;
	side_init(&ring);
	side_init(&ref);
	side_init(&sock);
	side_init(&sock_ref);
	run_ring_budget(&ring, st, area, NULL);
	run_ring_budget(&ref, st, area, &one_command);
	run_socket_budget(&sock, st, NULL);
	run_socket_budget(&sock_ref, st, &one_command);
	struct side *sides[] = { &ring, &sock };
	struct side *refs[] = { &ref, &sock_ref };
	for (int i = 0; i < 2; i++) {
		struct side *a = sides[i], *b = refs[i];
		const char *path = i ? "socket" : "ring";
		REQUIRE(a->stop == b->stop, "%s, %s: stop %d, one by one %d", what, path, a->stop,
				b->stop);
		REQUIRE(a->res.error.code == b->res.error.code &&
						a->res.error.opcode == b->res.error.opcode &&
						a->res.error.offset == b->res.error.offset &&
						strcmp(a->res.error.message,
								b->res.error.message) == 0,
				"%s, %s: error '%s', one by one '%s'", what, path,
				a->res.error.message, b->res.error.message);
		REQUIRE(a->commands == b->commands && a->tail == b->tail &&
						a->executed == b->executed,
				"%s, %s: %" PRIu64 " commands to %" PRIu64 ", one by one %" PRIu64
				" to %" PRIu64,
				what, path, a->commands, a->tail, b->commands, b->tail);
		expect_same(a->canvas, b->canvas, what);
	}
	REQUIRE(ref.calls > ref.commands / 2 && ring.calls < ring.commands / 2 + 2,
			"%s: the reference ran one by one (%" PRIu64
			" calls), the runs did not (%" PRIu64 ")",
			what, ref.calls, ring.calls);
	expect_same(ring.canvas, sock.canvas, what);
	side_fini(&ref);
	side_fini(&sock);
	side_fini(&sock_ref);
	*out = ring;
}

static uint32_t colour_of(uint32_t i)
{
	return 0xff000000u | (i * 0x3b1d07u & 0xffffffu);
}

/* n small rectangles of command i, overlapping their neighbours' (so the
 * order of drawing shows), some partly outside the canvas. */
static uint32_t fill(struct stream *st, uint32_t i, uint32_t op, uint32_t colour, uint32_t n)
{
	struct smt_rect r[4];
	for (uint32_t k = 0; k < n; k++)
		r[k] = (struct smt_rect){ (int32_t)((i * 5 + k * 3) % (W + 4)) - 2,
			(int32_t)((i * 3 + k * 7) % (H + 2)) - 1, 1 + (i + k) % 6,
			1 + (i * k) % 5 };
	return (uint32_t)(st->len += smt_encode_fill_rects(st_at(st), op, colour, n, r));
}

static void fills(struct stream *st, uint32_t from, uint32_t count)
{
	for (uint32_t i = from; i < from + count; i++)
		fill(st, i, SMT_PAINT_SRC, colour_of(i), 1 + i % 3);
}

/* A bad FILL_RECTS in the middle of a run: the error names it (offset,
 * element), the ones before it drew, it and the ones after did not. */
enum breakage {
	BAD_RECT,
	BAD_COUNT,
	BAD_FLAGS,
	BAD_OPCODE,
	BAD_OP
};

static void test_bad_in_run(void)
{
	static const struct {
		enum breakage how;
		uint32_t code;
		uint16_t opcode;
		const char *says;
	} cases[] = {
		{ BAD_RECT, SMT_ERROR_BAD_GEOMETRY, SMT_OP_FILL_RECTS, "element 2)" },
		{ BAD_COUNT, SMT_ERROR_BAD_LENGTH, SMT_OP_FILL_RECTS, "does not match" },
		{ BAD_FLAGS, SMT_ERROR_BAD_VALUE, SMT_OP_FILL_RECTS, "header flags" },
		{ BAD_OPCODE, SMT_ERROR_BAD_OPCODE, SMT_OP_COUNT + 3, "unknown opcode" },
		{ BAD_OP, SMT_ERROR_BAD_VALUE, SMT_OP_FILL_RECTS, "unknown paint op" },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct stream st, good;
		st_init(&st);
		st_init(&good);
		ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
		fills(&st, 0, 9);
		memcpy(good.buf, st.buf, st.len);
		good.len = st.len;
		uint64_t bad_at = st.len;
		fill(&st, 9, SMT_PAINT_SRC, colour_of(9), 3);
		uint8_t *p = st.buf + bad_at;
		uint32_t word;
		switch (cases[c].how) {
		case BAD_RECT: /* element 2's x out of range */
			word = (uint32_t)SMT_COORD_MAX + 1;
			memcpy(p + 24 + 2 * 16, &word, 4);
			break;
		case BAD_COUNT: /* n_rects 2 in a 3-rect command */
			word = 2;
			memcpy(p + 16, &word, 4);
			break;
		case BAD_FLAGS:
			p[2] = 1;
			break;
		case BAD_OPCODE: /* ends the run: peek refuses it */
			p[0] = SMT_OP_COUNT + 3;
			break;
		case BAD_OP:
			word = SMT_PAINT_COUNT;
			memcpy(p + 8, &word, 4);
			break;
		}
		fills(&st, 10, 8);

		struct side ring, drawn;
		expect_as_one_by_one(&st, 1u << 16, cases[c].says, &ring);
		REQUIRE(ring.stop == SMT_EXEC_ERROR && ring.res.error.code == cases[c].code &&
						ring.res.error.opcode == cases[c].opcode &&
						ring.res.error.offset == bad_at &&
						strstr(ring.res.error.message, cases[c].says),
				"%s: %s", cases[c].says, ring.res.error.message);
		REQUIRE(ring.tail == bad_at && ring.commands == 10, "%s: ran up to the bad one",
				cases[c].says);
		side_init(&drawn);
		run_ring_budget(&drawn, &good, 1u << 16, NULL);
		expect_same(ring.canvas, drawn.canvas, "the ones before drew, no other");
		side_fini(&drawn);
		side_fini(&ring);
		st_fini(&st);
		st_fini(&good);
	}
}

/* SET_TARGET, then `count` fills of three overlapping 2x2 squares each
 * (72 bytes, 12 pixels), the colour changing. */
static void square_fills(struct stream *st, uint32_t count)
{
	static const struct smt_rect three[3] = { { 0, 0, 2, 2 }, { 1, 1, 2, 2 }, { 2, 2, 2, 2 } };
	ST(st, smt_encode_set_target(st_at(st), CANVAS));
	for (uint32_t i = 0; i < count; i++)
		ST(st, smt_encode_fill_rects(st_at(st), SMT_PAINT_SRC, colour_of(i), 3, three));
}

/* A fresh ring of 64 KiB holding the whole stream, published. */
static void ring_holding(struct test_ring *t, const struct stream *st)
{
	tr_init(t, 1u << 16);
	REQUIRE(tr_write(t, st->buf, (uint32_t)st->len) == 0, "the stream fits");
	tr_publish(t);
}

/* A bad header framed with a run the budget stops first is no error yet:
 * the call ends after the command that used the budget up, and the next
 * one fails on it. */
static void test_bad_after_budget_stop(void)
{
	struct stream st;
	struct test_ring t;
	struct side s;
	st_init(&st);
	square_fills(&st, 4);
	st.buf[st.len - 72 + 2] = 1; /* the 4th fill's header flags */
	ring_holding(&t, &st);
	side_init(&s);
	/* 12 pixels a fill: the 3rd one's last rectangle uses 36 up. */
	const struct smt_exec_budget budget = { .max_pixels = 36 };
	REQUIRE(smt_exec_run(s.ctx, &t.reader, &budget, &s.res) == SMT_EXEC_BUDGET &&
					s.res.commands == 4 && !t.reader.pending,
			"stopped after the 3rd fill: %s", s.res.error.message);
	REQUIRE(smt_exec_run(s.ctx, &t.reader, &budget, &s.res) == SMT_EXEC_ERROR &&
					s.res.error.code == SMT_ERROR_BAD_VALUE &&
					s.res.error.offset == 16 + 3 * 72,
			"then the bad one: %s", s.res.error.message);
	side_fini(&s);
	tr_fini(&t);
	st_fini(&st);
}

/* Runs through a 4 KiB ring, written as room allows: commands of 40 to 88
 * bytes meet the end of the area at every offset, with a PAD before each
 * wrap; and a command that runs past the end without one is refused. */
static void test_wrap(void)
{
	struct stream st;
	struct side ring;
	st_init(&st);
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	fills(&st, 0, 700);
	expect_as_one_by_one(&st, 4096, "runs across the wrap", &ring);
	REQUIRE(ring.stop == SMT_EXEC_EMPTY && ring.commands > 701,
			"all ran, PADs counted: %" PRIu64, ring.commands);
	side_fini(&ring);
	st_fini(&st);

	/* No PAD: the command at 4056 runs 32 bytes past the end, in the middle
	 * of a run. */
	struct test_ring t;
	tr_init(&t, 4096);
	side_init(&ring);
	st_init(&st);
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	for (uint32_t i = 0; st.len < 4056; i++)
		fill(&st, i, SMT_PAINT_SRC, colour_of(i), 1);
	REQUIRE(st.len == 4056, "40-byte fills after a 16-byte SET_TARGET");
	memcpy(t.area, st.buf, st.len);
	fill(&st, 200, SMT_PAINT_SRC, 0xff00ff00u, 3); /* 72 bytes from 4056 */
	memcpy(t.area + 4056, st.buf + 4056, 40);
	t.head = 16 + 40 * 50; /* the ring's first half runs first */
	tr_publish(&t);
	run_calls(&ring, &t.reader, NULL);
	REQUIRE(ring.stop == SMT_EXEC_EMPTY, "first half: %s", ring.res.error.message);
	t.head = 4056 + 72;
	tr_publish(&t);
	run_calls(&ring, &t.reader, NULL);
	REQUIRE(ring.res.commands == 51, "the run up to it ran: %" PRIu64, ring.res.commands);
	REQUIRE(ring.stop == SMT_EXEC_ERROR && ring.res.error.code == SMT_ERROR_WRAP &&
					ring.res.error.offset == 4056 &&
					atomic_load(&t.status->tail) == 4056,
			"wrap without PAD: %s", ring.res.error.message);
	side_fini(&ring);
	st_fini(&st);
	tr_fini(&t);
}

/* A pixel budget stops inside a run, inside a command: it stays pending at
 * its next rectangle, and the next call resumes it; the pixels are those
 * of a run without a budget. */
static void test_budget_in_run(void)
{
	struct stream st;
	struct test_ring t;
	struct side s, whole;
	st_init(&st);
	square_fills(&st, 40);
	ring_holding(&t, &st);
	side_init(&s);
	side_init(&whole);
	/* 12 pixels a command: the 5th command's first rectangle reaches 50. */
	const struct smt_exec_budget fifty = { .max_pixels = 50 };
	REQUIRE(smt_exec_run(s.ctx, &t.reader, &fifty, &s.res) == SMT_EXEC_BUDGET, "stopped");
	REQUIRE(s.res.commands == 5 && s.res.pixels == 52,
			"SET_TARGET, 4 fills and a rectangle: %" PRIu64 " commands, %" PRIu64
			" pixels",
			s.res.commands, s.res.pixels);
	REQUIRE(t.reader.pending && t.reader.resume.element == 1 && t.reader.resume.row == 0 &&
					t.reader.tail == 16 + 4 * 72 &&
					t.reader.cmd.offset == t.reader.tail,
			"pending at the 5th fill's 2nd rectangle");
	REQUIRE(atomic_load(&t.status->tail) == 16 + 4 * 72, "tail published up to it");
	s.commands = s.res.commands;
	run_calls(&s, &t.reader, &fifty);
	REQUIRE(s.stop == SMT_EXEC_EMPTY && s.commands == 41 && s.calls > 7,
			"resumed to the end: %" PRIu64 " commands in %" PRIu64 " calls", s.commands,
			s.calls);
	run_ring_budget(&whole, &st, 1u << 16, NULL);
	expect_same(s.canvas, whole.canvas, "budgeted == unbudgeted");

	/* A command budget inside a run: each call runs exactly that many. */
	struct side c;
	side_init(&c);
	const struct smt_exec_budget three = { .max_commands = 3 };
	tr_fini(&t);
	ring_holding(&t, &st);
	for (int k = 0; k < 13; k++) {
		REQUIRE(smt_exec_run(c.ctx, &t.reader, &three, &c.res) == SMT_EXEC_BUDGET &&
						c.res.commands == 3,
				"call %d: %" PRIu64 " commands", k, c.res.commands);
		REQUIRE(!t.reader.pending, "stopped between commands");
	}
	REQUIRE(smt_exec_run(c.ctx, &t.reader, &three, &c.res) == SMT_EXEC_EMPTY &&
					c.res.commands == 2,
			"the last two");
	expect_same(c.canvas, whole.canvas, "command-budgeted == unbudgeted");
	side_fini(&c);
	side_fini(&s);
	side_fini(&whole);
	tr_fini(&t);
	st_fini(&st);
}

/* Op and colour changing inside a run, or staying (the paint is kept),
 * into an ARGB canvas, an A8 pixmap, and through a clip of two
 * rectangles; then SET_TARGET and SET_CLIP after runs take effect for the
 * commands after them only. */
static void test_paint_and_state(void)
{
	static const struct {
		uint32_t op, colour;
	} paints[] = {
		{ SMT_PAINT_SRC, 0xff102030u },
		{ SMT_PAINT_SRC, 0xff102030u },
		{ SMT_PAINT_OVER, 0x80402000u },
		{ SMT_PAINT_OVER, 0x80402000u },
		{ SMT_PAINT_OVER, 0xff00ff00u },
		{ SMT_PAINT_CLEAR, 0 },
		{ SMT_PAINT_ADD, 0x40101010u },
		{ SMT_PAINT_ADD, 0x40101010u },
		{ SMT_PAINT_SRC, 0x00000000u },
		{ SMT_PAINT_XOR, 0x80808080u },
		{ SMT_PAINT_SRC, 0xffabcdefu },
	};
	const uint32_t np = sizeof(paints) / sizeof(paints[0]);
	const struct smt_rect clip[2] = { { 3, 2, 20, 9 }, { 10, 20, 30, 12 } };
	struct stream st;
	st_init(&st);
	ST(&st, smt_encode_create_pixmap(st_at(&st), PIXMAP, W, H, SMT_FORMAT_A8));
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	for (uint32_t i = 0; i < 60; i++)
		fill(&st, i, paints[i % np].op, paints[i % np].colour, 1 + i % 4);
	ST(&st, smt_encode_set_clip(st_at(&st), 2, clip));
	for (uint32_t i = 60; i < 120; i++)
		fill(&st, i, paints[i % np].op, paints[i % np].colour, 1 + i % 4);
	ST(&st, smt_encode_set_target(st_at(&st), PIXMAP));
	for (uint32_t i = 120; i < 180; i++)
		fill(&st, i, paints[i % np].op, paints[i % np].colour, 1 + i % 4);
	/* The pixmap onto the canvas, so its pixels are compared too. */
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	ST(&st, smt_encode_copy_area(st_at(&st), PIXMAP, 0, 0, W / 2, H, W / 2, 0));
	struct side ring;
	expect_as_one_by_one(&st, 1u << 16, "paints changing in runs", &ring);
	REQUIRE(ring.stop == SMT_EXEC_EMPTY, "ran: %s", ring.res.error.message);
	side_fini(&ring);

	/* The canvas pixel by pixel: a run of fills, SET_CLIP, a run, SET_TARGET, a run. */
	st.len = 0;
	ST(&st, smt_encode_create_pixmap(st_at(&st), PIXMAP, W, H, SMT_FORMAT_ARGB8888));
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	const struct smt_rect all = { 0, 0, W, H }, inside = { 1, 1, 1, 1 },
			      outside = { 0, 0, 1, 1 };
	for (uint32_t i = 0; i < 4; i++)
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff000001u + i, 1, &all));
	ST(&st, smt_encode_set_clip(st_at(&st), 1, &inside));
	for (uint32_t i = 0; i < 4; i++)
		ST(&st, smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff000010u + i, 1, &all));
	ST(&st, smt_encode_set_target(st_at(&st), PIXMAP));
	for (uint32_t i = 0; i < 4; i++)
		ST(&st,
				smt_encode_fill_rects(st_at(&st), SMT_PAINT_SRC, 0xff000100u + i, 1,
						&outside));
	side_init(&ring);
	run_ring_budget(&ring, &st, 1u << 16, NULL);
	REQUIRE(ring.stop == SMT_EXEC_EMPTY, "ran: %s", ring.res.error.message);
	REQUIRE(pixel_at(ring.canvas, 0, 0) == 0xff000004u &&
					pixel_at(ring.canvas, W - 1, H - 1) == 0xff000004u,
			"the first run filled the canvas");
	REQUIRE(pixel_at(ring.canvas, 1, 1) == 0xff000013u, "the run after SET_CLIP, clipped");
	pixman_image_t *pix = smt_exec_drawable_image(ring.ctx, PIXMAP);
	REQUIRE(pixel_at(pix, 0, 0) == 0xff000103u && pixel_at(pix, 1, 1) == 0,
			"the run after SET_TARGET drew into the pixmap, with its own clip");
	side_fini(&ring);
	st_fini(&st);
}

/* FENCE and PRESENT end a run: the fences complete in order, PRESENT stops
 * the call with the fills before it run and none after. */
static void test_fence_present(void)
{
	struct stream st;
	st_init(&st);
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	fills(&st, 0, 5);
	ST(&st, smt_encode_fence(st_at(&st), 7));
	fills(&st, 5, 5);
	ST(&st, smt_encode_present(st_at(&st), CANVAS, 1, 0, NULL));
	fills(&st, 10, 5);
	struct test_ring t;
	struct side s;
	ring_holding(&t, &st);
	side_init(&s);
	REQUIRE(smt_exec_run(s.ctx, &t.reader, NULL, &s.res) == SMT_EXEC_PRESENT &&
					s.res.commands == 13 && s.res.fences == 1 &&
					s.res.last_fence == 7,
			"up to PRESENT: %" PRIu64 " commands", s.res.commands);
	REQUIRE(atomic_load(&t.status->completed_fence) == 7, "fence completed");
	REQUIRE(smt_exec_run(s.ctx, &t.reader, NULL, &s.res) == SMT_EXEC_EMPTY &&
					s.res.commands == 5,
			"the rest");
	side_fini(&s);
	tr_fini(&t);

	struct side ring;
	expect_as_one_by_one(&st, 1u << 16, "runs around FENCE and PRESENT", &ring);
	side_fini(&ring);
	st_fini(&st);
}

/* A client asleep waiting for room is woken at the first publish point
 * (every area/8 bytes) past what it waits for, inside a run, and the call
 * ends there, as between single commands. */
static void test_wake_in_run(void)
{
	struct stream st;
	st_init(&st);
	ST(&st, smt_encode_set_target(st_at(&st), CANVAS));
	fills(&st, 0, 1000);
	const uint32_t area = 1u << 15, step = area / 8;
	struct test_ring t;
	struct side s;
	tr_init(&t, area);
	side_init(&s);
	size_t off = 0;
	while (off < st.len) {
		struct smt_cmd_header h;
		memcpy(&h, st.buf + off, sizeof(h));
		if (tr_write(&t, st.buf + off, h.size))
			break;
		off += h.size;
	}
	tr_publish(&t);
	uint64_t need = 3 * step - 100;
	REQUIRE(smt_ring_client_begin_wait(t.hdr, t.status, need), "must sleep");
	/* Publish points: the first command end at or past step, from there the
	 * first at or past that plus step, ... */
	uint64_t expect_tail = 0, point = step;
	for (size_t pos = 0; expect_tail < need;) {
		struct smt_cmd_header h;
		memcpy(&h, st.buf + pos, sizeof(h));
		pos += h.size;
		if (pos >= point) {
			expect_tail = pos;
			point = pos + step;
		}
	}
	REQUIRE(smt_exec_run(s.ctx, &t.reader, NULL, &s.res) == SMT_EXEC_BUDGET &&
					s.res.wake_client,
			"the run ended to wake the client");
	REQUIRE(atomic_load(&t.status->tail) == expect_tail, "woken at %" PRIu64 ", want %" PRIu64,
			(uint64_t)atomic_load(&t.status->tail), expect_tail);
	smt_ring_client_end_wait(t.hdr);
	side_fini(&s);
	tr_fini(&t);
	st_fini(&st);
}

int main(void)
{
	test_bad_in_run();
	test_bad_after_budget_stop();
	test_wrap();
	test_budget_in_run();
	test_paint_and_state();
	test_fence_present();
	test_wake_in_run();
	printf("ring_runs: ok\n");
	return 0;
}
