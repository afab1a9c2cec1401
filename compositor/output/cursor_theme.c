/*
 * The cursor theme at the outputs' scales (cursor_theme.h).
 */
#include <stdlib.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include "compositor/output/cursor_theme.h"
#include "compositor/output/output_types.h"

static bool output_has_scale(struct smtwc_server *server, float scale)
{
	struct smtwc_output *output;
	wl_list_for_each (output, &server->outputs, link) {
		if (output->wlr_output->scale == scale) {
			return true;
		}
	}
	return false;
}

void cursor_theme_prune(struct smtwc_server *server)
{
	if (server->cursor_manager == NULL) {
		return; /* outputs go after the seat when the session ends */
	}
	/* Scale 1 stays: Xwayland's root cursor is its image (xwayland.c). */
	struct wlr_xcursor_manager_theme *theme, *tmp;
	wl_list_for_each_safe (theme, tmp, &server->cursor_manager->scaled_themes, link) {
		if (theme->scale != 1 && !output_has_scale(server, theme->scale)) {
			wl_list_remove(&theme->link);
			wlr_xcursor_theme_destroy(theme->theme);
			free(theme); /* allocated by wlr_xcursor_manager_load */
		}
	}
}

uint32_t cursor_theme_count(struct smtwc_server *server)
{
	if (server->cursor_manager == NULL) {
		return 0;
	}
	return (uint32_t)wl_list_length(&server->cursor_manager->scaled_themes);
}

void cursor_theme_output_scale(struct smtwc_server *server, float scale)
{
	/* wlr_cursor sets an image of a given scale only on outputs of exactly
	 * that scale; the others keep what they had. */
	if (server->cursor_manager == NULL) {
		return;
	}
	wlr_xcursor_manager_load(server->cursor_manager, scale);
	if (server->seat->pointer_state.focused_surface == NULL) {
		/* A client under the pointer owns the image: its own surface. */
		wlr_xcursor_manager_set_cursor_image(
				server->cursor_manager, "left_ptr", server->cursor);
	}
	/* A theme is about 2 MB (Adwaita): a client of wlr-output-management
	 * stepping through scales must not keep one per scale it tried. The
	 * outputs' images are copies (wlr_output_cursor's texture or buffer). */
	cursor_theme_prune(server);
}
