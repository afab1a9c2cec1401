/* Solid rows of 32-bit pixels: the wide plain-store fills (SRC, opaque
 * OVER) of boxes wider than paint_box's own stores. */
#ifndef SMT_SOLID_ROWS_H
#define SMT_SOLID_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Store `pixel` into h rows of w >= 8 pixels from x1 of `row` (the first
 * row), `stride` bytes apart; the caller has checked the box against the
 * image. False, storing nothing, on a CPU without wider stores than
 * pixman's: the caller fills as it would have. */
bool solid_rows_32(uint8_t *row, size_t stride, uint32_t pixel, int32_t x1, int32_t w, int32_t h);

#endif
