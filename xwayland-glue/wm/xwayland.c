/*
 * X applications in the session: Xwayland started lazily on the first X
 * connection, X toplevels managed as views, override-redirect windows
 * (menus, tooltips) shown where X puts them, above every window.
 *
 * The X window manager side. wlroots' xwm speaks X to Xwayland; this module
 * turns its surfaces into views. If Xwayland dies, wlroots re-arms the lazy
 * socket and the next X client starts a new server: the compositor and its
 * Wayland clients never notice. It plugs into the compositor as an
 * extension (compositor/extension.h); the compositor does not know it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <wlr/types/wlr_scene.h>
#include <wlr/util/log.h>
#include <wlr/xwayland.h>
#include <xcb/xcb_icccm.h>
#include "compositor/desktop/foreign_toplevel.h"
#include "compositor/desktop/view.h"
#include "compositor/input/cursor.h"
#include "common/monotonic_clock.h"
#include "compositor/output/output.h"
#include "compositor/server.h"
#include "compositor/extension.h"
#include "compositor/log_limit.h"
#include "xwayland-glue/wm/wm_event_pacer.h"
#include "xwayland-glue/wm/wm_paste_pipe.h"
#include "xwayland-glue/wm/wm_selection_budget.h"
#include "xwayland-glue/wm/wm_selection_targets.h"
#include "xwayland-glue/wm/wm_surface_pairing.h"
#include "xwayland-glue/wm/wm_window_budget.h"
#include "xwayland-glue/wm/x11ring_session.h"

struct smtwc_xwayland {
	struct wlr_xwayland *wlr;
	struct x11ring_session *ring; /* NULL: X programs stay on the socket */
	struct wl_listener ready;
	struct wl_listener new_surface;
};

/* A managed X window. */
struct smtwc_xview {
	struct smtwc_view view;
	struct wlr_xwayland_surface *xsurface;
	struct wl_listener destroy;
	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener commit;
	struct wl_listener request_configure;
	struct wl_listener request_move;
	struct wl_listener request_resize;
	struct wl_listener request_maximize;
	struct wl_listener request_fullscreen;
	struct wl_listener request_minimize;
	struct wl_listener request_activate;
	struct wl_listener set_override_redirect;
	struct wl_listener set_title;
	struct wl_listener set_parent;
	struct wl_listener set_decorations;
	/* Fullscreen, maximize, minimize and activation asked by the client,
	 * paced (below). */
	struct wl_event_source *state_timer;
	uint64_t state_applied_ns;
	unsigned state_pending;          /* XVIEW_STATE_* asked since then */
	bool state_waiting;              /* the timer is armed */
	bool minimize_wanted;            /* with XVIEW_STATE_MINIMIZE: the last asked */
	struct wlr_box configure_wanted; /* with XVIEW_STATE_CONFIGURE: likewise */
};

/* An override-redirect window: X placed it; we only show it. */
struct smtwc_unmanaged {
	enum smtwc_node_kind kind; /* SMTWC_NODE_UNMANAGED; first */
	struct smtwc_server *server;
	struct wlr_xwayland_surface *xsurface;
	struct wlr_scene_tree *tree;
	struct wl_listener destroy;
	struct wl_listener map;
	struct wl_listener unmap;
	struct wl_listener set_geometry;
	struct wl_listener set_override_redirect;
};

static void xsurface_create_wrapper(
		struct smtwc_server *server, struct wlr_xwayland_surface *xsurface);

/* _NET_ACTIVE_WINDOW refused while a Wayland window has the focus. */
static struct log_limit activation_refused_log;
static unsigned long long activations_refused;

/* ---- managed windows ------------------------------------------------- */

static struct smtwc_xview *xview(struct smtwc_view *view)
{
	return wl_container_of(view, (struct smtwc_xview *)NULL, view);
}

static struct wlr_surface *xview_surface(struct smtwc_view *view)
{
	return xview(view)->xsurface->surface;
}

static struct wlr_box xview_geometry(struct smtwc_view *view)
{
	struct wlr_xwayland_surface *xs = xview(view)->xsurface;
	/* The buffer includes the X border (border_width), which the X window
	 * size does not; the frame must go around what is drawn. */
	if (xs->surface != NULL && xs->surface->current.width > 0) {
		return (struct wlr_box){ 0, 0, xs->surface->current.width,
			xs->surface->current.height };
	}
	return (struct wlr_box){ 0, 0, xs->width, xs->height };
}

