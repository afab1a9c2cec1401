/*
 * One struct of server state, as in tinywl: every module gets the server and
 * finds what it needs here. wlroots types appear only in compositor/ files;
 * pure logic (config, ring decoding, scheduling) lives in modules that do not
 * include this header.
 */
#ifndef SMTWC_SERVER_H
#define SMTWC_SERVER_H

#include <stdbool.h>
#include <sys/types.h>
#include <wayland-server-core.h>
#include <wlr/backend.h>
#include <wlr/render/allocator.h>
#include <wlr/render/wlr_renderer.h>
#include <wlr/types/wlr_cursor.h>
#include <wlr/types/wlr_output_layout.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/types/wlr_seat.h>
#include <wlr/types/wlr_xcursor_manager.h>
#include <wlr/types/wlr_xdg_shell.h>
#include <wlr/types/wlr_layer_shell_v1.h>

#include "compositor/config/config.h"
#include "compositor/log_limit.h"
#include "compositor/output/render.h"

/* Stacking of the scene, bottom to top. Layer-shell surfaces go into the four
 * layer trees; windows between "bottom" and "top" as the protocol requires. */
enum smtwc_scene_layer {
	SMTWC_LAYER_BACKGROUND,
	SMTWC_LAYER_BOTTOM,
	SMTWC_LAYER_WINDOWS,
	SMTWC_LAYER_TOP,
	SMTWC_LAYER_OVERLAY,
	SMTWC_LAYER_POPUPS,
	SMTWC_LAYER_COUNT,
};

enum smtwc_cursor_mode {
	SMTWC_CURSOR_PASSTHROUGH,
	SMTWC_CURSOR_MOVE,
	SMTWC_CURSOR_RESIZE,
};

struct smtwc_view;
struct smtwc_screencopy;
struct smtwc_gestures;

struct smtwc_server {
	struct wl_display *display;
	struct wl_event_loop *event_loop;
	const char *socket;
	struct wlr_backend *backend;
	struct wlr_session *session; /* NULL unless running on a VT */
	struct wlr_renderer *renderer;
	struct wlr_allocator *allocator;
	struct wlr_compositor *compositor;
	bool headless;
	/* Surface commits so far; outputs with nothing new skip their frame. */
	uint64_t commit_seq;
	bool frame_pacing_off;
	struct wl_listener new_surface;
	struct smtwc_render render;

	struct smtwc_config config;

	struct wlr_scene *scene;
	struct wlr_presentation *presentation; /* wp_presentation */
	struct wlr_scene_tree *layers[SMTWC_LAYER_COUNT];
	struct wlr_scene_rect *background;

	struct wlr_output_layout *output_layout;
	struct wl_list outputs; /* smtwc_output.link */
	struct wl_listener new_output;
	struct wl_listener layout_change;
	/* An output configuration applied head by head passes through layouts
	 * nobody asked for (wlroots re-places the auto-placed outputs at each
	 * head): while held (output_layout_hold), windows and the pointer do
	 * not follow them; the layout's change is told once, at the release. */
	struct {
		int depth;
		bool changed;
		double cursor_x, cursor_y; /* where the pointer was at the hold */
	} output_layout_held;
	struct wlr_output_manager_v1 *output_manager;
	struct wl_listener output_apply;
	struct wl_listener output_test;
	struct wl_listener output_management_layout_change; /* events.output_layout_change */

	struct wlr_xdg_shell *xdg_shell;
	struct wl_listener new_xdg_surface;
	/* Mapped and unmapped views, most recently focused first. */
	struct wl_list views; /* smtwc_view.link */
	/* One timer for every window's paced title (view.c): a descriptor per
	 * window would be one more a client could make the compositor hold. */
	struct wl_event_source *title_timer;
	int64_t title_timer_due_ms;                    /* when it is armed for; 0: not armed */
	struct smtwc_view *focused_view;               /* activated, framed in the focus colour */
	struct wl_listener views_output_layout_change; /* events.output_layout_change */
	struct wl_listener views_output_removed;       /* events.output_removed */
	int placement_counter;
	int title_bar_height; /* measured from the title font at start */

