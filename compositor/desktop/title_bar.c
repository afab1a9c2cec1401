/*
 * Title bars drawn with Pango and cairo into our own memory, shown by a
 * wlr_scene_buffer. wlroots 0.15 cannot swap a scene buffer's contents, so
 * a changed title, width or focus makes a new buffer and a new node; an
 * unchanged one costs nothing.
 */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <cairo.h>
#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <wlr/types/wlr_buffer.h>
#include "compositor/desktop/title_bar.h"

/* sway 1.7's titlebar_padding: 5 px left of the text, 4 px above and below. */
enum {
	PAD_X = 5,
	PAD_Y = 4
};

struct title_buffer {
	struct wlr_buffer base;
	cairo_surface_t *surface; /* ARGB32: DRM ARGB8888 on every host order */
};

static void title_buffer_destroy(struct wlr_buffer *wlr_buffer)
{
	struct title_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	cairo_surface_destroy(buffer->surface);
	free(buffer);
}

static bool title_buffer_begin_access(struct wlr_buffer *wlr_buffer, uint32_t flags, void **data,
		uint32_t *format, size_t *stride)
{
	struct title_buffer *buffer = wl_container_of(wlr_buffer, buffer, base);
	if (flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) {
		return false;
	}
	*data = cairo_image_surface_get_data(buffer->surface);
	*format = DRM_FORMAT_ARGB8888;
	*stride = (size_t)cairo_image_surface_get_stride(buffer->surface);
	return true;
}

static void title_buffer_end_access(struct wlr_buffer *wlr_buffer)
{
}

static const struct wlr_buffer_impl title_buffer_impl = {
	.destroy = title_buffer_destroy,
	.begin_data_ptr_access = title_buffer_begin_access,
	.end_data_ptr_access = title_buffer_end_access,
};

struct smtwc_title_bar {
	struct wlr_scene_tree *tree;   /* holds the buffer node; position of the bar */
	struct wlr_scene_buffer *node; /* NULL until first shown */
	/* What node shows. */
	char *title;
	int width, height;
	bool focused;
	uint32_t background, text;
};

static void set_source_rgb(cairo_t *cr, uint32_t rgb)
{
	cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
			(rgb & 0xff) / 255.0);
}

static PangoLayout *title_layout(cairo_t *cr, const char *font, const char *text)
{
	PangoLayout *layout = pango_cairo_create_layout(cr);
	PangoFontDescription *desc = pango_font_description_from_string(font);
	pango_layout_set_font_description(layout, desc);
	pango_font_description_free(desc);
	pango_layout_set_single_paragraph_mode(layout, TRUE);
	pango_layout_set_text(layout, text, -1);
	return layout;
}

int title_bar_height(const struct smtwc_config *cfg)
{
	/* fontconfig loads here, not in the thread Pango would start for it,
	 * and the font is measured (loaded) even when the height is set. */
	FcInit();
	/* Measured on a scratch surface: the line height of the font with the
	 * tallest glyphs a title commonly has. */
	cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
	cairo_t *cr = cairo_create(surface);
	PangoLayout *layout = title_layout(cr, cfg->title_font, "Ág");
	int width, height;
	pango_layout_get_pixel_size(layout, &width, &height);
	g_object_unref(layout);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	return cfg->title_height > 0 ? cfg->title_height : height + 2 * PAD_Y;
}

static struct title_buffer *title_render(const struct smtwc_config *cfg, int width, int height,
		const char *title, uint32_t background, uint32_t text)
{
	struct title_buffer *buffer = calloc(1, sizeof(*buffer));
	if (buffer == NULL) {
		return NULL;
	}
	buffer->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
	if (cairo_surface_status(buffer->surface) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(buffer->surface);
		free(buffer);
		return NULL;
	}
	cairo_t *cr = cairo_create(buffer->surface);
	set_source_rgb(cr, background);
	cairo_paint(cr);
	if (title != NULL && title[0] != '\0' && width > 2 * PAD_X) {
		PangoLayout *layout = title_layout(cr, cfg->title_font, title);
		/* Long titles end in an ellipsis instead of running past the bar. */
		pango_layout_set_width(layout, (width - 2 * PAD_X) * PANGO_SCALE);
		pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
		int text_w, text_h;
		pango_layout_get_pixel_size(layout, &text_w, &text_h);
		set_source_rgb(cr, text);
		cairo_move_to(cr, PAD_X, (height - text_h) / 2);
		pango_cairo_show_layout(cr, layout);
		g_object_unref(layout);
	}
	cairo_destroy(cr);
	cairo_surface_flush(buffer->surface);
	wlr_buffer_init(&buffer->base, &title_buffer_impl, width, height);
	return buffer;
}

