/*
 * Turning an output off disables it but keeps it in the layout, as sway's
 * DPMS does: windows stay where they are and come back with the screen.
 */
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_output_power_management_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "output/output_power.h"

static void handle_set_mode(struct wl_listener *listener, void *data) {
	struct smtwc_server *server = wl_container_of(listener, server, output_power_set_mode);
	struct wlr_output_power_v1_set_mode_event *event = data;
	struct wlr_output *output = event->output;
	bool on = event->mode == ZWLR_OUTPUT_POWER_V1_MODE_ON;
	/* An output the user took out of the layout stays off. */
	if (output->enabled == on ||
			(on && wlr_output_layout_get(server->output_layout, output) == NULL)) {
		return;
	}
	wlr_output_enable(output, on);
	if (!wlr_output_commit(output)) {
		wlr_log(WLR_ERROR, "output %s: cannot turn it %s", output->name, on ? "on" : "off");
		return;
	}
	if (on) {
		/* Whatever changed while it was off must be drawn in full. */
		struct wlr_scene_output *scene_output =
			wlr_scene_get_scene_output(server->scene, output);
		if (scene_output != NULL) {
			wlr_output_damage_add_whole(scene_output->damage);
		}
		wlr_output_schedule_frame(output);
	}
}

void output_power_init(struct smtwc_server *server) {
	struct wlr_output_power_manager_v1 *manager =
		wlr_output_power_manager_v1_create(server->display);
	server->output_power_set_mode.notify = handle_set_mode;
	wl_signal_add(&manager->events.set_mode, &server->output_power_set_mode);
}
