/*
 * Server life cycle: the display, backend, renderer and every global that
 * real clients and tools expect, then the socket.
 */
#include <signal.h>
#include <stdlib.h>
#include <wlr/types/wlr_compositor.h>
#include <wlr/types/wlr_data_control_v1.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_export_dmabuf_v1.h>
#include <wlr/types/wlr_gamma_control_v1.h>
#include <wlr/types/wlr_presentation_time.h>
#include <wlr/types/wlr_primary_selection_v1.h>
#include <wlr/types/wlr_server_decoration.h>
#include <wlr/types/wlr_viewporter.h>
#include <wlr/types/wlr_xdg_activation_v1.h>
#include <wlr/types/wlr_xdg_decoration_v1.h>
#include <wlr/types/wlr_xdg_foreign_registry.h>
#include <wlr/types/wlr_xdg_foreign_v1.h>
#include <wlr/types/wlr_xdg_foreign_v2.h>
#include <wlr/types/wlr_xdg_output_v1.h>
#include <wlr/util/log.h>
#include "compositor/extension.h"
#include "compositor/control/control.h"
#include "compositor/control/test_input.h"
#include "compositor/desktop/decoration.h"
#include "compositor/desktop/foreign_toplevel.h"
#include "compositor/desktop/layer_shell.h"
#include "compositor/desktop/title_bar.h"
#include "compositor/desktop/view.h"
#include "compositor/desktop/xdg_shell.h"
#include "compositor/input/seat.h"
#include "compositor/output/frame_pacing.h"
#include "compositor/output/output.h"
#include "compositor/output/output_management.h"
#include "compositor/output/output_power.h"
#include "compositor/output/screencopy_budget.h"
#include "compositor/ring/client_listen.h"
#include "compositor/ring/privileged_globals.h"
#include "compositor/ring/ring.h"
#include "compositor/ring/ring_transport.h"
#include "compositor/ring/ring_loop.h"
#include "compositor/trace/trace.h"

static int handle_terminate_signal(int signal, void *data)
{
	struct smtwc_server *server = data;
	wlr_log(WLR_INFO, "signal %d: ending the session", signal);
	server_quit(server);
	return 0;
}

void server_quit(struct smtwc_server *server)
{
	server->running = false;
	wl_display_terminate(server->display);
}

void server_run(struct smtwc_server *server)
{
	server->running = true;
	while (server->running) {
		server->loop_turns++;
		bool busy = ring_loop_run_slice(server->transport);
		/* Idle callbacks (wlroots sends configure events from them) queue
		 * events: run them now so the flush below sends those events
		 * before we block, not after the next wakeup. */
		wl_event_loop_dispatch_idle(server->event_loop);
		wl_display_flush_clients(server->display);
		if (!busy) {
			busy = ring_loop_spin(server->transport);
		}
		/* Block only when every ring is empty and the clients know it. */
		int timeout = !busy && ring_loop_prepare_sleep(server->transport) ? -1 : 0;
		if (timeout != 0) {
			trace_event(TRACE_MAIN_SLEEP, 0, 0);
		}
		wl_event_loop_dispatch(server->event_loop, timeout);
		if (timeout != 0) {
			trace_event(TRACE_MAIN_WOKE, 0, 0);
		}
		ring_loop_woke(server->transport);
	}
}

static void server_create_scene(struct smtwc_server *server)
{
	server->scene = wlr_scene_create();
	float background[4];
	smtwc_color_to_rgba(server->config.background, background);
	/* The background rect is the bottom of the scene, sized to the layout. */
	server->background = wlr_scene_rect_create(&server->scene->node, 0, 0, background);
	for (int i = 0; i < SMTWC_LAYER_COUNT; i++) {
		server->layers[i] = wlr_scene_tree_create(&server->scene->node);
	}
	/* Above everything, and outside what input looks under the pointer. */
	server->drag_icons = wlr_scene_tree_create(&server->scene->node);
	wlr_scene_attach_output_layout(server->scene, server->output_layout);
}

