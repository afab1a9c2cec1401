/* A canvas PRESENT and a canvas resize copy pixels in bands over the ring's
 * slices (compositor/ring/canvas_copy.c): a copy stopped after every band
 * (a deadline already past) must leave the destination byte for byte as a
 * copy without a deadline, must really have stopped inside rectangles, and
 * must touch nothing outside the region. And where the destination may be
 * translucent, for the renderer's culling, is never less than the truth. */
#include <stdlib.h>
#include "tests/unit/unit_check.h"
#include "compositor/ring/canvas_copy.h"

static pixman_image_t *image(int width, int height, uint32_t seed)
{
	pixman_image_t *img = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, NULL, 0);
	uint32_t *p = pixman_image_get_data(img);
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
	return img;
}

static bool same(pixman_image_t *a, pixman_image_t *b)
{
	size_t bytes = (size_t)pixman_image_get_stride(a) * (size_t)pixman_image_get_height(a);
	return pixman_image_get_width(a) == pixman_image_get_width(b) &&
			pixman_image_get_height(a) == pixman_image_get_height(b) &&
			memcmp(pixman_image_get_data(a), pixman_image_get_data(b), bytes) == 0;
}

struct bands {
	int count;
	uint64_t pixels;
	bool too_big;
};

static void count_band(void *data, const pixman_box32_t *band)
{
	struct bands *b = data;
	uint64_t pixels = (uint64_t)(band->x2 - band->x1) * (uint64_t)(band->y2 - band->y1);
	b->count++;
	b->pixels += pixels;
	/* a band is at most one budget's worth, or one row of a wider rect */
	if (pixels > CANVAS_COPY_BAND_PIXELS && band->y2 - band->y1 > 1) {
		b->too_big = true;
	}
}

/* A copy of region given to c (canvas_copy takes its region over). */
static void init_copy_of(struct canvas_copy *c, const pixman_region32_t *region)
{
	pixman_region32_t mine;
	pixman_region32_init(&mine);
	CHECK(pixman_region32_copy(&mine, (pixman_region32_t *)region));
	canvas_copy_init_take(c, &mine);
	CHECK(pixman_region32_n_rects(&mine) == 0);
	pixman_region32_fini(&mine);
}

/* Copies region from src into two copies of dst: all at once, and one band
 * per call. Returns the calls the split copy took. */
static int check_split(const char *name, pixman_image_t *src, int dst_w, int dst_h,
		const pixman_region32_t *region, int min_calls)
{
	current_test = name;
	pixman_image_t *whole = image(dst_w, dst_h, 9), *split = image(dst_w, dst_h, 9);
	pixman_image_t *untouched = image(dst_w, dst_h, 9);

	struct canvas_copy c;
	struct bands b_whole = { 0 }, b_split = { 0 };
	init_copy_of(&c, region);
	CHECK(canvas_copy_run(&c, src, whole, 0, NULL, NULL, count_band, &b_whole));
	CHECK(canvas_copy_done(&c));
	canvas_copy_fini(&c);

	init_copy_of(&c, region);
	int calls = 0;
	bool done = false;
	while (!done && calls < 100000) {
		int before = b_split.count;
		done = canvas_copy_run(&c, src, split, 1, NULL, NULL, count_band, &b_split);
		calls++;
		/* past the deadline: one band, none only when there was none left */
		CHECK_INT(b_split.count - before, done && b_split.count == before ? 0 : 1);
		CHECK(done == canvas_copy_done(&c));
	}
	canvas_copy_fini(&c);

	CHECK(done);
	CHECK(same(whole, split));
	CHECK_INT(b_whole.count, b_split.count);
	CHECK(!b_split.too_big);
	CHECK(calls >= min_calls);

	/* exactly the region changed: inside it the source, outside the old */
	uint64_t in_region = 0;
	int n = 0;
	const pixman_box32_t *r = pixman_region32_rectangles((pixman_region32_t *)region, &n);
	for (int i = 0; i < n; i++) {
		in_region += (uint64_t)(r[i].x2 - r[i].x1) * (uint64_t)(r[i].y2 - r[i].y1);
	}
	CHECK_INT(b_split.pixels, in_region);
	const uint32_t *s = pixman_image_get_data(src), *d = pixman_image_get_data(split),
		       *u = pixman_image_get_data(untouched);
	int src_w = pixman_image_get_width(src);
	int wrong = 0;
	for (int y = 0; y < dst_h; y++) {
		for (int x = 0; x < dst_w; x++) {
			bool in = pixman_region32_contains_point(
					(pixman_region32_t *)region, x, y, NULL);
			uint32_t want = in ? s[(size_t)y * (size_t)src_w + (size_t)x] :
					     u[(size_t)y * (size_t)dst_w + (size_t)x];
			wrong += d[(size_t)y * (size_t)dst_w + (size_t)x] != want;
		}
	}
	CHECK_INT(wrong, 0);
	pixman_image_unref(whole);
	pixman_image_unref(split);
	pixman_image_unref(untouched);
	return calls;
}