static void xview_configure(struct smtwc_view *view, int width, int height)
{
	if (width < 1 || height < 1) {
		return;
	}
	wlr_xwayland_surface_configure(xview(view)->xsurface, (int16_t)view->x, (int16_t)view->y,
			(uint16_t)width, (uint16_t)height);
}

static void xview_moved(struct smtwc_view *view)
{
	struct wlr_xwayland_surface *xs = xview(view)->xsurface;
	if (xs->x != view->x || xs->y != view->y) {
		wlr_xwayland_surface_configure(
				xs, (int16_t)view->x, (int16_t)view->y, xs->width, xs->height);
	}
}

static void xview_set_activated(struct smtwc_view *view, bool activated)
{
	struct wlr_xwayland_surface *xs = xview(view)->xsurface;
	wlr_xwayland_surface_activate(xs, activated);
	if (activated) {
		/* X stacking must follow ours, or X would deliver input to a
		 * window that is below another on screen. */
		wlr_xwayland_surface_restack(xs, NULL, XCB_STACK_MODE_ABOVE);
	}
}

static void xview_set_maximized(struct smtwc_view *view, bool maximized)
{
	wlr_xwayland_surface_set_maximized(xview(view)->xsurface, maximized);
}

static void xview_set_fullscreen(struct smtwc_view *view, bool fullscreen)
{
	wlr_xwayland_surface_set_fullscreen(xview(view)->xsurface, fullscreen);
}

static void xview_close(struct smtwc_view *view)
{
	/* WM_DELETE_WINDOW when the client supports it, else the connection is
	 * killed: wlroots makes that choice from WM_PROTOCOLS. */
	wlr_xwayland_surface_close(xview(view)->xsurface);
}

static const char *xview_title(struct smtwc_view *view)
{
	return xview(view)->xsurface->title;
}

static const char *xview_app_id(struct smtwc_view *view)
{
	return xview(view)->xsurface->class;
}

/* WM_TRANSIENT_FOR: a dialog belongs to the window it is transient for,
 * as sway tells taskbars. */
static struct smtwc_view *xview_parent(struct smtwc_view *view)
{
	struct wlr_xwayland_surface *parent = xview(view)->xsurface->parent;
	return parent != NULL && !parent->override_redirect ? parent->data : NULL;
}

static const struct smtwc_view_impl xview_impl = {
	.surface = xview_surface,
	.geometry = xview_geometry,
	.configure = xview_configure,
	.set_activated = xview_set_activated,
	.set_maximized = xview_set_maximized,
	.set_fullscreen = xview_set_fullscreen,
	.close = xview_close,
	.moved = xview_moved,
	.title = xview_title,
	.app_id = xview_app_id,
	.parent = xview_parent,
};

static bool size_hints_give_position(struct wlr_xwayland_surface *xs)
{
	return xs->size_hints != NULL &&
			(xs->size_hints->flags &
					(XCB_ICCCM_SIZE_HINT_US_POSITION |
							XCB_ICCCM_SIZE_HINT_P_POSITION));
}

static void xview_handle_commit(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, commit);
	view_update_geometry(&xv->view);
}

static void xview_apply_held_configure(struct smtwc_xview *xv);

static void xview_handle_map(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, map);
	struct wlr_xwayland_surface *xs = xv->xsurface;
	struct smtwc_view *view = &xv->view;
	view->content = wlr_scene_subsurface_tree_create(&view->tree->node, xs->surface);
	xv->commit.notify = xview_handle_commit;
	wl_signal_add(&xs->surface->events.commit, &xv->commit);
	xview_apply_held_configure(xv);
	view->x = xs->x;
	view->y = xs->y;
	view->keep_position = size_hints_give_position(xs);
	if (!view->keep_position && xs->parent != NULL && xs->parent->data != NULL) {
		/* Dialogs open centred over the window they belong to. */
		struct smtwc_view *parent = xs->parent->data;
		struct wlr_box pb = view_box(parent);
		view->x = pb.x + (pb.width - xs->width) / 2;
		view->y = pb.y + (pb.height - xs->height) / 2;
		view->keep_position = true;
	}
	view_map(view);
	if (xs->fullscreen) {
		view_set_fullscreen(view, true);
	} else if (xs->maximized_horz && xs->maximized_vert) {
		view_set_maximized(view, true);
	}
}

