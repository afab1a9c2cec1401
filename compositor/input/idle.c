/*
 * Idle: wlroots counts the timeouts of org_kde_kwin_idle clients (swayidle
 * at wlroots 0.15) and we tell it about every input. An idle inhibitor holds
 * the timers off while its surface is visible, as sway does: a video player
 * minimized does not keep the screen on.
 */
#include <stdlib.h>
#include <unistd.h>
#include <wlr/types/wlr_idle.h>
#include <wlr/types/wlr_idle_inhibit_v1.h>
#include <wlr/util/log.h>
#include "compositor/log_limit.h"
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

/* Every check walks every inhibitor, and each looks its window up among
 * the views: one client's thousands of inhibitors on a window it never
 * maps made each new one cost the compositor the walk of all before it.
 * A player or a browser has one or two, so a client gets
 * client-idle-inhibitors (the compositor's own connection is never
 * refused). The walk is over all clients' inhibitors, which this bounds. */
static bool inhibitors_refused(struct smtwc_server *server, struct wlr_idle_inhibitor_v1 *wlr)
{
	struct wl_client *client = wl_resource_get_client(wlr->resource);
	int limit = server->config.limits.client_idle_inhibitors;
	int n = 0;
	struct smtwc_idle_inhibitor *inhibitor;
	wl_list_for_each (inhibitor, &server->idle_inhibitors, link) {
		n += wl_resource_get_client(inhibitor->wlr_inhibitor->resource) == client;
	}
	pid_t pid = 0;
	wl_client_get_credentials(client, &pid, NULL, NULL);
	if (n < limit || pid == getpid()) {
		return false;
	}
	static struct log_limit refusal_log;
	uint64_t left_out;
	if (log_limit_allow(&refusal_log, &left_out)) {
		wlr_log(WLR_ERROR,
				"client pid %d: zwp_idle_inhibit_manager_v1.create_inhibitor: limit "
				"client-idle-inhibitors=%d reached (%llu such refusals not logged before)",
				(int)pid, limit, (unsigned long long)left_out);
	}
	wl_client_post_implementation_error(client,
			"zwp_idle_inhibit_manager_v1.create_inhibitor: limit client-idle-inhibitors=%d "
			"reached: %d in use, 1 more asked",
			limit, n);
	return true;
}

static void handle_new_inhibitor(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_idle_inhibitor);
	struct wlr_idle_inhibitor_v1 *wlr_inhibitor = data;
	if (inhibitors_refused(server, wlr_inhibitor)) {
		return;
	}
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
