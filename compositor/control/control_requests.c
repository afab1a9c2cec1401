/*
 * What the control socket answers: per-client ring statistics (like
 * xrestop), compositor totals, and the scheduler settings, which `set`
 * changes live through the same parser as the config file.
 *
 * Test facility, headless backend only: `output add` creates a 1280x720
 * headless output (answers its name), `output remove NAME` destroys one,
 * as a monitor being plugged and unplugged (tests/integration/test_faults.py);
 * `input ...` gestures and pen strokes from headless devices (test_input.h).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wlr/backend/headless.h>
#include <wlr/types/wlr_data_device.h>
#include <wlr/types/wlr_idle.h>
#include <wlr/types/wlr_pointer_constraints_v1.h>
#include <wlr/types/wlr_xdg_shell.h>
#include "compositor/control/control_requests.h"
#include "compositor/control/test_input.h"
#include "compositor/desktop/view.h"
#include "compositor/desktop/xdg_shell.h"
#include "compositor/extension.h"
#include "compositor/input/keyboard.h"
#include "compositor/input/idle.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/input/shortcuts_inhibit.h"
#include "compositor/output/cursor_theme.h"
#include "compositor/output/output.h"
#include "compositor/output/screencopy_budget.h"
#include "compositor/server.h"
#include "compositor/ring/ring_stats.h"
#include "compositor/ring/ring_loop.h"

/* The app id of one of the client's windows, or NULL. */
static const char *client_app_id(struct smtwc_server *server, struct wl_client *client)
{
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		struct wlr_surface *surface = view->impl->surface(view);
		if (surface == NULL || wl_resource_get_client(surface->resource) != client ||
				!wlr_surface_is_xdg_surface(surface)) {
			continue;
		}
		struct wlr_xdg_surface *xdg = wlr_xdg_surface_from_wlr_surface(surface);
		if (xdg->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL && xdg->toplevel->app_id != NULL) {
			return xdg->toplevel->app_id;
		}
	}
	return NULL;
}

struct write_clients_state {
	struct smtwc_server *server;
	struct json_writer *w;
};

static void write_client(const struct smtwc_ring_stats *ring, void *data)
{
	struct write_clients_state *state = data;
	struct json_writer *w = state->w;
	json_begin_object(w);
	json_int(w, "pid", ring->pid);
	json_string(w, "app_id", client_app_id(state->server, ring->client));
	json_string(w, "transport", ring->shared ? "ring" : "socket");
	/* The scheduler's view of the client. */
	const struct smt_sched_stats *st = &ring->sched;
	json_int(w, "priority", st->priority);
	json_bool(w, "ready", st->ready);
	json_uint(w, "inputs", st->inputs);
	json_uint(w, "boosts", st->boosts);
	json_uint(w, "penalties", st->penalties);
	json_uint(w, "praises", st->praises);
	json_uint(w, "lone_slices", st->lone_slices);
	json_double(w, "wait_max_ms", (double)st->wait_max_ns / 1e6);
	json_double(w, "wait_mean_ms",
			st->slices != 0 ? (double)st->wait_total_ns / (double)st->slices / 1e6 :
					  0.0);
	json_double(w, "sched_time_ms", (double)st->run_ns / 1e6);
	/* a worker's run in progress, charged when it ends */
	json_double(w, "run_ms", (double)ring->run_ns / 1e6);
	json_uint(w, "slices", ring->slices);
	json_double(w, "time_ms", (double)ring->exec_ns / 1e6);
	json_double(w, "present_ms", (double)ring->present_ns / 1e6);
	json_uint(w, "commands", ring->commands);
	json_uint(w, "bytes", ring->bytes);
	json_uint(w, "wakeups_from_client", ring->wakeups_from_client);
	json_uint(w, "wakeups_to_client", ring->wakeups_to_client);
	json_uint(w, "ring_bytes", ring->ring_bytes);
	json_uint(w, "pool_bytes", ring->pool_bytes);
	json_uint(w, "canvas_bytes", ring->canvas_bytes);
	json_uint(w, "pixmap_bytes", ring->pixmap_bytes);
	json_uint(w, "pixmaps", ring->pixmaps);
	json_uint(w, "table_bytes", ring->table_bytes);
	json_uint(w, "ring_memory_bytes", ring->ring_memory_bytes);
	json_uint(w, "region_bytes", ring->region_bytes);
	/* The connection's whole usage, shared by its rings (limits). */
	json_uint(w, "client_fds", ring->client_fds);
	json_uint(w, "client_rings", ring->client_rings);
	json_uint(w, "client_pools", ring->client_pools);
	json_uint(w, "client_memory", ring->client_memory);
	json_uint(w, "client_canvases", ring->client_canvases);
	json_uint(w, "client_surfaces", ring->client_surfaces);
	json_uint(w, "client_surface_bytes", ring->client_surface_bytes);
	json_uint(w, "client_object_bytes", ring->client_object_bytes);
	json_uint(w, "client_connection_bytes", ring->client_connection_bytes);
	json_end_object(w);
}