static void xview_handle_unmap(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, unmap);
	view_unmap(&xv->view);
	wl_list_remove(&xv->commit.link);
	if (xv->view.content != NULL) {
		wlr_scene_node_destroy(xv->view.content);
		xv->view.content = NULL;
	}
}

static void xview_handle_request_move(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_move);
	cursor_begin_interactive(xv->view.server, &xv->view, SMTWC_CURSOR_MOVE, 0, true);
}

static void xview_handle_request_resize(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_resize);
	struct wlr_xwayland_resize_event *event = data;
	cursor_begin_interactive(
			xv->view.server, &xv->view, SMTWC_CURSOR_RESIZE, event->edges, true);
}

/* A client's fullscreen and maximize requests (_NET_WM_STATE messages,
 * which wlroots' window manager turns into these signals) each resize the
 * window: a configure written to Xwayland, a new buffer from it, every
 * taskbar told. A client toggling fullscreen as fast as the X server
 * takes it (red team, session 28: `smt-x11-wm-hostile state-loop`) had the
 * compositor block writing configures to Xwayland while Xwayland's
 * buffers for it piled up on the other side, until Xwayland gave up
 * ("can't send file descriptor") and every X client with it. Minimize
 * (WM_CHANGE_STATE, _NET_WM_STATE_HIDDEN) and activation
 * (_NET_ACTIVE_WINDOW) likewise: each moves the focus, and each focus
 * change writes the X focus, _NET_ACTIVE_WINDOW and a restack to Xwayland
 * and flushes; a client minimizing and activating its window in turn
 * (`iconify-loop`) had the compositor stand in that flush while Xwayland
 * served the client (another client's round trip p99 686 ms, 2.4 s of
 * CPU in 3 s). Paced per window as titles are: the first request at once,
 * the ones after it within the interval merged, and the window then takes
 * the state its client last asked for (an activation after a minimize
 * undoes it, a minimize after an activation wins). */
#define XVIEW_STATE_INTERVAL_NS 50000000u
enum {
	XVIEW_STATE_FULLSCREEN = 1,
	XVIEW_STATE_MAXIMIZE = 2,
	XVIEW_STATE_MINIMIZE = 4,
	XVIEW_STATE_ACTIVATE = 8,
	XVIEW_STATE_CONFIGURE = 16
};

static void xview_apply_configure(struct smtwc_xview *xv, struct wlr_box want);

/* _NET_ACTIVE_WINDOW: any X client sends it for any window, its own or
 * another client's (a program of the user's, sandboxed or not, or another
 * user let onto the display). Among X windows that is X's own rule (a client
 * can move the X input focus anyway); it must not take the keyboard from
 * a Wayland window, which no Wayland client can do to another without a
 * token (xdg-activation). So it is followed while an X window, or no
 * window, has the focus; while a Wayland window has it, the focus stays
 * (sway's default does not move it either). A new X window still takes
 * the focus when it maps, as every window does. */
static void xview_activate(struct smtwc_xview *xv)
{
	struct smtwc_view *focused = view_focused(xv->view.server);
	if (focused != NULL && focused->impl != &xview_impl) {
		activations_refused++;
		uint64_t left_out;
		if (log_limit_allow(&activation_refused_log, &left_out)) {
			wlr_log(WLR_INFO,
					"X window 0x%x (pid %d) asked for the focus a Wayland "
					"window has: left where it is (%llu refused in all, %llu "
					"not logged before)",
					(unsigned)xv->xsurface->window_id, (int)xv->xsurface->pid,
					(unsigned long long)activations_refused,
					(unsigned long long)left_out);
		}
		return;
	}
	view_focus(&xv->view);
}

static void xview_apply_state(struct smtwc_xview *xv)
{
	unsigned which = xv->state_pending;
	xv->state_pending = 0;
	xv->state_waiting = false;
	xv->state_applied_ns = monotonic_now_ns();
	struct wlr_xwayland_surface *xs = xv->xsurface;
	if (which & XVIEW_STATE_CONFIGURE) {
		/* Also before the window maps: it asks for its first size. */
		xview_apply_configure(xv, xv->configure_wanted);
	}
	if (!xv->view.mapped) {
		return;
	}
	if (which & XVIEW_STATE_FULLSCREEN) {
		view_set_fullscreen(&xv->view, xs->fullscreen);
	}
	if (which & XVIEW_STATE_MAXIMIZE) {
		view_set_maximized(&xv->view, xs->maximized_horz && xs->maximized_vert);
	}
	if (which & XVIEW_STATE_MINIMIZE) {
		view_set_minimized(&xv->view, xv->minimize_wanted);
	}
	if (which & XVIEW_STATE_ACTIVATE) {
		xview_activate(xv);
	}
}

