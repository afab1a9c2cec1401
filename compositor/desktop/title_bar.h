/*
 * The title bar of a server-side-decorated window: the window's title
 * rendered with Pango into a buffer shown by a scene node, as sway 1.7 draws
 * it. The node has no data of its own, so hit-testing finds the window it
 * hangs from.
 */
#ifndef SMTWC_TITLE_BAR_H
#define SMTWC_TITLE_BAR_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/types/wlr_scene.h>
#include "compositor/config/config.h"

struct smtwc_title_bar;

/* An empty, hidden title bar under parent. NULL when out of memory. */
struct smtwc_title_bar *title_bar_create(struct wlr_scene_node *parent);
void title_bar_destroy(struct smtwc_title_bar *bar);

/* Height of the title bar the configuration asks for: title-height, or the
 * font's line height plus padding. Loads the fonts: called once, at start. */
int title_bar_height(const struct smtwc_config *cfg);

/* Shows the bar at (x, y) of its parent with this size, title and focus
 * colours; renders again only when one of them changed. A NULL title
 * shows an empty bar. */
void title_bar_show(struct smtwc_title_bar *bar, const struct smtwc_config *cfg, int x, int y,
		int width, int height, const char *title, bool focused);
void title_bar_hide(struct smtwc_title_bar *bar);
/* Bytes the bar's rendered buffer and node hold (kept while hidden): a
 * window's width of pixels times the bar's height, up to cairo's 32767
 * pixels wide, charged to the window's client (view_frame_bytes). */
uint64_t title_bar_bytes(const struct smtwc_title_bar *bar);

/* At exit, after every title bar is gone: Pango's default font map is
 * dropped (otherwise lost for good, as valgrind says). Not cairo's or
 * fontconfig's static caches: their debug resets assert when anything
 * still holds a font, which aborted the compositor at exit now and then
 * (docs/reliability.md); those caches stay reachable, not leaks. */
void title_bar_fonts_finish(void);

#endif