static void write_clients(struct smtwc_server *server, struct json_writer *w)
{
	json_begin_array(w, "clients");
	struct write_clients_state state = { server, w };
	transport_for_each_ring_stats(server->transport, write_client, &state);
	json_end_array(w);
}

/* JSON names of enum smt_resource (memory and address space in bytes). */
static const char *const resource_names[SMT_RES_COUNT] = {
	[SMT_RES_FDS] = "fds",
	[SMT_RES_RINGS] = "rings",
	[SMT_RES_POOLS] = "pools",
	[SMT_RES_MEMORY] = "memory",
	[SMT_RES_MAPPINGS] = "mappings",
	[SMT_RES_ADDRESS] = "address_space",
	[SMT_RES_CONNECTIONS] = "connections",
	[SMT_RES_FDS_IN_FLIGHT] = "fds_in_flight",
	[SMT_RES_CANVASES] = "canvases",
	[SMT_RES_FDS_UNREAD] = "fds_unread",
	[SMT_RES_SURFACES] = "surfaces",
	[SMT_RES_OBJECTS] = "objects",
};

static void write_account(const struct smtwc_account_stats *a, void *data)
{
	static const char *const levels[] = {
		[SMT_LEVEL_CLIENT] = "connection",
		[SMT_LEVEL_PROCESS] = "process",
		[SMT_LEVEL_UID] = "uid",
		[SMT_LEVEL_TOTAL] = "total",
	};
	struct json_writer *w = data;
	json_begin_object(w);
	json_string(w, "level", levels[a->level]);
	json_int(w, a->level == SMT_LEVEL_UID ? "uid" : "pid", (int)a->id);
	if (a->level != SMT_LEVEL_UID) {
		json_int(w, "uid", (int)a->uid);
	}
	for (int r = 0; r < SMT_RES_COUNT; r++) {
		char key[64];
		json_uint(w, resource_names[r], a->used[r]);
		snprintf(key, sizeof(key), "%s_max", resource_names[r]);
		json_uint(w, key, a->max[r]);
	}
	json_end_object(w);
}

/* Every account (uids, processes, connections) with what it holds and its
 * limits (0: none at that level); keys as the [limits] settings'. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
/* The sanitizers' allocator (not glibc's: mallinfo2 says 0 there) counts
 * the bytes allocated and not freed (sanitizer/allocator_interface.h,
 * which gcc 12 does not ship). */
size_t __sanitizer_get_current_allocated_bytes(void);

static uint64_t heap_in_use(void)
{
	return __sanitizer_get_current_allocated_bytes();
}
#if defined(__SANITIZE_ADDRESS__)
#define HEAP_ALLOCATOR "asan"
#else
#define HEAP_ALLOCATOR "tsan"
#endif
#else
#define HEAP_ALLOCATOR "glibc"
static uint64_t heap_in_use(void)
{
	struct mallinfo2 heap = mallinfo2();
	return heap.uordblks + heap.hblkhd;
}
#endif

static void write_accounts(struct smtwc_server *server, struct json_writer *w)
{
	json_begin_array(w, "accounts");
	transport_for_each_account(server->transport, write_account, w);
	json_end_array(w);
}

