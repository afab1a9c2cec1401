/*
 * Releasing a block's pages in pieces before freeing it (page_release.h).
 */
#define _DEFAULT_SOURCE
#include "compositor/exec/page_release.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void page_release_init(struct page_release *pr, void *base, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = ((uintptr_t)base + page - 1) & ~(page - 1);
	uintptr_t last = ((uintptr_t)base + len) & ~(page - 1);
	/* Only whole pages: the partial ones at either end may hold the
	 * allocator's headers. */
	pr->pages = (unsigned char *)first;
	pr->len = base != NULL && last > first ? last - first : 0;
	pr->done = 0;
}

size_t page_release_some(struct page_release *pr, size_t max)
{
	if (page_release_done(pr))
		return 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = pr->len - pr->done;
	if (n > max)
		n = max < page ? page : max & ~(page - 1);
	madvise(pr->pages + pr->done, n, MADV_DONTNEED);
	pr->done += n;
	return n;
}
