/*
 * One client's drawable ids -> pixman images (drawable_table.h): ids
 * index this client's array only, so naming another client's image is
 * impossible, and every pixmap is charged to the client before it exists.
 */
#include "compositor/exec/drawable_table.h"

#include <stdlib.h>
#include <string.h>

#include "common/monotonic_clock.h"
#include "compositor/exec/page_release.h"
#include "protocol/smt-ring.h"

pixman_format_code_t smt_format_to_pixman(uint32_t format)
{
	switch (format) {
	case SMT_FORMAT_ARGB8888:
		return PIXMAN_a8r8g8b8;
	case SMT_FORMAT_XRGB8888:
		return PIXMAN_x8r8g8b8;
	case SMT_FORMAT_A8:
		return PIXMAN_a8;
	default:
		return 0;
	}
}

uint32_t smt_format_from_pixman(pixman_format_code_t format)
{
	switch (format) {
	case PIXMAN_a8r8g8b8:
		return SMT_FORMAT_ARGB8888;
	case PIXMAN_x8r8g8b8:
		return SMT_FORMAT_XRGB8888;
	case PIXMAN_a8:
		return SMT_FORMAT_A8;
	default:
		return 0;
	}
}

void smt_drawables_init(struct smt_drawable_table *t, uint32_t max_id, uint32_t max_pixmaps,
		uint64_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	t->max_id = max_id;
	t->max_pixmaps = max_pixmaps;
	t->max_bytes = max_bytes;
}

static void clear_slot(struct smt_drawable *d)
{
	if (d->image)
		pixman_image_unref(d->image);
	if (d->owner)
		pixman_image_unref(d->owner);
	memset(d, 0, sizeof(*d));
}

void smt_drawables_fini(struct smt_drawable_table *t)
{
	for (uint32_t c = 0; c < t->chunk_cap; c++) {
		if (t->chunks[c] == NULL)
			continue;
		for (uint32_t i = 0; i < SMT_DRAWABLE_CHUNK; i++)
			clear_slot(&t->chunks[c][i]);
		free(t->chunks[c]);
	}
	if (t->usage)
		smt_usage_release(t->usage, SMT_RES_MEMORY, t->bytes + t->table_bytes);
	free(t->chunks);
	memset(t, 0, sizeof(*t));
}

/* malloc's own header per block, counted with what the table allocates. */
#define ALLOC_OVERHEAD 16u

uint64_t smt_drawables_chunk_bytes(void)
{
	return SMT_DRAWABLE_CHUNK * sizeof(struct smt_drawable) + ALLOC_OVERHEAD;
}

static bool charge_table(struct smt_drawable_table *t, uint64_t bytes)
{
	if (t->usage && !smt_usage_charge(t->usage, SMT_RES_MEMORY, bytes, &t->refusal))
		return false;
	t->table_bytes += bytes;
	return true;
}

static void uncharge_table(struct smt_drawable_table *t, uint64_t bytes)
{
	if (t->usage)
		smt_usage_release(t->usage, SMT_RES_MEMORY, bytes);
	t->table_bytes -= bytes;
}

/* The directory covers chunk c: grown to a power of two past it (at most
 * the chunks max_id needs), its new entries charged. */
static uint32_t reserve_directory(struct smt_drawable_table *t, uint32_t c)
{
	if (c < t->chunk_cap)
		return SMT_ERROR_NONE;
	uint32_t most = (t->max_id + SMT_DRAWABLE_CHUNK - 1) / SMT_DRAWABLE_CHUNK;
	uint32_t cap = t->chunk_cap ? t->chunk_cap : 4;
	while (cap <= c)
		cap *= 2;
	if (cap > most)
		cap = most;
	uint64_t more = (uint64_t)(cap - t->chunk_cap) * sizeof(*t->chunks);
	if (!charge_table(t, more + (t->chunk_cap ? 0 : ALLOC_OVERHEAD)))
		return SMT_ERROR_LIMIT;
	struct smt_drawable **grown = realloc(t->chunks, cap * sizeof(*grown));
	if (!grown) {
		uncharge_table(t, more + (t->chunk_cap ? 0 : ALLOC_OVERHEAD));
		return SMT_ERROR_NO_MEMORY;
	}
	memset(grown + t->chunk_cap, 0, (cap - t->chunk_cap) * sizeof(*grown));
	t->chunks = grown;
	t->chunk_cap = cap;
	return SMT_ERROR_NONE;
}

/* Make slot `id` addressable; SMT_ERROR_NONE or an error (LIMIT with
 * t->refusal set when the table's growth was refused). */
