/* Unit tests for the X11 shim's segment sub-allocator (xwayland-glue/shim/shm_segment_alloc.c). */
#include "xwayland-glue/shim/shm_segment_alloc.h"
#include "tests/unit/unit_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_basic(void)
{
	current_test = "basic";
	struct xshim_segment_alloc r;
	CHECK(xshim_segment_alloc_init(&r, 4096));
	uint32_t off, id, off2, id2;
	CHECK(xshim_segment_alloc_reserve(&r, 100, &off, &id));
	CHECK_INT(off, 0);
	CHECK_INT(xshim_segment_alloc_used(&r), 128); /* rounded to the alignment */
	CHECK(xshim_segment_alloc_reserve(&r, 200, &off2, &id2));
	CHECK_INT(off2, 128);
	CHECK(xshim_segment_alloc_busy(&r));
	xshim_segment_alloc_commit(&r, id, 10);
	xshim_segment_alloc_commit(&r, id2, 11);
	CHECK_INT(xshim_segment_alloc_retire(&r, 9), 0);
	CHECK_INT(xshim_segment_alloc_retire(&r, 10), 128);
	CHECK_INT(xshim_segment_alloc_retire(&r, 11), 256);
	CHECK(!xshim_segment_alloc_busy(&r));
	CHECK_INT(xshim_segment_alloc_used(&r), 0);
	/* Empty again: the next allocation restarts at 0. */
	CHECK(xshim_segment_alloc_reserve(&r, 1, &off, &id));
	CHECK_INT(off, 0);
	/* Zero bytes still get a slot; more than the segment never fits. */
	CHECK(xshim_segment_alloc_reserve(&r, 0, &off, &id));
	CHECK_INT(off, 64);
	CHECK(!xshim_segment_alloc_reserve(&r, 4097, &off, &id));
	xshim_segment_alloc_finish(&r);

	CHECK(!xshim_segment_alloc_init(&r, 10)); /* smaller than one aligned unit */
	xshim_segment_alloc_finish(&r);
}

static void test_full_and_wrap(void)
{
	current_test = "full_and_wrap";
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, 1024);
	uint32_t a, ida, b, idb, c, idc;
	CHECK(xshim_segment_alloc_reserve(&r, 640, &a, &ida));
	CHECK(xshim_segment_alloc_reserve(&r, 256, &b, &idb));
	CHECK_INT(b, 640);
	CHECK(!xshim_segment_alloc_reserve(&r, 256, &c, &idc)); /* 128 left at the end */
	xshim_segment_alloc_release(&r, ida);
	/* 128 at the end is too little: the allocation wraps to 0 and the
	 * skipped end is charged to it. */
	CHECK(xshim_segment_alloc_reserve(&r, 256, &c, &idc));
	CHECK_INT(c, 0);
	CHECK_INT(xshim_segment_alloc_used(&r), 256 + 128 + 256);
	xshim_segment_alloc_release(&r, idb);
	CHECK_INT(xshim_segment_alloc_used(&r), 128 + 256);
	xshim_segment_alloc_release(&r, idc);
	CHECK_INT(xshim_segment_alloc_used(&r), 0);

	/* Exactly full, then exactly empty. */
	CHECK(xshim_segment_alloc_reserve(&r, 512, &a, &ida));
	CHECK(xshim_segment_alloc_reserve(&r, 512, &b, &idb));
	CHECK_INT(xshim_segment_alloc_used(&r), 1024);
	CHECK(!xshim_segment_alloc_reserve(&r, 1, &c, &idc));
	xshim_segment_alloc_commit(&r, ida, 1);
	xshim_segment_alloc_commit(&r, idb, 2);
	CHECK_INT(xshim_segment_alloc_retire(&r, 2), 1024);
	CHECK(xshim_segment_alloc_reserve(&r, 1024, &a, &ida));
	CHECK_INT(a, 0);
	xshim_segment_alloc_finish(&r);
}

static void test_held_blocks(void)
{
	current_test = "held_blocks";
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, 1024);
	uint32_t a, ida, b, idb, c, idc;
	CHECK(xshim_segment_alloc_reserve(&r, 256, &a, &ida)); /* a pending GetImage */
	CHECK(xshim_segment_alloc_reserve(&r, 256, &b, &idb));
	CHECK(xshim_segment_alloc_reserve(&r, 256, &c, &idc));
	CHECK(!xshim_segment_alloc_waiting(&r)); /* only held: no fence would help */
	xshim_segment_alloc_commit(&r, idb, 5);
	xshim_segment_alloc_commit(&r, idc, 6);
	CHECK(xshim_segment_alloc_waiting(&r));
	/* b and c are done, but a still holds the tail. */
	CHECK_INT(xshim_segment_alloc_retire(&r, 100), 0);
	CHECK_INT(xshim_segment_alloc_used(&r), 768);
	CHECK(!xshim_segment_alloc_waiting(&r));
	xshim_segment_alloc_release(&r, ida);
	CHECK_INT(xshim_segment_alloc_used(&r), 0);
	xshim_segment_alloc_finish(&r);
}

