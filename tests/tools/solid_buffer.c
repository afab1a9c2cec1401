#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "tests/tools/solid_buffer.h"

struct wl_buffer *solid_buffer(struct wl_shm *shm, int w, int h, uint32_t argb, const char *who)
{
	size_t size = (size_t)w * (size_t)h * 4;
	int fd = memfd_create(who, MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)size) != 0) {
		fprintf(stderr, "%s: cannot create a %dx%d buffer: %m\n", who, w, h);
		exit(1);
	}
	uint32_t *px = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (px == MAP_FAILED) {
		fprintf(stderr, "%s: cannot map a %dx%d buffer: %m\n", who, w, h);
		exit(1);
	}
	for (size_t i = 0; i < size / 4; i++) {
		px[i] = argb;
	}
	munmap(px, size);
	struct wl_shm_pool *pool = wl_shm_create_pool(shm, fd, (int32_t)size);
	struct wl_buffer *buffer = wl_shm_pool_create_buffer(
			pool, 0, w, h, w * 4, WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
	close(fd);
	return buffer;
}