static int xview_handle_state_timer(void *data)
{
	xview_apply_state(data);
	return 0;
}

static void xview_request_state(struct smtwc_xview *xv, unsigned which)
{
	xv->state_pending |= which;
	uint64_t now = monotonic_now_ns();
	if (xv->state_timer == NULL ||
			(!xv->state_waiting &&
					now - xv->state_applied_ns >= XVIEW_STATE_INTERVAL_NS)) {
		xview_apply_state(xv);
		return;
	}
	if (xv->state_waiting) {
		return; /* merged into the one the timer applies */
	}
	xv->state_waiting = true;
	uint64_t left = xv->state_applied_ns + XVIEW_STATE_INTERVAL_NS - now;
	wl_event_source_timer_update(xv->state_timer, (int)(left / 1000000u) + 1);
}

static void xview_handle_request_maximize(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_maximize);
	xview_request_state(xv, XVIEW_STATE_MAXIMIZE);
}

static void xview_handle_request_fullscreen(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_fullscreen);
	xview_request_state(xv, XVIEW_STATE_FULLSCREEN);
}

static void xview_apply_configure(struct smtwc_xview *xv, struct wlr_box want)
{
	struct smtwc_view *view = &xv->view;
	if (view->fullscreen || view->maximized) {
		/* The state decides the size; repeat it to the client. */
		struct wlr_box box = view_box(view);
		wlr_xwayland_surface_configure(xv->xsurface, (int16_t)view->x, (int16_t)view->y,
				(uint16_t)box.width, (uint16_t)box.height);
		return;
	}
	if (view->mapped) {
		/* Java frames ask for 0,0 after they map: their title bar went
		 * above the output, out of reach (session 40). At the map
		 * view_place does the same. */
		view_keep_frame_top_left(view, &want.x, &want.y);
	}
	view->x = want.x;
	view->y = want.y;
	if (view->mapped) {
		wlr_scene_node_set_position(&view->tree->node, view->x, view->y);
	}
	wlr_xwayland_surface_configure(xv->xsurface, (int16_t)want.x, (int16_t)want.y,
			(uint16_t)want.width, (uint16_t)want.height);
}

/* A client's ConfigureRequest (move, resize), paced per window with its
 * state requests (below): each configure resizes the window in Xwayland,
 * which makes a new buffer (a wl_shm pool, an fd) for it, and the
 * compositor writes it to Xwayland and flushes. A client moving and
 * resizing its window in a loop (red team, session 28: `configure-loop`)
 * had the compositor stand in that flush for up to 0.9 s a turn while
 * Xwayland's buffers piled up on the other side, until Xwayland gave up
 * ("can't send file descriptor"). The first request at once, the next
 * within the interval merged: the window then takes the geometry its
 * client last asked for. */
static void xview_handle_request_configure(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_configure);
	struct wlr_xwayland_surface_configure_event *event = data;
	struct wlr_box want = { event->x, event->y, event->width, event->height };
	if (xv->state_pending & XVIEW_STATE_CONFIGURE) {
		/* One is held: what this one does not ask keeps the held value
		 * (wlroots fills it in from the window's geometry, which does not
		 * have the held one yet: a size asked after a held move undid
		 * the move). */
		if (!(event->mask & XCB_CONFIG_WINDOW_X)) {
			want.x = xv->configure_wanted.x;
		}
		if (!(event->mask & XCB_CONFIG_WINDOW_Y)) {
			want.y = xv->configure_wanted.y;
		}
		if (!(event->mask & XCB_CONFIG_WINDOW_WIDTH)) {
			want.width = xv->configure_wanted.width;
		}
		if (!(event->mask & XCB_CONFIG_WINDOW_HEIGHT)) {
			want.height = xv->configure_wanted.height;
		}
	}
	xv->configure_wanted = want;
	xview_request_state(xv, XVIEW_STATE_CONFIGURE);
}

/* Where and how large its client last asked it to be, when the window
 * maps with that still held by the pacing above: applied before wlroots
 * maps it in X (the pacer's before_map), so it is viewable in X where it
 * asked, and again if held since when its surface maps, so its first
 * frame shows it there. Xt's shells (xterm -geometry +X+Y) create their
 * window at 0,0, ask for their size twice and then for their place, each
 * after the answer to the last, and map: the place came within the
 * interval and was held, so the window showed at 0,0 (clamped below its
 * title bar) and moved where it asked when the timer fired (session 34). */
