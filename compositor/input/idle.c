/*
 * Idle: wlroots counts the timeouts of org_kde_kwin_idle clients (swayidle
 * at wlroots 0.15) and we tell it about every input. An idle inhibitor holds
 * the timers off while its surface is visible, as sway does: a video player
 * minimized does not keep the screen on.
 */
#include <stdlib.h>
#include <wlr/types/wlr_idle.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include "compositor/desktop/view.h"
#include "compositor/input/idle.h"

struct smtwc_idle_inhibitor {
	struct smtwc_server *server;
	struct wlr_idle_inhibitor_v1 *wlr_inhibitor;
	struct wl_list link; /* smtwc_server.idle_inhibitors */
	struct wl_listener destroy;
};

static bool inhibitor_is_active(struct smtwc_idle_inhibitor *inhibitor)
{
	struct wlr_surface *root = wlr_surface_get_root_surface(inhibitor->wlr_inhibitor->surface);
	struct smtwc_view *view = view_from_surface(inhibitor->server, root);
	/* Surfaces of no window (a layer surface) count while they exist. */
	return view == NULL || (view->mapped && !view->minimized);
}

bool idle_inhibited(struct smtwc_server *server)
{
	struct smtwc_idle_inhibitor *inhibitor;
	wl_list_for_each (inhibitor, &server->idle_inhibitors, link) {
		if (inhibitor_is_active(inhibitor)) {
			return true;
		}
	}
	return false;
}

static void idle_inhibit_check(struct smtwc_server *server)
{
	wlr_idle_set_enabled(server->idle, server->seat, !idle_inhibited(server));
}

void idle_notify_activity(struct smtwc_server *server)
{
	wlr_idle_notify_activity(server->idle, server->seat);
}

static void inhibitor_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_idle_inhibitor *inhibitor = wl_container_of(listener, inhibitor, destroy);
	struct smtwc_server *server = inhibitor->server;
	wl_list_remove(&inhibitor->link);
	wl_list_remove(&inhibitor->destroy.link);
	free(inhibitor);
	idle_inhibit_check(server);
}

static void handle_new_inhibitor(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_idle_inhibitor);
	struct wlr_idle_inhibitor_v1 *wlr_inhibitor = data;
	struct smtwc_idle_inhibitor *inhibitor = calloc(1, sizeof(*inhibitor));
	if (inhibitor == NULL) {
		wl_resource_post_no_memory(wlr_inhibitor->resource);
		return;
	}
	inhibitor->server = server;
	inhibitor->wlr_inhibitor = wlr_inhibitor;
	inhibitor->destroy.notify = inhibitor_handle_destroy;
	wl_signal_add(&wlr_inhibitor->events.destroy, &inhibitor->destroy);
	wl_list_insert(&server->idle_inhibitors, &inhibitor->link);
	idle_inhibit_check(server);
}

static void handle_view_visibility(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, idle_view_visibility);
	idle_inhibit_check(server);
}

void idle_init(struct smtwc_server *server)
{
	server->idle_view_visibility.notify = handle_view_visibility;
	wl_signal_add(&server->events.view_visibility, &server->idle_view_visibility);
	wl_list_init(&server->idle_inhibitors);
	server->idle = wlr_idle_create(server->display);
	struct wlr_idle_inhibit_manager_v1 *manager = wlr_idle_inhibit_v1_create(server->display);
	server->new_idle_inhibitor.notify = handle_new_inhibitor;
	wl_signal_add(&manager->events.new_inhibitor, &server->new_idle_inhibitor);
}