static uint32_t reserve(struct smt_drawable_table *t, uint32_t id)
{
	t->refusal.asked = 0;
	if (id == 0 || id >= t->max_id)
		return SMT_ERROR_BAD_DRAWABLE;
	uint32_t c = id / SMT_DRAWABLE_CHUNK;
	uint32_t err = reserve_directory(t, c);
	if (err)
		return err;
	if (t->chunks[c] != NULL)
		return t->chunks[c][id % SMT_DRAWABLE_CHUNK].kind ? SMT_ERROR_ID_IN_USE :
								    SMT_ERROR_NONE;
	uint64_t bytes = smt_drawables_chunk_bytes();
	if (!charge_table(t, bytes))
		return SMT_ERROR_LIMIT;
	t->chunks[c] = calloc(SMT_DRAWABLE_CHUNK, sizeof(struct smt_drawable));
	if (!t->chunks[c]) {
		uncharge_table(t, bytes);
		return SMT_ERROR_NO_MEMORY;
	}
	t->chunk_count++;
	return SMT_ERROR_NONE;
}

static struct smt_drawable *slot(struct smt_drawable_table *t, uint32_t id)
{
	return &t->chunks[id / SMT_DRAWABLE_CHUNK][id % SMT_DRAWABLE_CHUNK];
}

uint32_t smt_drawables_create_pixmap(struct smt_drawable_table *t, uint32_t id, uint32_t width,
		uint32_t height, uint32_t format)
{
	t->refusal.asked = 0;
	pixman_format_code_t pf = smt_format_to_pixman(format);
	if (!pf)
		return SMT_ERROR_BAD_FORMAT;
	if (width == 0 || height == 0 || width > SMT_MAX_DIMENSION || height > SMT_MAX_DIMENSION)
		return SMT_ERROR_LIMIT;
	uint32_t err = reserve(t, id);
	if (err)
		return err;
	uint64_t stride = ((uint64_t)width * PIXMAN_FORMAT_BPP(pf) + 31) / 32 * 4;
	uint64_t bytes = stride * height + SMT_PIXMAP_OVERHEAD;
	if (t->pixmaps >= t->max_pixmaps || bytes > t->max_bytes - t->bytes)
		return SMT_ERROR_LIMIT;
	if (t->usage && !smt_usage_charge(t->usage, SMT_RES_MEMORY, bytes, &t->refusal))
		return SMT_ERROR_LIMIT;
	/* pixman zero-fills the bits it allocates. */
	pixman_image_t *img = pixman_image_create_bits(pf, (int)width, (int)height, NULL, 0);
	if (!img) {
		if (t->usage)
			smt_usage_release(t->usage, SMT_RES_MEMORY, bytes);
		return SMT_ERROR_NO_MEMORY;
	}
	*slot(t, id) = (struct smt_drawable){
		.image = img,
		.bytes = bytes,
		.format = format,
		.width = (int32_t)width,
		.height = (int32_t)height,
		.bits = (uint8_t *)pixman_image_get_data(img),
		.stride = pixman_image_get_stride(img),
		.bpp = (uint8_t)PIXMAN_FORMAT_BPP(pf),
		.kind = SMT_DRAWABLE_PIXMAP,
	};
	t->pixmaps++;
	t->bytes += bytes;
	return SMT_ERROR_NONE;
}

uint32_t smt_drawables_free_pixmap(struct smt_drawable_table *t, uint32_t id)
{
	struct smt_drawable *d = smt_drawables_get(t, id);
	if (!d || d->kind != SMT_DRAWABLE_PIXMAP)
		return SMT_ERROR_BAD_DRAWABLE;
	t->pixmaps--;
	t->bytes -= d->bytes;
	if (t->usage)
		smt_usage_release(t->usage, SMT_RES_MEMORY, d->bytes);
	clear_slot(d);
	return SMT_ERROR_NONE;
}

/* A pixmap larger than this has its pages given back in pieces of this
 * size before it is freed (page_release.h): one free of a 64 MiB pixmap
 * was one munmap of all its written pages. */
#define RELEASE_PIECE_BYTES (4u << 20)

static bool past(uint64_t deadline_ns)
{
	return deadline_ns != 0 && monotonic_now_ns() >= deadline_ns;
}

