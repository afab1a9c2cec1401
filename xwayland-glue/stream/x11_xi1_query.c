/* The request watcher of x11_xi1_query.h. */
#include "xwayland-glue/stream/x11_xi1_query.h"

#include <string.h>

#include "xwayland-glue/stream/x11_card.h"

enum {
	X_QUERY_EXTENSION = 98,
	SETUP_HEADER = 12,
	REQUEST_HEADER = 4,
};

static const char XI_NAME[] = "XInputExtension";
/* QueryExtension's fixed part (8 bytes), then the name */
#define XI_QUERY_BYTES (8 + sizeof(XI_NAME) - 1)
/* the length the X server requires of it (REQUEST_FIXED_SIZE) */
#define XI_QUERY_LENGTH ((XI_QUERY_BYTES + 3) & ~3u)

static uint32_t card16(const struct x11_xi1_query *q, const uint8_t *b)
{
	return x11_card16(q->msb_first, b);
}

static uint64_t pad4(uint64_t n)
{
	return (n + 3) & ~(uint64_t)3;
}

/* The bytes collected so far are all this step needs: how many to skip
 * after them, or 0 with `want` raised when more are needed. */
static uint64_t step(struct x11_xi1_query *q)
{
	const uint8_t *h = q->hdr;
	if (!q->setup_done) {
		q->msb_first = h[0] == 'B';
		q->setup_done = 1;
		return SETUP_HEADER + pad4(card16(q, h + 6)) + pad4(card16(q, h + 8));
	}
	uint64_t len = 4 * (uint64_t)card16(q, h + 2);
	if (len == 0) {
		/* BIG-REQUESTS or not: only the X server knows (x11_xi1_query.h) */
		q->lost = true;
		return 0;
	}
	q->seq++;
	if (h[0] == X_QUERY_EXTENSION && len == XI_QUERY_LENGTH) {
		if (q->have < XI_QUERY_BYTES) {
			q->seq--; /* counted again once the name is in */
			q->want = XI_QUERY_BYTES;
			return 0;
		}
		if (card16(q, h + 4) == sizeof(XI_NAME) - 1 &&
				memcmp(h + 8, XI_NAME, sizeof(XI_NAME) - 1) == 0) {
			q->asked = true;
			q->asked_seq = q->seq;
		}
	}
	return len;
}

void x11_xi1_query_feed(struct x11_xi1_query *q, const uint8_t *p, size_t n)
{
	while (n > 0 && !q->lost) {
		if (q->skip > 0) {
			size_t s = q->skip < n ? (size_t)q->skip : n;
			q->skip -= s;
			p += s;
			n -= s;
			continue;
		}
		if (q->want == 0)
			q->want = q->setup_done ? REQUEST_HEADER : SETUP_HEADER;
		while (q->have < q->want && n > 0) {
			q->hdr[q->have++] = *p++;
			n--;
		}
		if (q->have < q->want)
			break;
		uint64_t len = step(q);
		if (len == 0)
			continue; /* more of the header wanted, or lost */
		q->skip = len - q->have;
		q->have = 0;
		q->want = 0;
	}
}
