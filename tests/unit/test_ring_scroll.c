/* COPY_AREA within one drawable (scrolling) in every direction, with and
 * without clip rectangles: must equal a copy from an untouched snapshot. */
#include "tests/unit/test_ring_util.h"

#define W 61
#define H 47

/* X semantics: copy the part of the source rectangle inside the image,
 * from a snapshot taken before the copy, through the clip. */
static void ref_copy(pixman_image_t *ref, int sx, int sy, int w, int h, int dx, int dy,
		const struct smt_rect *clip, int nclip)
{
	pixman_image_t *snap = clone_image(ref);
	pixman_region32_t reg;
	pixman_region32_init_rect(&reg, 0, 0, W, H);
	if (nclip) {
		pixman_region32_t c;
		pixman_region32_init(&c);
		for (int i = 0; i < nclip; i++)
			pixman_region32_union_rect(&c, &c, clip[i].x, clip[i].y, clip[i].width,
					clip[i].height);
		pixman_region32_intersect(&reg, &reg, &c);
		pixman_region32_fini(&c);
	}
	/* source inside the image, moved to destination coordinates */
	pixman_region32_intersect_rect(&reg, &reg, dx - sx, dy - sy, W, H);
	pixman_region32_intersect_rect(&reg, &reg, dx, dy, (unsigned)w, (unsigned)h);
	pixman_image_set_clip_region32(ref, &reg);
	pixman_image_composite32(PIXMAN_OP_SRC, snap, NULL, ref, sx, sy, 0, 0, dx, dy, w, h);
	pixman_image_set_clip_region32(ref, NULL);
	pixman_region32_fini(&reg);
	pixman_image_unref(snap);
}

struct move {
	int sx, sy, w, h, dx, dy;
	const char *name;
};

static const struct move moves[] = {
	{ 0, 10, W, H - 10, 0, 0, "scroll up" },
	{ 0, 0, W, H - 10, 0, 10, "scroll down" },
	{ 7, 0, W - 7, H, 0, 0, "scroll left" },
	{ 0, 0, W - 7, H, 7, 0, "scroll right" },
	{ 3, 4, 40, 30, 5, 7, "down-right by 2,3" },
	{ 5, 7, 40, 30, 3, 4, "up-left by 2,3" },
	{ 5, 2, 40, 30, 3, 9, "down-left" },
	{ 1, 9, 40, 30, 6, 2, "up-right" },
	{ 0, 1, W, H, 0, 0, "by one row, past the bottom" },
	{ -5, -5, W, H, 0, 0, "source partly outside" },
	{ 10, 10, 20, 20, 10, 10, "onto itself" },
};

static void run_case(pixman_format_code_t f, const struct move *m, int nclip, int via_pixmap)
{
	static const struct smt_rect clip[3] = { { 2, 2, 20, 15 }, { 30, 0, 25, 40 },
		{ 0, 30, 61, 10 } };
	struct smt_exec_ctx *ctx = smt_exec_create(NULL);
	pixman_image_t *canvas = new_image(f, W, H);
	pattern(canvas, (uint32_t)(m - moves) + 1);
	pixman_image_t *ref = clone_image(canvas);
	REQUIRE(smt_exec_register_canvas(ctx, 1, canvas) == 0, "register");
	struct stream s;
	st_init(&s);
	uint32_t target = 1;
	if (via_pixmap) { /* same scroll inside a pixmap, copied back */
		uint32_t fmt = f == PIXMAN_a8        ? SMT_FORMAT_A8 :
				f == PIXMAN_x8r8g8b8 ? SMT_FORMAT_XRGB8888 :
						       SMT_FORMAT_ARGB8888;
		ST(&s, smt_encode_create_pixmap(st_at(&s), 2, W, H, fmt));
		ST(&s, smt_encode_set_target(st_at(&s), 2));
		ST(&s, smt_encode_copy_area(st_at(&s), 1, 0, 0, W, H, 0, 0));
		target = 2;
	} else {
		ST(&s, smt_encode_set_target(st_at(&s), 1));
	}
	if (nclip)
		ST(&s, smt_encode_set_clip(st_at(&s), (uint32_t)nclip, clip));
	ST(&s,
			smt_encode_copy_area(st_at(&s), target, m->sx, m->sy, (uint32_t)m->w,
					(uint32_t)m->h, m->dx, m->dy));
	if (via_pixmap) {
		ST(&s, smt_encode_set_target(st_at(&s), 1));
		ST(&s, smt_encode_copy_area(st_at(&s), 2, 0, 0, W, H, 0, 0));
	}
	struct smt_exec_result res;
	expect_ok(run_ring(ctx, &s, 4096, &res), &res, m->name);
	ref_copy(ref, m->sx, m->sy, m->w, m->h, m->dx, m->dy, clip, nclip);
	char what[128];
	snprintf(what, sizeof(what), "%s (format %x, %d clip rects, %s)", m->name, f, nclip,
			via_pixmap ? "pixmap" : "canvas");
	expect_same(canvas, ref, what);
	st_fini(&s);
	smt_exec_destroy(ctx);
	pixman_image_unref(canvas);
	pixman_image_unref(ref);
}

int main(void)
{
	static const pixman_format_code_t fmts[3] = { PIXMAN_a8r8g8b8, PIXMAN_x8r8g8b8, PIXMAN_a8 };
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++)
		for (int f = 0; f < 3; f++)
			for (int nclip = 0; nclip <= 3; nclip += 1)
				for (int p = 0; p < 2; p++)
					run_case(fmts[f], &moves[i], nclip, p);
	printf("test_ring_scroll: ok\n");
	return 0;
}
