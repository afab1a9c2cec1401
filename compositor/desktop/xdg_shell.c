/*
 * xdg-shell: toplevels become views, popups become scene subtrees of their
 * parent, placed where the client's positioner asks and kept on the output.
 */
#include <stdlib.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "compositor/desktop/xdg_shell.h"
#include "compositor/desktop/popup.h"
#include "compositor/desktop/view.h"
#include "compositor/input/cursor.h"
#include "compositor/output/output.h"

struct smtwc_xdg_view {
	struct smtwc_view view;
	struct wlr_xdg_surface *xdg_surface;

	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener destroy;
	struct wl_listener commit;
	struct wl_listener request_move;
	struct wl_listener request_resize;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
	struct wl_listener request_minimize;
	struct wl_listener set_title;
	struct wl_listener set_app_id;
};

static struct smtwc_xdg_view *xdg_view(struct smtwc_view *view)
{
	return wl_container_of(view, (struct smtwc_xdg_view *)NULL, view);
}

static struct wlr_surface *xdg_view_surface(struct smtwc_view *view)
{
	return xdg_view(view)->xdg_surface->surface;
}

static struct wlr_box xdg_view_geometry(struct smtwc_view *view)
{
	struct wlr_box box;
	wlr_xdg_surface_get_geometry(xdg_view(view)->xdg_surface, &box);
	return view_clamp_geometry(box);
}

static void xdg_view_configure(struct smtwc_view *view, int width, int height)
{
	wlr_xdg_toplevel_set_size(xdg_view(view)->xdg_surface, width > 0 ? (uint32_t)width : 0,
			height > 0 ? (uint32_t)height : 0);
}

static void xdg_view_set_activated(struct smtwc_view *view, bool activated)
{
	wlr_xdg_toplevel_set_activated(xdg_view(view)->xdg_surface, activated);
}

static void xdg_view_set_maximized(struct smtwc_view *view, bool maximized)
{
	wlr_xdg_toplevel_set_maximized(xdg_view(view)->xdg_surface, maximized);
}

static void xdg_view_set_fullscreen(struct smtwc_view *view, bool fullscreen)
{
	wlr_xdg_toplevel_set_fullscreen(xdg_view(view)->xdg_surface, fullscreen);
}

static void xdg_view_close(struct smtwc_view *view)
{
	wlr_xdg_toplevel_send_close(xdg_view(view)->xdg_surface);
}

static bool xdg_view_configure_pending(struct smtwc_view *view)
{
	struct wlr_xdg_surface *xdg = xdg_view(view)->xdg_surface;
	return xdg->configure_idle != NULL ||
			xdg->current.configure_serial != xdg->scheduled_serial;
}

static struct smtwc_view *xdg_view_parent(struct smtwc_view *view)
{
	return xdg_shell_view_from_surface(xdg_view(view)->xdg_surface->toplevel->parent);
}

static const char *xdg_view_title(struct smtwc_view *view)
{
	return xdg_view(view)->xdg_surface->toplevel->title;
}

static const char *xdg_view_app_id(struct smtwc_view *view)
{
	return xdg_view(view)->xdg_surface->toplevel->app_id;
}

static const struct smtwc_view_impl xdg_view_impl = {
	.surface = xdg_view_surface,
	.geometry = xdg_view_geometry,
	.configure = xdg_view_configure,
	.set_activated = xdg_view_set_activated,
	.set_maximized = xdg_view_set_maximized,
	.set_fullscreen = xdg_view_set_fullscreen,
	.close = xdg_view_close,
	.configure_pending = xdg_view_configure_pending,
	.parent = xdg_view_parent,
	.title = xdg_view_title,
	.app_id = xdg_view_app_id,
};

