/*
 * smt-probe: one xdg toplevel (a solid colour) that uses the desktop
 * protocols a test asks for and prints, one line each, what the compositor
 * sends back, so that tests can check those protocols end to end where no
 * Debian program fits:
 *
 *   --title T --app-id A --size WxH --color RRGGBB
 *   --idle-inhibit            an idle inhibitor on the window
 *   --shortcuts-inhibit       keyboard shortcuts inhibitor (prints "shortcuts active|inactive")
 *   --lock-pointer            a persistent pointer lock ("locked", "unlocked")
 *   --confine-pointer X,Y,W,H a persistent confinement to that region ("confined", ...)
 *   --relative                relative motion ("relative DX DY", unaccelerated)
 *   --text-input              text-input-v3, enabled while focused ("commit TEXT", ...)
 *   --export                  xdg-foreign v2 export ("exported HANDLE")
 *   --import HANDLE           xdg-foreign v2: the window's parent is that window
 *   --gestures                pointer gestures ("swipe begin N", "swipe update DX DY",
 *                             "swipe end", "pinch begin N", "pinch update SCALE",
 *                             "pinch end")
 *   --ssd                     asks for server-side decoration (xdg-decoration)
 *   --title-flood SECONDS     once mapped, sets titles (each different: the
 *                             first 10 bytes are their number) as fast as the
 *                             socket takes them for SECONDS, then prints
 *                             "TITLES n SECONDS s" (s: from the first title
 *                             to the round trip after the last) and goes on
 *   --title-bytes N           their length (default 4000)
 *   --title-commit            a wl_surface.commit after each title
 *   --damage                  once mapped and shown, prints "DAMAGE_READY";
 *                             then per stdin line "KIND N": N commits of a
 *                             new buffer, each shown (its frame callback)
 *                             before the next, and "DAMAGED KIND N". KIND:
 *                             inside (the whole surface damaged), far (one
 *                             rectangle from -2^30 to 2^30 - 1 over it and
 *                             32 far outside in surface and in buffer
 *                             coordinates, 2^24 apart), outside (only
 *                             rectangles outside the surface, the last
 *                             commit 1x1 at 0,0 more: its frame is waited for)
 *   --tablet                  tablet-v2 ("tablet proximity in|out", "tablet down|up",
 *                             "tablet motion X Y", "tablet pressure P"; a pad's
 *                             "pad buttons N", "pad group buttons N", "pad added",
 *                             "pad enter|leave", "pad button B pressed|released",
 *                             "pad ring DEGREES", "pad strip POSITION")
 *
 * Always printed: "configure W H", "mapped", "keyboard enter|leave",
 * "key CODE pressed|released", "pointer enter X Y", "pointer leave",
 * "motion X Y", "button CODE pressed|released".
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <wayland-client.h>
#include "tests/tools/solid_buffer.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "pointer-gestures-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "tablet-unstable-v2-client-protocol.h"
#include "text-input-unstable-v3-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-foreign-unstable-v2-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct options {
	const char *title, *app_id, *import;
	int width, height;
	uint32_t color;
	bool idle_inhibit, shortcuts_inhibit, lock, relative, text_input, export;
	bool gestures, tablet;
	bool confine, ssd;
	double title_flood;
	int title_bytes;
	bool title_commit;
	bool damage;
	int confine_box[4];
};

struct probe {
	struct options opt;
	struct wl_display *display;
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct xdg_wm_base *wm_base;
	struct zwp_idle_inhibit_manager_v1 *idle_inhibit;
	struct zwp_keyboard_shortcuts_inhibit_manager_v1 *shortcuts;
	struct zwp_pointer_constraints_v1 *constraints;
	struct zwp_relative_pointer_manager_v1 *relative;
	struct zwp_text_input_manager_v3 *text_inputs;
	struct zxdg_exporter_v2 *exporter;
	struct zxdg_importer_v2 *importer;
	struct zwp_pointer_gestures_v1 *gestures;
	struct zwp_tablet_manager_v2 *tablets;
	struct zxdg_decoration_manager_v1 *decorations;

	struct wl_surface *surface;
	struct xdg_surface *xdg;
	struct xdg_toplevel *toplevel;
	struct wl_pointer *pointer;
	struct wl_keyboard *keyboard;
	struct zwp_text_input_v3 *text_input;
	int width, height;
	bool mapped, done;
	unsigned frames_shown;
};

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void die(const char *what)
{
	fprintf(stderr, "smt-probe: %s\n", what);
	exit(1);
}

/* --- pointer, keyboard, constraints, relative motion ------------------- */

