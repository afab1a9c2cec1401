/*
 * drawable_table — one client's drawable ids -> pixman images.
 *
 * The table is per client, so naming another client's drawable is
 * impossible by construction: ids index this client's array only. Ids are
 * small integers chosen by the client (1..max_id-1, like file descriptors;
 * the array grows to the highest id used). Pixmaps are owned here and
 * counted against a per-client count and memory limit; canvases are images
 * the Wayland glue registers under an id in the same space.
 *
 * Every entry's image is the executor's PRIVATE pixman image over the
 * drawable's bits: the executor never sets clip state on images the glue
 * holds, and the glue's canvas image is only referenced (kept alive).
 */
#ifndef SMT_DRAWABLE_TABLE_H
#define SMT_DRAWABLE_TABLE_H

#include <pixman.h>
#include <stdbool.h>
#include <stdint.h>

#include "resource_usage.h"

enum smt_drawable_kind { SMT_DRAWABLE_NONE = 0, SMT_DRAWABLE_PIXMAP, SMT_DRAWABLE_CANVAS };

/* Bytes charged per pixmap on top of its pixels (pixman image + slot). */
#define SMT_PIXMAP_OVERHEAD 256u

struct smt_drawable {
	pixman_image_t *image;   /* executor's own view */
	pixman_image_t *owner;   /* canvas: the glue's image (ref held) */
	uint64_t bytes;          /* charged to the memory limit */
	uint32_t format;         /* enum smt_format */
	int32_t width, height;
	/* image's bits, read once here so drawing does not ask pixman per
	 * command: the view's bits never move while the entry exists. */
	uint8_t *bits;
	int32_t stride;          /* bytes */
	uint8_t bpp;
	uint8_t kind;
};

struct smt_drawable_table {
	struct smt_drawable *slots;
	uint32_t cap, max_id;
	uint32_t pixmaps, max_pixmaps;
	uint64_t bytes, max_bytes;
	/* Pixmap bytes are also charged here (the client's and the
	 * compositor's memory; NULL: only max_bytes). refusal.asked != 0:
	 * the last create_pixmap's LIMIT came from there. */
	struct smt_usage *usage;
	struct smt_usage_refusal refusal;
	uint32_t free_below;     /* smt_drawables_free_some: slots above are done */
};

void smt_drawables_init(struct smt_drawable_table *t, uint32_t max_id,
			uint32_t max_pixmaps, uint64_t max_bytes);
void smt_drawables_fini(struct smt_drawable_table *t);

/* NULL for 0, out-of-range and unused ids. Inline: once per command. */
static inline struct smt_drawable *smt_drawables_get(struct smt_drawable_table *t, uint32_t id)
{
	if (id == 0 || id >= t->cap || t->slots[id].kind == SMT_DRAWABLE_NONE)
		return NULL;
	return &t->slots[id];
}

/* Return an enum smt_error. */
uint32_t smt_drawables_create_pixmap(struct smt_drawable_table *t, uint32_t id,
				     uint32_t width, uint32_t height, uint32_t format);
uint32_t smt_drawables_free_pixmap(struct smt_drawable_table *t, uint32_t id);
uint32_t smt_drawables_add_canvas(struct smt_drawable_table *t, uint32_t id,
				  pixman_image_t *image);
/* Same id, new image (canvas resize). */
uint32_t smt_drawables_replace_canvas(struct smt_drawable_table *t, uint32_t id,
				      pixman_image_t *image);
uint32_t smt_drawables_remove_canvas(struct smt_drawable_table *t, uint32_t id);
/* Frees pixmaps, highest id first, until about max_bytes are freed or the
 * clock passed deadline_ns (0: none; read every 64 pixmaps); at least one.
 * true once no pixmap is left. */
bool smt_drawables_free_some(struct smt_drawable_table *t, uint64_t max_bytes,
			     uint64_t deadline_ns);

pixman_format_code_t smt_format_to_pixman(uint32_t format);
uint32_t smt_format_from_pixman(pixman_format_code_t format);

#endif