static pixman_image_t *filled(int width, int height, uint32_t pixel)
{
	pixman_image_t *img = pixman_image_create_bits(PIXMAN_a8r8g8b8, width, height, NULL, 0);
	uint32_t *p = pixman_image_get_data(img);
	for (size_t i = 0; i < (size_t)width * (size_t)height; i++) {
		p[i] = pixel;
	}
	return img;
}

static void fill(pixman_image_t *img, int x, int y, int w, int h, uint32_t pixel)
{
	uint32_t *p = pixman_image_get_data(img);
	int width = pixman_image_get_width(img);
	for (int j = y; j < y + h; j++) {
		for (int i = x; i < x + w; i++) {
			p[(size_t)j * (size_t)width + (size_t)i] = pixel;
		}
	}
}

/* The renderer culls under what the region leaves out, so every pixel
 * that is not opaque must be in it; and it stays small. */
static void check_translucent_covers(
		const char *what, pixman_image_t *img, pixman_region32_t *translucent)
{
	current_test = what;
	const uint32_t *p = pixman_image_get_data(img);
	int width = pixman_image_get_width(img), height = pixman_image_get_height(img);
	int missed = 0;
	for (int y = 0; y < height; y++) {
		for (int x = 0; x < width; x++) {
			if (p[(size_t)y * (size_t)width + (size_t)x] < 0xff000000u &&
					!pixman_region32_contains_point(translucent, x, y, NULL)) {
				missed++;
			}
		}
	}
	CHECK(missed == 0);
	CHECK(pixman_region32_n_rects(translucent) <= CANVAS_TRANSLUCENT_RECTS_MAX);
}

/* Copies `damage` from src into dst one band per call, checking the
 * translucent region after each. */
static void copy_tracking(const char *what, pixman_image_t *src, pixman_image_t *dst,
		const pixman_region32_t *damage, pixman_region32_t *translucent)
{
	struct canvas_copy c;
	init_copy_of(&c, damage);
	c.dst_translucent = translucent;
	bool done;
	do {
		done = canvas_copy_run(&c, src, dst, 1, NULL, NULL, NULL, NULL);
		check_translucent_covers(what, dst, translucent);
	} while (!done);
	canvas_copy_fini(&c);
}

/* A canvas's front starts translucent all over (zeros); opaque PRESENTs
 * take their bands out of the region, translucent ones put theirs back. */
