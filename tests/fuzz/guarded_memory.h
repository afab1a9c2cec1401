/*
 * Memory that ends exactly at a PROT_NONE page, for the fuzzers' canvases
 * and pools: a write or read one byte past the end faults at once, even
 * where pixman would write unchecked (it does no bounds checking).
 */
#ifndef SMT_FUZZ_GUARDED_MEMORY_H
#define SMT_FUZZ_GUARDED_MEMORY_H

#include <pixman.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMT_FUZZ_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SMT_FUZZ_ASAN 1
#endif
#ifdef SMT_FUZZ_ASAN
#include <sanitizer/asan_interface.h>
#endif

struct guarded {
	uint8_t *map, *ptr;
	size_t map_len;
};

/* len bytes ending exactly at a guard page; ptr is 8-aligned if len is. */
static inline void *guarded_alloc(struct guarded *g, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pages = (len + page - 1) / page;
	g->map_len = (pages + 2) * page;
	g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		abort();
	if (mprotect(g->map + page, pages * page, PROT_READ | PROT_WRITE) != 0)
		abort();
#ifdef SMT_FUZZ_ASAN
	/* Fresh pages from the kernel, but ASan's shadow may still call them
	 * freed: the address can be one ASan's allocator used for a large
	 * block (pixman's bits of a pixmap the previous input made) and
	 * unmapped, and clang 14's ASan does not clear the shadow on our
	 * mmap. Seen as a "heap-use-after-free" in this memset's caller. */
	ASAN_UNPOISON_MEMORY_REGION(g->map + page, pages * page);
#endif
	g->ptr = g->map + page + pages * page - len;
	return g->ptr;
}

static inline void guarded_free(struct guarded *g)
{
	if (g->map != NULL)
		munmap(g->map, g->map_len);
}

/* A w x h image of format f in guarded memory, every byte set to fill. */
static inline pixman_image_t *guarded_image(
		struct guarded *g, pixman_format_code_t f, int w, int h, uint8_t fill)
{
	int stride = ((w * PIXMAN_FORMAT_BPP(f) + 31) / 32) * 4;
	uint32_t *bits = guarded_alloc(g, (size_t)stride * (size_t)h);
	memset(bits, fill, (size_t)stride * (size_t)h);
	return pixman_image_create_bits(f, w, h, bits, stride);
}

#endif