static void write_popup(struct wlr_box box, void *data)
{
	struct json_writer *w = data;
	json_begin_object(w);
	json_int(w, "x", box.x);
	json_int(w, "y", box.y);
	json_int(w, "width", box.width);
	json_int(w, "height", box.height);
	json_end_object(w);
}

/* Mapped windows, front to back: where the compositor shows their window
 * geometry (borders and client shadows are outside it). */
static void write_windows(struct smtwc_server *server, struct json_writer *w)
{
	json_begin_array(w, "windows");
	struct smtwc_view *view;
	wl_list_for_each (view, &server->views, link) {
		if (!view->mapped) {
			continue;
		}
		struct wlr_box box = view_box(view);
		struct wlr_surface *surface = view->impl->surface(view);
		pid_t pid = 0;
		if (surface != NULL &&
				(server->surface_owner_pid == NULL ||
						!server->surface_owner_pid(surface, &pid))) {
			wl_client_get_credentials(wl_resource_get_client(surface->resource), &pid,
					NULL, NULL);
		}
		json_begin_object(w);
		json_int(w, "pid", pid);
		json_string(w, "app_id", view->impl->app_id(view));
		json_string(w, "title", view->impl->title(view));
		json_int(w, "x", box.x);
		json_int(w, "y", box.y);
		json_int(w, "width", box.width);
		json_int(w, "height", box.height);
		json_bool(w, "focused", view == server->focused_view);
		json_bool(w, "maximized", view->maximized);
		json_bool(w, "fullscreen", view->fullscreen);
		json_bool(w, "minimized", view->minimized);
		json_bool(w, "server_side_decoration", view->server_side_decoration);
		/* The compositor's title bar above the geometry (0x0: none). */
		struct wlr_box title = view_title_bar_box(view);
		json_object_key(w, "title_bar");
		json_int(w, "x", title.x);
		json_int(w, "y", title.y);
		json_int(w, "width", title.width);
		json_int(w, "height", title.height);
		json_end_object(w);
		json_bool(w, "configure_pending",
				view->impl->configure_pending != NULL &&
						view->impl->configure_pending(view));
		json_begin_array(w, "popups");
		xdg_shell_view_popups_for_each(view, write_popup, w);
		json_end_array(w);
		json_end_object(w);
	}
	json_end_array(w);
}

/* Who gets input now and what holds it: the cursor, the keyboard focus's
 * client, and the desktop protocols' state. */
static void write_seat(struct smtwc_server *server, struct json_writer *w)
{
	struct wlr_seat *seat = server->seat;
	json_object_key(w, "seat");
	json_double(w, "cursor_x", server->cursor->x);
	json_double(w, "cursor_y", server->cursor->y);
	pid_t pid = 0;
	struct wlr_surface *focused = seat->keyboard_state.focused_surface;
	if (focused != NULL) {
		wl_client_get_credentials(
				wl_resource_get_client(focused->resource), &pid, NULL, NULL);
	}
	json_int(w, "keyboard_focus_pid", pid);
	json_bool(w, "idle_inhibited", idle_inhibited(server));
	/* Idle clients' timeouts, and how many of them are counting down. */
	int timeouts = 0, counting = 0;
	struct wlr_idle_timeout *timeout;
	wl_list_for_each (timeout, &server->idle->idle_timers, link) {
		timeouts++;
		counting += timeout->enabled && server->idle->enabled && !timeout->idle_state;
	}
	json_int(w, "idle_timeouts", timeouts);
	json_int(w, "idle_timeouts_counting", counting);
	json_bool(w, "input_inhibited", input_inhibit_active(server));
	json_bool(w, "shortcuts_inhibited", shortcuts_inhibited(server));
	struct wlr_pointer_constraint_v1 *c = server->active_constraint;
	json_string(w, "pointer_constraint",
			c == NULL                                                   ? "none" :
					c->type == WLR_POINTER_CONSTRAINT_V1_LOCKED ? "locked" :
										      "confined");
	json_bool(w, "input_method", server->input_method != NULL);
	/* A drag and drop under way: the client it is over (an X window's own
	 * program, not Xwayland), and whether that client took it (a MIME type
	 * and an action), which a drop needs. */
	struct wlr_drag *drag = seat->drag;
	pid_t drag_pid = 0;
	if (drag != NULL && drag->focus_client != NULL &&
			(drag->focus == NULL || server->surface_owner_pid == NULL ||
					!server->surface_owner_pid(drag->focus, &drag_pid))) {
		wl_client_get_credentials(drag->focus_client->client, &drag_pid, NULL, NULL);
	}
	json_bool(w, "dragging", drag != NULL);
	json_int(w, "drag_target_pid", drag_pid);
	json_bool(w, "drag_accepted",
			drag != NULL && drag->source != NULL && drag->source->accepted &&
					drag->source->current_dnd_action !=
							WL_DATA_DEVICE_MANAGER_DND_ACTION_NONE);
	json_end_object(w);
}

