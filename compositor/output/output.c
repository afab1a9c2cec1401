/*
 * Outputs: configure each new output (from the config file or its preferred
 * mode), put it in the layout, and render the scene on its frame events.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <time.h>
#include <wlr/util/log.h>
#include "common/monotonic_clock.h"
#include "compositor/output/cursor_theme.h"
#include "compositor/output/frame_pacing.h"
#include "compositor/output/output.h"
#include "compositor/output/presentation_feedback.h"
#include "compositor/output/render.h"
#include "compositor/trace/trace.h"

static void output_handle_frame(struct wl_listener *listener, void *data)
{
	struct smtwc_output *output = wl_container_of(listener, output, frame);
	struct wlr_scene_output *scene_output = wlr_scene_get_scene_output(
			output->server->scene, output->wlr_output);
	if (scene_output == NULL || !frame_pacing_needs_frame(output)) {
		return;
	}
	/* Canvases presented since the last frame are in this one. */
	wl_signal_emit(&output->server->events.output_frame, output);
	/* Renders only if something was damaged; an idle desktop costs nothing. */
	uint32_t commits = output->wlr_output->commit_seq;
	trace_event(TRACE_RENDER_BEGIN, 0, 0);
	output_render_frame(scene_output, &output->server->render);
	trace_event(TRACE_RENDER_END, 0, output->wlr_output->commit_seq != commits);
	if (output->wlr_output->commit_seq != commits) {
		presentation_feedbacks_frame_committed(output->feedbacks,
				output->server->presentation, &output->server->scene->node,
				output->wlr_output);
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	wlr_scene_output_send_frame_done(scene_output, &now);
}

static void output_handle_present(struct wl_listener *listener, void *data)
{
	struct smtwc_output *output = wl_container_of(listener, output, present);
	struct wlr_output_event_present *event = data;
	presentation_feedbacks_presented(output->feedbacks, event);
	struct smtwc_output_presented presented = {
		.output = output,
		.when_ns = event->when != NULL ? timespec_ns(event->when) : monotonic_now_ns(),
	};
	wl_signal_emit(&output->server->events.output_presented, &presented);
}

static void output_handle_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_output *output = wl_container_of(listener, output, commit);
	struct wlr_output_event_commit *event = data;
	if (event->committed & WLR_OUTPUT_STATE_SCALE) {
		cursor_theme_output_scale(output->server, output->wlr_output->scale);
	}
}

static void output_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_output *output = wl_container_of(listener, output, destroy);
	struct smtwc_server *server = output->server;
	wl_signal_emit(&server->events.output_destroy, output);
	wl_list_remove(&output->frame.link);
	wl_list_remove(&output->present.link);
	wl_list_remove(&output->commit.link);
	wl_list_remove(&output->destroy.link);
	wl_list_remove(&output->link);
	cursor_theme_prune(server);
	presentation_feedbacks_destroy(output->feedbacks);
	output->wlr_output->data = NULL;
	free(output);
	/* Windows that were only on the removed output must stay reachable. */
	wl_signal_emit(&server->events.output_removed, NULL);
}

static bool output_mode_matches(
		const struct wlr_output_mode *mode, const struct smtwc_output_config *oc)
{
	if (mode->width != oc->width || mode->height != oc->height) {
		return false;
	}
	return oc->refresh_mhz <= 0 || abs(mode->refresh - oc->refresh_mhz) < 1000;
}

/* Applies the config section for this output; returns false when the output
 * is configured as disabled. */
