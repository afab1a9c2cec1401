/*
 * As in sway, an inhibitor is active from its creation; it takes effect
 * while its surface has the keyboard. VT switching is never inhibited, so
 * the user can always get out.
 */
#include <wlr/types/wlr_keyboard_shortcuts_inhibit_v1.h>
#include "compositor/input/shortcuts_inhibit.h"

bool shortcuts_inhibited(struct smtwc_server *server)
{
	struct wlr_surface *focused = server->seat->keyboard_state.focused_surface;
	if (focused == NULL) {
		return false;
	}
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor;
	wl_list_for_each (inhibitor, &server->shortcuts_inhibit->inhibitors, link) {
		if (inhibitor->surface == focused && inhibitor->seat == server->seat &&
				inhibitor->active) {
			return true;
		}
	}
	return false;
}

static void handle_new_inhibitor(struct wl_listener *listener, void *data)
{
	struct wlr_keyboard_shortcuts_inhibitor_v1 *inhibitor = data;
	wlr_keyboard_shortcuts_inhibitor_v1_activate(inhibitor);
}

void shortcuts_inhibit_init(struct smtwc_server *server)
{
	server->shortcuts_inhibit = wlr_keyboard_shortcuts_inhibit_v1_create(server->display);
	server->new_shortcuts_inhibitor.notify = handle_new_inhibitor;
	wl_signal_add(&server->shortcuts_inhibit->events.new_inhibitor,
			&server->new_shortcuts_inhibitor);
}
