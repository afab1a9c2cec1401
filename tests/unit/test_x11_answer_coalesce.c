/*
 * The X server's answers to one client, framed across writes, and one
 * write's repeated PropertyNotify left out
 * (xwayland-glue/stream/x11_answer_coalesce.c): what is kept, byte for
 * byte; what a partial write stands for; streams cut anywhere; a new
 * value left out across writes until the window manager's next request.
 */
#include <stdlib.h>

#include "tests/unit/unit_check.h"
#include "xwayland-glue/stream/x11_answer_coalesce.h"

static uint8_t stream[4096];
static size_t slen;

static void put(const void *p, size_t n)
{
	memcpy(stream + slen, p, n);
	slen += n;
}

static void setup_reply(void)
{
	uint8_t m[16] = { 1 };
	uint16_t words = 2; /* 8 + 2 * 4 */
	memcpy(m + 6, &words, 2);
	put(m, sizeof(m));
}

static void property(uint32_t window, uint32_t atom, uint8_t state, uint16_t seq)
{
	uint8_t m[32] = { 28 };
	memcpy(m + 2, &seq, 2);
	memcpy(m + 4, &window, 4);
	memcpy(m + 8, &atom, 4);
	m[16] = state;
	put(m, sizeof(m));
}

static void simple(uint8_t type, uint32_t window)
{
	uint8_t m[32] = { type };
	memcpy(m + 4, &window, 4);
	put(m, sizeof(m));
}

/* A reply or GenericEvent with `extra` 4-byte words past 32 bytes; its
 * bytes past the header are 0x50 | type, PropertyNotify look-alikes. */
static void long_message(uint8_t type, uint32_t extra)
{
	uint8_t m[32 + 64];
	memset(m, 28, sizeof(m));
	m[0] = type;
	memcpy(m + 4, &extra, 4);
	put(m, 32 + 4 * extra);
}

static struct x11_coalesce_plan plan;

static void test_whole_write(void)
{
	current_test = "whole_write";
	slen = 0;
	setup_reply();                /* 0..16 */
	property(0x400001, 39, 0, 1); /* 16: kept */
	property(0x400001, 39, 0, 2); /* 48: left out */
	long_message(1, 8);           /* 80: a reply of 64 bytes */
	property(0x400001, 39, 0, 3); /* 144: left out */
	property(0x400001, 39, 1, 3); /* 176: another state: kept */
	property(0x600001, 39, 0, 3); /* 208: another window: kept */
	long_message(35, 16);         /* 240: a GenericEvent of 96 bytes */
	simple(17, 0x400001);         /* 336: DestroyNotify */
	property(0x400001, 39, 0, 4); /* 368: after it: kept */
	property(0x400001, 39, 0, 4); /* 400: left out */
	struct x11_answer_framer f = { 0 };
	uint8_t out[4096];
	size_t kept = x11_coalesce(&f, stream, slen, out, &plan);
	CHECK_INT(slen, 432);
	CHECK_INT(plan.left_out, 3);
	CHECK_INT(kept, slen - 3 * 32);
	CHECK_INT(plan.nranges, 3);
	/* Byte for byte what was kept, in order. */
	CHECK(memcmp(out, stream, 48) == 0);
	CHECK(memcmp(out + 48, stream + 80, 64) == 0);
	CHECK(memcmp(out + 112, stream + 176, 368 - 176) == 0);
	CHECK(memcmp(out + 112 + 192, stream + 368, 32) == 0);
	/* The framer was not moved by planning. */
	CHECK(!f.setup_done && f.left == 0);
	/* What partial writes stand for. */
	CHECK_INT(x11_coalesce_consumed(&plan, kept), slen);
	CHECK_INT(x11_coalesce_consumed(&plan, 0), 0);
	CHECK_INT(x11_coalesce_consumed(&plan, 20), 20);
	CHECK_INT(x11_coalesce_consumed(&plan, 48), 80); /* the left-out one with it */
	CHECK_INT(x11_coalesce_consumed(&plan, 60), 92); /* inside the reply */
	CHECK_INT(x11_coalesce_consumed(&plan, 112), 176);
	x11_answer_framer_feed(&f, stream, x11_coalesce_consumed(&plan, 60));
	CHECK(f.setup_done);
	CHECK_INT(f.left, 64 - 12);
}

/* Cut anywhere: pieces of every size pass whole (a PropertyNotify must be
 * whole in one write to be left out) and the framer follows. The window
 * manager answers between writes here (requests read), so only one
 * write's repeats could go. */