static void xview_apply_held_configure(struct smtwc_xview *xv)
{
	if (xv->state_pending & XVIEW_STATE_CONFIGURE) {
		xv->state_pending &= ~(unsigned)XVIEW_STATE_CONFIGURE;
		xview_apply_configure(xv, xv->configure_wanted);
	}
}

static void xwayland_before_map(struct wlr_xwayland_surface *xs)
{
	if (!xs->override_redirect && xs->data != NULL) {
		xview_apply_held_configure(xview(xs->data));
	}
}

static void xview_handle_request_minimize(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_minimize);
	struct wlr_xwayland_minimize_event *event = data;
	xv->minimize_wanted = event->minimize;
	if (event->minimize) {
		xv->state_pending &= ~(unsigned)XVIEW_STATE_ACTIVATE; /* the last asked wins */
	}
	xview_request_state(xv, XVIEW_STATE_MINIMIZE);
}

static void xview_handle_request_activate(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, request_activate);
	if (!xv->view.mapped) {
		return;
	}
	if ((xv->state_pending & XVIEW_STATE_MINIMIZE) && xv->minimize_wanted) {
		/* Focusing it shows it again: the minimize asked before is undone. */
		xv->state_pending &= ~(unsigned)XVIEW_STATE_MINIMIZE;
	}
	xview_request_state(xv, XVIEW_STATE_ACTIVATE);
}

static void xview_handle_set_title(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, set_title);
	view_update_title(&xv->view);
}

static void xview_handle_set_parent(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, set_parent);
	foreign_toplevel_update(&xv->view);
}

/* _MOTIF_WM_HINTS: a window that asks for no decorations draws its own
 * (GTK's header bars); like sway, we then draw none, or it would have two
 * title bars. */
static bool xview_wants_frame(struct wlr_xwayland_surface *xs)
{
	return xs->decorations == WLR_XWAYLAND_SURFACE_DECORATIONS_ALL;
}

static void xview_handle_set_decorations(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, set_decorations);
	view_set_server_side_decoration(&xv->view, xview_wants_frame(xv->xsurface));
}

static void xview_destroy(struct smtwc_xview *xv)
{
	wl_list_remove(&xv->destroy.link);
	wl_list_remove(&xv->map.link);
	wl_list_remove(&xv->unmap.link);
	wl_list_remove(&xv->request_configure.link);
	wl_list_remove(&xv->request_move.link);
	wl_list_remove(&xv->request_resize.link);
	wl_list_remove(&xv->request_maximize.link);
	wl_list_remove(&xv->request_fullscreen.link);
	wl_list_remove(&xv->request_minimize.link);
	wl_list_remove(&xv->request_activate.link);
	wl_list_remove(&xv->set_override_redirect.link);
	wl_list_remove(&xv->set_title.link);
	wl_list_remove(&xv->set_parent.link);
	wl_list_remove(&xv->set_decorations.link);
	if (xv->state_timer != NULL) {
		wl_event_source_remove(xv->state_timer);
	}
	xv->xsurface->data = NULL;
	view_destroy(&xv->view);
	free(xv);
}

static void xview_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, destroy);
	xview_destroy(xv);
}

/* A window may turn into a menu (or back) while it exists. */
static void xview_handle_set_override_redirect(struct wl_listener *listener, void *data)
{
	struct smtwc_xview *xv = wl_container_of(listener, xv, set_override_redirect);
	struct wlr_xwayland_surface *xs = xv->xsurface;
	struct smtwc_server *server = xv->view.server;
	bool mapped = xs->mapped;
	if (mapped) {
		xview_handle_unmap(&xv->unmap, NULL);
	}
	xview_destroy(xv);
	xsurface_create_wrapper(server, xs);
	if (mapped && xs->data != NULL) {
		wl_signal_emit(&xs->events.map, xs);
	}
}