static void xdg_view_handle_map(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, map);
	struct wlr_xdg_toplevel *toplevel = xv->xdg_surface->toplevel;
	struct smtwc_view *parent = xdg_shell_view_from_surface(toplevel->parent);
	if (parent != NULL && parent->mapped) {
		/* Dialogs open centred over the window they belong to. */
		struct wlr_box pb = view_box(parent);
		struct wlr_box geo = xdg_view_geometry(&xv->view);
		xv->view.x = pb.x + (pb.width - geo.width) / 2;
		xv->view.y = pb.y + (pb.height - geo.height) / 2;
		xv->view.keep_position = true;
	}
	view_map(&xv->view);
	/* A client may ask for these states before it has a window to apply
	 * them to; honour them now. */
	if (toplevel->requested.fullscreen) {
		view_set_fullscreen(&xv->view, true);
	} else if (toplevel->requested.maximized) {
		view_set_maximized(&xv->view, true);
	}
}

static void xdg_view_handle_unmap(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, unmap);
	view_unmap(&xv->view);
}

static void xdg_view_handle_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, commit);
	if (xv->view.mapped) {
		view_update_geometry(&xv->view);
	}
}

static void xdg_view_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, destroy);
	wl_list_remove(&xv->map.link);
	wl_list_remove(&xv->unmap.link);
	wl_list_remove(&xv->destroy.link);
	wl_list_remove(&xv->commit.link);
	wl_list_remove(&xv->request_move.link);
	wl_list_remove(&xv->request_resize.link);
	wl_list_remove(&xv->request_maximize.link);
	wl_list_remove(&xv->request_fullscreen.link);
	wl_list_remove(&xv->request_minimize.link);
	wl_list_remove(&xv->set_title.link);
	wl_list_remove(&xv->set_app_id.link);
	view_destroy(&xv->view);
	free(xv);
}

static void xdg_view_handle_request_move(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, request_move);
	/* Clients ask in response to a button press; trusting it without a
	 * pressed button would let any client steal the pointer. */
	cursor_begin_interactive(xv->view.server, &xv->view, SMTWC_CURSOR_MOVE, 0, true);
}

static void xdg_view_handle_request_resize(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, request_resize);
	struct wlr_xdg_toplevel_resize_event *event = data;
	cursor_begin_interactive(
			xv->view.server, &xv->view, SMTWC_CURSOR_RESIZE, event->edges, true);
}

static void xdg_view_handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, request_maximize);
	if (!xv->xdg_surface->mapped) {
		/* Applied at map; the protocol still wants a configure now. */
		wlr_xdg_surface_schedule_configure(xv->xdg_surface);
		return;
	}
	view_set_maximized(&xv->view, xv->xdg_surface->toplevel->requested.maximized);
}

static void xdg_view_handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, request_fullscreen);
	struct wlr_xdg_toplevel_set_fullscreen_event *event = data;
	if (!xv->xdg_surface->mapped) {
		wlr_xdg_surface_schedule_configure(xv->xdg_surface);
		return;
	}
	view_set_fullscreen(&xv->view, event->fullscreen);
}

static void xdg_view_handle_request_minimize(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, request_minimize);
	view_set_minimized(&xv->view, true);
}

static void xdg_view_handle_set_title(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, set_title);
	view_update_title(&xv->view);
}

static void xdg_view_handle_set_app_id(struct wl_listener *listener, void *data)
{
	struct smtwc_xdg_view *xv = wl_container_of(listener, xv, set_app_id);
	view_update_title(&xv->view); /* paced like titles */
}