static void pointer_enter(void *data, struct wl_pointer *pointer, uint32_t serial,
		struct wl_surface *surface, wl_fixed_t x, wl_fixed_t y)
{
	say("pointer enter %d %d", wl_fixed_to_int(x), wl_fixed_to_int(y));
}
static void pointer_leave(
		void *data, struct wl_pointer *pointer, uint32_t serial, struct wl_surface *surface)
{
	say("pointer leave");
}
static void pointer_motion(
		void *data, struct wl_pointer *pointer, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	say("motion %d %d", wl_fixed_to_int(x), wl_fixed_to_int(y));
}
static void pointer_button(void *data, struct wl_pointer *pointer, uint32_t serial, uint32_t time,
		uint32_t button, uint32_t state)
{
	say("button %u %s", button, state ? "pressed" : "released");
}
static void pointer_axis(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis,
		wl_fixed_t value)
{
}
static void pointer_frame(void *data, struct wl_pointer *pointer)
{
}
static void pointer_axis_source(void *data, struct wl_pointer *pointer, uint32_t source)
{
}
static void pointer_axis_stop(void *data, struct wl_pointer *pointer, uint32_t time, uint32_t axis)
{
}
static void pointer_axis_discrete(
		void *data, struct wl_pointer *pointer, uint32_t axis, int32_t discrete)
{
}
static const struct wl_pointer_listener pointer_listener = {
	.enter = pointer_enter,
	.leave = pointer_leave,
	.motion = pointer_motion,
	.button = pointer_button,
	.axis = pointer_axis,
	.frame = pointer_frame,
	.axis_source = pointer_axis_source,
	.axis_stop = pointer_axis_stop,
	.axis_discrete = pointer_axis_discrete,
};

static void relative_motion(void *data, struct zwp_relative_pointer_v1 *rel, uint32_t hi,
		uint32_t lo, wl_fixed_t dx, wl_fixed_t dy, wl_fixed_t dx_unaccel,
		wl_fixed_t dy_unaccel)
{
	say("relative %d %d", wl_fixed_to_int(dx_unaccel), wl_fixed_to_int(dy_unaccel));
}
static const struct zwp_relative_pointer_v1_listener relative_listener = { relative_motion };

static void locked(void *data, struct zwp_locked_pointer_v1 *lock)
{
	say("locked");
}
static void unlocked(void *data, struct zwp_locked_pointer_v1 *lock)
{
	say("unlocked");
}
static const struct zwp_locked_pointer_v1_listener locked_listener = { locked, unlocked };

static void confined(void *data, struct zwp_confined_pointer_v1 *confine)
{
	say("confined");
}
static void unconfined(void *data, struct zwp_confined_pointer_v1 *confine)
{
	say("unconfined");
}
static const struct zwp_confined_pointer_v1_listener confined_listener = {
	confined,
	unconfined,
};

static void keyboard_keymap(
		void *data, struct wl_keyboard *kb, uint32_t format, int32_t fd, uint32_t size)
{
	close(fd);
}
static void keyboard_enter(void *data, struct wl_keyboard *kb, uint32_t serial,
		struct wl_surface *surface, struct wl_array *keys)
{
	say("keyboard enter");
}
static void keyboard_leave(
		void *data, struct wl_keyboard *kb, uint32_t serial, struct wl_surface *surface)
{
	say("keyboard leave");
}
static void keyboard_key(void *data, struct wl_keyboard *kb, uint32_t serial, uint32_t time,
		uint32_t key, uint32_t state)
{
	say("key %u %s", key, state ? "pressed" : "released");
}
static void keyboard_modifiers(void *data, struct wl_keyboard *kb, uint32_t serial,
		uint32_t depressed, uint32_t latched, uint32_t locked_mods, uint32_t group)
{
}
static void keyboard_repeat_info(void *data, struct wl_keyboard *kb, int32_t rate, int32_t delay)
{
}
static const struct wl_keyboard_listener keyboard_listener = {
	keyboard_keymap,
	keyboard_enter,
	keyboard_leave,
	keyboard_key,
	keyboard_modifiers,
	keyboard_repeat_info,
};

static void shortcuts_active(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *i)
{
	say("shortcuts active");
}
static void shortcuts_inactive(void *data, struct zwp_keyboard_shortcuts_inhibitor_v1 *i)
{
	say("shortcuts inactive");
}
static const struct zwp_keyboard_shortcuts_inhibitor_v1_listener shortcuts_listener = {
	shortcuts_active,
	shortcuts_inactive,
};

/* --- gestures and tablets --------------------------------------------- */

static void swipe_begin(void *data, struct zwp_pointer_gesture_swipe_v1 *g, uint32_t serial,
		uint32_t time, struct wl_surface *surface, uint32_t fingers)
{
	say("swipe begin %u", fingers);
}
static void swipe_update(void *data, struct zwp_pointer_gesture_swipe_v1 *g, uint32_t time,
		wl_fixed_t dx, wl_fixed_t dy)
{
	say("swipe update %d %d", wl_fixed_to_int(dx), wl_fixed_to_int(dy));
}
static void swipe_end(void *data, struct zwp_pointer_gesture_swipe_v1 *g, uint32_t serial,
		uint32_t time, int32_t cancelled)
{
	say("swipe end%s", cancelled ? " cancelled" : "");
}
static const struct zwp_pointer_gesture_swipe_v1_listener swipe_listener = {
	swipe_begin,
	swipe_update,
	swipe_end,
};

