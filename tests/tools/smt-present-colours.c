/*
 * smt-present-colours: a ring window that fills its whole canvas with a
 * new colour per PRESENT when told to, for the test of damage under other
 * windows (test_ring_hidden_damage.py):
 *
 *   smt-present-colours SIDE [bands]
 *
 * Maps a SIDE x SIDE window filled with the first colour, waits for its
 * `presented` and prints "READY". Then per line "N" on stdin: N times, a
 * fill of the next colour and a PRESENT of the whole canvas, each waited
 * for (its `presented`, 30 s at most), and prints "PRESENTED n SHOWN m
 * COLOUR RRGGBB": how many came, how many of them with a display time
 * (shown on an output's frame, not "not visible"), the last colour.
 * A line "flood N": N fills and PRESENTs without waiting for their
 * `presented`, then "FLOODED N". Exits at the end of stdin. With "bands", each PRESENT also makes a
 * band of rows translucent (alpha 0x80), a different band each time, so
 * the canvas's opaque rows change with every PRESENT (a window above
 * another ring window whose hidden part shows through it); its title and
 * app_id are then "present-bands", else "present-colours".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libsmt/smt.h"
#include "common/monotonic_clock.h"

struct waited {
	uint32_t serial;
	bool came, shown;
};

static void on_presented(void *data, struct smt_window *win, uint32_t serial, uint64_t exec_ns,
		uint64_t display_ns)
{
	(void)win, (void)exec_ns;
	struct waited *w = data;
	if (serial == w->serial) {
		w->came = true;
		w->shown = display_ns != 0;
	}
}

static const struct smt_window_listener listener = { .presented = on_presented };

/* Distinct opaque colours, none black (the output's clear). */
static uint32_t colour_of(uint32_t k)
{
	return 0xff000000u | ((k * 0x9e3779b1u) & 0x00ffffffu) | 0x00404040u;
}

/* A translucent band of the k-th PRESENT (bands mode): a quarter of the
 * rows, moving down by a quarter each time. */
static void band_of(uint32_t k, uint32_t side, uint32_t *y, uint32_t *h)
{
	*h = side / 4 > 0 ? side / 4 : 1;
	*y = (k % 4) * *h;
}

static bool present_colour(struct smt_ctx *ctx, struct smt_window *win, struct waited *w,
		uint32_t side, uint32_t k, bool bands, bool wait)
{
	uint32_t colour = colour_of(k);
	smt_fill_rect(ctx, SMT_PAINT_SRC, colour, 0, 0, side, side);
	if (bands) { /* two bands apart: the translucent region is two rectangles */
		for (uint32_t b = 0; b < 2; b++) {
			uint32_t y, h;
			band_of(k + 2 * b, side, &y, &h);
			smt_fill_rect(ctx, SMT_PAINT_SRC, (colour & 0x00ffffffu) | 0x80000000u, 0,
					y, side, h);
		}
	}
	*w = (struct waited){ 0 };
	if (smt_window_present(win, 0, NULL, &w->serial) < 0 || smt_flush(ctx) < 0) {
		return false;
	}
	if (!wait) {
		return smt_dispatch(ctx, 0) >= 0;
	}
	uint64_t deadline = monotonic_now_ns() + 30ull * 1000000000ull;
	while (!w->came && monotonic_now_ns() < deadline) {
		if (smt_dispatch(ctx, 100) < 0) {
			return false;
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	uint32_t side = argc >= 2 && argc <= 3 ? (uint32_t)strtoul(argv[1], NULL, 10) : 0;
	bool bands = argc == 3 && strcmp(argv[2], "bands") == 0;
	if (side == 0 || side > 4096 || (argc == 3 && !bands)) {
		fputs("usage: smt-present-colours SIDE (1..4096) [bands]\n", stderr);
		return 2;
	}
	const char *name = bands ? "present-bands" : "present-colours"; /* title, app_id */
	struct smt_options opts = { 0 };
	struct smt_ctx *ctx = smt_connect(&opts);
	struct smt_window *win = ctx ? smt_window_create(ctx, name, name, side, side) : NULL;
	if (win == NULL) {
		fputs("smt-present-colours: no window\n", stderr);
		return 1;
	}
	struct waited w = { 0 };
	smt_window_set_listener(win, &listener, &w);
	smt_set_target(ctx, smt_window_canvas(win));
	uint32_t k = 0;
	if (!present_colour(ctx, win, &w, side, k, bands, true) || !w.came) {
		fprintf(stderr, "smt-present-colours: first PRESENT: %s\n", smt_error_message(ctx));
		return 1;
	}
	puts("READY");
	fflush(stdout);
	char line[64];
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (strncmp(line, "flood ", 6) == 0) {
			uint32_t n = (uint32_t)strtoul(line + 6, NULL, 10);
			for (uint32_t i = 0; i < n; i++) {
				if (!present_colour(ctx, win, &w, side, ++k, bands, false)) {
					fprintf(stderr, "smt-present-colours: %s\n",
							smt_error_message(ctx));
					return 1;
				}
			}
			printf("FLOODED %" PRIu32 "\n", n);
			fflush(stdout);
			continue;
		}
		uint32_t n = (uint32_t)strtoul(line, NULL, 10), came = 0, shown = 0;
		for (uint32_t i = 0; i < n; i++) {
			if (!present_colour(ctx, win, &w, side, ++k, bands, true)) {
				fprintf(stderr, "smt-present-colours: %s\n",
						smt_error_message(ctx));
				return 1;
			}
			came += w.came;
			shown += w.shown;
		}
		printf("PRESENTED %" PRIu32 " SHOWN %" PRIu32 " COLOUR %06" PRIx32 "\n", came,
				shown, colour_of(k) & 0xffffffu);
		fflush(stdout);
	}
	smt_disconnect(ctx);
	return 0;
}