static void xview_create(struct smtwc_server *server, struct wlr_xwayland_surface *xs)
{
	struct smtwc_xview *xv = calloc(1, sizeof(*xv));
	if (xv == NULL) {
		return;
	}
	xv->xsurface = xs;
	view_init(&xv->view, server, &xview_impl);
	/* NULL (no memory): requests applied at once, unpaced. */
	xv->state_timer = wl_event_loop_add_timer(server->event_loop, xview_handle_state_timer, xv);
	xv->view.server_side_decoration = xview_wants_frame(xs);
	xs->data = &xv->view;
#define LISTEN(signal, field, handler) \
	xv->field.notify = handler;    \
	wl_signal_add(&xs->events.signal, &xv->field)
	LISTEN(destroy, destroy, xview_handle_destroy);
	LISTEN(map, map, xview_handle_map);
	LISTEN(unmap, unmap, xview_handle_unmap);
	LISTEN(request_configure, request_configure, xview_handle_request_configure);
	LISTEN(request_move, request_move, xview_handle_request_move);
	LISTEN(request_resize, request_resize, xview_handle_request_resize);
	LISTEN(request_maximize, request_maximize, xview_handle_request_maximize);
	LISTEN(request_fullscreen, request_fullscreen, xview_handle_request_fullscreen);
	LISTEN(request_minimize, request_minimize, xview_handle_request_minimize);
	LISTEN(request_activate, request_activate, xview_handle_request_activate);
	LISTEN(set_override_redirect, set_override_redirect, xview_handle_set_override_redirect);
	LISTEN(set_title, set_title, xview_handle_set_title);
	LISTEN(set_parent, set_parent, xview_handle_set_parent);
	LISTEN(set_decorations, set_decorations, xview_handle_set_decorations);
#undef LISTEN
}

/* ---- override-redirect windows --------------------------------------- */

static void unmanaged_handle_set_geometry(struct wl_listener *listener, void *data)
{
	struct smtwc_unmanaged *um = wl_container_of(listener, um, set_geometry);
	if (um->tree != NULL) {
		wlr_scene_node_set_position(&um->tree->node, um->xsurface->x, um->xsurface->y);
	}
}

static void unmanaged_handle_map(struct wl_listener *listener, void *data)
{
	struct smtwc_unmanaged *um = wl_container_of(listener, um, map);
	struct wlr_xwayland_surface *xs = um->xsurface;
	um->tree = wlr_scene_tree_create(&um->server->layers[SMTWC_LAYER_POPUPS]->node);
	um->tree->node.data = um;
	wlr_scene_subsurface_tree_create(&um->tree->node, xs->surface);
	wlr_scene_node_set_position(&um->tree->node, xs->x, xs->y);
	um->set_geometry.notify = unmanaged_handle_set_geometry;
	wl_signal_add(&xs->events.set_geometry, &um->set_geometry);
	/* Menus grab the keyboard through X; give them the Wayland focus too
	 * when ICCCM says they take input. */
	if (wlr_xwayland_or_surface_wants_focus(xs)) {
		struct wlr_keyboard *kb = wlr_seat_get_keyboard(um->server->seat);
		if (kb != NULL) {
			wlr_seat_keyboard_notify_enter(um->server->seat, xs->surface, kb->keycodes,
					kb->num_keycodes, &kb->modifiers);
		}
	}
}

static void unmanaged_handle_unmap(struct wl_listener *listener, void *data)
{
	struct smtwc_unmanaged *um = wl_container_of(listener, um, unmap);
	struct smtwc_server *server = um->server;
	wl_list_remove(&um->set_geometry.link);
	wlr_scene_node_destroy(&um->tree->node);
	um->tree = NULL;
	if (server->seat->keyboard_state.focused_surface == um->xsurface->surface) {
		/* Focus goes back to the window the menu came from. */
		struct smtwc_view *view;
		wl_list_for_each (view, &server->views, link) {
			if (view->mapped && !view->minimized) {
				wlr_seat_keyboard_notify_clear_focus(server->seat);
				view_focus(view);
				break;
			}
		}
	}
}

static void unmanaged_destroy(struct smtwc_unmanaged *um)
{
	if (um->tree != NULL) {
		unmanaged_handle_unmap(&um->unmap, NULL);
	}
	wl_list_remove(&um->destroy.link);
	wl_list_remove(&um->map.link);
	wl_list_remove(&um->unmap.link);
	wl_list_remove(&um->set_override_redirect.link);
	um->xsurface->data = NULL;
	free(um);
}

static void unmanaged_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_unmanaged *um = wl_container_of(listener, um, destroy);
	unmanaged_destroy(um);
}