static void write_scheduler(struct smtwc_server *server, struct json_writer *w)
{
	const struct smtwc_scheduler_config *s = &server->config.scheduler;
	json_object_key(w, "scheduler");
	json_string(w, "mode", s->fifo ? "fifo" : "fair");
	json_int(w, "slice-ms", s->slice_ms);
	json_int(w, "lone-slice-ms", s->lone_slice_ms);
	json_int(w, "lone-after-ms", s->lone_after_ms);
	json_int(w, "priority-base", s->priority_base);
	json_int(w, "priority-min", s->priority_min);
	json_int(w, "priority-max", s->priority_max);
	json_int(w, "input-boost", s->input_boost);
	/* The worker threads running (`set workers` starts or stops them). */
	struct smtwc_transport_stats t;
	transport_stats(server->transport, &t);
	json_int(w, "workers", (int)t.worker_threads);
	json_int(w, "worker-nice", s->worker_nice);
	json_end_object(w);
}

static void write_server(struct smtwc_server *server, struct json_writer *w)
{
	struct smtwc_transport_stats t;
	transport_stats(server->transport, &t);
	json_object_key(w, "server");
	json_int(w, "pid", getpid());
	json_string(w, "wayland_display", server->socket);
	json_int(w, "rings", t.rings);
	json_uint(w, "sleeps", t.sleeps);
	json_uint(w, "sleeps_avoided", t.sleeps_avoided);
	json_uint(w, "spins", t.spins);
	json_uint(w, "spins_found_work", t.spins_found_work);
	json_uint(w, "loop_turns", server->loop_turns);
	/* Every client's usage together, and its caps (limits). */
	json_uint(w, "total_fds", t.total_fds);
	json_uint(w, "total_fds_max", t.total_fds_max);
	json_uint(w, "total_memory", t.total_memory);
	json_uint(w, "total_memory_max", t.total_memory_max);
	json_uint(w, "total_surface_bytes", t.total_surface_bytes);
	json_uint(w, "total_object_bytes", t.total_object_bytes);
	json_uint(w, "total_connection_bytes", t.total_connection_bytes);
	json_uint(w, "total_frame_bytes", t.total_frame_bytes);
	json_uint(w, "total_shm_record_bytes", t.total_shm_record_bytes);
	json_uint(w, "reclaim_items", t.reclaim_items);
	json_uint(w, "reclaim_bytes", t.reclaim_bytes);
	json_uint(w, "reclaim_pieces", t.reclaim_pieces);
	json_uint(w, "reclaim_done", t.reclaim_done);
	/* What the heap holds allocated (not what the kernel keeps resident,
	 * which glibc trims now and then): a leak test's exact measure. */
	json_uint(w, "heap_in_use", heap_in_use());
	/* whose count that is: the sanitizers' allocators size and keep
	 * allocations their own way */
	json_string(w, "heap_allocator", HEAP_ALLOCATOR);
	for (int r = 0; r < SMT_RES_COUNT; r++) {
		if (r == SMT_RES_FDS || r == SMT_RES_MEMORY) {
			continue; /* above */
		}
		char key[64];
		snprintf(key, sizeof(key), "total_%s", resource_names[r]);
		json_uint(w, key, t.total_used[r]);
		snprintf(key, sizeof(key), "total_%s_max", resource_names[r]);
		json_uint(w, key, t.total_max[r]);
	}
	json_uint(w, "connections_accepted", t.connections_accepted);
	json_uint(w, "connections_refused", t.connections_refused);
	json_uint(w, "connections_dropped_at_fd_limit", t.connections_dropped_at_fd_limit);
	json_uint(w, "accept_wakeups", t.accept_wakeups);
	json_uint(w, "worker_threads", t.worker_threads);
	json_uint(w, "worker_runs", t.worker_runs);
	json_uint(w, "worker_handoffs", t.worker_handoffs);
	/* runs a worker ended early for a more favoured ready ring */
	json_uint(w, "worker_preempts", t.worker_preempts);
	/* runs of a client sent input on the boost lane, every worker busy */
	json_uint(w, "worker_lane_runs", t.worker_lane_runs);
	/* idle rings a worker found published and reported ready */
	json_uint(w, "worker_reported", t.worker_reported);
	/* the workers' wake-ups of the main thread, and those for a PRESENT
	 * they copied and posted */
	json_uint(w, "worker_main_wakeups", t.worker_main_wakeups);
	json_uint(w, "worker_posted_wakeups", t.worker_posted_wakeups);
	/* posted while it slept with a frame to come: no wake-up */
	json_uint(w, "worker_posted_for_frame", t.worker_posted_for_frame);
	/* PRESENTs workers copied themselves; left to the main thread (outbox full) */
	json_uint(w, "presents_posted", t.presents_posted);
	json_uint(w, "presents_refused", t.presents_refused);
	json_uint(w, "worker_spins", t.worker_spins);
	json_uint(w, "worker_spins_found", t.worker_spins_found);
	json_uint(w, "worker_spins_skipped", t.worker_spins_skipped);
	json_uint(w, "worker_watches", t.worker_watches);
	json_uint(w, "worker_watch_pieces", t.worker_watch_pieces);
	/* the main thread's waits for a ring's lock a worker held */
	json_uint(w, "worker_main_lock_waits", t.worker_main_lock_waits);
	json_double(w, "worker_main_lock_wait_ms", (double)t.worker_main_lock_wait_ns / 1e6);
	json_double(w, "worker_main_lock_wait_max_ms",
			(double)t.worker_main_lock_wait_max_ns / 1e6);
	/* Synchronisation points for tests: a client's disconnect has been
	 * processed once it is no longer counted; a virtual keyboard's
	 * modifier press has arrived once it shows here; its keymap once it
	 * is counted in keyboards_with_keymap. */
	json_int(w, "wayland_clients", wl_list_length(wl_display_get_client_list(server->display)));
	json_uint(w, "keyboard_modifiers", keyboard_modifiers(server));
	json_uint(w, "keyboards_with_keymap", keyboards_with_keymap(server));
	/* scales the cursor theme is loaded at: those of outputs, and 1 */
	json_uint(w, "cursor_themes", cursor_theme_count(server));
	json_end_object(w);
	const struct smtwc_render *r = &server->render;
	json_object_key(w, "render");
	json_uint(w, "frames", r->frames);
	json_uint(w, "ns_total", r->ns_total);
	json_uint(w, "ns_max", r->ns_max);
	json_uint(w, "pixels_damaged", r->pixels_damaged);
	json_uint(w, "pixels_painted", r->pixels_painted);
	json_uint(w, "nodes_painted_direct", r->nodes_painted_direct);
	json_uint(w, "nodes_painted_transformed", r->nodes_painted_transformed);
	json_uint(w, "nodes_unreadable", r->nodes_unreadable);
	json_uint(w, "rect_fill_pixels", r->rect_fill_pixels);
	json_uint(w, "damage_rects_max", r->damage_rects_max);
	/* the canvases' front buffers' lock (render.h): frames that waited
	 * for a worker's band, how long in all; bands that waited for a frame */
	json_uint(w, "front_waits", r->front_waits);
	json_uint(w, "front_wait_ns", r->front_wait_ns);
	json_uint(w, "front_copier_waits",
			atomic_load_explicit(&r->front_copier_waits, memory_order_relaxed));
	json_end_object(w);
}