static void pinch_begin(void *data, struct zwp_pointer_gesture_pinch_v1 *g, uint32_t serial,
		uint32_t time, struct wl_surface *surface, uint32_t fingers)
{
	say("pinch begin %u", fingers);
}
static void pinch_update(void *data, struct zwp_pointer_gesture_pinch_v1 *g, uint32_t time,
		wl_fixed_t dx, wl_fixed_t dy, wl_fixed_t scale, wl_fixed_t rotation)
{
	say("pinch update %.2f", wl_fixed_to_double(scale));
}
static void pinch_end(void *data, struct zwp_pointer_gesture_pinch_v1 *g, uint32_t serial,
		uint32_t time, int32_t cancelled)
{
	say("pinch end%s", cancelled ? " cancelled" : "");
}
static const struct zwp_pointer_gesture_pinch_v1_listener pinch_listener = {
	pinch_begin,
	pinch_update,
	pinch_end,
};

static void tool_type(void *d, struct zwp_tablet_tool_v2 *t, uint32_t type)
{
}
static void tool_serial(void *d, struct zwp_tablet_tool_v2 *t, uint32_t hi, uint32_t lo)
{
}
static void tool_wacom(void *d, struct zwp_tablet_tool_v2 *t, uint32_t hi, uint32_t lo)
{
}
static void tool_capability(void *d, struct zwp_tablet_tool_v2 *t, uint32_t capability)
{
}
static void tool_done(void *d, struct zwp_tablet_tool_v2 *t)
{
}
static void tool_removed(void *d, struct zwp_tablet_tool_v2 *t)
{
	zwp_tablet_tool_v2_destroy(t);
}
static void tool_proximity_in(void *d, struct zwp_tablet_tool_v2 *t, uint32_t serial,
		struct zwp_tablet_v2 *tablet, struct wl_surface *surface)
{
	say("tablet proximity in");
}
static void tool_proximity_out(void *d, struct zwp_tablet_tool_v2 *t)
{
	say("tablet proximity out");
}
static void tool_down(void *d, struct zwp_tablet_tool_v2 *t, uint32_t serial)
{
	say("tablet down");
}
static void tool_up(void *d, struct zwp_tablet_tool_v2 *t)
{
	say("tablet up");
}
static void tool_motion(void *d, struct zwp_tablet_tool_v2 *t, wl_fixed_t x, wl_fixed_t y)
{
	say("tablet motion %d %d", wl_fixed_to_int(x), wl_fixed_to_int(y));
}
static void tool_pressure(void *d, struct zwp_tablet_tool_v2 *t, uint32_t pressure)
{
	say("tablet pressure %u", pressure);
}
static void tool_distance(void *d, struct zwp_tablet_tool_v2 *t, uint32_t distance)
{
}
static void tool_tilt(void *d, struct zwp_tablet_tool_v2 *t, wl_fixed_t x, wl_fixed_t y)
{
}
static void tool_rotation(void *d, struct zwp_tablet_tool_v2 *t, wl_fixed_t degrees)
{
}
static void tool_slider(void *d, struct zwp_tablet_tool_v2 *t, int32_t position)
{
}
static void tool_wheel(void *d, struct zwp_tablet_tool_v2 *t, wl_fixed_t degrees, int32_t clicks)
{
}
static void tool_button(void *d, struct zwp_tablet_tool_v2 *t, uint32_t serial, uint32_t button,
		uint32_t state)
{
}
static void tool_frame(void *d, struct zwp_tablet_tool_v2 *t, uint32_t time)
{
}
static const struct zwp_tablet_tool_v2_listener tool_listener = {
	tool_type,
	tool_serial,
	tool_wacom,
	tool_capability,
	tool_done,
	tool_removed,
	tool_proximity_in,
	tool_proximity_out,
	tool_down,
	tool_up,
	tool_motion,
	tool_pressure,
	tool_distance,
	tool_tilt,
	tool_rotation,
	tool_slider,
	tool_wheel,
	tool_button,
	tool_frame,
};

