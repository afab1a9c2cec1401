/*
 * xdg-activation: launchers and notifications hand a token to a client, which
 * uses it to ask for focus. wlroots validates the token (seat and serial);
 * a valid request focuses the window, even a minimized one.
 */
#include <wlr/types/wlr_xdg_activation_v1.h>
#include "compositor/desktop/decoration.h"
#include "compositor/desktop/view.h"
#include "compositor/desktop/xdg_shell.h"

void activation_handle_request(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_activation_v1_request_activate_event *event = data;
	if (!wlr_surface_is_xdg_surface(event->surface)) {
		return;
	}
	struct smtwc_view *view = xdg_shell_view_from_surface(
			wlr_xdg_surface_from_wlr_surface(event->surface));
	if (view != NULL && view->mapped) {
		view_focus(view);
	}
}