static void write_capture_client(const struct screencopy_client_stats *c, void *data)
{
	struct json_writer *w = data;
	json_begin_object(w);
	json_int(w, "pid", c->pid);
	json_uint(w, "uid", c->uid);
	json_uint(w, "copies", c->copies);
	json_uint(w, "bytes", c->bytes);
	json_uint(w, "held_back", c->held_back);
	json_end_object(w);
}

/* Screen captures: the budget per output frame and what each connection
 * that asked had copied (output/screencopy_budget.h). */
static void write_screencopy(struct smtwc_server *server, struct json_writer *w)
{
	struct screencopy_stats s;
	screencopy_budget_stats(server, &s);
	json_object_key(w, "screencopy");
	json_int(w, "budget_copies", s.budget_copies);
	json_uint(w, "copies", s.copies);
	json_uint(w, "bytes", s.bytes);
	json_uint(w, "held_back", s.held_back);
	json_uint(w, "max_frame_copies", s.max_frame_copies);
	json_uint(w, "commits_with_copy", s.commits_with_copy);
	json_begin_array(w, "clients");
	screencopy_budget_for_each_client(server, write_capture_client, w);
	json_end_array(w);
	json_end_object(w);
}

/* smtwc_stats_out onto the answer's JSON writer. */
static void stats_begin_object(void *ctx, const char *key)
{
	json_object_key(ctx, key);
}