static void tablet_added(void *d, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_v2 *t)
{
	say("tablet added");
}
static void tablet_tool_added(
		void *d, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_tool_v2 *tool)
{
	zwp_tablet_tool_v2_add_listener(tool, &tool_listener, d);
}
static void ring_source(void *d, struct zwp_tablet_pad_ring_v2 *r, uint32_t source)
{
}
static void ring_angle(void *d, struct zwp_tablet_pad_ring_v2 *r, wl_fixed_t degrees)
{
	say("pad ring %d", wl_fixed_to_int(degrees));
}
static void ring_stop(void *d, struct zwp_tablet_pad_ring_v2 *r)
{
}
static void ring_frame(void *d, struct zwp_tablet_pad_ring_v2 *r, uint32_t time)
{
}
static const struct zwp_tablet_pad_ring_v2_listener ring_listener = {
	ring_source,
	ring_angle,
	ring_stop,
	ring_frame,
};
static void strip_source(void *d, struct zwp_tablet_pad_strip_v2 *st, uint32_t source)
{
}
static void strip_position(void *d, struct zwp_tablet_pad_strip_v2 *st, uint32_t position)
{
	say("pad strip %u", position);
}
static void strip_stop(void *d, struct zwp_tablet_pad_strip_v2 *st)
{
}
static void strip_frame(void *d, struct zwp_tablet_pad_strip_v2 *st, uint32_t time)
{
}
static const struct zwp_tablet_pad_strip_v2_listener strip_listener = {
	strip_source,
	strip_position,
	strip_stop,
	strip_frame,
};
static void group_buttons(void *d, struct zwp_tablet_pad_group_v2 *g, struct wl_array *b)
{
	say("pad group buttons %zu", b->size / sizeof(uint32_t));
}
static void group_ring(
		void *d, struct zwp_tablet_pad_group_v2 *g, struct zwp_tablet_pad_ring_v2 *ring)
{
	zwp_tablet_pad_ring_v2_add_listener(ring, &ring_listener, d);
}
static void group_strip(
		void *d, struct zwp_tablet_pad_group_v2 *g, struct zwp_tablet_pad_strip_v2 *strip)
{
	zwp_tablet_pad_strip_v2_add_listener(strip, &strip_listener, d);
}
static void group_modes(void *d, struct zwp_tablet_pad_group_v2 *g, uint32_t modes)
{
}
static void group_done(void *d, struct zwp_tablet_pad_group_v2 *g)
{
}
static void group_mode_switch(void *d, struct zwp_tablet_pad_group_v2 *g, uint32_t time,
		uint32_t serial, uint32_t mode)
{
}
static const struct zwp_tablet_pad_group_v2_listener group_listener = {
	group_buttons,
	group_ring,
	group_strip,
	group_modes,
	group_done,
	group_mode_switch,
};
static void pad_group(void *d, struct zwp_tablet_pad_v2 *p, struct zwp_tablet_pad_group_v2 *g)
{
	zwp_tablet_pad_group_v2_add_listener(g, &group_listener, d);
}
static void pad_path(void *d, struct zwp_tablet_pad_v2 *p, const char *path)
{
}
static void pad_buttons(void *d, struct zwp_tablet_pad_v2 *p, uint32_t buttons)
{
	say("pad buttons %u", buttons);
}
static void pad_done(void *d, struct zwp_tablet_pad_v2 *p)
{
	say("pad added");
}
static void pad_button(void *d, struct zwp_tablet_pad_v2 *p, uint32_t time, uint32_t button,
		uint32_t state)
{
	say("pad button %u %s", button,
			state == ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED ? "pressed" : "released");
}
static void pad_enter(void *d, struct zwp_tablet_pad_v2 *p, uint32_t serial,
		struct zwp_tablet_v2 *tablet, struct wl_surface *surface)
{
	say("pad enter");
}
static void pad_leave(
		void *d, struct zwp_tablet_pad_v2 *p, uint32_t serial, struct wl_surface *surface)
{
	say("pad leave");
}
static void pad_removed(void *d, struct zwp_tablet_pad_v2 *p)
{
	zwp_tablet_pad_v2_destroy(p);
}
static const struct zwp_tablet_pad_v2_listener pad_listener = {
	pad_group,
	pad_path,
	pad_buttons,
	pad_done,
	pad_button,
	pad_enter,
	pad_leave,
	pad_removed,
};
static void tablet_pad_added(
		void *d, struct zwp_tablet_seat_v2 *seat, struct zwp_tablet_pad_v2 *pad)
{
	zwp_tablet_pad_v2_add_listener(pad, &pad_listener, d);
}
static const struct zwp_tablet_seat_v2_listener tablet_seat_listener = {
	tablet_added,
	tablet_tool_added,
	tablet_pad_added,
};

/* --- text input -------------------------------------------------------- */