	struct wlr_layer_shell_v1 *layer_shell;
	struct wl_listener new_layer_surface;
	struct wlr_layer_surface_v1 *exclusive_layer;        /* holds keyboard focus */
	struct wl_listener layer_shell_output_layout_change; /* events.output_layout_change */
	struct wl_listener layer_shell_output_destroy;       /* events.output_destroy */

	struct wl_listener new_decoration;
	struct wl_listener new_kde_decoration;
	struct wl_listener request_activate;
	struct wlr_foreign_toplevel_manager_v1 *foreign_toplevels; /* taskbars */
	struct wl_listener foreign_toplevel_view_map;              /* events.view_map */
	struct wl_listener foreign_toplevel_view_unmap;            /* events.view_unmap */
	struct wl_listener foreign_toplevel_view_change;           /* events.view_change */

	struct wlr_seat *seat;
	struct wl_list keyboards; /* smtwc_keyboard.link */
	struct wl_listener new_input;
	struct wl_listener new_virtual_keyboard;
	struct wl_listener new_virtual_pointer;
	struct wl_listener request_set_cursor;
	struct wl_listener request_set_selection;
	struct wl_listener request_set_primary_selection;
	struct wl_listener set_primary_selection; /* one wlroots' X window manager set */
	struct log_limit selection_refused_log;   /* input/selection_limits.h */
	struct wl_listener request_start_drag;
	struct wl_listener start_drag;

	struct wlr_cursor *cursor;
	struct wlr_xcursor_manager *cursor_manager;
	struct wl_listener cursor_motion;
	struct wl_listener cursor_motion_absolute;
	struct wl_listener cursor_button;
	struct wl_listener cursor_axis;
	struct wl_listener cursor_frame;

	/* Interactive move/resize grab. */
	enum smtwc_cursor_mode cursor_mode;
	struct smtwc_view *grabbed_view;
	double grab_x, grab_y;
	struct wlr_box grab_geobox; /* view box when the grab started */
	struct wlr_box grab_target; /* last size asked of the client */
	uint32_t resize_edges;
	bool grab_from_client;
	/* The implicit grab (input/cursor.c): layout position of the surface
	 * origin a held button was pressed on. */
	double implicit_grab_x, implicit_grab_y;
	/* Drag icons' tree, on top of the layers; input never finds them
	 * (desktop_owner_at), else the icon under the pointer would be the
	 * drop target. drag_icon: the one that follows the cursor in a DnD. */
	struct wlr_scene_tree *drag_icons;
	struct wlr_scene_tree *drag_icon;

	/* Desktop protocols on the seat (input/): idle, locking, constraints,
	 * shortcut inhibitors, gestures, input methods. */
	struct wlr_idle *idle;
	struct wl_list idle_inhibitors; /* smtwc_idle_inhibitor.link */
	struct wl_listener new_idle_inhibitor;
	struct wl_listener idle_view_visibility; /* events.view_visibility */
	struct wlr_input_inhibit_manager *input_inhibit;
	struct wl_listener input_inhibit_activate;
	struct wl_listener input_inhibit_deactivate;
	struct wlr_relative_pointer_manager_v1 *relative_pointer;
	struct wlr_pointer_constraints_v1 *pointer_constraints;
	struct wlr_pointer_constraint_v1 *active_constraint;
	struct wl_listener new_pointer_constraint;
	struct wl_listener constraint_focus_change;
	struct wl_listener constraint_keyboard_focus_change;
	struct wlr_keyboard_shortcuts_inhibit_manager_v1 *shortcuts_inhibit;
	struct wl_listener new_shortcuts_inhibitor;
	struct smtwc_gestures *gestures;
	struct wlr_tablet_manager_v2 *tablet_manager;
	struct wl_listener tablet_axis;
	struct wl_listener tablet_proximity;
	struct wl_listener tablet_tip;
	struct wl_listener tablet_button;
	struct wl_list tablet_pads;          /* smtwc_tablet_pad.link */
	struct wl_listener tablet_pad_focus; /* pads follow the keyboard focus */
	struct wl_list text_inputs;          /* smtwc_text_input.link */
	struct wl_listener new_text_input;
	struct wl_listener text_input_focus_change;
	struct wlr_input_method_v2 *input_method; /* at most one */
	struct wl_listener new_input_method;
	struct wl_listener input_method_commit;
	struct wl_listener input_method_grab;
	struct wl_listener input_method_grab_destroy;
	struct wl_listener input_method_destroy;
	struct wlr_output_power_manager_v1 *output_power;
	struct smtwc_screencopy *screencopy; /* output/screencopy_budget.c */
	struct wl_listener output_power_set_mode;

