/*
 * The cursor theme at the outputs' scales: loaded at an output's scale when
 * it appears or its scale changes (wlr_cursor sets an image of a scale only
 * on outputs of exactly that scale: without it, an output whose scale
 * changed kept the image of its former one), unloaded when no output has
 * that scale any more (about 2 MB a theme, and any client of
 * wlr-output-management may step through scales).
 */
#ifndef SMTWC_CURSOR_THEME_H
#define SMTWC_CURSOR_THEME_H

#include <stdint.h>
#include "compositor/server.h"

/* An output now has this scale (new, or changed at run time): the theme
 * is loaded at it and the compositor's own image set again. */
void cursor_theme_output_scale(struct smtwc_server *server, float scale);
/* Unloads the theme of each scale no output in server->outputs has (but
 * 1's); the manager is NULL once the seat is gone. */
void cursor_theme_prune(struct smtwc_server *server);
/* Scales the theme is loaded at (smtctl stats' cursor_themes). */
uint32_t cursor_theme_count(struct smtwc_server *server);

#endif