static void ti_enter(void *data, struct zwp_text_input_v3 *ti, struct wl_surface *surface)
{
	say("text-input enter");
	zwp_text_input_v3_enable(ti);
	zwp_text_input_v3_set_content_type(ti, ZWP_TEXT_INPUT_V3_CONTENT_HINT_NONE,
			ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_NORMAL);
	zwp_text_input_v3_commit(ti);
}
static void ti_leave(void *data, struct zwp_text_input_v3 *ti, struct wl_surface *surface)
{
	say("text-input leave");
	zwp_text_input_v3_disable(ti);
	zwp_text_input_v3_commit(ti);
}
static void ti_preedit(void *data, struct zwp_text_input_v3 *ti, const char *text, int32_t begin,
		int32_t end)
{
	say("preedit %s", text != NULL ? text : "");
}
static void ti_commit(void *data, struct zwp_text_input_v3 *ti, const char *text)
{
	say("commit %s", text != NULL ? text : "");
}
static void ti_delete(void *data, struct zwp_text_input_v3 *ti, uint32_t before, uint32_t after)
{
	say("delete %u %u", before, after);
}
static void ti_done(void *data, struct zwp_text_input_v3 *ti, uint32_t serial)
{
}
static const struct zwp_text_input_v3_listener text_input_listener = {
	ti_enter,
	ti_leave,
	ti_preedit,
	ti_commit,
	ti_delete,
	ti_done,
};

/* --- seat -------------------------------------------------------------- */

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct probe *p = data;
	if ((caps & WL_SEAT_CAPABILITY_POINTER) && p->pointer == NULL) {
		p->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(p->pointer, &pointer_listener, p);
		if (p->opt.gestures) {
			zwp_pointer_gesture_swipe_v1_add_listener(
					zwp_pointer_gestures_v1_get_swipe_gesture(
							p->gestures, p->pointer),
					&swipe_listener, p);
			zwp_pointer_gesture_pinch_v1_add_listener(
					zwp_pointer_gestures_v1_get_pinch_gesture(
							p->gestures, p->pointer),
					&pinch_listener, p);
		}
		if (p->opt.relative) {
			struct zwp_relative_pointer_v1 *rel =
					zwp_relative_pointer_manager_v1_get_relative_pointer(
							p->relative, p->pointer);
			zwp_relative_pointer_v1_add_listener(rel, &relative_listener, p);
		}
		if (p->opt.lock) {
			struct zwp_locked_pointer_v1 *lock = zwp_pointer_constraints_v1_lock_pointer(
					p->constraints, p->surface, p->pointer, NULL,
					ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
			zwp_locked_pointer_v1_add_listener(lock, &locked_listener, p);
		}
		if (p->opt.confine) {
			struct wl_region *region = wl_compositor_create_region(p->compositor);
			wl_region_add(region, p->opt.confine_box[0], p->opt.confine_box[1],
					p->opt.confine_box[2], p->opt.confine_box[3]);
			struct zwp_confined_pointer_v1 *confine =
					zwp_pointer_constraints_v1_confine_pointer(p->constraints,
							p->surface, p->pointer, region,
							ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
			wl_region_destroy(region);
			zwp_confined_pointer_v1_add_listener(confine, &confined_listener, p);
		}
	}
	if ((caps & WL_SEAT_CAPABILITY_KEYBOARD) && p->keyboard == NULL) {
		p->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(p->keyboard, &keyboard_listener, p);
	}
}
static void seat_name(void *data, struct wl_seat *seat, const char *name)
{
}
static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

/* --- window ------------------------------------------------------------ */

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	struct probe *p = data;
	xdg_surface_ack_configure(xdg, serial);
	wl_surface_attach(p->surface,
			solid_buffer(p->shm, p->width, p->height, 0xff000000 | p->opt.color,
					"smt-probe"),
			0, 0);
	wl_surface_damage(p->surface, 0, 0, p->width, p->height);
	wl_surface_commit(p->surface);
	if (!p->mapped) {
		p->mapped = true;
		say("mapped");
	}
}
static const struct xdg_surface_listener xdg_listener = { xdg_configure };

static void toplevel_configure(
		void *data, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
	struct probe *p = data;
	if (w > 0 && h > 0) {
		p->width = w;
		p->height = h;
	}
	say("configure %d %d", p->width, p->height);
}
static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	((struct probe *)data)->done = true;
}
static void toplevel_bounds(void *d, struct xdg_toplevel *t, int32_t w, int32_t h)
{
}
static void toplevel_caps(void *d, struct xdg_toplevel *t, struct wl_array *caps)
{
}
static const struct xdg_toplevel_listener toplevel_listener = {
	toplevel_configure,
	toplevel_close,
	toplevel_bounds,
	toplevel_caps,
};

static void exported_handle(void *data, struct zxdg_exported_v2 *exported, const char *handle)
{
	say("exported %s", handle);
}
static const struct zxdg_exported_v2_listener exported_listener = { exported_handle };

static void imported_destroyed(void *data, struct zxdg_imported_v2 *imported)
{
	say("import destroyed");
}
static const struct zxdg_imported_v2_listener imported_listener = { imported_destroyed };