	/* What the window system (output/, desktop/, input/) tells the layers
	 * above it without knowing them (docs/architecture.md). */
	struct {
		/* Pointer or keyboard input was sent to a client (data: its
		 * struct wl_client): the ring scheduler boosts it. */
		struct wl_signal client_input;
		/* An output is about to render a frame (data: struct smtwc_output). */
		struct wl_signal output_frame;
		/* An output showed a frame (data: struct smtwc_output_presented). */
		struct wl_signal output_presented;
		/* The output layout changed (data: NULL): layer surfaces are
		 * placed again, views kept on an output, output-management
		 * clients told, in that order. */
		struct wl_signal output_layout_change;
		/* An output is going (data: struct smtwc_output, still whole):
		 * its layer surfaces are closed. */
		struct wl_signal output_destroy;
		/* An output went (data: NULL): views only it showed move. */
		struct wl_signal output_removed;
		/* A view was mapped / unmapped (data: struct smtwc_view):
		 * taskbars get or lose its handle. */
		struct wl_signal view_map;
		struct wl_signal view_unmap;
		/* Title, app id, parent, focus, states or place of a view may
		 * have changed (data: struct smtwc_view): taskbars follow. */
		struct wl_signal view_change;
		/* A view was shown or hidden: mapped, unmapped, minimized or
		 * restored (data: struct smtwc_view): idle inhibitors on its
		 * surfaces start or stop counting. */
		struct wl_signal view_visibility;
		/* What a view's frame (its title bar's buffer) holds changed
		 * (data: struct smtwc_view, its frame_bytes now): its
		 * surface's client is charged it. */
		struct wl_signal view_frame_memory;
	} events;
	/* Scene buffers that show a surface's content drawn another way (ring
	 * canvases) take input for that surface: the surface a node stands in
	 * for, or NULL. Set by the layer that creates such nodes (ring/). */
	struct wlr_surface *(*stand_in_surface)(struct wlr_scene_node *node);
	/* The process a window's surface belongs to when its Wayland client
	 * speaks for others: every X window is a surface of Xwayland's
	 * connection, which wlroots makes with socketpair in the compositor
	 * (its credentials are our own pid). true and *pid (0: not known) for
	 * such a surface; false: the client's own credentials hold. Set by the
	 * layer that knows (the X window manager's extension); NULL without. */
	bool (*surface_owner_pid)(struct wlr_surface *surface, pid_t *pid);

	struct smtwc_transport *transport;   /* smt-ring-v1 */
	struct smtwc_xwayland *xwayland;     /* NULL without Xwayland */
	struct smtwc_control *control;       /* NULL without a control socket */
	struct smtwc_test_input *test_input; /* control's headless devices, if used */
	bool running;
	/* Turns of the main loop (server_run), counted. libwayland calls a
	 * handler marked with wl_event_source_check again, in the same
	 * dispatch, for as long as it says it did something (wlroots' X
	 * window manager: every event it handled); a handler held to one
	 * turn of its own per turn of the loop compares this. */
	uint64_t loop_turns;

	struct wl_event_source *sigterm_source;
	struct wl_event_source *sigint_source;
};

/* server.c */
bool server_init(struct smtwc_server *server);
bool server_start(struct smtwc_server *server);
/* The main loop: ring work in slices between event dispatches. */
void server_run(struct smtwc_server *server);
void server_finish(struct smtwc_server *server);
void server_quit(struct smtwc_server *server);

/* launch.c: run a command through /bin/sh, detached from the compositor. */
void launch_command(const char *command);

#endif