static void xdg_toplevel_create(struct smtwc_server *server, struct wlr_xdg_surface *xdg_surface)
{
	struct smtwc_xdg_view *xv = calloc(1, sizeof(*xv));
	if (xv == NULL) {
		wl_resource_post_no_memory(xdg_surface->resource);
		return;
	}
	xv->xdg_surface = xdg_surface;
	view_init(&xv->view, server, &xdg_view_impl);
	struct wlr_scene_node *content = wlr_scene_xdg_surface_create(
			&xv->view.tree->node, xdg_surface);
	view_set_content(&xv->view, content);
	/* Popups of this toplevel hang from its content tree. */
	xdg_surface->data = content;

	xv->map.notify = xdg_view_handle_map;
	wl_signal_add(&xdg_surface->events.map, &xv->map);
	xv->unmap.notify = xdg_view_handle_unmap;
	wl_signal_add(&xdg_surface->events.unmap, &xv->unmap);
	xv->destroy.notify = xdg_view_handle_destroy;
	wl_signal_add(&xdg_surface->events.destroy, &xv->destroy);
	xv->commit.notify = xdg_view_handle_commit;
	wl_signal_add(&xdg_surface->surface->events.commit, &xv->commit);

	struct wlr_xdg_toplevel *toplevel = xdg_surface->toplevel;
	xv->request_move.notify = xdg_view_handle_request_move;
	wl_signal_add(&toplevel->events.request_move, &xv->request_move);
	xv->request_resize.notify = xdg_view_handle_request_resize;
	wl_signal_add(&toplevel->events.request_resize, &xv->request_resize);
	xv->request_maximize.notify = xdg_view_handle_request_maximize;
	wl_signal_add(&toplevel->events.request_maximize, &xv->request_maximize);
	xv->request_fullscreen.notify = xdg_view_handle_request_fullscreen;
	wl_signal_add(&toplevel->events.request_fullscreen, &xv->request_fullscreen);
	xv->request_minimize.notify = xdg_view_handle_request_minimize;
	wl_signal_add(&toplevel->events.request_minimize, &xv->request_minimize);
	xv->set_title.notify = xdg_view_handle_set_title;
	wl_signal_add(&toplevel->events.set_title, &xv->set_title);
	xv->set_app_id.notify = xdg_view_handle_set_app_id;
	wl_signal_add(&toplevel->events.set_app_id, &xv->set_app_id);
}

struct smtwc_view *xdg_shell_view_from_surface(struct wlr_xdg_surface *xdg_surface)
{
	if (xdg_surface == NULL || xdg_surface->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL ||
			xdg_surface->data == NULL) {
		return NULL;
	}
	struct wlr_scene_node *content = xdg_surface->data;
	return content->parent != NULL ? content->parent->data : NULL;
}

static void popups_for_each(struct wlr_xdg_surface *xdg_surface,
		void (*callback)(struct wlr_box box, void *data), void *data)
{
	struct wlr_xdg_popup *popup;
	wl_list_for_each (popup, &xdg_surface->popups, link) {
		struct wlr_xdg_surface *base = popup->base;
		int x, y;
		struct wlr_scene_node *node = base->data;
		if (!base->mapped || node == NULL || !wlr_scene_node_coords(node, &x, &y)) {
			continue;
		}
		callback((struct wlr_box){ x, y, popup->geometry.width, popup->geometry.height },
				data);
		popups_for_each(base, callback, data);
	}
}

void xdg_shell_view_popups_for_each(struct smtwc_view *view,
		void (*callback)(struct wlr_box box, void *data), void *data)
{
	if (view->impl == &xdg_view_impl) {
		popups_for_each(xdg_view(view)->xdg_surface, callback, data);
	}
}

static void xdg_popup_create(struct smtwc_server *server, struct wlr_xdg_surface *xdg_surface)
{
	struct wlr_xdg_popup *popup = xdg_surface->popup;
	if (popup->parent == NULL) {
		/* Layer-shell popups get their parent later, via get_popup; the
		 * layer shell module handles them then. */
		return;
	}
	struct wlr_scene_node *parent_node = popup_parent(popup->parent);
	if (parent_node == NULL) {
		return;
	}
	xdg_surface->data = wlr_scene_xdg_surface_create(parent_node, xdg_surface);
	popup_unconstrain(server, popup);
}

void xdg_shell_handle_new_surface(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_xdg_surface);
	struct wlr_xdg_surface *xdg_surface = data;
	switch (xdg_surface->role) {
	case WLR_XDG_SURFACE_ROLE_TOPLEVEL:
		xdg_toplevel_create(server, xdg_surface);
		break;
	case WLR_XDG_SURFACE_ROLE_POPUP:
		xdg_popup_create(server, xdg_surface);
		break;
	case WLR_XDG_SURFACE_ROLE_NONE:
		break;
	}
}