static void test_out_of_order_commit(void)
{
	current_test = "out_of_order_commit";
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, 1024);
	uint32_t a, ida, b, idb;
	CHECK(xshim_segment_alloc_reserve(&r, 64, &a, &ida));
	CHECK(xshim_segment_alloc_reserve(&r, 64, &b, &idb));
	/* Two threads: the later allocation was sent first. */
	xshim_segment_alloc_commit(&r, idb, 7);
	xshim_segment_alloc_commit(&r, ida, 9);
	CHECK_INT(xshim_segment_alloc_retire(&r, 8), 0); /* b is free but behind a */
	CHECK_INT(xshim_segment_alloc_retire(&r, 9), 128);
	/* Committing or releasing an id twice, or an unknown id, is harmless. */
	xshim_segment_alloc_commit(&r, ida, 20);
	xshim_segment_alloc_release(&r, idb);
	xshim_segment_alloc_release(&r, 12345);
	CHECK_INT(xshim_segment_alloc_used(&r), 0);
	xshim_segment_alloc_finish(&r);
}

static void test_sequence_wrap(void)
{
	current_test = "sequence_wrap";
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, 1024);
	uint32_t a, ida;
	CHECK(xshim_segment_alloc_reserve(&r, 64, &a, &ida));
	xshim_segment_alloc_commit(&r, ida, 0xfffffff0u);
	CHECK_INT(xshim_segment_alloc_retire(&r, 0xffffffe0u), 0); /* before it */
	CHECK_INT(xshim_segment_alloc_retire(&r, 5), 64);          /* after it, wrapped */
	CHECK(xshim_seq_le(0xffffffffu, 0));
	CHECK(!xshim_seq_le(1, 0xffffffffu));
	xshim_segment_alloc_finish(&r);
}

static void test_queue_growth(void)
{
	current_test = "queue_growth";
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, 1 << 20);
	uint32_t off, ids[100];
	for (int i = 0; i < 10; i++)
		CHECK(xshim_segment_alloc_reserve(&r, 64, &off, &ids[i]));
	for (int i = 0; i < 5; i++)
		xshim_segment_alloc_release(&r, ids[i]);
	/* The bookkeeping wraps around its array, then grows. */
	for (int i = 10; i < 100; i++)
		CHECK(xshim_segment_alloc_reserve(&r, 64, &off, &ids[i]));
	CHECK_INT(xshim_segment_alloc_used(&r), 95 * 64);
	for (int i = 5; i < 100; i++)
		xshim_segment_alloc_commit(&r, ids[i], (uint32_t)i);
	CHECK_INT(xshim_segment_alloc_retire(&r, 99), 95 * 64);
	xshim_segment_alloc_finish(&r);
}

/* Random operations against a model: live allocations never overlap, never
 * leave the segment, and everything comes back. */
static void test_random(void)
{
	current_test = "random";
	enum {
		SIZE = 64 * 1024,
		MAXLIVE = 512
	};
	struct live {
		uint32_t off, len, id, seq;
		int state; /* 0 held, 1 committed */
	} live[MAXLIVE];
	int n = 0;
	uint32_t seq = 0xfffff000u; /* cross the wrap too */
	uint64_t s = 88172645463325252ull;
	struct xshim_segment_alloc r;
	xshim_segment_alloc_init(&r, SIZE);
	for (int step = 0; step < 200000; step++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		int op = (int)(s % 10);
		if (op < 5 && n < MAXLIVE) {
			uint32_t len = (uint32_t)(s >> 20) % 9000, off, id;
			if (xshim_segment_alloc_reserve(&r, len, &off, &id)) {
				/* What it really takes: rounded up, at least one unit. */
				len = len ? (len + XSHIM_SEGMENT_ALIGN - 1) / XSHIM_SEGMENT_ALIGN *
								XSHIM_SEGMENT_ALIGN :
					    XSHIM_SEGMENT_ALIGN;
				CHECK(off % XSHIM_SEGMENT_ALIGN == 0);
				CHECK(off + len <= SIZE);
				for (int i = 0; i < n; i++)
					CHECK(off + len <= live[i].off ||
							live[i].off + live[i].len <= off);
				live[n++] = (struct live){ off, len, id, 0, 0 };
			}
		} else if (op < 7 && n) {
			int i = (int)((s >> 32) % (uint64_t)n);
			if (live[i].state == 0) {
				live[i].seq = ++seq;
				live[i].state = 1;
				xshim_segment_alloc_commit(&r, live[i].id, live[i].seq);
			}
		} else if (op < 9) {
			uint32_t done = seq - (uint32_t)((s >> 40) % 4);
			xshim_segment_alloc_retire(&r, done);
			for (int i = 0; i < n;) {
				if (live[i].state == 1 && xshim_seq_le(live[i].seq, done)) {
					n--;
					live[i] = live[n];
				} else {
					i++;
				}
			}
		} else if (n) {
			int i = (int)((s >> 32) % (uint64_t)n);
			if (live[i].state == 0) {
				xshim_segment_alloc_release(&r, live[i].id);
				live[i] = live[--n];
			}
		}
		CHECK(xshim_segment_alloc_used(&r) <= SIZE);
		if (failures > 20)
			break;
	}
	xshim_segment_alloc_retire(&r, seq);
	CHECK(!xshim_segment_alloc_waiting(&r)); /* every commit retired */
	for (int i = 0; i < n; i++)
		if (live[i].state == 0)
			xshim_segment_alloc_release(&r, live[i].id);
	CHECK_INT(xshim_segment_alloc_used(&r), 0);
	CHECK(!xshim_segment_alloc_busy(&r));
	xshim_segment_alloc_finish(&r);
}

int main(void)
{
	test_basic();
	test_full_and_wrap();
	test_held_blocks();
	test_out_of_order_commit();
	test_sequence_wrap();
	test_queue_growth();
	test_random();
	if (failures) {
		fprintf(stderr, "test_x11shim_segment_alloc: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_x11shim_segment_alloc: all checks passed\n");
	return 0;
}
