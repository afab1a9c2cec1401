/*
 * What key bindings do. Each action acts on the focused window, if any.
 */
#include <wlr/util/log.h>
#include "compositor/desktop/view.h"
#include "compositor/input/actions.h"

void action_run(struct smtwc_server *server, const struct smtwc_binding *binding)
{
	struct smtwc_view *focused = view_focused(server);
	wlr_log(WLR_DEBUG, "binding: %s%s%s", smtwc_action_name(binding->action),
			focused != NULL ? "" : " (no focused window)",
			binding->command != NULL ? binding->command : "");
	switch (binding->action) {
	case SMTWC_ACTION_NONE:
		break;
	case SMTWC_ACTION_EXEC:
	case SMTWC_ACTION_EXEC_TERMINAL:
		launch_command(smtwc_binding_command(&server->config, binding));
		break;
	case SMTWC_ACTION_CLOSE:
		if (focused != NULL) {
			view_close(focused);
		}
		break;
	case SMTWC_ACTION_CYCLE:
		views_cycle(server);
		break;
	case SMTWC_ACTION_QUIT:
		server_quit(server);
		break;
	case SMTWC_ACTION_MAXIMIZE:
		if (focused != NULL) {
			view_set_maximized(focused, !focused->maximized);
		}
		break;
	case SMTWC_ACTION_FULLSCREEN:
		if (focused != NULL) {
			view_set_fullscreen(focused, !focused->fullscreen);
		}
		break;
	case SMTWC_ACTION_MINIMIZE:
		if (focused != NULL) {
			view_set_minimized(focused, true);
		}
		break;
	}
}