static void unmanaged_handle_set_override_redirect(struct wl_listener *listener, void *data)
{
	struct smtwc_unmanaged *um = wl_container_of(listener, um, set_override_redirect);
	struct wlr_xwayland_surface *xs = um->xsurface;
	struct smtwc_server *server = um->server;
	bool mapped = xs->mapped;
	unmanaged_destroy(um);
	xsurface_create_wrapper(server, xs);
	if (mapped && xs->data != NULL) {
		wl_signal_emit(&xs->events.map, xs);
	}
}

static void unmanaged_create(struct smtwc_server *server, struct wlr_xwayland_surface *xs)
{
	struct smtwc_unmanaged *um = calloc(1, sizeof(*um));
	if (um == NULL) {
		return;
	}
	um->kind = SMTWC_NODE_UNMANAGED;
	um->server = server;
	um->xsurface = xs;
	xs->data = NULL;
	um->destroy.notify = unmanaged_handle_destroy;
	wl_signal_add(&xs->events.destroy, &um->destroy);
	um->map.notify = unmanaged_handle_map;
	wl_signal_add(&xs->events.map, &um->map);
	um->unmap.notify = unmanaged_handle_unmap;
	wl_signal_add(&xs->events.unmap, &um->unmap);
	um->set_override_redirect.notify = unmanaged_handle_set_override_redirect;
	wl_signal_add(&xs->events.set_override_redirect, &um->set_override_redirect);
}

/* ---- the server -------------------------------------------------------- */

static void xsurface_create_wrapper(
		struct smtwc_server *server, struct wlr_xwayland_surface *xsurface)
{
	if (xsurface->override_redirect) {
		unmanaged_create(server, xsurface);
	} else {
		xview_create(server, xsurface);
	}
}

static void xwayland_handle_new_surface(struct wl_listener *listener, void *data)
{
	struct smtwc_xwayland *xw = wl_container_of(listener, xw, new_surface);
	struct smtwc_server *server = xw->wlr->data;
	xsurface_create_wrapper(server, data);
}

static void xwayland_handle_ready(struct wl_listener *listener, void *data)
{
	struct smtwc_xwayland *xw = wl_container_of(listener, xw, ready);
	struct smtwc_server *server = xw->wlr->data;
	wm_selection_targets_forget_connection();
	wlr_xwayland_set_seat(xw->wlr, server->seat);
	struct wlr_xcursor *xcursor = wlr_xcursor_manager_get_xcursor(
			server->cursor_manager, "left_ptr", 1);
	if (xcursor != NULL) {
		struct wlr_xcursor_image *image = xcursor->images[0];
		wlr_xwayland_set_cursor(xw->wlr, image->buffer, image->width * 4, image->width,
				image->height, (int32_t)image->hotspot_x,
				(int32_t)image->hotspot_y);
	}
	wlr_log(WLR_INFO, "Xwayland is ready on DISPLAY=%s", xw->wlr->display_name);
}

/* Xwayland's smart scheduler settings ([xwayland] in the config), for
 * smt-xwayland to pass as -schedInterval and -schedMax: wlroots 0.15 starts
 * Xwayland with arguments of its own, so the environment is the only way
 * through. Only a server started through our launcher sees them. */
static void xwayland_export_sched(const struct smtwc_xwayland_config *cfg)
{
	char v[16];
	snprintf(v, sizeof(v), "%d", cfg->sched_interval_ms);
	setenv("SMT_XWAYLAND_SCHED_INTERVAL_MS", v, true);
	snprintf(v, sizeof(v), "%d", cfg->sched_max_ms);
	setenv("SMT_XWAYLAND_SCHED_MAX_MS", v, true);
	/* read by the ring's server half inside Xwayland (input_boost.c) */
	snprintf(v, sizeof(v), "%d", cfg->input_boost_us);
	setenv("SMT_XWAYLAND_INPUT_BOOST_US", v, true);
	snprintf(v, sizeof(v), "%d", cfg->light_boost_pct);
	setenv("SMT_XWAYLAND_LIGHT_BOOST_PCT", v, true);
	snprintf(v, sizeof(v), "%d", cfg->light_read_cap);
	setenv("SMT_XWAYLAND_LIGHT_READ_CAP", v, true);
}

