/*
 * One handle per mapped window. wlroots sends state events only when a state
 * changes; titles and the output are compared here, so updating after every
 * commit costs a few comparisons and sends nothing new.
 */
#include <stdlib.h>
#include <string.h>
#include <wlr/types/wlr_foreign_toplevel_management_v1.h>
#include "compositor/desktop/foreign_toplevel.h"
#include "compositor/output/output.h"

struct smtwc_foreign_toplevel {
	struct smtwc_view *view;
	struct wlr_foreign_toplevel_handle_v1 *handle;
	struct wlr_output *output; /* the one it was last said to be on */
	struct wl_listener request_activate;
	struct wl_listener request_maximize;
	struct wl_listener request_minimize;
	struct wl_listener request_fullscreen;
	struct wl_listener request_close;
};

static void handle_request_activate(struct wl_listener *listener, void *data)
{
	struct smtwc_foreign_toplevel *ft = wl_container_of(listener, ft, request_activate);
	view_focus(ft->view);
}

static void handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct smtwc_foreign_toplevel *ft = wl_container_of(listener, ft, request_maximize);
	struct wlr_foreign_toplevel_handle_v1_maximized_event *event = data;
	view_set_maximized(ft->view, event->maximized);
}

static void handle_request_minimize(struct wl_listener *listener, void *data)
{
	struct smtwc_foreign_toplevel *ft = wl_container_of(listener, ft, request_minimize);
	struct wlr_foreign_toplevel_handle_v1_minimized_event *event = data;
	if (event->minimized) {
		view_set_minimized(ft->view, true);
	} else {
		view_focus(ft->view);
	}
}

static void handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct smtwc_foreign_toplevel *ft = wl_container_of(listener, ft, request_fullscreen);
	struct wlr_foreign_toplevel_handle_v1_fullscreen_event *event = data;
	view_set_fullscreen(ft->view, event->fullscreen);
}

static void handle_request_close(struct wl_listener *listener, void *data)
{
	struct smtwc_foreign_toplevel *ft = wl_container_of(listener, ft, request_close);
	view_close(ft->view);
}

static bool same_string(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

void foreign_toplevel_update(struct smtwc_view *view)
{
	struct smtwc_foreign_toplevel *ft = view->foreign_toplevel;
	if (ft == NULL) {
		return;
	}
	struct wlr_foreign_toplevel_handle_v1 *handle = ft->handle;
	/* as paced by view.c: a commit or a focus change sends no newer */
	const char *title = view_shown_title(view);
	const char *app_id = view_shown_app_id(view);
	if (!same_string(handle->title, title)) {
		wlr_foreign_toplevel_handle_v1_set_title(handle, title != NULL ? title : "");
	}
	if (!same_string(handle->app_id, app_id)) {
		wlr_foreign_toplevel_handle_v1_set_app_id(handle, app_id != NULL ? app_id : "");
	}
	/* Taskbars group dialogs with their window. */
	struct smtwc_view *parent = view->impl->parent != NULL ? view->impl->parent(view) : NULL;
	struct wlr_foreign_toplevel_handle_v1 *parent_handle = parent != NULL &&
					parent->foreign_toplevel != NULL ?
			parent->foreign_toplevel->handle :
			NULL;
	if (handle->parent != parent_handle) {
		wlr_foreign_toplevel_handle_v1_set_parent(handle, parent_handle);
	}
	wlr_foreign_toplevel_handle_v1_set_activated(handle, view->server->focused_view == view);
	wlr_foreign_toplevel_handle_v1_set_maximized(handle, view->maximized);
	wlr_foreign_toplevel_handle_v1_set_minimized(handle, view->minimized);
	wlr_foreign_toplevel_handle_v1_set_fullscreen(handle, view->fullscreen);
	struct wlr_box box = view_box(view);
	struct smtwc_output *output = output_at(
			view->server, box.x + box.width / 2.0, box.y + box.height / 2.0);
	struct wlr_output *wlr_output = output != NULL ? output->wlr_output : NULL;
	if (wlr_output != ft->output) {
		if (ft->output != NULL) {
			wlr_foreign_toplevel_handle_v1_output_leave(handle, ft->output);
		}
		if (wlr_output != NULL) {
			wlr_foreign_toplevel_handle_v1_output_enter(handle, wlr_output);
		}
		ft->output = wlr_output;
	}
}

static void handle_view_change(struct wl_listener *listener, void *data)
{
	foreign_toplevel_update(data);
}

static void handle_view_map(struct wl_listener *listener, void *data)
{
	struct smtwc_view *view = data;
	if (view->foreign_toplevel != NULL || view->server->foreign_toplevels == NULL) {
		return;
	}
	struct smtwc_foreign_toplevel *ft = calloc(1, sizeof(*ft));
	if (ft == NULL) {
		return;
	}
	ft->handle = wlr_foreign_toplevel_handle_v1_create(view->server->foreign_toplevels);
	if (ft->handle == NULL) {
		free(ft);
		return;
	}
	ft->view = view;
	ft->request_activate.notify = handle_request_activate;
	wl_signal_add(&ft->handle->events.request_activate, &ft->request_activate);
	ft->request_maximize.notify = handle_request_maximize;
	wl_signal_add(&ft->handle->events.request_maximize, &ft->request_maximize);
	ft->request_minimize.notify = handle_request_minimize;
	wl_signal_add(&ft->handle->events.request_minimize, &ft->request_minimize);
	ft->request_fullscreen.notify = handle_request_fullscreen;
	wl_signal_add(&ft->handle->events.request_fullscreen, &ft->request_fullscreen);
	ft->request_close.notify = handle_request_close;
	wl_signal_add(&ft->handle->events.request_close, &ft->request_close);
	view->foreign_toplevel = ft;
	foreign_toplevel_update(view);
}

static void handle_view_unmap(struct wl_listener *listener, void *data)
{
	struct smtwc_view *view = data;
	struct smtwc_foreign_toplevel *ft = view->foreign_toplevel;
	if (ft == NULL) {
		return;
	}
	view->foreign_toplevel = NULL;
	wl_list_remove(&ft->request_activate.link);
	wl_list_remove(&ft->request_maximize.link);
	wl_list_remove(&ft->request_minimize.link);
	wl_list_remove(&ft->request_fullscreen.link);
	wl_list_remove(&ft->request_close.link);
	wlr_foreign_toplevel_handle_v1_destroy(ft->handle);
	free(ft);
}

void foreign_toplevel_init(struct smtwc_server *server)
{
	server->foreign_toplevels = wlr_foreign_toplevel_manager_v1_create(server->display);
	server->foreign_toplevel_view_map.notify = handle_view_map;
	wl_signal_add(&server->events.view_map, &server->foreign_toplevel_view_map);
	server->foreign_toplevel_view_unmap.notify = handle_view_unmap;
	wl_signal_add(&server->events.view_unmap, &server->foreign_toplevel_view_unmap);
	server->foreign_toplevel_view_change.notify = handle_view_change;
	wl_signal_add(&server->events.view_change, &server->foreign_toplevel_view_change);
}