/* --- title flood -------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Titles of --title-bytes, each different, as fast as the compositor
 * reads them, a round trip every 64 (events are read there). */
static int title_flood(struct probe *p, double seconds)
{
	static char title[4001];
	int len = p->opt.title_bytes;
	long n = 0;
	double start = now_s();
	double end = start + seconds;
	while (now_s() < end) {
		title[len] = '\0';
		for (int i = 0; i < len; i++) {
			title[i] = (char)('a' + (i * 7 + n) % 26);
			if (i % 9 == 8) {
				title[i] = ' ';
			}
		}
		snprintf(title, 12, "%010ld", n % 10000000000L);
		title[10] = ' ';
		xdg_toplevel_set_title(p->toplevel, title);
		if (p->opt.title_commit) {
			wl_surface_commit(p->surface);
		}
		n++;
		while (wl_display_flush(p->display) < 0) {
			if (errno != EAGAIN) {
				fprintf(stderr, "smt-probe: title flood: connection lost\n");
				return 1;
			}
			struct pollfd pfd = { .fd = wl_display_get_fd(p->display),
				.events = POLLOUT };
			poll(&pfd, 1, 1000);
		}
		if (n % 64 == 0 && wl_display_roundtrip(p->display) < 0) {
			return 1;
		}
	}
	if (wl_display_roundtrip(p->display) < 0) {
		return 1;
	}
	say("TITLES %ld SECONDS %.3f", n, now_s() - start);
	return 0;
}

/* --- set-up ------------------------------------------------------------ */

#define BIND(iface, ver) \
	wl_registry_bind(registry, name, &iface##_interface, version < (ver) ? version : (ver))

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct probe *p = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		p->compositor = BIND(wl_compositor, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		p->shm = BIND(wl_shm, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 && p->seat == NULL) {
		p->seat = BIND(wl_seat, 5);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		p->wm_base = BIND(xdg_wm_base, 1);
	} else if (strcmp(interface, zwp_idle_inhibit_manager_v1_interface.name) == 0) {
		p->idle_inhibit = BIND(zwp_idle_inhibit_manager_v1, 1);
	} else if (strcmp(interface, zwp_keyboard_shortcuts_inhibit_manager_v1_interface.name) ==
			0) {
		p->shortcuts = BIND(zwp_keyboard_shortcuts_inhibit_manager_v1, 1);
	} else if (strcmp(interface, zwp_pointer_constraints_v1_interface.name) == 0) {
		p->constraints = BIND(zwp_pointer_constraints_v1, 1);
	} else if (strcmp(interface, zwp_relative_pointer_manager_v1_interface.name) == 0) {
		p->relative = BIND(zwp_relative_pointer_manager_v1, 1);
	} else if (strcmp(interface, zwp_text_input_manager_v3_interface.name) == 0) {
		p->text_inputs = BIND(zwp_text_input_manager_v3, 1);
	} else if (strcmp(interface, zxdg_exporter_v2_interface.name) == 0) {
		p->exporter = BIND(zxdg_exporter_v2, 1);
	} else if (strcmp(interface, zxdg_importer_v2_interface.name) == 0) {
		p->importer = BIND(zxdg_importer_v2, 1);
	} else if (strcmp(interface, zwp_pointer_gestures_v1_interface.name) == 0) {
		p->gestures = BIND(zwp_pointer_gestures_v1, 1);
	} else if (strcmp(interface, zwp_tablet_manager_v2_interface.name) == 0) {
		p->tablets = BIND(zwp_tablet_manager_v2, 1);
	} else if (strcmp(interface, zxdg_decoration_manager_v1_interface.name) == 0) {
		p->decorations = BIND(zxdg_decoration_manager_v1, 1);
	}
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n)
{
}
static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

/* --- damage far from the surface (--damage) --------------------------- */

static void damage_frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	((struct probe *)data)->frames_shown++;
	wl_callback_destroy(cb);
}
static const struct wl_callback_listener damage_frame_listener = { damage_frame_done };

/* Rectangles no part of which is on the surface, in both coordinate
 * spaces (and none of whose sums overflows). */
static void damage_outside(struct probe *p)
{
	for (int k = 1; k <= 32; k++) {
		wl_surface_damage(p->surface, k << 24, k << 24, 1, 1);
		wl_surface_damage_buffer(p->surface, -(k << 24), k << 24, 1, 1);
	}
	wl_surface_damage(p->surface, p->width, 0, 1 << 30, 1 << 30);
	wl_surface_damage_buffer(p->surface, -(1 << 30), -(1 << 30), (1 << 30) - 1, (1 << 30) - 1);
}

/* N commits of KIND's damage; inside and far ones each waited for until
 * shown, outside ones by a round trip (nothing of theirs is to be shown),
 * the last with a 1x1 damage on the surface that is shown. */
