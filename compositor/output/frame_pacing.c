/*
 * Skipping frames of idle outputs (frame_pacing.h says why and when it
 * is safe).
 */
#include <stdlib.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_output_damage.h>
#include <wlr/types/wlr_scene.h>
#include "compositor/output/frame_pacing.h"
#include "compositor/output/output_types.h"

struct surface_watch {
	struct smtwc_server *server;
	struct wl_listener commit;
	struct wl_listener destroy;
};

static void watch_handle_commit(struct wl_listener *listener, void *data)
{
	struct surface_watch *watch = wl_container_of(listener, watch, commit);
	watch->server->commit_seq++;
}

static void watch_handle_destroy(struct wl_listener *listener, void *data)
{
	struct surface_watch *watch = wl_container_of(listener, watch, destroy);
	/* What was shown may go away: a last frame is due. */
	watch->server->commit_seq++;
	wl_list_remove(&watch->commit.link);
	wl_list_remove(&watch->destroy.link);
	free(watch);
}

static void handle_new_surface(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_surface);
	struct wlr_surface *surface = data;
	struct surface_watch *watch = calloc(1, sizeof(*watch));
	if (watch == NULL) {
		/* Without a watch this surface's frame callbacks could wait: render
		 * every frame from now on rather than risk it. */
		server->frame_pacing_off = true;
		return;
	}
	watch->server = server;
	watch->commit.notify = watch_handle_commit;
	wl_signal_add(&surface->events.commit, &watch->commit);
	watch->destroy.notify = watch_handle_destroy;
	wl_signal_add(&surface->events.destroy, &watch->destroy);
}

void frame_pacing_init(struct smtwc_server *server)
{
	server->new_surface.notify = handle_new_surface;
	wl_signal_add(&server->compositor->events.new_surface, &server->new_surface);
}

bool frame_pacing_needs_frame(struct smtwc_output *output)
{
	struct smtwc_server *server = output->server;
	struct wlr_scene_output *scene_output = wlr_scene_get_scene_output(
			server->scene, output->wlr_output);
	bool damaged = scene_output != NULL &&
			pixman_region32_not_empty(&scene_output->damage->current);
	bool committed = output->seen_commit_seq != server->commit_seq;
	output->seen_commit_seq = server->commit_seq;
	return server->frame_pacing_off || damaged || committed || output->wlr_output->needs_frame;
}
