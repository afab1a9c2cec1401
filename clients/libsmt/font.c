/*
 * libsmt: text. fontconfig picks the file, FreeType rasterises printable
 * ASCII once into an A8 atlas that lives in a compositor pixmap; GLYPHS
 * commands then name atlas rectangles, so drawing text sends 16 bytes per
 * character and never a pixel.
 */
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/libsmt/smt-internal.h"

#define FIRST_CHAR 32
#define LAST_CHAR 126
#define N_CHARS (LAST_CHAR - FIRST_CHAR + 1)

struct glyph_info {
	uint16_t x, y, w, h;        /* in the atlas */
	int16_t left, top, advance; /* bearing from the pen, baseline-relative */
};

struct smt_font {
	struct smt_ctx *ctx;
	struct wl_list link; /* ctx->fonts */
	uint32_t atlas;
	struct smt_font_metrics m;
	struct glyph_info g[N_CHARS];
};

static int find_font_file(const char *pattern, char *path, size_t len, int *index)
{
	/* A private configuration, destroyed afterwards: the process-wide
	 * default one is never freed (LeakSanitizer reports it), and an
	 * application's own fontconfig use is left alone. */
	FcConfig *cfg = FcInitLoadConfigAndFonts();
	FcPattern *pat = FcNameParse((const FcChar8 *)pattern);
	FcPattern *match = NULL;
	int ok = 0;
	if (cfg && pat) {
		FcConfigSubstitute(cfg, pat, FcMatchPattern);
		FcDefaultSubstitute(pat);
		FcResult res;
		match = FcFontMatch(cfg, pat, &res);
		FcChar8 *file = NULL;
		ok = match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch &&
				(size_t)snprintf(path, len, "%s", (const char *)file) < len;
		if (ok && FcPatternGetInteger(match, FC_INDEX, 0, index) != FcResultMatch)
			*index = 0;
	}
	if (match)
		FcPatternDestroy(match);
	if (pat)
		FcPatternDestroy(pat);
	if (cfg)
		FcConfigDestroy(cfg);
	return ok ? 0 : -1;
}

/* Rasterise every glyph into an A8 image packed in shelves. */
static uint8_t *rasterise(FT_Face face, struct smt_font *font, uint32_t *aw, uint32_t *ah)
{
	uint32_t maxw = (uint32_t)(face->size->metrics.max_advance >> 6) + 2;
	uint32_t width = (16 * (maxw + 1) + 3) & ~3u; /* ~16 glyphs a row */
	uint32_t x = 0, y = 0, row_h = 0;
	/* pass 1: place; FreeType renders again in pass 2 (cheap, 95 glyphs) */
	for (int c = FIRST_CHAR; c <= LAST_CHAR; c++) {
		if (FT_Load_Char(face, (FT_ULong)c, FT_LOAD_RENDER))
			continue;
		struct glyph_info *g = &font->g[c - FIRST_CHAR];
		FT_GlyphSlot s = face->glyph;
		g->w = (uint16_t)s->bitmap.width;
		g->h = (uint16_t)s->bitmap.rows;
		g->left = (int16_t)s->bitmap_left;
		g->top = (int16_t)s->bitmap_top;
		g->advance = (int16_t)(s->advance.x >> 6);
		if (g->w > width)
			g->w = (uint16_t)width;
		if (x + g->w + 1 > width) {
			x = 0;
			y += row_h + 1;
			row_h = 0;
		}
		g->x = (uint16_t)x;
		g->y = (uint16_t)y;
		x += g->w + 1u; /* 1-pixel gutter: no bleeding between glyphs */
		row_h = g->h > row_h ? g->h : row_h;
	}
	*aw = width;
	*ah = y + row_h + 1;
	uint8_t *px = calloc((size_t)*aw * *ah, 1);
	if (!px)
		return NULL;
	for (int c = FIRST_CHAR; c <= LAST_CHAR; c++) {
		struct glyph_info *g = &font->g[c - FIRST_CHAR];
		if (!g->w || FT_Load_Char(face, (FT_ULong)c, FT_LOAD_RENDER))
			continue;
		FT_Bitmap *b = &face->glyph->bitmap;
		if (b->pixel_mode != FT_PIXEL_MODE_GRAY)
			continue; /* monochrome strikes: leave blank */
		for (uint32_t r = 0; r < g->h; r++)
			memcpy(px + (size_t)(g->y + r) * width + g->x,
					b->buffer + (ptrdiff_t)r * b->pitch, g->w);
	}
	return px;
}