static void check_translucent_tracking(void)
{
	const int w = 700, h = 900; /* a band is 374 rows of 700 */
	pixman_image_t *dst = filled(w, h, 0);
	pixman_image_t *src = filled(w, h, 0xff336699u);
	pixman_region32_t translucent, damage;
	pixman_region32_init_rect(&translucent, 0, 0, w, h);

	pixman_region32_init_rect(&damage, 0, 0, w, h);
	copy_tracking("opaque whole canvas", src, dst, &damage, &translucent);
	current_test = "opaque whole canvas leaves nothing translucent";
	CHECK(!pixman_region32_not_empty(&translucent));
	pixman_region32_fini(&damage);

	/* a translucent rectangle and a transparent one inside the damage */
	fill(src, 100, 500, 40, 30, 0x80102030u);
	fill(src, 600, 20, 10, 10, 0);
	pixman_region32_init_rect(&damage, 50, 450, 200, 200);
	pixman_region32_union_rect(&damage, &damage, 590, 10, 50, 50);
	copy_tracking("translucent parts", src, dst, &damage, &translucent);
	current_test = "translucent parts stay within their damage";
	pixman_region32_t outside;
	pixman_region32_init(&outside);
	pixman_region32_subtract(&outside, &translucent, &damage);
	CHECK(!pixman_region32_not_empty(&outside));
	CHECK(pixman_region32_not_empty(&translucent));
	pixman_region32_fini(&outside);
	pixman_region32_fini(&damage);

	/* painted opaque again: out of the region */
	fill(src, 0, 0, w, h, 0xff000000u);
	pixman_region32_init_rect(&damage, 0, 0, w, h);
	copy_tracking("opaque again", src, dst, &damage, &translucent);
	current_test = "opaque again leaves nothing translucent";
	CHECK(!pixman_region32_not_empty(&translucent));
	pixman_region32_fini(&damage);

	/* a checkerboard of translucent pixels, each its own damage: the
	 * region must not grow a rectangle per pixel */
	pixman_region32_init(&damage);
	for (int i = 0; i < 64; i++) {
		int x = (i % 8) * 80 + 3, y = (i / 8) * 100 + 7;
		fill(src, x, y, 1, 1, 0x01010101u);
		pixman_region32_union_rect(&damage, &damage, x, y, 1, 1);
	}
	copy_tracking("a checkerboard of translucent pixels", src, dst, &damage, &translucent);
	pixman_region32_fini(&damage);

	pixman_region32_fini(&translucent);
	pixman_image_unref(src);
	pixman_image_unref(dst);
}

int main(void)
{
	check_translucent_tracking();

	pixman_image_t *src = image(1500, 1100, 1);
	pixman_region32_t region;

	/* PRESENT of the whole canvas: 1.65 M pixels, several bands */
	pixman_region32_init_rect(&region, 0, 0, 1500, 1100);
	check_split("present whole canvas", src, 1500, 1100, &region, 7);
	pixman_region32_fini(&region);

	/* PRESENT of several rectangles (a region of many boxes, some wider
	 * than tall, one a single column, one a single row) */
	pixman_box32_t boxes[] = {
		{ 0, 0, 1500, 300 },
		{ 20, 310, 700, 1000 },
		{ 900, 400, 901, 1100 },
		{ 1000, 1099, 1500, 1100 },
		{ 5, 1050, 6, 1051 },
	};
	pixman_region32_init_rects(&region, boxes, (int)(sizeof(boxes) / sizeof(boxes[0])));
	check_split("present region", src, 1500, 1100, &region, 5);
	pixman_region32_fini(&region);

	/* empty damage: nothing to copy, done at once */
	pixman_region32_init(&region);
	check_split("present empty", src, 1500, 1100, &region, 1);
	pixman_region32_fini(&region);

	/* resize: the overlap of the old and the new size, into images of the
	 * new size (grow in both directions, shrink, grow one shrink other) */
	const int sizes[][2] = { { 2000, 1400 }, { 700, 500 }, { 1600, 300 }, { 1, 1100 } };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int w = sizes[i][0] < 1500 ? sizes[i][0] : 1500;
		int h = sizes[i][1] < 1100 ? sizes[i][1] : 1100;
		struct canvas_copy c;
		CHECK(canvas_copy_init_box(&c, w, h));
		check_split("resize", src, sizes[i][0], sizes[i][1], &c.region,
				(int)(((uint64_t)w * (uint64_t)h) / CANVAS_COPY_BAND_PIXELS));
		canvas_copy_fini(&c);
	}
	pixman_image_unref(src);
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
	}
	return failures ? 1 : 0;
}
