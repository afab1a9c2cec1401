/* Four uint32 lanes (GCC and clang vector extensions: SSE2 or NEON), for
 * range tests of many coordinates without a branch each. */
#ifndef SMT_U32_LANES_H
#define SMT_U32_LANES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef uint32_t u32x4 __attribute__((vector_size(16)));

/* 16 bytes at any alignment (a private copy of client data). */
static inline u32x4 load_u32x4(const void *p)
{
	u32x4 v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline bool lanes_any(u32x4 v)
{
	return (v[0] | v[1] | v[2] | v[3]) != 0;
}

#endif
