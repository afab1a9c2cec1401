/* Regions from a client's rectangles (session 41, exec/region_bound.c): the
 * bound is never below the boxes pixman makes of the union (random sets,
 * overlapping and not), equals the count for rectangles that do not
 * overlap (an X region's banded list, a checkerboard), and refuses the
 * grid of rows and columns whose union is millions of boxes. */
#include <pixman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "compositor/exec/region_bound.h"

static int failures;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			failures++;                                          \
		}                                                            \
	} while (0)

static uint64_t pixman_boxes(const pixman_box32_t *b, int n)
{
	pixman_region32_t r;
	pixman_region32_init_rects(&r, b, n);
	uint64_t boxes = (uint64_t)pixman_region32_n_rects(&r);
	pixman_region32_fini(&r);
	return boxes;
}

static uint32_t rnd_state = 12345;
static int32_t rnd(int32_t below)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (int32_t)((rnd_state >> 8) % (uint32_t)below);
}

enum {
	MAX_N = 4095
};
static pixman_box32_t boxes[MAX_N];

int main(void)
{
	/* Random sets in a small and a large space: an upper bound. */
	for (int round = 0; round < 400; round++) {
		int n = 1 + rnd(round < 200 ? 40 : 600);
		int32_t space = round % 2 ? 64 : 4096;
		for (int i = 0; i < n; i++) {
			int32_t x = rnd(space), y = rnd(space);
			boxes[i] = (pixman_box32_t){ x, y, x + 1 + rnd(space / 4),
				y + 1 + rnd(space / 4) };
		}
		uint64_t bound = smt_region_boxes_bound(boxes, n), made = pixman_boxes(boxes, n);
		CHECK(bound >= made,
				"round %d: %d rectangles, bound %llu below pixman's %llu boxes",
				round, n, (unsigned long long)bound, (unsigned long long)made);
	}
	/* A checkerboard of 4,095 cells that do not overlap: its own count. */
	int n = 0;
	for (int32_t y = 0; y < 91 && n < MAX_N; y++)
		for (int32_t x = y % 2; x < 90 && n < MAX_N; x += 2)
			boxes[n++] = (pixman_box32_t){ x * 8, y * 8, x * 8 + 8, y * 8 + 8 };
	CHECK(smt_region_boxes_bound(boxes, n) == (uint64_t)n, "checkerboard of %d: bound %llu", n,
			(unsigned long long)smt_region_boxes_bound(boxes, n));
	CHECK(smt_region_boxes_bound(boxes, n) <= SMT_REGION_BOXES_MAX, "checkerboard refused");
	/* The grid: 2,047 rows and 2,047 columns. */
	n = 0;
	for (int32_t i = 0; i < 2047; i++) {
		boxes[n++] = (pixman_box32_t){ 0, 2 * i, 4096, 2 * i + 1 };
		boxes[n++] = (pixman_box32_t){ 2 * i, 0, 2 * i + 1, 4096 };
	}
	/* (pixman's union of it is not built here: 4 million boxes, grown
	 * by realloc, take minutes under ASan) */
	uint64_t bound = smt_region_boxes_bound(boxes, n);
	CHECK(bound > SMT_REGION_BOXES_MAX, "grid: bound %llu", (unsigned long long)bound);
	CHECK(smt_region_boxes_bound(boxes, 0) == 0 && smt_region_boxes_bound(boxes, 1) == 1,
			"none and one");
	if (failures)
		return 1;
	printf("test_ring_region_bound: ok\n");
	return 0;
}
