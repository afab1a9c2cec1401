/*
 * command_decode — turn a copied-out command into a typed, fully validated
 * view. Everything that can be checked without executor state is checked
 * here, before any pixel is touched: exact sizes against counts, reserved
 * fields, ops, formats, colours, line widths, strides and every coordinate
 * against +-SMT_COORD_MAX (so all later arithmetic fits in int64). A command
 * is therefore rejected whole or executed whole, never half-drawn and then
 * refused. State checks (ids, bounds of drawables and pools) are the
 * executor's.
 */
#ifndef SMT_COMMAND_DECODE_H
#define SMT_COMMAND_DECODE_H

#include "compositor/exec/ring_reader.h"
#include "protocol/smt-ring.h"

struct smt_decoded {
	uint16_t opcode;
	union {
		struct smt_cmd_header hdr;
		struct smt_cmd_create_pixmap create;
		struct smt_cmd_free_pixmap free_pixmap;
		struct smt_cmd_set_target set_target;
		struct smt_cmd_set_clip set_clip;
		struct smt_cmd_fill_rects fill;
		struct smt_cmd_points points;
		struct smt_cmd_segments segments;
		struct smt_cmd_put_image put;
		struct smt_cmd_put_image_pool put_pool;
		struct smt_cmd_copy_area copy;
		struct smt_cmd_composite composite;
		struct smt_cmd_glyphs glyphs;
		struct smt_cmd_present present;
		struct smt_cmd_fence fence;
	} u;
	/* Array elements (rects, points, segments, glyphs) in the private copy,
	 * or, for PUT_IMAGE, the pixels in source memory. */
	const void *array;
	uint64_t array_len; /* elements; for PUT_IMAGE bytes */
};

/* 0 on success; -1 with *f filled (offset/opcode taken from cmd). */
int smt_decode(const struct smt_cmd *cmd, struct smt_decoded *out, struct smt_fault *f);

/* Geometry helpers shared with the executor (int64 math, no overflow). */
static inline int smt_coord_ok(int64_t v)
{
	return v >= -(int64_t)SMT_COORD_MAX && v <= (int64_t)SMT_COORD_MAX;
}
static inline int smt_span_ok(int64_t x, int64_t y, uint64_t w, uint64_t h)
{
	return smt_coord_ok(x) && smt_coord_ok(y) && w <= 2ull * SMT_COORD_MAX &&
			h <= 2ull * SMT_COORD_MAX && smt_coord_ok(x + (int64_t)w) &&
			smt_coord_ok(y + (int64_t)h);
}

#endif
