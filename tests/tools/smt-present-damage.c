/*
 * smt-present-damage: a ring window whose PRESENTs each name a damage of
 * many rectangles that never merge (a checkerboard of 1x1 pixels), for
 * the test of what the compositor's main thread does with them
 * (test_ring_present_damage.py):
 *
 *   smt-present-damage RECTS COUNT
 *
 * Maps a 256x256 window, then writes COUNT such PRESENTs as fast as the
 * ring takes them and waits for the last one's `presented` (one a later
 * PRESENT replaced before an output frame showed it is never reported,
 * docs/protocol.md). Prints "PRESENTED n LAST yes|no IN-ORDER yes|no"
 * (serials reported each at most once, in the order written) and exits 0
 * when the last came and the order held, 1 otherwise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "clients/libsmt/smt.h"
#include "common/monotonic_clock.h"

#define SIDE 256
#define FIRST_SERIAL 1000

struct seen {
	uint32_t next, count;
	bool in_order, last;
	uint32_t last_serial;
};

static void on_presented(void *data, struct smt_window *win, uint32_t serial, uint64_t exec_ns,
		uint64_t display_ns)
{
	(void)win, (void)exec_ns, (void)display_ns;
	struct seen *s = data;
	if (serial < FIRST_SERIAL) {
		return; /* the first, whole-window PRESENT */
	}
	s->in_order &= serial >= s->next;
	s->next = serial + 1;
	s->count++;
	s->last |= serial == s->last_serial;
}

static const struct smt_window_listener listener = { .presented = on_presented };

int main(int argc, char **argv)
{
	if (argc != 3) {
		fputs("usage: smt-present-damage RECTS COUNT\n", stderr);
		return 2;
	}
	uint32_t n = (uint32_t)strtoul(argv[1], NULL, 10);
	uint32_t count = (uint32_t)strtoul(argv[2], NULL, 10);
	if (n == 0 || n > (SIDE / 2) * (SIDE / 2) || count == 0) {
		fputs("smt-present-damage: RECTS must be 1..16384, COUNT at least 1\n", stderr);
		return 2;
	}
	struct smt_options opts = { 0 };
	struct smt_ctx *ctx = smt_connect(&opts);
	struct smt_window *win = ctx ?
			smt_window_create(ctx, "present-damage", "present-damage", SIDE, SIDE) :
			NULL;
	struct smt_rect *r = calloc(n, sizeof(*r));
	if (win == NULL || r == NULL) {
		fputs("smt-present-damage: no window\n", stderr);
		return 1;
	}
	struct seen seen = {
		.next = FIRST_SERIAL, .in_order = true, .last_serial = FIRST_SERIAL + count - 1
	};
	smt_window_set_listener(win, &listener, &seen);
	uint32_t canvas = smt_window_canvas(win);
	smt_set_target(ctx, canvas);
	smt_fill_rect(ctx, SMT_PAINT_SRC, 0xff208020u, 0, 0, SIDE, SIDE);
	smt_window_present(win, 0, NULL, NULL);
	/* Every other pixel of every other row, rows shifted by one: no two
	 * rectangles share an edge, so the region keeps all n. */
	for (uint32_t i = 0; i < n; i++) {
		int32_t row = (int32_t)(i / (SIDE / 2));
		r[i] = (struct smt_rect){ (int32_t)(i % (SIDE / 2)) * 2 + row % 2, row * 2, 1, 1 };
	}
	for (uint32_t k = 0; k < count; k++) {
		if (smt_present(ctx, canvas, FIRST_SERIAL + k, n, r) < 0 || smt_flush(ctx) < 0 ||
				smt_dispatch(ctx, 0) < 0) {
			fprintf(stderr, "smt-present-damage: %s\n", smt_error_message(ctx));
			return 1;
		}
	}
	uint64_t deadline = monotonic_now_ns() + 60ull * 1000000000ull;
	while (!seen.last && monotonic_now_ns() < deadline) {
		if (smt_dispatch(ctx, 100) < 0) {
			fprintf(stderr, "smt-present-damage: %s\n", smt_error_message(ctx));
			return 1;
		}
	}
	printf("PRESENTED %u LAST %s IN-ORDER %s\n", seen.count, seen.last ? "yes" : "no",
			seen.in_order ? "yes" : "no");
	fflush(stdout);
	bool ok = seen.last && seen.in_order;
	free(r);
	smt_disconnect(ctx);
	return ok ? 0 : 1;
}