static void stats_end_object(void *ctx)
{
	json_end_object(ctx);
}

static void stats_begin_list(void *ctx, const char *key)
{
	json_begin_array(ctx, key);
}

static void stats_begin_item(void *ctx)
{
	json_begin_object(ctx);
}

static void stats_end_list(void *ctx)
{
	json_end_array(ctx);
}

static void stats_number(void *ctx, const char *key, uint64_t value)
{
	json_uint(ctx, key, value);
}

static void stats_string(void *ctx, const char *key, const char *value)
{
	json_string(ctx, key, value);
}

/* What the extensions count (the X window manager's budgets). */
static void write_extensions(struct smtwc_server *server, struct json_writer *w)
{
	const struct smtwc_stats_out out = {
		.ctx = w,
		.begin_object = stats_begin_object,
		.end_object = stats_end_object,
		.begin_list = stats_begin_list,
		.begin_item = stats_begin_item,
		.end_item = stats_end_object,
		.end_list = stats_end_list,
		.number = stats_number,
		.string = stats_string,
	};
	for (const struct smtwc_extension *const *ext = smtwc_extensions; *ext != NULL; ext++) {
		if ((*ext)->stats != NULL) {
			(*ext)->stats(server, &out);
		}
	}
}

static void answer_error(struct json_writer *w, const char *message)
{
	json_begin_object(w);
	json_string(w, "error", message);
	json_end_object(w);
}

/* "set KEY VALUE": validated and applied by the config parser, so the
 * control socket and the config file accept exactly the same settings. */
static void answer_set(struct smtwc_server *server, const char *key, const char *value,
		struct json_writer *w)
{
	char *text = NULL, *errors = NULL;
	size_t errors_len = 0;
	if (asprintf(&text, "[scheduler]\n%s = %s\n", key, value) < 0) {
		answer_error(w, "out of memory");
		return;
	}
	FILE *err = open_memstream(&errors, &errors_len);
	int count = smtwc_config_load_string(&server->config, "set", text, err);
	if (err != NULL) {
		fclose(err);
	}
	free(text);
	if (count > 0) {
		/* "set:2: problem" -> "problem" */
		const char *msg = errors != NULL ? errors : "invalid setting";
		const char *colon = strstr(msg, ": ");
		char *line = strdup(colon != NULL ? colon + 2 : msg);
		if (line != NULL) {
			line[strcspn(line, "\n")] = '\0';
		}
		answer_error(w, line != NULL ? line : "invalid setting");
		free(line);
	} else {
		if (!ring_loop_config_changed(server->transport)) {
			/* (the threads that started run; `get` shows how many) */
			answer_error(w,
					"workers: not every worker thread could start "
					"(see the log)");
			free(errors);
			return;
		}
		json_begin_object(w);
		json_bool(w, "ok", true);
		write_scheduler(server, w);
		json_end_object(w);
	}
	free(errors);
}