/* Sets DISPLAY for everything the compositor launches afterwards. */
static bool xwayland_init(struct smtwc_server *server)
{
	struct smtwc_xwayland *xw = calloc(1, sizeof(*xw));
	if (xw == NULL) {
		return false;
	}
	/* Before Xwayland can be started: it is started through our launcher. */
	xw->ring = x11ring_session_create(wl_display_get_event_loop(server->display));
	if (xw->ring != NULL) {
		xwayland_export_sched(&server->config.xwayland);
	} else {
		wlr_log(WLR_ERROR,
				"Xwayland starts without our launcher: its scheduler keeps "
				"its own defaults, not [xwayland]'s");
	}
	/* Lazy: no X server runs until an X client connects to the socket. */
	xw->wlr = wlr_xwayland_create(server->display, server->compositor, true);
	if (xw->wlr == NULL) {
		wlr_log(WLR_ERROR, "Xwayland is unavailable; X applications will not run");
		x11ring_session_destroy(xw->ring);
		free(xw);
		return false;
	}
	xw->wlr->data = server;
	if (!wm_event_pacer_init(wl_display_get_event_loop(server->display), xw->wlr,
			    &server->loop_turns, xwayland_before_map)) {
		wlr_log(WLR_ERROR,
				"X window manager: no timer for its pacing; an X client "
				"flooding it can stall the compositor");
	}
	wm_paste_pipe_init(wl_display_get_event_loop(server->display), &server->config.limits,
			wm_event_pacer_wake);
	wm_selection_targets_init(xw->wlr);
	wm_window_budget_init(xw->wlr, &server->config.limits, wm_event_pacer_wake);
	wm_selection_budget_init(wl_display_get_event_loop(server->display), &server->config.limits,
			wm_event_pacer_wake);
	xw->ready.notify = xwayland_handle_ready;
	wl_signal_add(&xw->wlr->events.ready, &xw->ready);
	xw->new_surface.notify = xwayland_handle_new_surface;
	wl_signal_add(&xw->wlr->events.new_surface, &xw->new_surface);
	setenv("DISPLAY", xw->wlr->display_name, true);
	/* Java's AWT waits for a reparenting window manager's frame before it
	 * draws a window's contents, unless it knows the window manager does
	 * not reparent (a list of names, or this variable); wlroots' does not,
	 * and Swing windows stayed blank grey (docs/x11.md, "Java programs").
	 * A value the user set is kept. */
	setenv("_JAVA_AWT_WM_NONREPARENTING", "1", false);
	server->xwayland = xw;
	return true;
}

/* wlroots 0.15 frees its X window manager (and the xcb connection in it)
 * only when it sees Xwayland's end of that connection hang up;
 * wlr_xwayland_destroy while the connection is up loses both. So a running
 * Xwayland is ended first and the loop turned until the window manager has
 * gone, for a bounded while (a wrapper that does not exec Xwayland may
 * outlive the signal: then it leaks as before). */
static void xwayland_end_before_destroy(struct smtwc_server *server, struct wlr_xwayland *wlr)
{
	if (wlr->xwm == NULL || wlr->server == NULL || wlr->server->pid <= 0) {
		return;
	}
	kill(wlr->server->pid, SIGTERM);
	struct wl_event_loop *loop = wl_display_get_event_loop(server->display);
	for (int turns = 0; wlr->xwm != NULL && turns < 100; turns++) {
		wl_event_loop_dispatch(loop, 10);
	}
}

static void xwayland_finish(struct smtwc_server *server)
{
	struct smtwc_xwayland *xw = server->xwayland;
	if (xw == NULL) {
		return;
	}
	xwayland_end_before_destroy(server, xw->wlr);
	wl_list_remove(&xw->ready.link);
	wl_list_remove(&xw->new_surface.link);
	/* Their listeners too, before wlroots frees the signals. */
	wm_window_budget_finish();
	wm_surface_pairing_finish();
	wlr_xwayland_destroy(xw->wlr);
	wm_event_pacer_finish();
	wm_paste_pipe_finish();
	wm_selection_targets_finish();
	wm_selection_budget_finish();
	x11ring_session_destroy(xw->ring);
	free(xw);
	server->xwayland = NULL;
}

/* What X clients make the compositor hold (docs/reliability.md). */
static void xwayland_stats(struct smtwc_server *server, const struct smtwc_stats_out *out)
{
	(void)server;
	wm_event_pacer_stats(out);
	wm_window_budget_stats(out);
	wm_selection_budget_stats(out);
	wm_paste_pipe_stats(out);
}

const struct smtwc_extension smtwc_xwayland_extension = {
	.name = "Xwayland (X applications)",
	.init = xwayland_init,
	.finish = xwayland_finish,
	.stats = xwayland_stats,
};