static void server_create_globals(struct smtwc_server *server)
{
	struct wl_display *display = server->display;
	/* wlr_compositor_create also provides wl_subcompositor in 0.15. */
	server->compositor = wlr_compositor_create(display, server->renderer);
	frame_pacing_init(server);
	server->render.culling = true;
	output_render_init(&server->render);
	wlr_data_device_manager_create(display);
	wlr_primary_selection_v1_device_manager_create(display);
	wlr_data_control_manager_v1_create(display);
	wlr_xdg_output_manager_v1_create(display, server->output_layout);
	wlr_viewporter_create(display);
	/* Answered by the outputs (output/presentation_feedback.c), not by
	 * the scene: wlroots' own tracking never answers on headless. */
	server->presentation = wlr_presentation_create(display, server->backend);
	/* Captures budgeted per output frame (output/screencopy_budget.h). */
	screencopy_budget_init(server);
	wlr_export_dmabuf_manager_v1_create(display);
	output_management_init(server);
	output_power_init(server);
	/* Night-light tools (wlsunset, gammastep); wlroots applies the ramps on
	 * the next commit of outputs whose backend has gamma (DRM, not headless). */
	wlr_gamma_control_manager_v1_create(display);

	server->xdg_shell = wlr_xdg_shell_create(display);
	server->new_xdg_surface.notify = xdg_shell_handle_new_surface;
	wl_signal_add(&server->xdg_shell->events.new_surface, &server->new_xdg_surface);

	server->layer_shell = wlr_layer_shell_v1_create(display);
	server->new_layer_surface.notify = layer_shell_handle_new_surface;
	wl_signal_add(&server->layer_shell->events.new_surface, &server->new_layer_surface);

	/* After a layout change, in this order: layer surfaces set the usable
	 * areas, views are fitted into them, then clients hear of it. */
	server->layer_shell_output_layout_change.notify = layer_shell_handle_output_layout_change;
	wl_signal_add(&server->events.output_layout_change,
			&server->layer_shell_output_layout_change);
	server->views_output_layout_change.notify = views_handle_output_layout_change;
	wl_signal_add(&server->events.output_layout_change, &server->views_output_layout_change);
	server->output_management_layout_change.notify = output_management_handle_layout_change;
	wl_signal_add(&server->events.output_layout_change,
			&server->output_management_layout_change);
	server->layer_shell_output_destroy.notify = layer_shell_handle_output_destroy;
	wl_signal_add(&server->events.output_destroy, &server->layer_shell_output_destroy);
	server->views_output_removed.notify = views_handle_output_removed;
	wl_signal_add(&server->events.output_removed, &server->views_output_removed);

	struct wlr_xdg_decoration_manager_v1 *decorations = wlr_xdg_decoration_manager_v1_create(
			display);
	server->new_decoration.notify = decoration_handle_new;
	wl_signal_add(&decorations->events.new_toplevel_decoration, &server->new_decoration);
	/* GTK3 and Qt5 still ask through the older KDE protocol. */
	struct wlr_server_decoration_manager *kde_decorations =
			wlr_server_decoration_manager_create(display);
	wlr_server_decoration_manager_set_default_mode(
			kde_decorations, WLR_SERVER_DECORATION_MANAGER_MODE_SERVER);
	server->new_kde_decoration.notify = decoration_handle_new_kde;
	wl_signal_add(&kde_decorations->events.new_decoration, &server->new_kde_decoration);

	struct wlr_xdg_activation_v1 *activation = wlr_xdg_activation_v1_create(display);
	server->request_activate.notify = activation_handle_request;
	wl_signal_add(&activation->events.request_activate, &server->request_activate);

	foreign_toplevel_init(server);
	/* Dialogs of sandboxed programs (portals) find their parent window. */
	struct wlr_xdg_foreign_registry *foreign_registry = wlr_xdg_foreign_registry_create(
			display);
	wlr_xdg_foreign_v1_create(display, foreign_registry);
	wlr_xdg_foreign_v2_create(display, foreign_registry);
	/* Sandboxed clients do not see the globals that watch or drive the
	 * whole session. */
	privileged_globals_init(display);
}

