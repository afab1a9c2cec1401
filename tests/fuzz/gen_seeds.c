/*
 * Writes the seed corpus for fuzz_ring (valid command streams in its input
 * format) into the directory given as argv[1]. Run by tests/fuzz/run.sh;
 * the output is also committed under tests/fuzz/corpus/. Besides the
 * scenarios, one seed per row of the opcode table (smt-ring.h): a new
 * opcode does not compile here until it has a sample_<fixed> below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/smt-ring-client.h"

struct seed {
	_Alignas(8) uint8_t out[16384];
	size_t len;
	_Alignas(8) uint8_t chunk[8192];
	size_t chunk_len;
	uint64_t head; /* ring position, for PADs */
	uint32_t area;
	int ring;
};

static void begin(struct seed *s, int ring, unsigned area_shift, uint8_t budget)
{
	memset(s, 0, sizeof(*s));
	s->ring = ring;
	s->area = 4096u << area_shift;
	s->out[0] = (uint8_t)((ring ? 0 : 1) | area_shift << 1 | 8);
	s->out[1] = budget;
	s->len = 2;
}

static void flush(struct seed *s)
{
	if (!s->chunk_len)
		return;
	s->out[s->len++] = (uint8_t)s->chunk_len;
	s->out[s->len++] = (uint8_t)(s->chunk_len >> 8);
	memcpy(s->out + s->len, s->chunk, s->chunk_len);
	s->len += s->chunk_len;
	s->chunk_len = 0;
}

/* Append one command as a well-behaved client would (PAD before a wrap,
 * a new chunk before the ring could overflow). */
static void add(struct seed *s, const void *cmd, uint32_t size)
{
	if (s->ring) {
		uint32_t pad = smt_ring_pad_needed(s->head, s->area, size);
		if (s->chunk_len + pad + size > s->area)
			flush(s);
		if (pad) {
			smt_encode_noop(s->chunk + s->chunk_len, SMT_OP_PAD, pad);
			s->chunk_len += pad;
			s->head += pad;
		}
		s->head += size;
	} else if (s->chunk_len + size > 4096) {
		flush(s);
	}
	memcpy(s->chunk + s->chunk_len, cmd, size);
	s->chunk_len += size;
}

#define ADD(s, call)                          \
	do {                                  \
		_Alignas(8) uint8_t b_[4096]; \
		add(s, b_, (call));           \
	} while (0)