static void test_cut_anywhere(void)
{
	current_test = "cut_anywhere";
	slen = 0;
	setup_reply();
	for (int i = 0; i < 6; i++) {
		property(0x400001, 39, 0, (uint16_t)i);
		long_message(1, (uint32_t)i);
	}
	size_t whole = slen;
	for (size_t piece = 1; piece <= 40; piece++) {
		struct x11_answer_framer f = { 0 };
		uint8_t out[4096];
		size_t got = 0, left_out = 0;
		for (size_t at = 0; at < whole; at += piece) {
			size_t n = whole - at < piece ? whole - at : piece;
			size_t kept = x11_coalesce(&f, stream + at, n, out + got, &plan);
			/* Each piece written whole. */
			CHECK_INT(x11_coalesce_consumed(&plan, kept), n);
			left_out += plan.left_out;
			got += kept;
			x11_answer_framer_feed(&f, stream + at, n);
			x11_answer_framer_requests_read(&f);
		}
		CHECK(f.setup_done && f.left == 0 && f.head_have == 0);
		/* Pieces under 64 bytes never hold two PropertyNotify whole. */
		if (piece < 64) {
			CHECK_INT(left_out, 0);
			CHECK_INT(got, whole);
			CHECK(memcmp(out, stream, whole) == 0);
		}
	}
	/* In one write, the repeats go, the replies stay whole. */
	struct x11_answer_framer f = { 0 };
	uint8_t out[4096];
	x11_coalesce(&f, stream, whole, out, &plan);
	CHECK_INT(plan.left_out, 5);
	CHECK_INT(plan.kept, whole - 5 * 32);
}

/* A reply's payload that looks like a PropertyNotify is never touched;
 * a write that starts inside a message passes it through first. */
static void test_inside_messages(void)
{
	current_test = "inside_messages";
	slen = 0;
	setup_reply();
	long_message(1, 16); /* payload of 64 bytes of 28s */
	property(0x400001, 39, 0, 1);
	property(0x400001, 39, 0, 2);
	struct x11_answer_framer f = { 0 };
	uint8_t out[4096];
	/* The first 40 bytes went (setup and 24 of the reply). */
	x11_answer_framer_feed(&f, stream, 40);
	x11_coalesce(&f, stream + 40, slen - 40, out, &plan);
	CHECK_INT(plan.left_out, 1);
	CHECK_INT(plan.kept, slen - 40 - 32);
	CHECK(memcmp(out, stream + 40, plan.kept) == 0);
}

/* Consumed bytes of one write, fed as the X server half does. */
static size_t write_all(struct x11_answer_framer *f, const uint8_t *in, size_t n, uint8_t *out)
{
	size_t kept = x11_coalesce(f, in, n, out, &plan);
	x11_answer_framer_feed(f, in, x11_coalesce_consumed(&plan, kept));
	return kept;
}

/* A new value written and not yet answered by a request of the window
 * manager: the next ones of the same window and property are left out in
 * later writes too, and so are deletions after a deletion; other
 * properties, a DestroyNotify, a read of requests and what a partial
 * write did not write end it. */
static void test_across_writes(void)
{
	current_test = "across_writes";
	struct x11_answer_framer f = { 0 };
	uint8_t out[4096];
	slen = 0;
	setup_reply();
	property(0x400001, 39, 0, 1);
	CHECK_INT(write_all(&f, stream, slen, out), slen);

	slen = 0;
	property(0x400001, 39, 0, 2); /* left out: unanswered */
	property(0x400001, 40, 0, 2); /* another property: kept */
	property(0x400001, 39, 1, 2); /* a deletion: kept (its state is new) */
	CHECK_INT(write_all(&f, stream, slen, out), 64);
	CHECK_INT(plan.left_out, 1);
	CHECK(memcmp(out, stream + 32, 64) == 0);

	/* Set and deleted in turn (session 29's red team: title-delete-loop):
	 * until a request of the window manager is read, both states were
	 * written once and every later one is a repeat. */
	slen = 0;
	property(0x400001, 39, 0, 3);
	property(0x400001, 39, 1, 3);
	CHECK_INT(write_all(&f, stream, slen, out), 0);
	CHECK_INT(plan.left_out, 2);

	slen = 0;
	property(0x400001, 40, 0, 3); /* one write alone: left out whole */
	CHECK_INT(write_all(&f, stream, slen, out), 0);
	CHECK_INT(plan.left_out, 1);
	CHECK_INT(x11_coalesce_consumed(&plan, 0), 32);

	x11_answer_framer_requests_read(&f);
	slen = 0;
	property(0x400001, 39, 0, 4); /* the window manager asked since: kept */
	property(0x400001, 39, 0, 4); /* its repeat in the write: left out */
	CHECK_INT(write_all(&f, stream, slen, out), 32);

	slen = 0;
	simple(17, 0x400001);         /* DestroyNotify */
	property(0x400001, 39, 0, 5); /* the id may be another window's: kept */
	CHECK_INT(write_all(&f, stream, slen, out), 64);
	CHECK_INT(plan.left_out, 0);

	/* A write that takes only the first of two: the second was not
	 * written, so it is not taken as answered. */
	x11_answer_framer_requests_read(&f);
	slen = 0;
	property(0x500001, 41, 0, 6);
	property(0x500001, 42, 0, 6);
	size_t kept = x11_coalesce(&f, stream, slen, out, &plan);
	CHECK_INT(kept, 64);
	x11_answer_framer_feed(&f, stream, x11_coalesce_consumed(&plan, 32));
	CHECK_INT(write_all(&f, stream + 32, 32, out), 32);
	CHECK_INT(plan.left_out, 0);
	/* ...and the first was. */
	CHECK_INT(write_all(&f, stream, 32, out), 0);
}

int main(void)
{
	test_whole_write();
	test_cut_anywhere();
	test_inside_messages();
	test_across_writes();
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
	}
	return failures ? 1 : 0;
}