static bool output_apply_config(struct smtwc_output *output, const struct smtwc_output_config *oc)
{
	struct wlr_output *wlr_output = output->wlr_output;
	if (oc != NULL && oc->has_enabled && !oc->enabled) {
		wlr_output_enable(wlr_output, false);
		wlr_output_commit(wlr_output);
		return false;
	}
	wlr_output_enable(wlr_output, true);

	struct wlr_output_mode *chosen = NULL;
	if (oc != NULL && oc->has_mode) {
		/* Without a refresh rate the fastest mode of that size wins. */
		struct wlr_output_mode *mode;
		wl_list_for_each (mode, &wlr_output->modes, link) {
			if (output_mode_matches(mode, oc) &&
					(chosen == NULL || mode->refresh > chosen->refresh)) {
				chosen = mode;
			}
		}
		if (chosen == NULL) {
			/* Nested and headless outputs have no mode list: any size works. */
			wlr_output_set_custom_mode(wlr_output, oc->width, oc->height,
					oc->refresh_mhz > 0 ? oc->refresh_mhz : 0);
		}
	} else {
		chosen = wlr_output_preferred_mode(wlr_output);
	}
	if (chosen != NULL) {
		wlr_output_set_mode(wlr_output, chosen);
	}
	if (oc != NULL && oc->has_scale) {
		wlr_output_set_scale(wlr_output, (float)oc->scale);
	}
	if (oc != NULL && oc->has_transform) {
		wlr_output_set_transform(wlr_output, (enum wl_output_transform)oc->transform);
	}
	if (!wlr_output_commit(wlr_output)) {
		wlr_log(WLR_ERROR, "output %s: configured mode rejected, using preferred",
				wlr_output->name);
		struct wlr_output_mode *preferred = wlr_output_preferred_mode(wlr_output);
		if (preferred != NULL) {
			wlr_output_set_mode(wlr_output, preferred);
		}
		wlr_output_set_scale(wlr_output, 1.0f);
		wlr_output_set_transform(wlr_output, WL_OUTPUT_TRANSFORM_NORMAL);
		return wlr_output_commit(wlr_output);
	}
	return true;
}

/* Puts the pointer at (lx, ly), or the nearest place an output shows, and
 * every output's cursor image there. wlr_cursor moves its images only when
 * the pointer moves: a new output's image starts at the output's corner
 * and an image keeps its place on an output that changed scale or
 * transform. No motion reaches clients: the pointer did not move. */
static void cursor_images_to(struct smtwc_server *server, double lx, double ly)
{
	struct wlr_output_layout *layout = server->output_layout;
	if (wl_list_empty(&layout->outputs)) {
		return; /* the closest point of nothing is (0, 0) */
	}
	double x, y;
	wlr_output_layout_closest_point(layout, NULL, lx, ly, &x, &y);
	/* wlroots 0.15's wlr_output_cursor_move does nothing when the place it
	 * is given, in the output's logical units, equals the place it keeps,
	 * in pixels: after a change of scale the same place can look unmoved
	 * (300 at scale 1 is 300 pixels; at scale 2, 600). A step through a
	 * place 1/1024 aside first, which no image keeps. */
	double aside = 1.0 / 1024;
	if (!wlr_output_layout_contains_point(layout, NULL, x + aside, y)) {
		aside = -aside;
	}
	wlr_cursor_warp_closest(server->cursor, NULL, x + aside, y);
	wlr_cursor_warp_closest(server->cursor, NULL, x, y);
}

