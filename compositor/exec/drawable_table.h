/*
 * drawable_table — one client's drawable ids -> pixman images.
 *
 * The table is per client, so naming another client's drawable is
 * impossible by construction: ids index this client's table only. Ids are
 * small integers chosen by the client (1..max_id-1, like file descriptors).
 * The table has two levels, a directory of chunks of SMT_DRAWABLE_CHUNK
 * slots, allocated as ids in them are used: a single id 2^18-1 costs one
 * chunk and the directory up to it (a few KiB), not 2^18 slots (15 MiB, as
 * the flat array sized by the largest id did). What the table allocates is
 * charged to the client's memory like its pixmaps, before it is allocated;
 * a refusal names the limit. Pixmaps are owned here and counted against a
 * per-client count and memory limit; canvases are images the Wayland glue
 * registers under an id in the same space.
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

#include "compositor/exec/page_release.h"
#include "compositor/exec/resource_usage.h"

enum smt_drawable_kind {
	SMT_DRAWABLE_NONE = 0,
	SMT_DRAWABLE_PIXMAP,
	SMT_DRAWABLE_CANVAS
};

/* Bytes charged per pixmap on top of its pixels: pixman's image struct,
 * its bits' allocation (at least a 32-byte chunk) and the slot. 8,000
 * 1x1 pixmaps grew the heap 364 bytes each (mallinfo2, session 37:
 * charged 256 then, 0.88 of the heap with their ring; session 38). */
#define SMT_PIXMAP_OVERHEAD 320u

struct smt_drawable {
	pixman_image_t *image; /* executor's own view */
	pixman_image_t *owner; /* canvas: the glue's image (ref held) */
	uint64_t bytes;        /* charged to the memory limit */
	uint32_t format;       /* enum smt_format */
	int32_t width, height;
	/* image's bits, read once here so drawing does not ask pixman per
	 * command: the view's bits never move while the entry exists. */
	uint8_t *bits;
	int32_t stride; /* bytes */
	uint8_t bpp;
	uint8_t kind;
};

/* Slots per chunk of the table. */
#define SMT_DRAWABLE_CHUNK 64u

struct smt_drawable_table {
	struct smt_drawable **chunks; /* directory; NULL: no id of that chunk used */
	uint32_t chunk_cap, chunk_count, max_id;
	/* The directory and the chunks, in bytes, charged to usage (and
	 * counted in no pixmap limit: they are the table's, not an image's). */
	uint64_t table_bytes;
	uint32_t pixmaps, max_pixmaps;
	uint32_t canvases;
	uint64_t bytes, max_bytes;
	/* Pixmap bytes are also charged here (the client's and the
	 * compositor's memory; NULL: only max_bytes). refusal.asked != 0:
	 * the last create_pixmap's or add_canvas's LIMIT came from there (a
	 * pixmap's memory or a new chunk of the table). */
	struct smt_usage *usage;
	struct smt_usage_refusal refusal;
	uint32_t free_below;   /* smt_drawables_free_some: ids above are done */
	uint32_t releasing_id; /* ... and this large pixmap's pages, in pieces */
	struct page_release releasing;
};

void smt_drawables_init(struct smt_drawable_table *t, uint32_t max_id, uint32_t max_pixmaps,
		uint64_t max_bytes);
void smt_drawables_fini(struct smt_drawable_table *t);

/* NULL for 0, out-of-range and unused ids. Inline: once per command. */
static inline struct smt_drawable *smt_drawables_get(struct smt_drawable_table *t, uint32_t id)
{
	uint32_t c = id / SMT_DRAWABLE_CHUNK;
	if (id == 0 || c >= t->chunk_cap || t->chunks[c] == NULL)
		return NULL;
	struct smt_drawable *d = &t->chunks[c][id % SMT_DRAWABLE_CHUNK];
	return d->kind == SMT_DRAWABLE_NONE ? NULL : d;
}

/* Return an enum smt_error. */
uint32_t smt_drawables_create_pixmap(struct smt_drawable_table *t, uint32_t id, uint32_t width,
		uint32_t height, uint32_t format);
uint32_t smt_drawables_free_pixmap(struct smt_drawable_table *t, uint32_t id);
uint32_t smt_drawables_add_canvas(struct smt_drawable_table *t, uint32_t id, pixman_image_t *image);
/* Same id, new image (canvas resize). */
uint32_t smt_drawables_replace_canvas(
		struct smt_drawable_table *t, uint32_t id, pixman_image_t *image);
uint32_t smt_drawables_remove_canvas(struct smt_drawable_table *t, uint32_t id);
/* What one chunk of the table costs (charged when it is allocated). */
uint64_t smt_drawables_chunk_bytes(void);
/* Frees pixmaps and drops canvas entries (their references), highest id
 * first, until about max_bytes are freed or the clock passed deadline_ns
 * (0: none; read every 64 entries); at least one, or a piece of one: a
 * large pixmap's pages are given back in pieces first (page_release.h).
 * true once no pixmap or canvas is left (the table is then cheap to
 * finish: its chunks only). */
bool smt_drawables_free_some(
		struct smt_drawable_table *t, uint64_t max_bytes, uint64_t deadline_ns);

pixman_format_code_t smt_format_to_pixman(uint32_t format);
uint32_t smt_format_from_pixman(pixman_format_code_t format);

#endif