struct smtwc_title_bar *title_bar_create(struct wlr_scene_node *parent)
{
	struct smtwc_title_bar *bar = calloc(1, sizeof(*bar));
	if (bar == NULL) {
		return NULL;
	}
	bar->tree = wlr_scene_tree_create(parent);
	if (bar->tree == NULL) {
		free(bar);
		return NULL;
	}
	wlr_scene_node_set_enabled(&bar->tree->node, false);
	return bar;
}

void title_bar_destroy(struct smtwc_title_bar *bar)
{
	if (bar == NULL) {
		return;
	}
	wlr_scene_node_destroy(&bar->tree->node);
	free(bar->title);
	free(bar);
}

static bool same_title(const char *a, const char *b)
{
	return (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
}

void title_bar_show(struct smtwc_title_bar *bar, const struct smtwc_config *cfg, int x, int y,
		int width, int height, const char *title, bool focused)
{
	if (bar == NULL) {
		return;
	}
	if (width <= 0 || height <= 0) {
		title_bar_hide(bar);
		return;
	}
	wlr_scene_node_set_position(&bar->tree->node, x, y);
	wlr_scene_node_set_enabled(&bar->tree->node, true);
	uint32_t background = focused ? cfg->focused_title : cfg->unfocused_title;
	uint32_t text = focused ? cfg->focused_title_text : cfg->unfocused_title_text;
	if (bar->node != NULL && bar->width == width && bar->height == height &&
			bar->focused == focused && bar->background == background &&
			bar->text == text && same_title(bar->title, title)) {
		return;
	}
	char *copy = title != NULL ? strdup(title) : NULL;
	struct title_buffer *buffer = title_render(cfg, width, height, title, background, text);
	if (buffer == NULL || (title != NULL && copy == NULL)) {
		free(copy);
		if (buffer != NULL) {
			wlr_buffer_drop(&buffer->base);
		}
		return; /* out of memory: the previous bar stays */
	}
	struct wlr_scene_buffer *node = wlr_scene_buffer_create(&bar->tree->node, &buffer->base);
	wlr_buffer_drop(&buffer->base); /* the node holds its own lock */
	if (node == NULL) {
		free(copy);
		return;
	}
	/* The whole buffer named (an empty source box is the node's size on
	 * the output to wlroots 0.15's scene renderer: the bar's text did not
	 * scale with the output; ring/canvas.c the same). */
	wlr_scene_buffer_set_source_box(node,
			&(struct wlr_fbox){ 0, 0, node->buffer->width, node->buffer->height });
	if (bar->node != NULL) {
		wlr_scene_node_destroy(&bar->node->node);
	}
	bar->node = node;
	free(bar->title);
	bar->title = copy;
	bar->width = width;
	bar->height = height;
	bar->focused = focused;
	bar->background = background;
	bar->text = text;
}

/* The buffer's struct, the scene node that shows it and the kept title,
 * besides its pixels. */
#define TITLE_BAR_NODE_BYTES 512u

uint64_t title_bar_bytes(const struct smtwc_title_bar *bar)
{
	if (bar == NULL || bar->node == NULL) {
		return 0;
	}
	return (uint64_t)bar->width * (uint64_t)bar->height * 4u + TITLE_BAR_NODE_BYTES +
			(bar->title != NULL ? strlen(bar->title) : 0);
}

void title_bar_hide(struct smtwc_title_bar *bar)
{
	if (bar != NULL) {
		wlr_scene_node_set_enabled(&bar->tree->node, false);
	}
}

void title_bar_fonts_finish(void)
{
	pango_cairo_font_map_set_default(NULL);
}
