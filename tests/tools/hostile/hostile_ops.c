/*
 * Per-opcode cases (op:NAME): every opcode with out-of-range ids, rects,
 * counts, strides and pool offsets, one command per case. Two cases per
 * row of the opcode table come from the table itself.
 */
#include "tests/tools/hostile/hostile.h"

/* ---- every opcode with out-of-range ids, rects, counts, strides, pool
 * offsets, one command per case (table-driven). The set-up before each:
 * ring of 64 KiB; pixmap 5 64x64 ARGB (the target), pixmap 6 64x64 A8,
 * pool 3 of 64 KiB. ---------------------------------------------------- */

#define I(x) ((uint32_t)(int32_t)(x))
#define IMAX 0x7fffffffu
#define IMIN 0x80000000u
#define UMAX 0xffffffffu
#define BIG (1u << 28) /* SMT_COORD_MAX */
#define WHITE 0xffffffffu

struct op_case {
	const char *name;
	uint16_t opcode, flags;
	uint32_t error; /* expected enum smt_error */
	bool untarget;  /* SET_TARGET 0 before the command */
	uint32_t size;  /* 0: 8 + payload rounded up to 8 */
	uint32_t n;     /* payload words */
	uint32_t w[20];
};

static const struct op_case op_cases[] = {
	/* CREATE_PIXMAP: id, width, height, format */
	{ "create-id-zero", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4,
			{ 0, 8, 8, 1 } },
	{ "create-id-beyond-table", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4,
			{ 1u << 18, 8, 8, 1 } },
	{ "create-id-max", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4,
			{ UMAX, 8, 8, 1 } },
	{ "create-id-in-use", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_ID_IN_USE, 0, 0, 4,
			{ 5, 8, 8, 1 } },
	{ "create-width-zero", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_VALUE, 0, 0, 4,
			{ 7, 0, 8, 1 } },
	{ "create-too-wide", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_LIMIT, 0, 0, 4,
			{ 7, 16385, 1, 1 } },
	{ "create-size-overflow", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_LIMIT, 0, 0, 4,
			{ 7, UMAX, UMAX, 1 } },
	{ "create-bad-format", SMT_OP_CREATE_PIXMAP, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 4,
			{ 7, 8, 8, 99 } },
	/* FREE_PIXMAP: id, reserved */
	{ "free-unknown", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { 77, 0 } },
	{ "free-id-max", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { UMAX, 0 } },
	{ "free-reserved", SMT_OP_FREE_PIXMAP, 0, SMT_ERROR_BAD_VALUE, 0, 0, 2, { 5, 1 } },
	/* SET_TARGET */
	{ "target-unknown", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { 77, 0 } },
	{ "target-id-huge", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 2, { IMIN, 0 } },
	{ "target-reserved", SMT_OP_SET_TARGET, 0, SMT_ERROR_BAD_VALUE, 0, 0, 2, { 5, 7 } },
	/* SET_CLIP: n, reserved, rect[n] */
	{ "clip-count-overflow", SMT_OP_SET_CLIP, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 6,
			{ 0x10000001u, 0, 0, 0, 8, 8 } }, /* n * 16 wraps to 16 in 32 bits */
	{ "clip-rect-overflow", SMT_OP_SET_CLIP, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 6,
			{ 1, 0, IMAX, 0, UMAX, 1 } },
	{ "clip-no-target", SMT_OP_SET_CLIP, 0, SMT_ERROR_NO_TARGET, true, 0, 6,
			{ 1, 0, 0, 0, 8, 8 } },
	/* FILL_RECTS: op, colour, n, reserved, rect[n] */
	{ "fill-count-wrap", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 0x10000001u, 0, 0, 0, 8, 8 } },
	{ "fill-count-short", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 2, 0, 0, 0, 8, 8 } },
	{ "fill-rect-overflow", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 1, 0, IMAX - 1, 0, UMAX, 10 } },
	{ "fill-rect-negative", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 1, 0, IMIN, IMIN, UMAX, UMAX } },
	{ "fill-rect-beyond-coord-max", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 1, 0, 0, 0, BIG + 1, 1 } },
	{ "fill-bad-op", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
			{ 999, WHITE, 1, 0, 0, 0, 8, 8 } },
	{ "fill-not-premultiplied", SMT_OP_FILL_RECTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
			{ SMT_PAINT_SRC, 0x10ffffffu, 1, 0, 0, 0, 8, 8 } },
	{ "fill-no-target", SMT_OP_FILL_RECTS, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 1, 0, 0, 0, 8, 8 } },
	/* POINTS: op, colour, n, reserved, point[n] */
	{ "points-count-wrap", SMT_OP_POINTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 6,
			{ SMT_PAINT_SRC, WHITE, 0x20000001u, 0, 1, 1 } }, /* n * 8 wraps to 8 */
	{ "points-geometry", SMT_OP_POINTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 6,
			{ SMT_PAINT_SRC, WHITE, 1, 0, IMAX, IMIN } },
	{ "points-no-target", SMT_OP_POINTS, 0, SMT_ERROR_NO_TARGET, true, 0, 6,
			{ SMT_PAINT_SRC, WHITE, 1, 0, 1, 1 } },
	/* SEGMENTS: op, colour, line_width, n, segment[n] */
	{ "segments-count-wrap", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 1, 0x10000001u, 0, 0, 9, 9 } },
	{ "segments-too-wide", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 100000, 1, 0, 0, 9, 9 } },
	{ "segments-geometry", SMT_OP_SEGMENTS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ SMT_PAINT_SRC, WHITE, 30, 1, 0, 0, IMIN, IMAX } },
	/* PUT_IMAGE: x, y, width, height, format, stride, pixels */
	{ "put-stride-short", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 14,
			{ 0, 0, 8, 2, SMT_FORMAT_ARGB8888, 4 } },
	{ "put-stride-unaligned", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 14,
			{ 0, 0, 1, 1, SMT_FORMAT_ARGB8888, 6 } },
	{ "put-stride-height-wrap", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
			{ 0, 0, 1, 0x40000001u, SMT_FORMAT_ARGB8888, 4 } }, /* 4 * h wraps to 4 */
	{ "put-bad-format", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 8,
			{ 0, 0, 1, 1, 99, 4 } },
	{ "put-geometry", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ IMAX, 0, 1, 1, SMT_FORMAT_ARGB8888, 4 } },
	{ "put-no-target", SMT_OP_PUT_IMAGE, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
			{ 0, 0, 1, 1, SMT_FORMAT_ARGB8888, 4 } },
	/* PUT_IMAGE_POOL: pool, format, offset lo/hi, stride, w, h, x, y, reserved */
	{ "pool-unknown", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_POOL, 0, 0, 10,
			{ 9, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 64, 0, 0, 0 } },
	{ "pool-id-max", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_POOL, 0, 0, 10,
			{ UMAX, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 64, 0, 0, 0 } },
	{ "pool-offset-overflow", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
			{ 3, SMT_FORMAT_ARGB8888, 0xffffffc0u, UMAX, 256, 64, 64, 0, 0, 0 } },
	{ "pool-offset-unaligned", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
			{ 3, SMT_FORMAT_ARGB8888, 2, 0, 256, 8, 8, 0, 0, 0 } },
	{ "pool-range-past-end", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
			{ 3, SMT_FORMAT_ARGB8888, 65536 - 256, 0, 256, 64, 2, 0, 0, 0 } },
	{ "pool-stride-height-overflow", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0,
			10, { 3, SMT_FORMAT_ARGB8888, 0, 0, 0x80000000u, 1, 3, 0, 0, 0 } },
	{ "pool-stride-short", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_STRIDE, 0, 0, 10,
			{ 3, SMT_FORMAT_ARGB8888, 0, 0, 4, 64, 1, 0, 0, 0 } },
	{ "pool-bad-format", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 10,
			{ 3, 0, 0, 0, 256, 64, 1, 0, 0, 0 } },
	{ "pool-geometry", SMT_OP_PUT_IMAGE_POOL, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 10,
			{ 3, SMT_FORMAT_ARGB8888, 0, 0, 256, 64, 1, IMIN, 0, 0 } },
	/* COPY_AREA: src, sx, sy, w, h, dx, dy, reserved */
	{ "copy-src-unknown", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 8,
			{ 77, 0, 0, 8, 8, 0, 0, 0 } },
	{ "copy-src-huge", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 8,
			{ UMAX, 0, 0, 8, 8, 0, 0, 0 } },
	{ "copy-size-overflow", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ 5, 0, 0, UMAX, UMAX, 0, 0, 0 } },
	{ "copy-src-geometry", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ 5, IMIN, 0, 8, 8, 0, 0, 0 } },
	{ "copy-dst-geometry", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 8,
			{ 5, 0, 0, 8, 8, IMAX, IMAX, 0 } },
	{ "copy-reserved", SMT_OP_COPY_AREA, 0, SMT_ERROR_BAD_VALUE, 0, 0, 8,
			{ 5, 0, 0, 8, 8, 0, 0, 1 } },
	{ "copy-no-target", SMT_OP_COPY_AREA, 0, SMT_ERROR_NO_TARGET, true, 0, 8,
			{ 5, 0, 0, 8, 8, 0, 0, 0 } },
	/* COMPOSITE: op, src, mask, sx, sy, mx, my, dx, dy, w, h, reserved */
	{ "composite-src-unknown", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 12,
			{ SMT_PAINT_OVER, 77, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-mask-unknown", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 12,
			{ SMT_PAINT_OVER, 5, 78, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-mask-not-a8", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 12,
			{ SMT_PAINT_OVER, 6, 5, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-bad-op", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_VALUE, 0, 0, 12,
			{ 1000, 5, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	{ "composite-size-overflow", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 12,
			{ SMT_PAINT_OVER, 5, 6, 0, 0, 0, 0, 0, 0, UMAX, UMAX, 0 } },
	{ "composite-mask-geometry", SMT_OP_COMPOSITE, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 12,
			{ SMT_PAINT_OVER, 5, 6, 0, 0, IMIN, IMAX, 0, 0, 8, 8, 0 } },
	{ "composite-no-target", SMT_OP_COMPOSITE, 0, SMT_ERROR_NO_TARGET, true, 0, 12,
			{ SMT_PAINT_OVER, 5, 0, 0, 0, 0, 0, 0, 0, 8, 8, 0 } },
	/* GLYPHS: op, colour, atlas, n, ox, oy, glyph[n] (u16 ax, ay, w, h; i32 dx, dy) */
	{ "glyphs-atlas-unknown", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 10,
			{ SMT_PAINT_OVER, WHITE, 77, 1, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-atlas-not-a8", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_FORMAT, 0, 0, 10,
			{ SMT_PAINT_OVER, WHITE, 5, 1, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-outside-atlas", SMT_OP_GLYPHS, 0, SMT_ERROR_OUT_OF_BOUNDS, 0, 0, 10,
			{ SMT_PAINT_OVER, WHITE, 6, 1, 0, 0, 60 | (60u << 16), 10 | (10u << 16), 0,
					0 } },
	{ "glyphs-count-wrap", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 10,
			{ SMT_PAINT_OVER, WHITE, 6, 0x10000001u, 0, 0, 0, 8 | (8u << 16), 0, 0 } },
	{ "glyphs-origin-overflow", SMT_OP_GLYPHS, 0, SMT_ERROR_BAD_GEOMETRY, 0, 0, 10,
			{ SMT_PAINT_OVER, WHITE, 6, 1, IMAX, IMAX, 0, 8 | (8u << 16), IMAX,
					IMAX } },
	/* PRESENT: canvas, serial, n, reserved, rect[n] */
	{ "present-pixmap", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { 5, 1, 0, 0 } },
	{ "present-unknown", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_DRAWABLE, 0, 0, 4, { 77, 1, 0, 0 } },
	{ "present-count-wrap", SMT_OP_PRESENT, 0, SMT_ERROR_BAD_LENGTH, 0, 0, 8,
			{ 77, 1, 0x10000001u, 0, 0, 0, 8, 8 } },
	/* framing */
	{ "opcode-count", SMT_OP_COUNT, 0, SMT_ERROR_BAD_OPCODE, 0, 0, 0, { 0 } },
	{ "opcode-max", 0xffff, 0, SMT_ERROR_BAD_OPCODE, 0, 0, 0, { 0 } },
	{ "too-large", SMT_OP_FILL_RECTS, 0, SMT_ERROR_TOO_LARGE, 0, 40000, 0, { 0 } },
};

/* Two more cases per row of the opcode table (smt-ring.h), so a new opcode
 * gets them without an edit here: NAME-flags (header flags set, refused
 * as BAD_VALUE by framing) and, for opcodes the server decodes, NAME-short
 * (one word short of the fixed part, BAD_LENGTH). Names in lower case. */
#define TABLE_CASES_MAX (2 * SMT_OP_COUNT)

static size_t table_cases(struct op_case *out)
{
#define ROW_(name, number, fixed, element, copy) \
	{ #name, SMT_OP_##name, sizeof(struct smt_cmd_##fixed), copy },
	static const struct {
		const char *name;
		uint16_t opcode;
		uint32_t fixed;
		enum smt_copy_rule copy;
	} rows[] = { SMT_OPCODES(ROW_) };
#undef ROW_
	static char names[TABLE_CASES_MAX][40];
	size_t n = 0;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char lower[24];
		size_t k = 0;
		for (; rows[i].name[k] && k < sizeof(lower) - 1; k++) {
			char ch = rows[i].name[k];
			lower[k] = ch == '_' ? '-' :
					       (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
		}
		lower[k] = 0;
		snprintf(names[n], sizeof(names[n]), "%s-flags", lower);
		out[n] = (struct op_case){ names[n], rows[i].opcode, 1, SMT_ERROR_BAD_VALUE, false,
			rows[i].fixed, (rows[i].fixed - 8) / 4, { 0 } };
		n++;
		if (rows[i].copy == SMT_COPY_HEADER) {
			continue;
		}
		snprintf(names[n], sizeof(names[n]), "%s-short", lower);
		out[n] = (struct op_case){ names[n], rows[i].opcode, 0, SMT_ERROR_BAD_LENGTH, false,
			rows[i].fixed - 8, (rows[i].fixed - 16) / 4, { 0 } };
		n++;
	}
	return n;
}

/* Every per-opcode case: the hand-written ones above, then the table's. */
static size_t all_op_cases(struct op_case *out)
{
	size_t n = sizeof(op_cases) / sizeof(op_cases[0]);
	memcpy(out, op_cases, sizeof(op_cases));
	return n + table_cases(out + n);
}

int hostile_op_case(struct hostile *h, const char *name)
{
	static struct op_case cases[sizeof(op_cases) / sizeof(op_cases[0]) + TABLE_CASES_MAX];
	size_t n = all_op_cases(cases);
	const struct op_case *c = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(cases[i].name, name) == 0) {
			c = &cases[i];
		}
	}
	if (c == NULL) {
		fprintf(stderr, "smt-hostile: unknown op case '%s'\n", name);
		return 2;
	}
	create_good_ring(h, 65536);
	if (h->status == NULL || h->global == NULL) {
		return 1;
	}
	int pfd = make_pool_memfd(65536);
	h->pool = smt_ring_v1_create_pool(h->ring, 3, pfd, 65536);
	close(pfd);
	wl_display_roundtrip(h->display);
	emit_create(h, 5, 64, 64, SMT_FORMAT_ARGB8888);
	emit_create(h, 6, 64, 64, SMT_FORMAT_A8);
	emit_target(h, 5);
	if (c->untarget) {
		emit_target(h, 0);
	}
	emit_fence(h, 1);
	kick(h);
	if (!wait_tail_efd(h, h->head, HANG_MS)) {
		fprintf(stderr, "smt-hostile: the set-up failed\n");
		return 1;
	}
	uint8_t buf[40008] = { 0 };
	uint32_t size = c->size ? c->size : (uint32_t)((8 + 4 * c->n + 7) & ~7u);
	struct smt_cmd_header hdr = { c->opcode, c->flags, size };
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, c->w, 4 * c->n);
	uint64_t offset = h->head;
	put(h, buf, size > sizeof(buf) ? sizeof(buf) : size);
	kick(h);
	if (!expect_error(h, &smt_ring_v1_interface, SMT_RING_V1_ERROR_BAD_COMMAND)) {
		return 1;
	}
	if (!check_death(h, c->error, c->opcode < SMT_OP_COUNT ? c->opcode : -1)) {
		return 1;
	}
	uint64_t off = atomic_load(&h->status->error_offset);
	if (off != offset) {
		fprintf(stderr, "smt-hostile: error offset %llu, the command was at %llu\n",
				(unsigned long long)off, (unsigned long long)offset);
		return 1;
	}
	return 0;
}

void hostile_list_ops(void)
{
	static struct op_case cases[sizeof(op_cases) / sizeof(op_cases[0]) + TABLE_CASES_MAX];
	size_t n = all_op_cases(cases);
	for (size_t i = 0; i < n; i++) {
		printf("op:%s\n", cases[i].name);
	}
}