/* "output add" / "output remove NAME" (headless outputs only). */
static void answer_output(struct smtwc_server *server, const char *action, const char *name,
		struct json_writer *w)
{
	if (strcmp(action, "add") == 0 && name == NULL) {
		struct wlr_backend *headless = test_input_headless_backend(server);
		struct wlr_output *out = headless != NULL ?
				wlr_headless_add_output(headless, 1280, 720) :
				NULL;
		if (out == NULL) {
			answer_error(w, "output add needs the headless backend");
			return;
		}
		json_begin_object(w);
		json_bool(w, "ok", true);
		json_string(w, "output", out->name);
		json_end_object(w);
		return;
	}
	if (strcmp(action, "remove") == 0 && name != NULL) {
		struct smtwc_output *output;
		wl_list_for_each (output, &server->outputs, link) {
			if (strcmp(output->wlr_output->name, name) != 0) {
				continue;
			}
			if (!wlr_output_is_headless(output->wlr_output)) {
				answer_error(w, "only headless outputs can be removed");
				return;
			}
			wlr_output_destroy(output->wlr_output);
			json_begin_object(w);
			json_bool(w, "ok", true);
			json_end_object(w);
			return;
		}
		answer_error(w, "no such output");
		return;
	}
	answer_error(w, "usage: output add | output remove NAME");
}

void control_answer(struct smtwc_server *server, char *line, struct json_writer *w)
{
	char *save = NULL;
	char *verb = strtok_r(line, " \t\r", &save);
	char *arg1 = verb != NULL ? strtok_r(NULL, " \t\r", &save) : NULL;
	char *arg2 = arg1 != NULL ? strtok_r(NULL, "\r", &save) : NULL;
	if (verb == NULL) {
		answer_error(w, "empty request (try: clients, accounts, windows, seat, stats, get, set KEY VALUE)");
	} else if (strcmp(verb, "clients") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_clients(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "stats") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_server(server, w);
		write_screencopy(server, w);
		write_extensions(server, w);
		write_scheduler(server, w);
		write_clients(server, w);
		write_accounts(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "accounts") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_accounts(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "seat") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_seat(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "windows") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_windows(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "get") == 0 && arg1 == NULL) {
		json_begin_object(w);
		write_scheduler(server, w);
		json_end_object(w);
	} else if (strcmp(verb, "set") == 0 && arg1 != NULL && arg2 != NULL) {
		answer_set(server, arg1, arg2, w);
	} else if (strcmp(verb, "render") == 0 && arg1 != NULL && arg2 == NULL &&
			(strcmp(arg1, "culled") == 0 || strcmp(arg1, "scene") == 0)) {
		output_render_set_culling(
				&server->render, server->scene, strcmp(arg1, "culled") == 0);
		json_begin_object(w);
		json_bool(w, "ok", true);
		json_string(w, "render", arg1);
		json_end_object(w);
	} else if (strcmp(verb, "output") == 0 && arg1 != NULL) {
		answer_output(server, arg1, arg2, w);
	} else if (strcmp(verb, "input") == 0 && arg1 != NULL) {
		test_input_answer(server, arg1, arg2, w);
	} else if (strcmp(verb, "set") == 0) {
		answer_error(w, "usage: set KEY VALUE (keys as in the [scheduler] section)");
	} else if (strcmp(verb, "render") == 0) {
		answer_error(w, "usage: render culled | render scene");
	} else {
		answer_error(w, "unknown request (try: clients, accounts, windows, seat, stats, get, set KEY VALUE)");
	}
}
