/*
 * A view is a window, whatever protocol it came from (xdg-shell now,
 * Xwayland later). Window management works on views through a small table
 * of operations so that each shell module only translates its protocol.
 */
#ifndef SMTWC_VIEW_H
#define SMTWC_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <wlr/util/box.h>
#include "compositor/server.h"

/* Scene nodes that input can land on carry one of these in node->data so
 * hit-testing can tell windows from layer surfaces. */
enum smtwc_node_kind {
	SMTWC_NODE_VIEW = 1,
	SMTWC_NODE_LAYER_SURFACE,
	SMTWC_NODE_UNMANAGED, /* X override-redirect windows: menus, tooltips */
	SMTWC_NODE_CANVAS,    /* a ring canvas shown over its wl_surface */
};

struct smtwc_view_impl {
	struct wlr_surface *(*surface)(struct smtwc_view *view);
	/* Window geometry inside the surface (CSD shadows are outside it). */
	struct wlr_box (*geometry)(struct smtwc_view *view);
	/* Ask the client for a new size of its window geometry. */
	void (*configure)(struct smtwc_view *view, int width, int height);
	void (*set_activated)(struct smtwc_view *view, bool activated);
	void (*set_maximized)(struct smtwc_view *view, bool maximized);
	void (*set_fullscreen)(struct smtwc_view *view, bool fullscreen);
	void (*close)(struct smtwc_view *view);
	/* Optional: X windows must know where they are on the root window. */
	void (*moved)(struct smtwc_view *view);
	/* Optional: a configure was sent that the client has not yet acked
	 * and committed (its size may still change because of it). */
	bool (*configure_pending)(struct smtwc_view *view);
	/* Optional: the window this one belongs to (a dialog's), or NULL. */
	struct smtwc_view *(*parent)(struct smtwc_view *view);
	/* What taskbars and smtctl show; NULL when the client set none. */
	const char *(*title)(struct smtwc_view *view);
	const char *(*app_id)(struct smtwc_view *view);
};

struct smtwc_view {
	enum smtwc_node_kind kind; /* SMTWC_NODE_VIEW; first, see above */
	struct wl_list link;       /* smtwc_server.views */
	struct smtwc_server *server;
	const struct smtwc_view_impl *impl;

	struct wlr_scene_tree *tree; /* at (x, y): the window geometry origin */
	/* The surface tree. Its origin is the window geometry's: wlroots 0.15's
	 * xdg helper offsets the surface by -geometry itself, X windows have
	 * no geometry offset. */
	struct wlr_scene_node *content;
	struct wlr_scene_rect *border[4];  /* top, bottom, left, right */
	struct smtwc_title_bar *title_bar; /* above the geometry, inside the border */
	/* What the title bar held when the view last said so
	 * (server->events.view_frame_memory). */
	uint64_t frame_bytes;

	int x, y;
	bool mapped, minimized, maximized, fullscreen;
	bool server_side_decoration;
	/* The client chose its position (X windows with USPosition, dialogs
	 * placed over their parent): view_map keeps it instead of cascading. */
	bool keep_position;
	struct wlr_box restore_box; /* geometry before maximize/fullscreen */
	/* After a resize from the left or top, the right/bottom edge of
	 * anchor_box stays where it was whatever size the client commits. */
	uint32_t anchor_edges;
	struct wlr_box anchor_box;
	struct smtwc_foreign_toplevel *foreign_toplevel; /* while mapped */
	/* Title changes shown at most every VIEW_TITLE_INTERVAL_MS (view.c):
	 * when the last was shown, and whether a change waits for the
	 * server's title timer. */
	int64_t title_shown_ms;
	bool title_waiting;
	/* The title and app id as last shown (title bar, taskbars): other
	 * changes (a commit, focus) redraw with these, not the newest. */
	char *shown_title, *shown_app_id;
};

void view_init(struct smtwc_view *view, struct smtwc_server *server,
		const struct smtwc_view_impl *impl);
void view_destroy(struct smtwc_view *view);
/* Creates the scene subtree for the view's surface contents. */
void view_set_content(struct smtwc_view *view, struct wlr_scene_node *content);

