/* The QueryExtension watcher of x11_xi1_query.h. */
#include "xwayland-glue/stream/x11_xi1_query.h"

#include <string.h>

#include "xwayland-glue/stream/x11_card.h"

enum {
	X_QUERY_EXTENSION = 98,
};

static const char XI_NAME[] = "XInputExtension";
/* QueryExtension's fields: the name's length (2 bytes), 2 unused, the name */
#define XI_NAME_LEN (sizeof(XI_NAME) - 1)
#define XI_QUERY_FIELDS (4 + XI_NAME_LEN)
/* the only length the X server answers it at (REQUEST_FIXED_SIZE) */
#define XI_QUERY_BYTES ((4 + 4 + XI_NAME_LEN + 3) & ~(size_t)3)

static void seen(void *ctx, struct x11_request_framer *f, const struct x11_request_view *r)
{
	struct x11_xi1_query *q = ctx;
	if (r->big) {
		/* The framing from here on may not be the X server's: a
		 * sequence number counted past it could be another
		 * extension's reply (x11_xi1_query.h). */
		q->lost = true;
		x11_request_framer_unwatch(f);
		return;
	}
	if (r->len != XI_QUERY_BYTES || r->fields_have < XI_QUERY_FIELDS ||
			x11_card16(r->msb_first, r->fields) != XI_NAME_LEN ||
			memcmp(r->fields + 4, XI_NAME, XI_NAME_LEN) != 0)
		return;
	q->asked = true;
	q->asked_seq = (uint16_t)r->seq;
	x11_request_framer_unwatch(f);
}

void x11_xi1_query_watch(struct x11_xi1_query *q, struct x11_request_framer *f)
{
	_Static_assert(XI_QUERY_FIELDS <= X11_REQUEST_WATCH_MAX, "the name fits the watch");
	x11_request_framer_watch(f, X_QUERY_EXTENSION, XI_QUERY_FIELDS, seen, q);
}
