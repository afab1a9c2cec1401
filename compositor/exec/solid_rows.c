/*
 * Wide solid fills with the widest aligned stores the CPU has. pixman's
 * fill (what X's fb uses too) stores 16 bytes at a time; with AVX2 a row
 * is aligned 32-byte stores, its unaligned ends one store each (they
 * overlap the aligned ones). The build targets baseline x86-64, so the
 * AVX2 loop is compiled for that one function and chosen at run time.
 */
#include "compositor/exec/solid_rows.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

__attribute__((target("avx2"))) static void solid_rows_avx2(
		uint8_t *row, size_t stride, uint32_t pixel, int32_t x1, int32_t w, int32_t h)
{
	const __m256i v = _mm256_set1_epi32((int)pixel);
	for (int32_t y = 0; y < h; y++, row += stride) {
		uint8_t *start = row + (size_t)x1 * 4, *end = start + (size_t)w * 4;
		/* w >= 8: the first and last 32 bytes lie inside the row. */
		_mm256_storeu_si256((__m256i *)(void *)start, v);
		uint8_t *a = (uint8_t *)(((uintptr_t)start + 32) & ~(uintptr_t)31);
		for (; a + 32 <= end; a += 32)
			_mm256_store_si256((__m256i *)(void *)a, v);
		_mm256_storeu_si256((__m256i *)(void *)(end - 32), v);
	}
}

bool solid_rows_32(uint8_t *row, size_t stride, uint32_t pixel, int32_t x1, int32_t w, int32_t h)
{
	/* A load and a test of what libgcc read from cpuid at start-up. */
	if (!__builtin_cpu_supports("avx2"))
		return false;
	solid_rows_avx2(row, stride, pixel, x1, w, h);
	return true;
}
#else
bool solid_rows_32(uint8_t *row, size_t stride, uint32_t pixel, int32_t x1, int32_t w, int32_t h)
{
	(void)row;
	(void)stride;
	(void)pixel;
	(void)x1;
	(void)w;
	(void)h;
	return false;
}
#endif