void output_handle_new(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_output);
	struct wlr_output *wlr_output = data;

	/* The output must know our allocator and renderer before its first commit. */
	if (!wlr_output_init_render(wlr_output, server->allocator, server->renderer)) {
		wlr_log(WLR_ERROR, "output %s: cannot initialise rendering", wlr_output->name);
		return;
	}

	struct smtwc_output *output = calloc(1, sizeof(*output));
	if (output == NULL) {
		return;
	}
	output->server = server;
	output->wlr_output = wlr_output;
	output->feedbacks = presentation_feedbacks_create();
	if (output->feedbacks == NULL) {
		free(output);
		return;
	}
	wlr_output->data = output;
	wl_list_init(&output->layer_surfaces);
	output->frame.notify = output_handle_frame;
	wl_signal_add(&wlr_output->events.frame, &output->frame);
	output->present.notify = output_handle_present;
	wl_signal_add(&wlr_output->events.present, &output->present);
	output->commit.notify = output_handle_commit;
	wl_signal_add(&wlr_output->events.commit, &output->commit);
	output->destroy.notify = output_handle_destroy;
	wl_signal_add(&wlr_output->events.destroy, &output->destroy);
	wl_list_insert(server->outputs.prev, &output->link);

	const struct smtwc_output_config *oc = smtwc_config_find_output(
			&server->config, wlr_output->name);
	if (!output_apply_config(output, oc)) {
		return;
	}
	if (oc != NULL && oc->has_position) {
		wlr_output_layout_add(server->output_layout, wlr_output, oc->x, oc->y);
	} else {
		wlr_output_layout_add_auto(server->output_layout, wlr_output);
	}
	cursor_theme_output_scale(server, wlr_output->scale);
	/* wlr_cursor made this output's cursor image after the layout's change
	 * event, at the output's corner. */
	cursor_images_to(server, server->cursor->x, server->cursor->y);
	wlr_log(WLR_INFO, "output %s: %dx%d scale %.2f", wlr_output->name, wlr_output->width,
			wlr_output->height, wlr_output->scale);
}

static void layout_changed(struct smtwc_server *server)
{
	struct wlr_box *extents = wlr_output_layout_get_box(server->output_layout, NULL);
	if (extents != NULL) {
		wlr_scene_node_set_position(&server->background->node, extents->x, extents->y);
		wlr_scene_rect_set_size(server->background, extents->width, extents->height);
	}
	wl_signal_emit(&server->events.output_layout_change, NULL);
}

void output_handle_layout_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, layout_change);
	if (server->output_layout_held.depth > 0) {
		server->output_layout_held.changed = true;
		return;
	}
	/* An output that moved, or whose scale or transform changed, shows the
	 * cursor's image where its old geometry put it. */
	cursor_images_to(server, server->cursor->x, server->cursor->y);
	layout_changed(server);
}

void output_layout_hold(struct smtwc_server *server)
{
	if (server->output_layout_held.depth++ == 0) {
		server->output_layout_held.changed = false;
		server->output_layout_held.cursor_x = server->cursor->x;
		server->output_layout_held.cursor_y = server->cursor->y;
	}
}

void output_layout_release(struct smtwc_server *server)
{
	if (--server->output_layout_held.depth > 0) {
		return;
	}
	/* wlr_cursor moved the pointer off outputs that the steps moved away
	 * for a while; back to where it was, or the nearest place shown. */
	cursor_images_to(server, server->output_layout_held.cursor_x,
			server->output_layout_held.cursor_y);
	if (server->output_layout_held.changed) {
		layout_changed(server);
	}
}

struct wlr_box output_layout_box(struct smtwc_output *output)
{
	struct wlr_box *box = wlr_output_layout_get_box(
			output->server->output_layout, output->wlr_output);
	return box != NULL ? *box : (struct wlr_box){ 0 };
}

struct smtwc_output *output_from_wlr(struct wlr_output *wlr_output)
{
	return wlr_output != NULL ? wlr_output->data : NULL;
}

struct smtwc_output *output_at(struct smtwc_server *server, double lx, double ly)
{
	return output_from_wlr(wlr_output_layout_output_at(server->output_layout, lx, ly));
}

bool outputs_frame_coming(struct smtwc_server *server)
{
	struct smtwc_output *output;
	wl_list_for_each (output, &server->outputs, link) {
		if (output->wlr_output->enabled && output->wlr_output->frame_pending) {
			return true;
		}
	}
	return false;
}

struct smtwc_output *output_focused(struct smtwc_server *server)
{
	struct smtwc_output *output = output_at(server, server->cursor->x, server->cursor->y);
	if (output != NULL) {
		return output;
	}
	wl_list_for_each (output, &server->outputs, link) {
		if (wlr_output_layout_get(server->output_layout, output->wlr_output) != NULL) {
			return output;
		}
	}
	return NULL;
}