struct smt_font *smt_font_load(struct smt_ctx *ctx, const char *pattern, uint32_t pixel_size)
{
	char path[4096];
	int index = 0;
	FT_Library lib = NULL;
	FT_Face face = NULL;
	uint8_t *px = NULL;
	struct smt_font *font = NULL;

	if (smt__check(ctx) || !pixel_size || pixel_size > 512)
		return NULL;
	if (find_font_file(pattern ? pattern : "monospace", path, sizeof(path), &index)) {
		fprintf(stderr, "libsmt: no font matches \"%s\"\n", pattern);
		return NULL;
	}
	if (FT_Init_FreeType(&lib) || FT_New_Face(lib, path, index, &face) ||
			FT_Set_Pixel_Sizes(face, 0, pixel_size)) {
		fprintf(stderr, "libsmt: cannot load font %s\n", path);
		goto out;
	}
	if (!(font = calloc(1, sizeof(*font))))
		goto out;
	uint32_t aw, ah;
	if (!(px = rasterise(face, font, &aw, &ah)))
		goto fail;
	FT_Size_Metrics *sm = &face->size->metrics;
	font->m = (struct smt_font_metrics){
		.ascent = (int32_t)((sm->ascender + 63) >> 6),
		.descent = (int32_t)((-sm->descender + 63) >> 6),
		.line_height = (int32_t)((sm->height + 63) >> 6),
		.max_advance = (int32_t)((sm->max_advance + 63) >> 6),
	};
	/* upload: PUT_IMAGE draws into the current target, so borrow it */
	uint32_t prev = ctx->target;
	font->atlas = smt_create_pixmap(ctx, aw, ah, SMT_FORMAT_A8);
	if (!font->atlas || smt_set_target(ctx, font->atlas) ||
			smt_put_image_rows(ctx, 0, 0, aw, ah, SMT_FORMAT_A8, aw, px) ||
			(prev && smt_set_target(ctx, prev)))
		goto fail;
	font->m.atlas_id = font->atlas;
	font->ctx = ctx;
	wl_list_insert(&ctx->fonts, &font->link);
	goto out;
fail:
	free(font);
	font = NULL;
out:
	free(px);
	if (face)
		FT_Done_Face(face);
	if (lib)
		FT_Done_FreeType(lib);
	return font;
}

void smt_font_destroy(struct smt_font *font)
{
	if (!font)
		return;
	if (!font->ctx->failed)
		smt_free_pixmap(font->ctx, font->atlas);
	wl_list_remove(&font->link);
	free(font);
}

void smt__font_destroy_all(struct smt_ctx *ctx)
{
	struct smt_font *f, *tmp;
	wl_list_for_each_safe (f, tmp, &ctx->fonts, link)
		smt_font_destroy(f);
}

void smt_font_metrics(const struct smt_font *font, struct smt_font_metrics *m)
{
	*m = font->m;
}

/* Next character of a UTF-8 string as printable ASCII ('?' otherwise);
 * 0 at the end. Continuation bytes are skipped: one '?' per code point. */
static int next_char(const char **s)
{
	const unsigned char *p = (const unsigned char *)*s;
	while (*p >= 0x80 && *p < 0xc0)
		p++;
	if (!*p) {
		*s = (const char *)p;
		return 0;
	}
	int c = *p++;
	*s = (const char *)p;
	return c >= FIRST_CHAR && c <= LAST_CHAR ? c : '?';
}

uint32_t smt_text_width(const struct smt_font *font, const char *s)
{
	uint32_t w = 0;
	for (int c; (c = next_char(&s));)
		w += (uint32_t)font->g[c - FIRST_CHAR].advance;
	return w;
}

int smt_draw_text(struct smt_ctx *ctx, struct smt_font *font, int32_t x, int32_t y, uint32_t colour,
		const char *s)
{
	struct smt_glyph buf[256];
	size_t n = 0;
	int32_t pen = 0;
	if (!font || !s)
		return -EINVAL;
	for (int c; (c = next_char(&s));) {
		const struct glyph_info *g = &font->g[c - FIRST_CHAR];
		if (g->w && g->h)
			buf[n++] = (struct smt_glyph){ g->x, g->y, g->w, g->h, pen + g->left,
				-g->top };
		pen += g->advance;
		if (n == sizeof(buf) / sizeof(*buf)) {
			int r = smt_glyphs(ctx, SMT_PAINT_OVER, colour, font->atlas, x, y, n, buf);
			if (r)
				return r;
			n = 0;
		}
	}
	return n ? smt_glyphs(ctx, SMT_PAINT_OVER, colour, font->atlas, x, y, n, buf) : 0;
}
