/*
 * Server-side decorations. smtwc draws a focus-coloured border around
 * windows whose client asks for server-side mode, and tells clients that ask
 * for client-side mode to decorate themselves: through xdg-decoration, or
 * KDE's older server-decoration protocol, which GTK 3 and Qt 5 use.
 */
#include <stdlib.h>
#include <wlr/types/wlr_server_decoration.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include "compositor/desktop/decoration.h"
#include "compositor/desktop/view.h"
#include "compositor/desktop/xdg_shell.h"

struct smtwc_decoration {
	struct wlr_xdg_toplevel_decoration_v1 *decoration;
	struct wl_listener request_mode;
	struct wl_listener destroy;
};

static void decoration_apply(struct smtwc_decoration *deco)
{
	struct wlr_xdg_toplevel_decoration_v1 *d = deco->decoration;
	/* Without a preference the compositor chooses; we choose server side so
	 * every window gets a visible focus border. */
	enum wlr_xdg_toplevel_decoration_v1_mode mode = d->requested_mode ==
					WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE ?
			WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_CLIENT_SIDE :
			WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE;
	wlr_xdg_toplevel_decoration_v1_set_mode(d, mode);
	struct smtwc_view *view = xdg_shell_view_from_surface(d->surface);
	if (view != NULL) {
		view_set_server_side_decoration(
				view, mode == WLR_XDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	}
}

static void decoration_handle_request_mode(struct wl_listener *listener, void *data)
{
	struct smtwc_decoration *deco = wl_container_of(listener, deco, request_mode);
	decoration_apply(deco);
}

static void decoration_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_decoration *deco = wl_container_of(listener, deco, destroy);
	struct smtwc_view *view = xdg_shell_view_from_surface(deco->decoration->surface);
	if (view != NULL) {
		view_set_server_side_decoration(view, false);
	}
	wl_list_remove(&deco->request_mode.link);
	wl_list_remove(&deco->destroy.link);
	free(deco);
}

void decoration_handle_new(struct wl_listener *listener, void *data)
{
	struct wlr_xdg_toplevel_decoration_v1 *decoration = data;
	struct smtwc_decoration *deco = calloc(1, sizeof(*deco));
	if (deco == NULL) {
		wl_resource_post_no_memory(decoration->resource);
		return;
	}
	deco->decoration = decoration;
	deco->request_mode.notify = decoration_handle_request_mode;
	wl_signal_add(&decoration->events.request_mode, &deco->request_mode);
	deco->destroy.notify = decoration_handle_destroy;
	wl_signal_add(&decoration->events.destroy, &deco->destroy);
	decoration_apply(deco);
}

/* KDE's server-decoration protocol. The manager tells every client that
 * the server decorates (server.c), so GTK 3 turns its own title bar off
 * for windows without a header bar and asks for server mode: before this
 * was heard, zathura's and xfce4-terminal's windows had no title bar at
 * all (red team, session 25). */
struct smtwc_kde_decoration {
	struct wlr_server_decoration *decoration;
	struct wl_listener mode;
	struct wl_listener destroy;
};

static struct smtwc_view *kde_decoration_view(struct wlr_server_decoration *d)
{
	if (d->surface == NULL || !wlr_surface_is_xdg_surface(d->surface)) {
		return NULL;
	}
	return xdg_shell_view_from_surface(wlr_xdg_surface_from_wlr_surface(d->surface));
}

static void kde_decoration_apply(struct wlr_server_decoration *d)
{
	struct smtwc_view *view = kde_decoration_view(d);
	if (view != NULL) {
		view_set_server_side_decoration(
				view, d->mode == WLR_SERVER_DECORATION_MANAGER_MODE_SERVER);
	}
}

static void kde_decoration_handle_mode(struct wl_listener *listener, void *data)
{
	struct smtwc_kde_decoration *deco = wl_container_of(listener, deco, mode);
	kde_decoration_apply(deco->decoration);
}

static void kde_decoration_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_kde_decoration *deco = wl_container_of(listener, deco, destroy);
	wl_list_remove(&deco->mode.link);
	wl_list_remove(&deco->destroy.link);
	free(deco);
}

void decoration_handle_new_kde(struct wl_listener *listener, void *data)
{
	struct wlr_server_decoration *decoration = data;
	struct smtwc_kde_decoration *deco = calloc(1, sizeof(*deco));
	if (deco == NULL) {
		wl_resource_post_no_memory(decoration->resource);
		return;
	}
	deco->decoration = decoration;
	deco->mode.notify = kde_decoration_handle_mode;
	wl_signal_add(&decoration->events.mode, &deco->mode);
	deco->destroy.notify = kde_decoration_handle_destroy;
	wl_signal_add(&decoration->events.destroy, &deco->destroy);
	kde_decoration_apply(decoration);
}
