/* The ring ABI: the opcode table, encoding helpers, framing, PAD/wrap, full
 * ring, head validation, header-level rejections, wakeup protocol, fences,
 * DEAD. */
#include "tests/unit/test_ring_util.h"

static void test_encoding(void)
{
	BUF_DECL(b, 256);
	struct smt_rect r[3] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { -1, -2, 9, 10 } };
	REQUIRE(smt_cmd_array_size(sizeof(struct smt_cmd_fill_rects), 3, 16) == 24 + 48, "size");
	REQUIRE(smt_cmd_array_size(sizeof(struct smt_cmd_points), 3, 8) == 48, "points size");
	REQUIRE(smt_cmd_array_size(24, 1u << 30, 16) == 0, "overflow refused");
	REQUIRE(smt_cmd_array_size(24, SMT_CMD_CONTROL_MAX / 16, 16) == 0, "> control max");
	REQUIRE(smt_cmd_put_image_size(12, 3) == 32 + 40, "put image size rounded");
	REQUIRE(smt_cmd_put_image_size(UINT32_MAX, 2) == 0, "put image overflow");

	memset(b, 0xee, sizeof(b));
	uint32_t n = smt_encode_fill_rects(b, SMT_PAINT_OVER, 0x80402010, 3, r);
	REQUIRE(n == 72, "fill size %u", n);
	struct smt_cmd_fill_rects c;
	memcpy(&c, b, sizeof(c));
	REQUIRE(c.hdr.opcode == SMT_OP_FILL_RECTS && c.hdr.flags == 0 && c.hdr.size == 72, "hdr");
	REQUIRE(c.op == SMT_PAINT_OVER && c.colour == 0x80402010 && c.n_rects == 3 &&
					c.reserved == 0,
			"fields");
	REQUIRE(memcmp(b + 24, r, 48) == 0, "array");
	REQUIRE(b[72] == 0xee, "no overrun");

	memset(b, 0xee, sizeof(b));
	struct smt_point p[3] = { { 1, 1 }, { 2, 2 }, { 3, 3 } };
	n = smt_encode_points(b, SMT_PAINT_SRC, 0xff000000, 3, p);
	REQUIRE(n == 48 && b[44] == 3, "points (%u)", n);
	memset(b, 0xee, sizeof(b));
	n = smt_encode_put_image(b, 0, 0, 1, 1, SMT_FORMAT_A8, 4, "\x7f\0\0\0");
	REQUIRE(n == 40 && b[32] == 0x7f && b[36] == 0 && b[39] == 0, "put image + padding");
	n = smt_encode_fence(b, 0x1122334455667788ull);
	REQUIRE(n == 16 && b[8] == 0x88 && b[15] == 0x11, "fence little-endian");
	n = smt_encode_put_image_pool(b, 7, 1ull << 40, 64, 16, 16, SMT_FORMAT_ARGB8888, -3, 4);
	struct smt_cmd_put_image_pool pp;
	memcpy(&pp, b, sizeof(pp));
	REQUIRE(n == 48 && pp.offset == 1ull << 40 && pp.dst_x == -3 && pp.pool_id == 7, "pool");

	/* ring arithmetic */
	REQUIRE(smt_ring_pad_needed(0, 4096, 4096) == 0, "fits exactly");
	REQUIRE(smt_ring_pad_needed(4088, 4096, 8) == 0, "last 8 bytes");
	REQUIRE(smt_ring_pad_needed(4088, 4096, 16) == 8, "pad 8");
	REQUIRE(smt_ring_pad_needed(8192 + 100 * 8, 4096, 4000) == 4096 - 800, "pad rest");
	REQUIRE(smt_ring_space(5000, 1000, 4096) == 96, "space");
}