static void write_seed(struct seed *s, const char *dir, const char *name)
{
	flush(s);
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(s->out, 1, s->len, f) != s->len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void everything(struct seed *s)
{
	static const uint8_t atlas[8 * 8] = { [0] = 255, [9] = 255, [18] = 255, [27] = 255 };
	static const uint32_t px[4 * 4] = { 0xff0000ff, 0x80800000, 0, 0xffffffff };
	struct smt_rect r[3] = { { 1, 1, 10, 10 }, { -3, 5, 100, 2 }, { 60, 40, 20, 20 } };
	struct smt_point p[2] = { { 3, 3 }, { 66, 44 } };
	struct smt_segment sg[2] = { { 0, 0, 66, 44 }, { 60, 2, 5, 40 } };
	struct smt_glyph g[2] = { { 0, 0, 4, 4, 0, 0 }, { 4, 4, 4, 4, 6, 0 } };

	ADD(s, smt_encode_create_pixmap(b_, 10, 8, 8, SMT_FORMAT_A8));
	ADD(s, smt_encode_create_pixmap(b_, 11, 16, 16, SMT_FORMAT_ARGB8888));
	ADD(s, smt_encode_set_target(b_, 10));
	ADD(s, smt_encode_put_image(b_, 0, 0, 8, 8, SMT_FORMAT_A8, 8, atlas));
	ADD(s, smt_encode_set_target(b_, 11));
	ADD(s, smt_encode_put_image(b_, 2, 2, 4, 4, SMT_FORMAT_ARGB8888, 16, px));
	ADD(s, smt_encode_set_target(b_, 1));
	ADD(s, smt_encode_fill_rects(b_, SMT_PAINT_OVER, 0x80402010, 3, r));
	ADD(s, smt_encode_set_clip(b_, 2, r));
	ADD(s, smt_encode_points(b_, SMT_PAINT_SRC, 0xffffffff, 2, p));
	ADD(s, smt_encode_segments(b_, SMT_PAINT_SRC, 0xff00ff00, 0, 2, sg));
	ADD(s, smt_encode_segments(b_, SMT_PAINT_OVER, 0x80000080, 7, 2, sg));
	ADD(s, smt_encode_set_clip(b_, 0, NULL));
	ADD(s, smt_encode_glyphs(b_, SMT_PAINT_OVER, 0xff102030, 10, 5, 30, 2, g));
	ADD(s, smt_encode_put_image_pool(b_, 1, 64, 32, 8, 8, SMT_FORMAT_XRGB8888, 40, 10));
	ADD(s, smt_encode_copy_area(b_, 11, 0, 0, 16, 16, 20, 20));
	ADD(s, smt_encode_copy_area(b_, 1, 0, 3, 67, 40, 0, 0));
	ADD(s, smt_encode_composite(b_, SMT_PAINT_OVER, 11, 10, 0, 0, 0, 0, 30, 5, 16, 16));
	ADD(s, smt_encode_composite(b_, SMT_PAINT_ADD, 1, 0, 2, 2, 0, 0, 0, 0, 40, 40));
	ADD(s, smt_encode_set_target(b_, 2));
	ADD(s, smt_encode_fill_rects(b_, SMT_PAINT_ADD, 0x40000000, 3, r));
	ADD(s, smt_encode_present(b_, 1, 1, 1, r));
	ADD(s, smt_encode_free_pixmap(b_, 11));
	ADD(s, smt_encode_free_pixmap(b_, 10));
	ADD(s, smt_encode_fence(b_, 42));
}

/* ---- one valid command per opcode, after a common set-up: pixmap 10 A8,
 * pixmap 11 ARGB, target canvas 1 (the harness's canvas; pool 1 is its). */

static uint32_t sample_header(uint8_t *b, uint16_t opcode)
{
	return smt_encode_noop(b, opcode, 16);
}
static uint32_t sample_create_pixmap(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_create_pixmap(b, 12, 4, 4, SMT_FORMAT_XRGB8888);
}
static uint32_t sample_free_pixmap(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_free_pixmap(b, 11);
}
static uint32_t sample_set_target(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_set_target(b, 11);
}
static const struct smt_rect sample_rects[2] = { { 1, 1, 10, 10 }, { 60, 40, 20, 20 } };
static uint32_t sample_set_clip(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_set_clip(b, 2, sample_rects);
}
static uint32_t sample_fill_rects(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_fill_rects(b, SMT_PAINT_OVER, 0x80402010, 2, sample_rects);
}
static uint32_t sample_points(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	static const struct smt_point p[2] = { { 3, 3 }, { 66, 44 } };
	return smt_encode_points(b, SMT_PAINT_SRC, 0xffffffff, 2, p);
}
static uint32_t sample_segments(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	static const struct smt_segment sg[2] = { { 0, 0, 66, 44 }, { 60, 2, 5, 40 } };
	return smt_encode_segments(b, SMT_PAINT_OVER, 0x80000080, 3, 2, sg);
}
static uint32_t sample_put_image(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	static const uint32_t px[2 * 2] = { 0xff0000ff, 0x80800000, 0, 0xffffffff };
	return smt_encode_put_image(b, 2, 2, 2, 2, SMT_FORMAT_ARGB8888, 8, px);
}
static uint32_t sample_put_image_pool(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_put_image_pool(b, 1, 64, 32, 8, 8, SMT_FORMAT_XRGB8888, 40, 10);
}
static uint32_t sample_copy_area(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_copy_area(b, 11, 0, 0, 16, 16, 20, 20);
}
static uint32_t sample_composite(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_composite(b, SMT_PAINT_OVER, 11, 10, 0, 0, 0, 0, 30, 5, 16, 16);
}
static uint32_t sample_glyphs(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	static const struct smt_glyph g[2] = { { 0, 0, 4, 4, 0, 0 }, { 4, 4, 4, 4, 6, 0 } };
	return smt_encode_glyphs(b, SMT_PAINT_OVER, 0xff102030, 10, 5, 30, 2, g);
}
static uint32_t sample_present(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_present(b, 1, 1, 1, sample_rects);
}
static uint32_t sample_fence(uint8_t *b, uint16_t opcode)
{
	(void)opcode;
	return smt_encode_fence(b, 7);
}

/* Runs of small FILL_RECTS (executor.c frames them together) across the
 * wrap, with ops and colours changing and staying, through a clip of two
 * rectangles, into the A8 canvas and back, ending at a bad header right
 * after a run that drew. */
static void fill_runs(struct seed *s)
{
	static const uint32_t ops[] = { SMT_PAINT_SRC, SMT_PAINT_SRC, SMT_PAINT_OVER,
		SMT_PAINT_CLEAR, SMT_PAINT_ADD, SMT_PAINT_XOR };
	const struct smt_rect clip[2] = { { 2, 2, 20, 10 }, { 30, 20, 30, 20 } };
	ADD(s, smt_encode_set_target(b_, 1));
	for (int i = 0; i < 150; i++) {
		struct smt_rect r[4];
		for (int k = 0; k < 4; k++)
			r[k] = (struct smt_rect){ (i * 5 + k * 3) % 70 - 2,
				(i * 3 + k * 7) % 47 - 1, 1u + (unsigned)(i + k) % 6,
				1u + (unsigned)(i * k) % 5 };
		if (i == 50)
			ADD(s, smt_encode_set_clip(b_, 2, clip));
		if (i == 100)
			ADD(s, smt_encode_set_target(b_, 2));
		if (i == 130)
			ADD(s, smt_encode_set_target(b_, 1));
		ADD(s,
				smt_encode_fill_rects(b_, ops[i / 3 % 6],
						(i / 2 % 2 ? 0xff000000u : 0x80000000u) |
								(uint32_t)(i * 0x010101 & 0x7f7f7f),
						1 + (uint32_t)i % 4, r));
	}
	_Alignas(8) uint8_t bad[64];
	struct smt_rect one = { 1, 1, 2, 2 };
	uint32_t n = smt_encode_fill_rects(bad, SMT_PAINT_SRC, 0xff00ff00u, 1, &one);
	bad[2] = 1; /* header flags */
	add(s, bad, n);
}

static void one_opcode(struct seed *s, uint16_t opcode)
{
	ADD(s, smt_encode_create_pixmap(b_, 10, 8, 8, SMT_FORMAT_A8));
	ADD(s, smt_encode_create_pixmap(b_, 11, 16, 16, SMT_FORMAT_ARGB8888));
	ADD(s, smt_encode_set_target(b_, 1));
	switch (opcode) {
#define SAMPLE_(name, number, fixed, element, copy) \
	case SMT_OP_##name:                         \
		ADD(s, sample_##fixed(b_, opcode)); \
		break;
		SMT_OPCODES(SAMPLE_)
#undef SAMPLE_
	}
	ADD(s, smt_encode_fence(b_, 1));
}

int main(int argc, char **argv)
{
	struct seed *s = malloc(sizeof(*s));
	if (argc != 2 || !s)
		return 2;
	begin(s, 1, 0, 0);
	everything(s);
	write_seed(s, argv[1], "ring_all_opcodes");

	begin(s, 0, 0, 0);
	everything(s);
	write_seed(s, argv[1], "submit_all_opcodes");

	begin(s, 1, 0, 16); /* many laps around a 4 KiB ring, small budget */
	for (int i = 0; i < 6; i++)
		everything(s);
	write_seed(s, argv[1], "ring_wrapping_budget");

	begin(s, 1, 1, 12);
	ADD(s, smt_encode_set_target(b_, 1));
	for (int i = 0; i < 40; i++) {
		struct smt_rect r = { i, i, 30, 3 };
		ADD(s, smt_encode_fill_rects(b_, SMT_PAINT_XOR, 0xff0f0f0f, 1, &r));
		ADD(s, smt_encode_copy_area(b_, 1, 0, 1, 67, 44, 0, 0));
	}
	write_seed(s, argv[1], "ring_scrolling");

	begin(s, 1, 2, 10); /* self-referencing composites, long wide lines */
	{
		struct smt_segment sg[80];
		for (int i = 0; i < 80; i++)
			sg[i] = (struct smt_segment){ i, 0, 40 - i, 20 };
		ADD(s, smt_encode_set_target(b_, 2));
		ADD(s, smt_encode_composite(b_, SMT_PAINT_IN, 1, 2, 0, 0, 3, 1, 0, 0, 31, 17));
		ADD(s, smt_encode_set_target(b_, 3));
		ADD(s, smt_encode_composite(b_, SMT_PAINT_OVER, 3, 2, 2, 1, 0, 0, 0, 0, 20, 9));
		ADD(s, smt_encode_copy_area(b_, 3, 1, 1, 19, 8, 0, 0));
		ADD(s, smt_encode_segments(b_, SMT_PAINT_ADD, 0x20202020, 3, 80, sg));
	}
	write_seed(s, argv[1], "ring_self_and_lines");

	begin(s, 1, 0, 0);
	fill_runs(s);
	write_seed(s, argv[1], "ring_fill_runs");

	begin(s, 0, 0, 0);
	fill_runs(s);
	write_seed(s, argv[1], "submit_fill_runs");

#define OP_SEED_(name, number, fixed, element, copy) \
	begin(s, 1, 0, 0);                           \
	one_opcode(s, SMT_OP_##name);                \
	write_seed(s, argv[1], "ring_op_" #name);
	SMT_OPCODES(OP_SEED_)
#undef OP_SEED_
	free(s);
	return 0;
}
