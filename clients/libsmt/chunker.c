/* chunker: see chunker.h. */
#include "clients/libsmt/chunker.h"

#include <string.h>

#include "protocol/smt-ring-client.h"

size_t smt_chunk_next(struct smt_chunker *c, const uint8_t *p, size_t len, size_t max)
{
	size_t n = 0;
	if (len < max)
		max = len;
	if (c->span_left) {
		/* the rest of a command started in an earlier chunk */
		size_t take = c->span_left < max ? (size_t)c->span_left : max;
		c->span_left -= take;
		n = take;
		if (c->span_left)
			return n;
	}
	while (n < max) {
		struct smt_cmd_header h;
		if (max - n < sizeof(h) && n > 0)
			break; /* header would straddle: next chunk */
		if (len - n < sizeof(h))
			return max; /* cannot happen with whole commands */
		memcpy(&h, p + n, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8)
			return max; /* not our framing: just cut bytes */
		if (h.size <= max - n) {
			n += h.size;
			continue;
		}
		if (n > 0)
			break; /* starts the next chunk instead */
		/* larger than a whole chunk: it spans submits */
		c->span_left = h.size - max;
		return max;
	}
	return n;
}