static void expect_fault(
		struct test_ring *t, uint32_t code, uint16_t opcode, uint64_t off, const char *what)
{
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	struct smt_exec_result res;
	enum smt_exec_stop s = tr_run_all(ctx, t, &res);
	REQUIRE(s == SMT_EXEC_ERROR, "%s: expected an error, got stop %d", what, s);
	REQUIRE(res.error.code == code, "%s: code %u (%s) want %u", what, res.error.code,
			res.error.message, code);
	REQUIRE(res.error.opcode == opcode, "%s: opcode %u want %u", what, res.error.opcode,
			opcode);
	REQUIRE(res.error.offset == off, "%s: offset %" PRIu64 " want %" PRIu64, what,
			res.error.offset, off);
	REQUIRE(atomic_load(&t->status->flags) & SMT_SERVER_DEAD, "%s: DEAD published", what);
	REQUIRE(atomic_load(&t->status->error_code) == code, "%s: status code", what);
	REQUIRE(atomic_load(&t->status->error_offset) == off, "%s: status offset", what);
	/* dead stays dead */
	REQUIRE(smt_exec_run(ctx, &t->reader, NULL, &res) == SMT_EXEC_ERROR &&
					res.error.code == code,
			"%s: sticky", what);
	smt_exec_destroy(ctx);
}

static void put_raw(struct test_ring *t, uint16_t opcode, uint16_t flags, uint32_t size,
		uint64_t head_advance)
{
	struct smt_cmd_header h = { opcode, flags, size };
	memcpy(smt_ring_at(t->area, t->area_size, t->head), &h, sizeof(h));
	t->head += head_advance;
	tr_publish(t);
}

static void test_header_rejections(void)
{
	struct test_ring t;
	BUF_DECL(b, 64);
	uint32_t n;

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_NOOP, 0, 0, 8);
	expect_fault(&t, SMT_ERROR_BAD_SIZE, SMT_OP_NOOP, 0, "size 0");
	tr_fini(&t);

	tr_init(&t, 4096);
	n = smt_encode_noop(b, SMT_OP_NOOP, 16);
	tr_push(&t, b, n);
	put_raw(&t, SMT_OP_NOOP, 0, 12, 16);
	expect_fault(&t, SMT_ERROR_BAD_SIZE, SMT_OP_NOOP, 16, "odd size");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_NOOP, 0, 64, 32);
	expect_fault(&t, SMT_ERROR_TRUNCATED, SMT_OP_NOOP, 0, "past head");
	tr_fini(&t);

	tr_init(&t, 4096);
	t.head = 4096 - 16; /* pretend earlier bytes were consumed */
	t.reader.tail = t.head;
	t.reader.head = t.head;
	put_raw(&t, SMT_OP_NOOP, 0, 32, 32);
	expect_fault(&t, SMT_ERROR_WRAP, SMT_OP_NOOP, 4096 - 16, "wraps without PAD");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_FILL_RECTS, 0, 2048 + 8, 2048 + 8);
	expect_fault(&t, SMT_ERROR_TOO_LARGE, SMT_OP_FILL_RECTS, 0, "> half the ring");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, 77, 0, 16, 16);
	expect_fault(&t, SMT_ERROR_BAD_OPCODE, 77, 0, "unknown opcode");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_NOOP, 1, 8, 8);
	expect_fault(&t, SMT_ERROR_BAD_VALUE, SMT_OP_NOOP, 0, "flags");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_NOOP, 0, 8, 4096 + 8);
	expect_fault(&t, SMT_ERROR_BAD_HEAD, 0xffff, 0, "head beyond tail + area");
	tr_fini(&t);

	tr_init(&t, 4096);
	put_raw(&t, SMT_OP_NOOP, 0, 8, 4);
	expect_fault(&t, SMT_ERROR_BAD_HEAD, 0xffff, 0, "unaligned head");
	tr_fini(&t);

	tr_init(&t, 4096);
	{ /* head moves backwards after a batch */
		struct smt_exec_ctx *ctx = smt_exec_create(NULL);
		struct smt_exec_result res;
		n = smt_encode_noop(b, SMT_OP_NOOP, 16);
		tr_push(&t, b, n);
		tr_push(&t, b, n);
		REQUIRE(smt_exec_run(ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "ok");
		smt_ring_client_publish(t.hdr, &t.global, 8);
		REQUIRE(smt_exec_run(ctx, &t.reader, NULL, &res) == SMT_EXEC_ERROR &&
						res.error.code == SMT_ERROR_BAD_HEAD,
				"backwards head");
		smt_exec_destroy(ctx);
	}
	tr_fini(&t);
}