bool server_init(struct smtwc_server *server)
{
	wl_list_init(&server->outputs);
	wl_list_init(&server->views);
	wl_signal_init(&server->events.client_input);
	wl_signal_init(&server->events.view_frame_memory);
	wl_signal_init(&server->events.output_frame);
	wl_signal_init(&server->events.output_presented);
	wl_signal_init(&server->events.output_layout_change);
	wl_signal_init(&server->events.output_destroy);
	wl_signal_init(&server->events.output_removed);
	wl_signal_init(&server->events.view_map);
	wl_signal_init(&server->events.view_unmap);
	wl_signal_init(&server->events.view_change);
	wl_signal_init(&server->events.view_visibility);
	/* Fonts are loaded and measured before any client connects, so what
	 * fontconfig and Pango keep (files, caches) is there from the start
	 * rather than appearing with the first decorated window. */
	server->title_bar_height = title_bar_height(&server->config);
	server->display = wl_display_create();
	server->event_loop = wl_display_get_event_loop(server->display);
	server->backend = wlr_backend_autocreate(server->display);
	if (server->backend == NULL) {
		wlr_log(WLR_ERROR, "no backend could be started");
		return false;
	}
	server->session = wlr_backend_get_session(server->backend);

	server->renderer = wlr_renderer_autocreate(server->backend);
	if (server->renderer == NULL) {
		wlr_log(WLR_ERROR, "no renderer could be created");
		return false;
	}
	/* Offers wl_shm, and linux-dmabuf when the renderer can import dmabufs. */
	wlr_renderer_init_wl_display(server->renderer, server->display);
	server->allocator = wlr_allocator_autocreate(server->backend, server->renderer);
	if (server->allocator == NULL) {
		wlr_log(WLR_ERROR, "no buffer allocator could be created");
		return false;
	}

	server->output_layout = wlr_output_layout_create();
	server->layout_change.notify = output_handle_layout_change;
	wl_signal_add(&server->output_layout->events.change, &server->layout_change);
	server->new_output.notify = output_handle_new;
	wl_signal_add(&server->backend->events.new_output, &server->new_output);

	server_create_scene(server);
	server_create_globals(server);
	seat_init(server);
	/* The scheduler's main-loop half drives the rings: it needs the
	 * transport, which knows nothing of it. */
	server->transport = transport_create(server);
	if (server->transport == NULL || !ring_loop_init(server->transport)) {
		return false;
	}
	/* Extensions (X applications) are optional: without them the session
	 * goes on. */
	for (const struct smtwc_extension *const *ext = smtwc_extensions; *ext != NULL; ext++) {
		if (!(*ext)->init(server)) {
			wlr_log(WLR_INFO, "going on without %s", (*ext)->name);
		}
	}

	server->sigterm_source = wl_event_loop_add_signal(
			server->event_loop, SIGTERM, handle_terminate_signal, server);
	server->sigint_source = wl_event_loop_add_signal(
			server->event_loop, SIGINT, handle_terminate_signal, server);
	return true;
}

bool server_start(struct smtwc_server *server)
{
	/* Our own accept: connections charged to their process and uid, and
	 * no busy loop at the fd limit (ring/client_listen.h). */
	server->socket = client_listen_start(server->transport);
	if (server->socket == NULL) {
		wlr_log(WLR_ERROR, "cannot create a Wayland socket in XDG_RUNTIME_DIR (%s)",
				getenv("XDG_RUNTIME_DIR") ? getenv("XDG_RUNTIME_DIR") : "unset");
		return false;
	}
	if (!wlr_backend_start(server->backend)) {
		wlr_log(WLR_ERROR, "the backend failed to start");
		return false;
	}
	setenv("WAYLAND_DISPLAY", server->socket, true);
	/* smtctl needs it; the session goes on without it. */
	control_init(server);
	wlr_xcursor_manager_set_cursor_image(server->cursor_manager, "left_ptr", server->cursor);
	return true;
}

void server_finish(struct smtwc_server *server)
{
	if (server->display == NULL) {
		return;
	}
	/* Extensions first: Xwayland is a client that the xwm would otherwise
	 * talk to while it is being torn down. Then clients, so their
	 * resources go before the globals they use. */
	for (const struct smtwc_extension *const *ext = smtwc_extensions; *ext != NULL; ext++) {
		(*ext)->finish(server);
	}
	control_finish(server);
	test_input_finish(server);
	wl_display_destroy_clients(server->display);
	if (server->title_timer != NULL) {
		wl_event_source_remove(server->title_timer);
	}
	if (server->sigterm_source != NULL) {
		wl_event_source_remove(server->sigterm_source);
		wl_event_source_remove(server->sigint_source);
	}
	if (server->seat != NULL) {
		seat_finish(server);
	}
	ring_loop_finish(server->transport);
	transport_destroy(server->transport);
	/* Our listeners on the backend and the layout go before what they
	 * listen to; the layout before the scene that follows it. */
	if (server->output_layout != NULL) {
		wl_list_remove(&server->layout_change.link);
		wl_list_remove(&server->new_output.link);
	}
	if (server->compositor != NULL) {
		wl_list_remove(&server->new_surface.link);
	}
	if (server->output_manager != NULL) {
		wl_list_remove(&server->output_apply.link);
		wl_list_remove(&server->output_test.link);
		server->output_manager = NULL;
	}
	screencopy_budget_finish(server);
	if (server->backend != NULL) {
		wlr_backend_destroy(server->backend);
	}
	if (server->output_layout != NULL) {
		wlr_output_layout_destroy(server->output_layout);
	}
	if (server->scene != NULL) {
		wlr_scene_node_destroy(&server->scene->node);
	}
	if (server->allocator != NULL) {
		wlr_allocator_destroy(server->allocator);
	}
	if (server->renderer != NULL) {
		wlr_renderer_destroy(server->renderer);
	}
	wl_display_destroy(server->display);
	server->display = NULL;
	output_render_finish(&server->render);
	title_bar_fonts_finish();
	smtwc_config_finish(&server->config);
}