void view_map(struct smtwc_view *view);
void view_unmap(struct smtwc_view *view);
/* Called after a commit: follows geometry changes (borders, resize anchors). */
void view_update_geometry(struct smtwc_view *view);

void view_focus(struct smtwc_view *view);
struct smtwc_view *view_focused(struct smtwc_server *server);
void view_move(struct smtwc_view *view, int x, int y);
/* A place a client asks for its mapped window (x, y: the content's top
 * left), moved so that the frame's top and left edges stay inside the
 * usable area of the output that place is on: a window asking for 0,0
 * keeps its title bar on the output, as at its map. A place on no output,
 * or already clear of the edges, is left as it is. */
void view_keep_frame_top_left(struct smtwc_view *view, int *x, int *y);
void view_set_maximized(struct smtwc_view *view, bool maximized);
void view_set_fullscreen(struct smtwc_view *view, bool fullscreen);
void view_set_minimized(struct smtwc_view *view, bool minimized);
void view_set_server_side_decoration(struct smtwc_view *view, bool enabled);
void view_close(struct smtwc_view *view);
/* The view whose root surface this is, NULL for other surfaces. */
struct smtwc_view *view_from_surface(struct smtwc_server *server, struct wlr_surface *surface);
/* Layout box of the window geometry. */
struct wlr_box view_box(struct smtwc_view *view);
/* A window geometry a client gave (any int32: xdg_surface's window
 * geometry, or a surface a viewport made 2^31 - 1 wide) kept within
 * +-VIEW_COORD_LIMIT, so that what the compositor adds to it (borders,
 * title bars, centring over a parent, a popup's root) fits an int.
 * Session 38's red team: a window geometry 2^31 - 1 wide overflowed
 * view_update_borders (the UBSan build died). */
#define VIEW_COORD_LIMIT (1 << 24)
struct wlr_box view_clamp_geometry(struct wlr_box box);
/* What the compositor draws around the geometry, in pixels per side: the
 * border, and above it the title bar. All 0 for undecorated windows. */
struct smtwc_frame_insets {
	int top, bottom, left, right;
};
struct smtwc_frame_insets view_frame_insets(struct smtwc_view *view);
/* Layout box of the title bar; empty when the window shows none. */
struct wlr_box view_title_bar_box(struct smtwc_view *view);
/* The title (or app id) changed: taskbars and the title bar follow, at
 * once if the last change was shown VIEW_TITLE_INTERVAL_MS ago or more,
 * else all the changes until then together at that time. */
#define VIEW_TITLE_INTERVAL_MS 50
void view_update_title(struct smtwc_view *view);
/* The title and app id as shown now (NULL: none). */
const char *view_shown_title(const struct smtwc_view *view);
const char *view_shown_app_id(const struct smtwc_view *view);

/* Focuses the least recently focused mapped view (minimized ones included). */
void views_cycle(struct smtwc_server *server);
/* server->events.output_layout_change and output_removed: views that no
 * output shows any more move back onto one. */
void views_handle_output_layout_change(struct wl_listener *listener, void *data);
void views_handle_output_removed(struct wl_listener *listener, void *data);
/* Re-fits maximized/fullscreen views after output or usable-area changes. */
void views_arrange(struct smtwc_server *server);
/* An output's exclusive zones changed its usable area from old_area to
 * new_area (the output itself unchanged): a floating window that was inside
 * old_area along an edge the new zones moved in, and is now under them,
 * moves by as much as that edge did (where it would have been placed had
 * the zone been there first), kept inside new_area. */
void views_leave_zones(
		struct smtwc_server *server, struct wlr_box old_area, struct wlr_box new_area);

/* What is under a layout point: the owner of the scene node (a view or a
 * layer surface, told apart by the kind it starts with) and the wlr_surface
 * with surface-local coordinates. NULL over the empty desktop. */
enum smtwc_node_kind *desktop_owner_at(struct smtwc_server *server, double lx, double ly,
		struct wlr_surface **surface, double *sx, double *sy);

#endif
