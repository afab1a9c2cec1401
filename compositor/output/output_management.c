/*
 * Every change is tried first (wlr_output_test) on every output, and only
 * then committed, so a configuration is applied whole or not at all.
 */
#include <wlr/backend/headless.h>
#include <wlr/backend/wayland.h>
#include <wlr/backend/x11.h>
#include <wlr/types/wlr_output_management_v1.h>
#include <wlr/util/log.h>
#include "compositor/config/config.h"
#include "compositor/output/output.h"
#include "compositor/output/output_management.h"

/* Tells clients the current configuration of every output. */
static void output_management_update(struct smtwc_server *server);

/* A client's custom mode and scale within what the config file accepts
 * (config.h): a headless or nested output takes whatever it is given; and
 * an output turned off only where the backend can. */
static bool head_state_in_bounds(const struct wlr_output_configuration_head_v1 *head)
{
	const struct wlr_output_head_v1_state *st = &head->state;
	if (st->enabled && st->mode == NULL &&
			(st->custom_mode.width < 1 ||
					st->custom_mode.width > SMTWC_OUTPUT_MAX_SIDE ||
					st->custom_mode.height < 1 ||
					st->custom_mode.height > SMTWC_OUTPUT_MAX_SIDE ||
					st->custom_mode.refresh < 0 ||
					st->custom_mode.refresh > SMTWC_OUTPUT_MAX_REFRESH_MHZ)) {
		wlr_log(WLR_INFO,
				"output %s: custom mode %dx%d@%d mHz refused (at most %dx%d, %d mHz)",
				st->output->name, st->custom_mode.width, st->custom_mode.height,
				st->custom_mode.refresh, SMTWC_OUTPUT_MAX_SIDE,
				SMTWC_OUTPUT_MAX_SIDE, SMTWC_OUTPUT_MAX_REFRESH_MHZ);
		return false;
	}
	/* wlroots 0.15's headless, Wayland and X11 outputs refuse the enabled
	 * field at commit, yet pass wlr_output_test: refused here, the test
	 * says so and no other head of the configuration is committed first. */
	if (!st->enabled && st->output->enabled &&
			(wlr_output_is_headless(st->output) || wlr_output_is_wl(st->output) ||
					wlr_output_is_x11(st->output))) {
		wlr_log(WLR_INFO,
				"output %s: this backend cannot turn outputs off "
				"(wlroots 0.15: DRM outputs only)",
				st->output->name);
		return false;
	}
	if (st->enabled && !(st->scale > 0 && st->scale <= SMTWC_OUTPUT_MAX_SCALE)) {
		wlr_log(WLR_INFO, "output %s: scale %f refused (at most %d)", st->output->name,
				st->scale, SMTWC_OUTPUT_MAX_SCALE);
		return false;
	}
	return true;
}

static void head_apply_state(struct wlr_output_configuration_head_v1 *head)
{
	struct wlr_output *output = head->state.output;
	wlr_output_enable(output, head->state.enabled);
	if (!head->state.enabled) {
		return;
	}
	if (head->state.mode != NULL) {
		wlr_output_set_mode(output, head->state.mode);
	} else {
		wlr_output_set_custom_mode(output, head->state.custom_mode.width,
				head->state.custom_mode.height, head->state.custom_mode.refresh);
	}
	wlr_output_set_scale(output, head->state.scale);
	wlr_output_set_transform(output, head->state.transform);
}

/* Tests (commit false) or applies (commit true) a configuration. */
static bool apply_configuration(struct smtwc_server *server,
		struct wlr_output_configuration_v1 *config, bool commit)
{
	bool ok = true;
	struct wlr_output_configuration_head_v1 *head;
	wl_list_for_each (head, &config->heads, link) {
		head_apply_state(head);
		ok = ok && head_state_in_bounds(head) && wlr_output_test(head->state.output);
	}
	wl_list_for_each (head, &config->heads, link) {
		struct wlr_output *output = head->state.output;
		if (!ok || !commit) {
			wlr_output_rollback(output);
			continue;
		}
		if (!wlr_output_commit(output)) {
			wlr_log(WLR_ERROR, "output %s: configuration tested fine but failed",
					output->name);
			ok = false;
			continue;
		}
		if (head->state.enabled) {
			wlr_output_layout_add(server->output_layout, output, head->state.x,
					head->state.y);
		} else {
			wlr_output_layout_remove(server->output_layout, output);
		}
	}
	return ok;
}

static void handle_apply(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, output_apply);
	struct wlr_output_configuration_v1 *config = data;
	/* Head by head, wlroots re-places the auto-placed outputs after each
	 * one: windows and the pointer on an output that only seemed gone for
	 * a step would be moved onto another. */
	output_layout_hold(server);
	bool ok = apply_configuration(server, config, true);
	output_layout_release(server);
	if (ok) {
		wlr_output_configuration_v1_send_succeeded(config);
	} else {
		wlr_output_configuration_v1_send_failed(config);
	}
	wlr_output_configuration_v1_destroy(config);
	output_management_update(server);
}

static void handle_test(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, output_test);
	struct wlr_output_configuration_v1 *config = data;
	if (apply_configuration(server, config, false)) {
		wlr_output_configuration_v1_send_succeeded(config);
	} else {
		wlr_output_configuration_v1_send_failed(config);
	}
	wlr_output_configuration_v1_destroy(config);
}

static void output_management_update(struct smtwc_server *server)
{
	if (server->output_manager == NULL) {
		return;
	}
	struct wlr_output_configuration_v1 *config = wlr_output_configuration_v1_create();
	if (config == NULL) {
		return;
	}
	struct smtwc_output *output;
	wl_list_for_each (output, &server->outputs, link) {
		struct wlr_output_configuration_head_v1 *head =
				wlr_output_configuration_head_v1_create(config, output->wlr_output);
		if (head == NULL) {
			continue;
		}
		struct wlr_box box = output_layout_box(output);
		head->state.enabled = output->wlr_output->enabled;
		head->state.x = box.x;
		head->state.y = box.y;
	}
	wlr_output_manager_v1_set_configuration(server->output_manager, config);
}

void output_management_init(struct smtwc_server *server)
{
	server->output_manager = wlr_output_manager_v1_create(server->display);
	server->output_apply.notify = handle_apply;
	wl_signal_add(&server->output_manager->events.apply, &server->output_apply);
	server->output_test.notify = handle_test;
	wl_signal_add(&server->output_manager->events.test, &server->output_test);
}

void output_management_handle_layout_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(
			listener, server, output_management_layout_change);
	output_management_update(server);
}
