/*
 * Turning an output off disables it but keeps it in the layout, as sway's
 * DPMS does: windows stay where they are and come back with the screen.
 * Only some backends can do it (DRM; wlroots 0.15's headless, Wayland and
 * X11 outputs refuse to be disabled): elsewhere the client is told its
 * control failed, as the protocol asks for outputs without power
 * management, rather than left waiting for a mode that never comes.
 */
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_output_power_management_v1.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include "compositor/output/output_power.h"

static void send_failed(struct wlr_output_power_manager_v1 *manager, struct wlr_output *output)
{
	struct wlr_output_power_v1 *power;
	wl_list_for_each (power, &manager->output_powers, link) {
		if (power->output == output) {
			zwlr_output_power_v1_send_failed(power->resource);
		}
	}
}

static void handle_set_mode(struct wl_listener *listener, void *data)
{
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
		wlr_log(WLR_ERROR, "output %s: cannot turn it %s (the backend cannot disable it)",
				output->name, on ? "on" : "off");
		wlr_output_rollback(output);
		send_failed(server->output_power, output);
		return;
	}
	if (on) {
		/* Whatever changed while it was off must be drawn in full. */
		struct wlr_scene_output *scene_output = wlr_scene_get_scene_output(
				server->scene, output);
		if (scene_output != NULL) {
			wlr_output_damage_add_whole(scene_output->damage);
		}
		wlr_output_schedule_frame(output);
	}
}

void output_power_init(struct smtwc_server *server)
{
	server->output_power = wlr_output_power_manager_v1_create(server->display);
	server->output_power_set_mode.notify = handle_set_mode;
	wl_signal_add(&server->output_power->events.set_mode, &server->output_power_set_mode);
}
