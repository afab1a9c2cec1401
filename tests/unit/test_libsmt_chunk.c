/*
 * Unit tests for clients/libsmt/chunker: a command stream cut into submits
 * of at most SMT_SUBMIT_MAX bytes loses, adds and reorders nothing; chunks
 * end on command boundaries unless a command is bigger than a chunk; and
 * chunks are packed greedily.
 */
#include "clients/libsmt/chunker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/unit_check.h"

#include "protocol/smt-ring-client.h"

static uint64_t rng = 0xdeadbeefcafef00du;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct stream {
	uint8_t *bytes;
	size_t len;
	size_t *starts; /* command start offsets, plus len at the end */
	size_t n_cmds;
};

static void make_stream(struct stream *s, size_t n, uint32_t max_size)
{
	s->starts = malloc((n + 1) * sizeof(*s->starts));
	s->bytes = malloc((size_t)n * max_size);
	s->len = 0;
	s->n_cmds = n;
	for (size_t i = 0; i < n; i++) {
		/* mostly small commands, some larger than a whole submit */
		uint32_t size = rnd() % 10 ? 8 + (uint32_t)(rnd() % 512) / 8 * 8 :
					     8 + (uint32_t)(rnd() % max_size) / 8 * 8;
		if (size > max_size)
			size = max_size;
		s->starts[i] = s->len;
		smt_encode_noop(s->bytes + s->len, SMT_OP_NOOP, size);
		for (uint32_t b = 8; b < size; b++)
			s->bytes[s->len + b] = (uint8_t)rnd();
		s->len += size;
	}
	s->starts[n] = s->len;
}

/* Index of the command containing byte `pos`, by binary search. */
static size_t cmd_at(const struct stream *s, size_t pos)
{
	size_t lo = 0, hi = s->n_cmds;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (s->starts[mid] <= pos)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Chunk s in flush groups of random command counts (as smt_flush would);
 * reassemble; verify every property. */
static void check_stream(const struct stream *s, size_t max)
{
	uint8_t *out = malloc(s->len);
	size_t out_len = 0, chunks = 0;
	struct smt_chunker c = { 0 };
	size_t cmd = 0;
	while (cmd < s->n_cmds) {
		size_t group = 1 + rnd() % 200;
		if (group > s->n_cmds - cmd)
			group = s->n_cmds - cmd;
		size_t from = s->starts[cmd], to = s->starts[cmd + group];
		size_t pos = from;
		while (pos < to) {
			size_t n = smt_chunk_next(&c, s->bytes + pos, to - pos, max);
			CHECK(n > 0 && n <= max && n <= to - pos);
			if (n == 0)
				return;
			memcpy(out + out_len, s->bytes + pos, n);
			out_len += n;
			pos += n;
			chunks++;
			if (pos < to) {
				size_t k = cmd_at(s, pos);
				size_t k_size = s->starts[k + 1] - s->starts[k];
				if (s->starts[k] != pos) {
					/* split inside a command: only a too-big one */
					CHECK(k_size > max);
				} else {
					/* greedy: the next command did not fit too */
					size_t chunk_start = pos - n;
					CHECK(pos - chunk_start + k_size > max);
				}
			}
		}
		CHECK(c.span_left == 0); /* a group always ends on a boundary */
		cmd += group;
	}
	CHECK(out_len == s->len && memcmp(out, s->bytes, s->len) == 0);
	free(out);
	(void)chunks;
}

static void test_exact(void)
{
	uint8_t buf[3 * SMT_SUBMIT_MAX];
	struct smt_chunker c = { 0 };
	/* one command of exactly max: one chunk */
	smt_encode_noop(buf, SMT_OP_NOOP, SMT_SUBMIT_MAX);
	CHECK(smt_chunk_next(&c, buf, SMT_SUBMIT_MAX, SMT_SUBMIT_MAX) == SMT_SUBMIT_MAX);
	CHECK(c.span_left == 0);
	/* max + 8, then three 8-byte commands: max | 8 + 24 */
	smt_encode_noop(buf, SMT_OP_NOOP, SMT_SUBMIT_MAX + 8);
	for (int i = 0; i < 3; i++)
		smt_encode_noop(buf + SMT_SUBMIT_MAX + 8 + 8 * i, SMT_OP_NOOP, 8);
	size_t len = SMT_SUBMIT_MAX + 32;
	CHECK(smt_chunk_next(&c, buf, len, SMT_SUBMIT_MAX) == SMT_SUBMIT_MAX);
	CHECK(c.span_left == 8);
	CHECK(smt_chunk_next(&c, buf + SMT_SUBMIT_MAX, 32, SMT_SUBMIT_MAX) == 32);
	CHECK(c.span_left == 0);
	/* small commands followed by a big one: the big one starts a chunk */
	smt_encode_noop(buf, SMT_OP_NOOP, 16);
	smt_encode_noop(buf + 16, SMT_OP_NOOP, 2 * SMT_SUBMIT_MAX);
	len = 16 + 2 * SMT_SUBMIT_MAX;
	CHECK(smt_chunk_next(&c, buf, len, SMT_SUBMIT_MAX) == 16);
	CHECK(smt_chunk_next(&c, buf + 16, len - 16, SMT_SUBMIT_MAX) == SMT_SUBMIT_MAX);
	CHECK(smt_chunk_next(&c, buf + 16 + SMT_SUBMIT_MAX, SMT_SUBMIT_MAX, SMT_SUBMIT_MAX) ==
			SMT_SUBMIT_MAX);
	CHECK(c.span_left == 0);
	/* nothing in, nothing out */
	CHECK(smt_chunk_next(&c, buf, 0, SMT_SUBMIT_MAX) == 0);
}

int main(void)
{
	test_exact();
	for (int round = 0; round < 20; round++) {
		struct stream s;
		make_stream(&s, 5000, round % 2 ? 3 * SMT_SUBMIT_MAX : 64 * 1024);
		check_stream(&s, SMT_SUBMIT_MAX);
		check_stream(&s, 64 + 8 * (size_t)(rnd() % 512)); /* odd maxima too */
		free(s.bytes);
		free(s.starts);
	}
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