static bool damage_commits(struct probe *p, const char *kind, int n)
{
	bool inside = strcmp(kind, "inside") == 0, far = strcmp(kind, "far") == 0;
	if (!inside && !far && strcmp(kind, "outside") != 0) {
		return false;
	}
	for (int i = 0; i < n; i++) {
		bool shown = inside || far || i == n - 1;
		wl_surface_attach(p->surface,
				solid_buffer(p->shm, p->width, p->height,
						0xff000000 | (p->opt.color ^ (uint32_t)i),
						"smt-probe"),
				0, 0);
		if (inside) {
			wl_surface_damage(p->surface, 0, 0, p->width, p->height);
		} else {
			damage_outside(p);
		}
		if (far) {
			wl_surface_damage(p->surface, -(1 << 30), -(1 << 30), INT32_MAX, INT32_MAX);
		}
		if (!inside && !far && i == n - 1) {
			wl_surface_damage(p->surface, 0, 0, 1, 1);
		}
		unsigned target = p->frames_shown + 1;
		if (shown) {
			wl_callback_add_listener(
					wl_surface_frame(p->surface), &damage_frame_listener, p);
		}
		wl_surface_commit(p->surface);
		if (wl_display_roundtrip(p->display) < 0) {
			return false;
		}
		while (shown && p->frames_shown < target) {
			if (wl_display_dispatch(p->display) < 0) {
				return false;
			}
		}
	}
	return true;
}

static int damage_lines(struct probe *p)
{
	while (!p->mapped && wl_display_dispatch(p->display) != -1) {
	}
	/* shown twice: the map's and the activation's configures are behind */
	if (!damage_commits(p, "inside", 2)) {
		return 1;
	}
	say("DAMAGE_READY");
	char line[64], kind[16];
	int n;
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "%15s %d", kind, &n) != 2 || n < 1 || n > 1000 ||
				!damage_commits(p, kind, n)) {
			fprintf(stderr, "smt-probe: damage: bad line or connection lost: %s", line);
			return 1;
		}
		say("DAMAGED %s %d", kind, n);
	}
	return 0;
}

static void usage(void)
{
	fputs("usage: smt-probe [--title T] [--app-id A] [--size WxH] [--color RRGGBB]\n"
	      "  [--idle-inhibit] [--shortcuts-inhibit] [--lock-pointer]\n"
	      "  [--confine-pointer X,Y,W,H] [--relative] [--text-input] [--export]\n"
	      "  [--import HANDLE] [--gestures] [--tablet] [--ssd] [--title-flood SECONDS]\n"
	      "  [--title-bytes N] [--title-commit] [--damage]\n",
			stderr);
	exit(2);
}

static void parse_options(int argc, char *argv[], struct options *o)
{
	*o = (struct options){ .title = "smt-probe",
		.app_id = "smt-probe",
		.width = 320,
		.height = 240,
		.color = 0x3070c0,
		.title_bytes = 4000 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--title") == 0 && next) {
			o->title = argv[++i];
		} else if (strcmp(a, "--app-id") == 0 && next) {
			o->app_id = argv[++i];
		} else if (strcmp(a, "--size") == 0 && next) {
			if (sscanf(argv[++i], "%dx%d", &o->width, &o->height) != 2 ||
					o->width < 1 || o->height < 1 || o->width > 4096 ||
					o->height > 4096) {
				usage();
			}
		} else if (strcmp(a, "--color") == 0 && next) {
			o->color = (uint32_t)strtoul(argv[++i], NULL, 16) & 0xffffff;
		} else if (strcmp(a, "--idle-inhibit") == 0) {
			o->idle_inhibit = true;
		} else if (strcmp(a, "--shortcuts-inhibit") == 0) {
			o->shortcuts_inhibit = true;
		} else if (strcmp(a, "--lock-pointer") == 0) {
			o->lock = true;
		} else if (strcmp(a, "--confine-pointer") == 0 && next) {
			int *b = o->confine_box;
			if (sscanf(argv[++i], "%d,%d,%d,%d", &b[0], &b[1], &b[2], &b[3]) != 4) {
				usage();
			}
			o->confine = true;
		} else if (strcmp(a, "--relative") == 0) {
			o->relative = true;
		} else if (strcmp(a, "--text-input") == 0) {
			o->text_input = true;
		} else if (strcmp(a, "--export") == 0) {
			o->export = true;
		} else if (strcmp(a, "--import") == 0 && next) {
			o->import = argv[++i];
		} else if (strcmp(a, "--gestures") == 0) {
			o->gestures = true;
		} else if (strcmp(a, "--tablet") == 0) {
			o->tablet = true;
		} else if (strcmp(a, "--ssd") == 0) {
			o->ssd = true;
		} else if (strcmp(a, "--title-flood") == 0 && next) {
			o->title_flood = atof(argv[++i]);
		} else if (strcmp(a, "--damage") == 0) {
			o->damage = true;
		} else if (strcmp(a, "--title-commit") == 0) {
			o->title_commit = true;
		} else if (strcmp(a, "--title-bytes") == 0 && next) {
			o->title_bytes = atoi(argv[++i]);
			if (o->title_bytes < 12 || o->title_bytes > 4000) {
				usage();
			}
		} else {
			usage();
		}
	}
}

