/*
 * smt-plaid — an endless flood of fill rectangles, like the X demo "plaid"
 * that the fair-share scheduler paper uses as its antagonist: batches of
 * stripes and blocks in varying colours and sizes, presented periodically.
 *
 *   smt-plaid [--seconds S] [--transport ring|socket] [--size WxH]
 *             [--batch N] [--present-ms MS]
 *
 * Prints throughput at exit (written, and executed after a final fence).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/monotonic_clock.h"
#include "clients/libsmt/smt.h"

static uint64_t rng = 0x853c49e6748fea9bu;
static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static double now_s(void)
{
	return (double)monotonic_now_ns() / 1e9;
}

static bool closed;
static void on_close(void *data, struct smt_window *w)
{
	closed = true;
}
static const struct smt_window_listener listener = { .close = on_close };

static int usage(void)
{
	fprintf(stderr,
			"usage: smt-plaid [--seconds S] [--transport ring|socket] [--size WxH] "
			"[--batch N] [--present-ms MS]\n");
	return 2;
}

/* One plaid batch: horizontal and vertical stripes plus a few blocks. */
static size_t make_batch(struct smt_rect *r, size_t n, uint32_t w, uint32_t h)
{
	for (size_t i = 0; i < n; i++) {
		uint32_t kind = rnd() % 3;
		uint32_t t = 2 + rnd() % 24; /* stripe thickness */
		if (kind == 0)
			r[i] = (struct smt_rect){ 0, (int32_t)(rnd() % h), w, t };
		else if (kind == 1)
			r[i] = (struct smt_rect){ (int32_t)(rnd() % w), 0, t, h };
		else
			r[i] = (struct smt_rect){ (int32_t)(rnd() % w), (int32_t)(rnd() % h),
				8 + rnd() % (w / 4), 8 + rnd() % (h / 4) };
	}
	return n;
}

int main(int argc, char **argv)
{
	double seconds = 0, present_ms = 16;
	uint32_t w = 640, h = 480;
	size_t batch = 16;
	struct smt_options opts = { 0 };
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--transport") && i + 1 < argc) {
			if (!smt_transport_from_name(argv[++i], &opts.transport))
				return usage();
		} else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
			if (sscanf(argv[++i], "%ux%u", &w, &h) != 2 || w < 16 || h < 16)
				return usage();
		} else if (!strcmp(argv[i], "--batch") && i + 1 < argc) {
			batch = strtoul(argv[++i], NULL, 10);
			if (batch < 1 || batch > 4096)
				return usage();
		} else if (!strcmp(argv[i], "--present-ms") && i + 1 < argc)
			present_ms = atof(argv[++i]);
		else
			return usage();
	}
	struct smt_ctx *ctx = smt_connect(&opts);
	if (!ctx)
		return 1;
	struct smt_window *win = smt_window_create(ctx, "smt-plaid", "smt-plaid", w, h);
	struct smt_rect *rects = calloc(batch, sizeof(*rects));
	if (!win || !rects) {
		smt_disconnect(ctx);
		return 1;
	}
	smt_window_set_listener(win, &listener, NULL);
	uint32_t canvas = smt_window_canvas(win);
	smt_set_target(ctx, canvas);

	uint64_t commands = 0, rect_count = 0, presents = 0;
	double start = now_s(), last_present = start, t = start;
	while (!closed && (seconds <= 0 || t - start < seconds)) {
		/* the window size may change under us */
		uint32_t cw = smt_window_width(win), ch = smt_window_height(win);
		for (int k = 0; k < 64; k++) {
			uint32_t a = rnd() % 4 ? 255 : 96 + rnd() % 128;
			uint32_t c = rnd();
			uint32_t colour = a << 24 | (((c >> 16) & 0xff) * a / 255) << 16 |
					(((c >> 8) & 0xff) * a / 255) << 8 | ((c & 0xff) * a / 255);
			make_batch(rects, batch, cw, ch);
			if (smt_fill_rects(ctx, a == 255 ? SMT_PAINT_SRC : SMT_PAINT_OVER, colour,
					    batch, rects) < 0)
				goto done;
			commands++;
			rect_count += batch;
		}
		t = now_s();
		if ((t - last_present) * 1e3 >= present_ms) {
			smt_window_present(win, 0, NULL, NULL);
			presents++;
			last_present = t;
			if (smt_dispatch(ctx, 0) < 0)
				goto done;
		}
	}
done:;
	double written = now_s() - start;
	int r = smt_sync(ctx);
	double executed = now_s() - start;
	printf("plaid: %s transport, %llu commands (%llu rects), %llu presents\n",
			smt_transport_name(smt_transport(ctx)), (unsigned long long)commands,
			(unsigned long long)rect_count, (unsigned long long)presents);
	printf("plaid: %.0f commands/s written in %.2f s, %.0f commands/s executed in %.2f s\n",
			(double)commands / written, written, (double)commands / executed, executed);
	free(rects);
	smt_disconnect(ctx);
	return r ? 1 : 0;
}
