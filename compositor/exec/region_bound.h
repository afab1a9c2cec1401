/*
 * region_bound — how many boxes the union of a client's rectangles could
 * have, known before pixman builds it (pure).
 *
 * pixman keeps a region as y-bands of x-sorted boxes, and the union of n
 * rectangles can have about (n/2)^2 of them: n/2 rows one pixel high and
 * n/2 columns make a band for every gap between two rows with a box for
 * every column. One SET_CLIP of 4,095 rectangles (a 64 KiB command) made
 * a clip of 4 million boxes: 64 MiB of the compositor's heap held with
 * the ring, uncharged, and 150 ms of one command (docs/reliability.md,
 * "Counted, session 41"). The bound here is the sum, over the bands between
 * consecutive y edges, of the rectangles that cross the band: no band of
 * the union has more boxes than rectangles cross it. O(n log n).
 */
#ifndef SMT_REGION_BOUND_H
#define SMT_REGION_BOUND_H

#include <pixman.h>
#include <stdint.h>

/* The most boxes a region made from a client's rectangles may have
 * (SET_CLIP, PRESENT): 256 KiB of boxes. A region of non-overlapping
 * rectangles (an X region's banded list) is bounded by its own count, at
 * most 4,095 in a command. */
#define SMT_REGION_BOXES_MAX 16384u

/* An upper bound of the boxes of the union of boxes[0..n) (each non-empty),
 * or UINT64_MAX if the bound could not be computed (no memory). */
uint64_t smt_region_boxes_bound(const pixman_box32_t *boxes, int n);

#endif
