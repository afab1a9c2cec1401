/*
 * A constraint is active while its surface has both the keyboard and the
 * pointer, with the cursor inside its region, as in sway: a game locks the
 * pointer once the user has clicked into it, and Alt+Tab away releases it.
 * Unlocking puts the cursor where the client hinted it should appear.
 */
#include <math.h>
#include <stdlib.h>
#include <wlr/types/wlr_pointer_constraints_v1.h>
#include <wlr/types/wlr_relative_pointer_v1.h>
#include <wlr/util/region.h>
#include "compositor/input/pointer_constraints.h"

struct smtwc_constraint {
	struct smtwc_server *server;
	struct wlr_pointer_constraint_v1 *wlr_constraint;
	struct wl_listener set_region;
	struct wl_listener destroy;
};

/* Layout position of the surface the pointer is on (the cursor minus the
 * surface-local position last sent). */
static void pointer_surface_origin(struct smtwc_server *server, double *x, double *y)
{
	*x = server->cursor->x - server->seat->pointer_state.sx;
	*y = server->cursor->y - server->seat->pointer_state.sy;
}

static void set_active(struct smtwc_server *server, struct wlr_pointer_constraint_v1 *next)
{
	struct wlr_pointer_constraint_v1 *old = server->active_constraint;
	if (old == next) {
		return;
	}
	server->active_constraint = next;
	if (old != NULL) {
		if (old->type == WLR_POINTER_CONSTRAINT_V1_LOCKED &&
				(old->current.committed &
						WLR_POINTER_CONSTRAINT_V1_STATE_CURSOR_HINT) &&
				server->seat->pointer_state.focused_surface == old->surface) {
			double ox, oy;
			pointer_surface_origin(server, &ox, &oy);
			wlr_cursor_warp(server->cursor, NULL, ox + old->current.cursor_hint.x,
					oy + old->current.cursor_hint.y);
		}
		/* A oneshot constraint is destroyed by this. */
		wlr_pointer_constraint_v1_send_deactivated(old);
	}
	if (next != NULL) {
		wlr_pointer_constraint_v1_send_activated(next);
	}
}

static void recheck(struct smtwc_server *server)
{
	struct wlr_seat *seat = server->seat;
	struct wlr_surface *surface = seat->keyboard_state.focused_surface;
	struct wlr_pointer_constraint_v1 *next = NULL;
	if (surface != NULL && surface == seat->pointer_state.focused_surface) {
		next = wlr_pointer_constraints_v1_constraint_for_surface(
				server->pointer_constraints, surface, seat);
	}
	if (next != NULL && next != server->active_constraint &&
			!pixman_region32_contains_point(&next->region,
					(int)floor(seat->pointer_state.sx),
					(int)floor(seat->pointer_state.sy), NULL)) {
		next = NULL;
	}
	set_active(server, next);
}

static void constraint_handle_set_region(struct wl_listener *listener, void *data)
{
	struct smtwc_constraint *constraint = wl_container_of(listener, constraint, set_region);
	recheck(constraint->server);
}

static void constraint_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_constraint *constraint = wl_container_of(listener, constraint, destroy);
	struct smtwc_server *server = constraint->server;
	if (server->active_constraint == constraint->wlr_constraint) {
		server->active_constraint = NULL;
	}
	wl_list_remove(&constraint->set_region.link);
	wl_list_remove(&constraint->destroy.link);
	free(constraint);
}

static void handle_new_constraint(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, new_pointer_constraint);
	struct wlr_pointer_constraint_v1 *wlr_constraint = data;
	struct smtwc_constraint *constraint = calloc(1, sizeof(*constraint));
	if (constraint == NULL) {
		wl_resource_post_no_memory(wlr_constraint->resource);
		return;
	}
	constraint->server = server;
	constraint->wlr_constraint = wlr_constraint;
	constraint->set_region.notify = constraint_handle_set_region;
	wl_signal_add(&wlr_constraint->events.set_region, &constraint->set_region);
	constraint->destroy.notify = constraint_handle_destroy;
	wl_signal_add(&wlr_constraint->events.destroy, &constraint->destroy);
	recheck(server);
}

static void handle_focus_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(listener, server, constraint_focus_change);
	recheck(server);
}

static void handle_keyboard_focus_change(struct wl_listener *listener, void *data)
{
	struct smtwc_server *server = wl_container_of(
			listener, server, constraint_keyboard_focus_change);
	recheck(server);
}

void pointer_constraints_send_relative(struct smtwc_server *server,
		struct wlr_surface *focus_before, uint32_t time_msec, double dx, double dy,
		double unaccel_dx, double unaccel_dy)
{
	if (server->seat->pointer_state.focused_surface != focus_before) {
		return;
	}
	wlr_relative_pointer_manager_v1_send_relative_motion(server->relative_pointer, server->seat,
			(uint64_t)time_msec * 1000, dx, dy, unaccel_dx, unaccel_dy);
}

bool pointer_constraints_motion(struct smtwc_server *server, double *dx, double *dy)
{
	if (server->active_constraint == NULL) {
		/* The cursor may have moved into the region since focus came. */
		recheck(server);
	}
	struct wlr_pointer_constraint_v1 *constraint = server->active_constraint;
	if (constraint == NULL) {
		return false;
	}
	if (constraint->type == WLR_POINTER_CONSTRAINT_V1_LOCKED) {
		*dx = *dy = 0;
		return true;
	}
	double sx = server->seat->pointer_state.sx, sy = server->seat->pointer_state.sy;
	double nx, ny;
	if (wlr_region_confine(&constraint->region, sx, sy, sx + *dx, sy + *dy, &nx, &ny)) {
		*dx = nx - sx;
		*dy = ny - sy;
	}
	return true;
}

void pointer_constraints_init(struct smtwc_server *server)
{
	server->relative_pointer = wlr_relative_pointer_manager_v1_create(server->display);
	server->pointer_constraints = wlr_pointer_constraints_v1_create(server->display);
	server->new_pointer_constraint.notify = handle_new_constraint;
	wl_signal_add(&server->pointer_constraints->events.new_constraint,
			&server->new_pointer_constraint);
	server->constraint_focus_change.notify = handle_focus_change;
	wl_signal_add(&server->seat->pointer_state.events.focus_change,
			&server->constraint_focus_change);
	server->constraint_keyboard_focus_change.notify = handle_keyboard_focus_change;
	wl_signal_add(&server->seat->keyboard_state.events.focus_change,
			&server->constraint_keyboard_focus_change);
}

void pointer_constraints_finish(struct smtwc_server *server)
{
	wl_list_remove(&server->constraint_focus_change.link);
	wl_list_remove(&server->constraint_keyboard_focus_change.link);
}
