/*
 * A copy of a region from one image into another of the same coordinates,
 * in bands of rows and resumable: what a canvas PRESENT (back image to the
 * one on screen) and a canvas resize (old pixels into the new images)
 * cost, split by the scheduler's budget like commands are. A full-damage
 * PRESENT of the largest canvas the default limit allows copies 128 MiB;
 * in one piece that held every other client for tens of milliseconds.
 * Pure (pixman and the clock), so unit tests check that a copy split after
 * every band gives exactly the pixels of an unsplit one.
 */
#ifndef SMTWC_RING_CANVAS_COPY_H
#define SMTWC_RING_CANVAS_COPY_H

#include <pixman.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Pixels per band: what the executor draws between two looks at the clock. */
#define CANVAS_COPY_BAND_PIXELS (1 << 18)

struct canvas_copy {
	pixman_region32_t region; /* taken over from the caller */
	int rect;                 /* the next rectangle of region */
	int row;                  /* rows of it already copied */
	/* NULL (init's), or where dst may be translucent, kept no smaller
	 * than the truth as bands land: a band whose pixels are all opaque
	 * leaves it, any other joins it. Never more than
	 * CANVAS_TRANSLUCENT_RECTS_MAX rectangles (its extents beyond), so a
	 * client's pattern of damage cannot grow it. Written with dst. */
	pixman_region32_t *dst_translucent;
};

#define CANVAS_TRANSLUCENT_RECTS_MAX 8

/* Takes *region over (left empty and initialised): the executor's damage
 * with its charge, not a copy of it (session 42: a copy was up to 256 KiB
 * more per PRESENT in flight, uncharged). */
void canvas_copy_init_take(struct canvas_copy *copy, pixman_region32_t *region);
bool canvas_copy_init_box(struct canvas_copy *copy, int width, int height);
void canvas_copy_fini(struct canvas_copy *copy);
bool canvas_copy_done(const struct canvas_copy *copy);

/* Called after each band with the rectangle it copied. */
typedef void (*canvas_copy_band_fn)(void *data, const pixman_box32_t *band);

/* Copies (PIXMAN_OP_SRC) bands of about CANVAS_COPY_BAND_PIXELS from src
 * to dst while the clock is before deadline_ns (0: no limit), at least
 * one band per call so every call makes progress. true once all is
 * copied. Both images must cover the region. dst_shared (NULL: none) is
 * held shared around each band: dst is on screen and another thread
 * renders it (the frame holds it alone, output/render.h); a band that
 * found it held alone counts in *dst_waits. */
bool canvas_copy_run(struct canvas_copy *copy, pixman_image_t *src, pixman_image_t *dst,
		uint64_t deadline_ns, pthread_rwlock_t *dst_shared, atomic_uint_fast64_t *dst_waits,
		canvas_copy_band_fn band_done, void *data);

#endif
