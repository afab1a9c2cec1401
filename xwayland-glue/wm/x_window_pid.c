/*
 * Which process an X window belongs to, for what the compositor says about
 * windows (the control socket's `windows`, smtctl windows).
 *
 * Every X window is a surface of Xwayland's Wayland connection, which
 * wlroots 0.15 makes with socketpair inside the compositor: that client's
 * credentials are the compositor's own pid, so every X window was reported
 * as the compositor's (red team, session 29: a script killing a hung X
 * program by the pid smtctl showed would end the session). wlroots asks the
 * X server for the window's client when the window maps (XRes, the X
 * server's peer credentials of that client's connection): that pid, or 0
 * when the X server could not say (a remote client, no XRes).
 */
#include <wlr/xwayland.h>

#include "compositor/extension.h"
#include "compositor/server.h"

static bool x_window_pid(struct wlr_surface *surface, pid_t *pid)
{
	if (!wlr_surface_is_xwayland_surface(surface)) {
		return false;
	}
	struct wlr_xwayland_surface *xsurface = wlr_xwayland_surface_from_wlr_surface(surface);
	*pid = xsurface != NULL && xsurface->pid > 0 ? xsurface->pid : 0;
	return true;
}

static bool x_window_pid_init(struct smtwc_server *server)
{
	server->surface_owner_pid = x_window_pid;
	return true;
}

static void x_window_pid_finish(struct smtwc_server *server)
{
	server->surface_owner_pid = NULL;
}

const struct smtwc_extension smtwc_x_window_pid_extension = {
	.name = "X windows' processes",
	.init = x_window_pid_init,
	.finish = x_window_pid_finish,
};