/* Every row of the opcode table (smt-ring.h), as the reader and decoder
 * must treat it: its name, its minimum size, header flags, and its copy
 * rule (what may exceed SMT_CMD_CONTROL_MAX, what is never read). */
struct table_row {
	const char *name;
	uint16_t opcode;
	uint32_t fixed, element;
	enum smt_copy_rule copy;
};

static void test_opcode_table(void)
{
#define ROW_(name, number, fixed, element, copy) \
	{ #name, SMT_OP_##name, sizeof(struct smt_cmd_##fixed), element, copy },
	static const struct table_row rows[] = { SMT_OPCODES(ROW_) };
#undef ROW_
	REQUIRE(sizeof(rows) / sizeof(rows[0]) == SMT_OP_COUNT, "one row per opcode");
	for (size_t i = 0; i < SMT_OP_COUNT; i++) {
		const struct table_row *row = &rows[i];
		struct test_ring t;
		REQUIRE(row->opcode == i, "%s: dense", row->name);
		REQUIRE(strcmp(smt_opcode_name(row->opcode), row->name) == 0, "%s: name %s",
				row->name, smt_opcode_name(row->opcode));
		REQUIRE(row->fixed >= 8 && row->fixed % 8 == 0, "%s: fixed part", row->name);

		tr_init(&t, 4096);
		put_raw(&t, row->opcode, 1, row->fixed, row->fixed);
		expect_fault(&t, SMT_ERROR_BAD_VALUE, row->opcode, 0, row->name);
		tr_fini(&t);

		/* Bigger than SMT_CMD_CONTROL_MAX, within half the ring: only
		 * commands copied whole are limited (the rest is ring garbage). */
		tr_init(&t, 1u << 18);
		put_raw(&t, row->opcode, 0, SMT_CMD_CONTROL_MAX + 8, SMT_CMD_CONTROL_MAX + 8);
		if (row->copy == SMT_COPY_WHOLE) {
			expect_fault(&t, SMT_ERROR_TOO_LARGE, row->opcode, 0, row->name);
		} else {
			struct smt_exec_ctx *ctx = smt_exec_create(NULL);
			struct smt_exec_result res;
			tr_run_all(ctx, &t, &res);
			REQUIRE(res.error.code != SMT_ERROR_TOO_LARGE, "%s: not copied whole",
					row->name);
			REQUIRE(row->copy != SMT_COPY_HEADER || res.error.code == SMT_ERROR_NONE,
					"%s: payload never read (%s)", row->name,
					res.error.message);
			smt_exec_destroy(ctx);
		}
		tr_fini(&t);

		if (row->copy == SMT_COPY_HEADER)
			continue;
		/* One word short of the fixed part. */
		tr_init(&t, 4096);
		put_raw(&t, row->opcode, 0, row->fixed - 8, row->fixed - 8);
		expect_fault(&t, SMT_ERROR_BAD_LENGTH, row->opcode, 0, row->name);
		tr_fini(&t);
	}
}

/* Wrap with PAD, fill the ring completely, drain, repeat many laps. */
static void test_wrap_and_full(void)
{
	struct test_ring t;
	BUF_DECL(b, 2048);
	tr_init(&t, 4096);
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	struct smt_exec_result res;
	uint64_t written = 0, fences = 0, executed = 0;

	for (int lap = 0; lap < 50; lap++) {
		/* sizes that do not divide the area, to force PADs */
		uint32_t size = 8u * (1u + (uint32_t)lap % 7u) * 24u;
		uint32_t n;
		int pushed = 0;
		while (1) {
			if (pushed % 3 == 2)
				n = smt_encode_fence(b, ++fences);
			else
				n = smt_encode_noop(b, SMT_OP_NOOP, size);
			if (tr_write(&t, b, n) < 0)
				break;
			if (pushed % 3 == 2)
				written++;
			pushed++;
		}
		REQUIRE(pushed > 0, "something fit");
		tr_publish(&t);
		REQUIRE(smt_ring_space(t.head, atomic_load(&t.status->tail), 4096) < 4096,
				"ring holds data");
		REQUIRE(smt_exec_run(ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "%s",
				res.error.message);
		executed += res.fences;
		REQUIRE(atomic_load(&t.status->tail) == t.head, "tail caught up with head");
		if (res.fences)
			REQUIRE(atomic_load(&t.status->completed_fence) == fences, "fence serial");
	}
	REQUIRE(executed == written, "fences %" PRIu64 " vs %" PRIu64, executed, written);
	REQUIRE(atomic_load(&t.status->commands_executed) == t.reader.commands, "counter");
	REQUIRE(t.head > 4096 * 20, "many laps");
	smt_exec_destroy(ctx);
	tr_fini(&t);
}

/* A full ring: the writer cannot add more until the server consumed. */
static void test_full_ring(void)
{
	struct test_ring t;
	BUF_DECL(b, 2048);
	tr_init(&t, 4096);
	uint32_t n = smt_encode_noop(b, SMT_OP_NOOP, 1024);
	for (int i = 0; i < 4; i++)
		REQUIRE(tr_write(&t, b, n) == 0, "fits %d", i);
	REQUIRE(tr_write(&t, b, 8) < 0, "ring full");
	tr_publish(&t);
	/* client decides to wait for room for 8 bytes */
	REQUIRE(smt_ring_client_begin_wait(t.hdr, t.status, t.head + 8 - 4096), "must sleep");
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	struct smt_exec_result res;
	struct smt_exec_budget one = { .max_commands = 1 };
	REQUIRE(smt_exec_run(ctx, &t.reader, &one, &res) == SMT_EXEC_BUDGET, "one command");
	REQUIRE(res.commands == 1 && res.wake_client, "client woken once its need is met");
	REQUIRE(smt_exec_run(ctx, &t.reader, &one, &res) == SMT_EXEC_BUDGET && !res.wake_client,
			"no second wakeup for the same request");
	smt_ring_client_end_wait(t.hdr);
	REQUIRE(tr_write(&t, b, 8) == 0, "room again");
	/* begin_wait when the condition already holds: no sleep, flag cleared */
	REQUIRE(!smt_ring_client_begin_wait(t.hdr, t.status, 8), "already satisfied");
	REQUIRE(atomic_load(&t.hdr->flags) == 0, "flag cleared");
	smt_exec_destroy(ctx);
	tr_fini(&t);
}

/* A client waiting for half the ring: the run ends once the tail passed
 * its wait_tail (checked every 1/8 of the area), publishes and wakes it,
 * with the rest still queued; without a waiting client one run takes all. */
static void test_wake_mid_run(void)
{
	for (int waiting = 0; waiting <= 1; waiting++) {
		struct test_ring t;
		BUF_DECL(b, 64);
		tr_init(&t, 4096);
		uint32_t n = smt_encode_fence(b, 1);
		int k = 0;
		while (tr_write(&t, b, n) == 0)
			k++;
		REQUIRE(k == 4096 / (int)n, "ring filled: %d", k);
		tr_publish(&t);
		uint64_t need = t.head - 2048;
		if (waiting)
			REQUIRE(smt_ring_client_begin_wait(t.hdr, t.status, need), "must sleep");
		struct smt_exec_ctx *ctx = smt_exec_create(NULL);
		struct smt_exec_result res;
		enum smt_exec_stop stop = smt_exec_run(ctx, &t.reader, NULL, &res);
		uint64_t tail = atomic_load(&t.status->tail);
		if (waiting) {
			REQUIRE(stop == SMT_EXEC_BUDGET && res.wake_client, "run ended to wake");
			REQUIRE(tail >= need && tail < need + 4096 / 8, "tail %" PRIu64, tail);
			REQUIRE(smt_exec_run(ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY &&
							!res.wake_client,
					"the rest, no second wakeup");
			smt_ring_client_end_wait(t.hdr);
		} else {
			REQUIRE(stop == SMT_EXEC_EMPTY && !res.wake_client,
					"one run, nobody to wake");
		}
		REQUIRE(atomic_load(&t.status->tail) == t.head, "all executed");
		REQUIRE(atomic_load(&t.status->completed_fence) == 1, "fences ran");
		smt_exec_destroy(ctx);
		tr_fini(&t);
	}
}

/* The tail is published during a run, not only when it ends, so a client
 * spinning on a full ring (libsmt) refills behind the server. Observed from
 * inside the run: a PUT_IMAGE_POOL whose pool is the status page copies
 * status.tail, as the client would read it then, into a pixmap. */
static void test_tail_published_mid_run(void)
{
	struct test_ring t;
	BUF_DECL(b, 1024);
	tr_init(&t, 4096);
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	REQUIRE(smt_exec_register_pool(ctx, 1, t.status, sizeof(*t.status)) == 0, "pool");
	REQUIRE(tr_write(&t, b, smt_encode_create_pixmap(b, 2, 2, 1, SMT_FORMAT_ARGB8888)) == 0 &&
					tr_write(&t, b, smt_encode_set_target(b, 2)) == 0 &&
					tr_write(&t, b, smt_encode_noop(b, SMT_OP_NOOP, 1024)) == 0,
			"commands");
	uint64_t put_at = t.head; /* past area/8: one publish is due */
	REQUIRE(tr_write(&t, b,
				smt_encode_put_image_pool(b, 1,
						offsetof(struct smt_ring_status, tail), 8, 2, 1,
						SMT_FORMAT_ARGB8888, 0, 0)) == 0 &&
					tr_write(&t, b, smt_encode_noop(b, SMT_OP_NOOP, 16)) == 0,
			"commands");
	tr_publish(&t);
	struct smt_exec_result res;
	REQUIRE(smt_exec_run(ctx, &t.reader, NULL, &res) == SMT_EXEC_EMPTY, "%s",
			res.error.message);
	REQUIRE(atomic_load(&t.status->tail) == t.head, "all executed");
	uint64_t seen;
	memcpy(&seen, pixman_image_get_data(smt_exec_drawable_image(ctx, 2)), sizeof(seen));
	REQUIRE(seen == put_at, "tail %" PRIu64 " published before the command at %" PRIu64, seen,
			put_at);
	smt_exec_destroy(ctx);
	tr_fini(&t);
}

static void test_sleep_protocol(void)
{
	struct test_ring t;
	BUF_DECL(b, 16);
	tr_init(&t, 4096);
	REQUIRE(!smt_ring_reader_has_work(&t.reader), "idle");
	smt_global_prepare_sleep(&t.global);
	REQUIRE(atomic_load(&t.global.generation) == 1, "generation");
	uint32_t n = smt_encode_noop(b, SMT_OP_NOOP, 16);
	tr_write(&t, b, n);
	REQUIRE(smt_ring_client_publish(t.hdr, &t.global, t.head), "client must wake server");
	REQUIRE(smt_ring_reader_has_work(&t.reader), "server re-check sees work");
	smt_global_wake(&t.global);
	tr_write(&t, b, n);
	REQUIRE(!smt_ring_client_publish(t.hdr, &t.global, t.head), "awake: no syscall");
	smt_ring_reader_count_wakeups(&t.reader, 2, 3);
	REQUIRE(atomic_load(&t.status->wakeups_to_client) == 2 &&
					atomic_load(&t.status->wakeups_from_client) == 3,
			"wakeup counters");
	tr_fini(&t);
}

static void test_reader_init(void)
{
	struct smt_ring_reader r;
	static _Alignas(64) struct smt_ring_status st;
	static _Alignas(4096) uint8_t mem[4096 + 8192];
	REQUIRE(smt_ring_reader_init(&r, mem, sizeof(mem), 8192, &st) == 0, "ok");
	smt_ring_reader_fini(&r);
	REQUIRE(smt_ring_reader_init(&r, mem, sizeof(mem), 6144, &st) < 0, "not a power of 2");
	REQUIRE(smt_ring_reader_init(&r, mem, sizeof(mem), 2048, &st) < 0, "below minimum");
	REQUIRE(smt_ring_reader_init(&r, mem, sizeof(mem) - 1, 8192, &st) < 0, "mapping too short");
	REQUIRE(smt_ring_reader_init(&r, mem, sizeof(mem), 1u << 25, &st) < 0, "too big");
}

int main(void)
{
	test_encoding();
	test_reader_init();
	test_header_rejections();
	test_opcode_table();
	test_wrap_and_full();
	test_full_ring();
	test_wake_mid_run();
	test_tail_published_mid_run();
	test_sleep_protocol();
	printf("test_ring_abi: ok\n");
	return 0;
}
