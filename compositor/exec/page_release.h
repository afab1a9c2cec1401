/*
 * page_release — giving a large block's memory back to the system in
 * pieces before it is freed. free() of a block of hundreds of MiB of
 * written pixels is one munmap that frees every page at once, tens of ms
 * in which nothing else runs; released a piece at a time (MADV_DONTNEED
 * on the block's whole pages) the final free finds no page left to free.
 * Only pages wholly inside the block are released, so the allocator's
 * headers around it are untouched; the block reads as zeros afterwards.
 */
#ifndef SMT_PAGE_RELEASE_H
#define SMT_PAGE_RELEASE_H

#include <stdbool.h>
#include <stddef.h>

struct page_release {
	unsigned char *pages; /* the block's first whole page */
	size_t len;           /* bytes of whole pages in the block */
	size_t done;          /* of those, released */
};

void page_release_init(struct page_release *pr, void *base, size_t len);
/* Releases up to about max bytes more; returns the bytes handled (0 once
 * the block is done). */
size_t page_release_some(struct page_release *pr, size_t max);
static inline bool page_release_done(const struct page_release *pr)
{
	return pr->done >= pr->len;
}

#endif
