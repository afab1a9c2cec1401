/*
 * region_bound.h: the union's boxes bounded band by band.
 */
#include "compositor/exec/region_bound.h"

#include <stdlib.h>

struct y_edge {
	int32_t y;
	int32_t delta; /* +1: a rectangle starts; -1: one ends */
};

static int by_y(const void *a, const void *b)
{
	const struct y_edge *p = a, *q = b;
	return (p->y > q->y) - (p->y < q->y);
}

uint64_t smt_region_boxes_bound(const pixman_box32_t *boxes, int n)
{
	if (n <= 1)
		return n < 0 ? 0 : (uint64_t)n;
	struct y_edge *edges = malloc((size_t)n * 2 * sizeof(*edges));
	if (!edges)
		return UINT64_MAX;
	for (int i = 0; i < n; i++) {
		edges[2 * i] = (struct y_edge){ boxes[i].y1, 1 };
		edges[2 * i + 1] = (struct y_edge){ boxes[i].y2, -1 };
	}
	qsort(edges, (size_t)n * 2, sizeof(*edges), by_y);
	uint64_t bound = 0;
	int64_t crossing = 0;
	for (int i = 0; i < 2 * n; i++) {
		/* The band [edges[i-1].y, edges[i].y) is crossed by `crossing`. */
		if (i > 0 && edges[i].y != edges[i - 1].y)
			bound += (uint64_t)crossing;
		crossing += edges[i].delta;
	}
	free(edges);
	return bound;
}