bool smt_drawables_free_some(struct smt_drawable_table *t, uint64_t max_bytes, uint64_t deadline_ns)
{
	uint64_t freed = 0;
	uint32_t n = 0, top = t->chunk_cap * SMT_DRAWABLE_CHUNK;
	if (t->free_below == 0 || t->free_below > top)
		t->free_below = top;
	while ((t->pixmaps > 0 || t->canvases > 0) && t->free_below > 0) {
		uint32_t id = t->free_below - 1;
		if (t->chunks[id / SMT_DRAWABLE_CHUNK] == NULL) {
			t->free_below -= id % SMT_DRAWABLE_CHUNK + 1; /* the whole chunk */
			continue;
		}
		struct smt_drawable *d = slot(t, id);
		if (d->kind == SMT_DRAWABLE_CANVAS) {
			smt_drawables_remove_canvas(t, id);
			d = NULL;
		}
		if (d == NULL || d->kind != SMT_DRAWABLE_PIXMAP) {
			t->free_below--;
			if (d == NULL && deadline_ns && ++n % 64 == 0 && past(deadline_ns))
				break;
			continue;
		}
		if (d->bytes > RELEASE_PIECE_BYTES) {
			if (t->releasing_id != id) {
				page_release_init(&t->releasing, d->bits,
						(size_t)d->stride * (size_t)d->height);
				t->releasing_id = id;
			}
			do {
				freed += page_release_some(&t->releasing, RELEASE_PIECE_BYTES);
			} while (!page_release_done(&t->releasing) && freed < max_bytes &&
					!past(deadline_ns));
			if (!page_release_done(&t->releasing))
				break;
			t->releasing_id = 0;
		} else {
			/* Its whole pages go back now: glibc keeps a freed heap
			 * block resident, and malloc_trim, which would give them
			 * back later, costs in proportion to the whole heap (54
			 * and 128 ms measured), not to what this client held. */
			struct page_release pages;
			page_release_init(&pages, d->bits, (size_t)d->stride * (size_t)d->height);
			page_release_some(&pages, RELEASE_PIECE_BYTES);
			freed += d->bytes;
		}
		smt_drawables_free_pixmap(t, id);
		t->free_below--;
		if (freed >= max_bytes || (deadline_ns && ++n % 64 == 0 && past(deadline_ns)))
			break;
	}
	return t->pixmaps == 0 && t->canvases == 0;
}

/* Fill *d with a canvas entry for image (a private view + a reference). */
static uint32_t make_canvas(struct smt_drawable *d, pixman_image_t *image)
{
	pixman_format_code_t pf = pixman_image_get_format(image);
	uint32_t format = smt_format_from_pixman(pf);
	int w = pixman_image_get_width(image), h = pixman_image_get_height(image);
	uint32_t *bits = pixman_image_get_data(image);
	if (!format || !bits || w <= 0 || h <= 0 || w > (int)SMT_MAX_DIMENSION ||
			h > (int)SMT_MAX_DIMENSION)
		return SMT_ERROR_BAD_FORMAT;
	/* A private view over the same bits: our clip/transform state never
	 * leaks into the glue's image, and theirs never into ours. */
	pixman_image_t *view = pixman_image_create_bits(
			pf, w, h, bits, pixman_image_get_stride(image));
	if (!view)
		return SMT_ERROR_NO_MEMORY;
	*d = (struct smt_drawable){
		.image = view,
		.owner = pixman_image_ref(image),
		.format = format,
		.width = w,
		.height = h,
		.bits = (uint8_t *)bits,
		.stride = pixman_image_get_stride(image),
		.bpp = (uint8_t)PIXMAN_FORMAT_BPP(pf),
		.kind = SMT_DRAWABLE_CANVAS,
	};
	return SMT_ERROR_NONE;
}

uint32_t smt_drawables_add_canvas(struct smt_drawable_table *t, uint32_t id, pixman_image_t *image)
{
	uint32_t err = reserve(t, id);
	if (!err)
		err = make_canvas(slot(t, id), image);
	t->canvases += err == SMT_ERROR_NONE;
	return err;
}

uint32_t smt_drawables_replace_canvas(
		struct smt_drawable_table *t, uint32_t id, pixman_image_t *image)
{
	struct smt_drawable *d = smt_drawables_get(t, id), fresh;
	if (!d || d->kind != SMT_DRAWABLE_CANVAS)
		return SMT_ERROR_BAD_DRAWABLE;
	uint32_t err = make_canvas(&fresh, image);
	if (err)
		return err;
	clear_slot(d);
	*d = fresh;
	return SMT_ERROR_NONE;
}

uint32_t smt_drawables_remove_canvas(struct smt_drawable_table *t, uint32_t id)
{
	struct smt_drawable *d = smt_drawables_get(t, id);
	if (!d || d->kind != SMT_DRAWABLE_CANVAS)
		return SMT_ERROR_BAD_DRAWABLE;
	clear_slot(d);
	t->canvases--;
	return SMT_ERROR_NONE;
}