int main(int argc, char *argv[])
{
	struct probe p = { 0 };
	parse_options(argc, argv, &p.opt);
	p.width = p.opt.width;
	p.height = p.opt.height;
	p.display = wl_display_connect(NULL);
	if (p.display == NULL) {
		die("cannot connect to the Wayland display");
	}
	struct wl_registry *registry = wl_display_get_registry(p.display);
	wl_registry_add_listener(registry, &registry_listener, &p);
	wl_display_roundtrip(p.display);
	if (p.compositor == NULL || p.shm == NULL || p.wm_base == NULL || p.seat == NULL) {
		die("missing wl_compositor, wl_shm, wl_seat or xdg_wm_base");
	}
	if ((p.opt.idle_inhibit && p.idle_inhibit == NULL) ||
			(p.opt.shortcuts_inhibit && p.shortcuts == NULL) ||
			((p.opt.lock || p.opt.confine) && p.constraints == NULL) ||
			(p.opt.relative && p.relative == NULL) ||
			(p.opt.text_input && p.text_inputs == NULL) ||
			(p.opt.export && p.exporter == NULL) ||
			(p.opt.import != NULL && p.importer == NULL) ||
			(p.opt.gestures && p.gestures == NULL) ||
			(p.opt.tablet && p.tablets == NULL) ||
			(p.opt.ssd && p.decorations == NULL)) {
		die("the compositor does not offer a protocol asked for");
	}
	xdg_wm_base_add_listener(p.wm_base, &wm_base_listener, &p);
	p.surface = wl_compositor_create_surface(p.compositor);
	p.xdg = xdg_wm_base_get_xdg_surface(p.wm_base, p.surface);
	xdg_surface_add_listener(p.xdg, &xdg_listener, &p);
	p.toplevel = xdg_surface_get_toplevel(p.xdg);
	xdg_toplevel_add_listener(p.toplevel, &toplevel_listener, &p);
	xdg_toplevel_set_title(p.toplevel, p.opt.title);
	xdg_toplevel_set_app_id(p.toplevel, p.opt.app_id);

	if (p.opt.idle_inhibit) {
		zwp_idle_inhibit_manager_v1_create_inhibitor(p.idle_inhibit, p.surface);
	}
	if (p.opt.shortcuts_inhibit) {
		struct zwp_keyboard_shortcuts_inhibitor_v1 *inhibitor =
				zwp_keyboard_shortcuts_inhibit_manager_v1_inhibit_shortcuts(
						p.shortcuts, p.surface, p.seat);
		zwp_keyboard_shortcuts_inhibitor_v1_add_listener(
				inhibitor, &shortcuts_listener, &p);
	}
	if (p.opt.text_input) {
		p.text_input = zwp_text_input_manager_v3_get_text_input(p.text_inputs, p.seat);
		zwp_text_input_v3_add_listener(p.text_input, &text_input_listener, &p);
	}
	if (p.opt.export) {
		struct zxdg_exported_v2 *exported = zxdg_exporter_v2_export_toplevel(
				p.exporter, p.surface);
		zxdg_exported_v2_add_listener(exported, &exported_listener, &p);
	}
	if (p.opt.import != NULL) {
		struct zxdg_imported_v2 *imported = zxdg_importer_v2_import_toplevel(
				p.importer, p.opt.import);
		zxdg_imported_v2_add_listener(imported, &imported_listener, &p);
		zxdg_imported_v2_set_parent_of(imported, p.surface);
	}
	if (p.opt.tablet) {
		zwp_tablet_seat_v2_add_listener(
				zwp_tablet_manager_v2_get_tablet_seat(p.tablets, p.seat),
				&tablet_seat_listener, &p);
	}
	if (p.opt.ssd) {
		zxdg_toplevel_decoration_v1_set_mode(
				zxdg_decoration_manager_v1_get_toplevel_decoration(
						p.decorations, p.toplevel),
				ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	}
	wl_seat_add_listener(p.seat, &seat_listener, &p);
	wl_surface_commit(p.surface);
	if (p.opt.title_flood > 0) {
		while (!p.mapped && wl_display_dispatch(p.display) != -1) {
		}
		if (title_flood(&p, p.opt.title_flood) != 0) {
			return 1;
		}
	}
	if (p.opt.damage) {
		return damage_lines(&p);
	}
	while (!p.done && wl_display_dispatch(p.display) != -1) {
	}
	return 0;
}
