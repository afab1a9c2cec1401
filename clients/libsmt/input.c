/* libsmt: wl_seat input forwarded to struct smt_input_listener. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xkbcommon/xkbcommon.h>

#include "clients/libsmt/smt-internal.h"

#define CALL(ctx, fn, ...)                                                          \
	do {                                                                        \
		if ((ctx)->opts.input && (ctx)->opts.input->fn)                     \
			(ctx)->opts.input->fn((ctx)->opts.input_data, __VA_ARGS__); \
	} while (0)

/* ---- pointer -------------------------------------------------------------- */

static void p_enter(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s,
		wl_fixed_t x, wl_fixed_t y)
{
	struct smt_ctx *ctx = data;
	ctx->pointer_focus = s ? smt__window_from_surface(ctx, s) : NULL;
	if (ctx->pointer_focus)
		CALL(ctx, pointer_enter, ctx->pointer_focus, wl_fixed_to_double(x),
				wl_fixed_to_double(y));
}

static void p_leave(void *data, struct wl_pointer *p, uint32_t serial, struct wl_surface *s)
{
	struct smt_ctx *ctx = data;
	if (ctx->pointer_focus)
		CALL(ctx, pointer_leave, ctx->pointer_focus);
	ctx->pointer_focus = NULL;
}

static void p_motion(void *data, struct wl_pointer *p, uint32_t time, wl_fixed_t x, wl_fixed_t y)
{
	struct smt_ctx *ctx = data;
	if (ctx->pointer_focus)
		CALL(ctx, pointer_motion, ctx->pointer_focus, time, wl_fixed_to_double(x),
				wl_fixed_to_double(y));
}

static void p_button(void *data, struct wl_pointer *p, uint32_t serial, uint32_t time,
		uint32_t button, uint32_t state)
{
	struct smt_ctx *ctx = data;
	if (ctx->pointer_focus)
		CALL(ctx, pointer_button, ctx->pointer_focus, time, button,
				state == WL_POINTER_BUTTON_STATE_PRESSED);
}

static void p_axis(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis, wl_fixed_t v)
{
	struct smt_ctx *ctx = data;
	if (ctx->pointer_focus)
		CALL(ctx, pointer_axis, ctx->pointer_focus, time, axis, wl_fixed_to_double(v));
}

static void p_frame(void *data, struct wl_pointer *p)
{
}
static void p_axis_source(void *data, struct wl_pointer *p, uint32_t source)
{
}
static void p_axis_stop(void *data, struct wl_pointer *p, uint32_t time, uint32_t axis)
{
}
static void p_axis_discrete(void *data, struct wl_pointer *p, uint32_t axis, int32_t discrete)
{
}

static const struct wl_pointer_listener pointer_listener = {
	.enter = p_enter,
	.leave = p_leave,
	.motion = p_motion,
	.button = p_button,
	.axis = p_axis,
	.frame = p_frame,
	.axis_source = p_axis_source,
	.axis_stop = p_axis_stop,
	.axis_discrete = p_axis_discrete,
};

/* ---- keyboard ------------------------------------------------------------- */

static void k_keymap(void *data, struct wl_keyboard *k, uint32_t format, int32_t fd, uint32_t size)
{
	struct smt_ctx *ctx = data;
	char *map = MAP_FAILED;
	if (format == WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1 && ctx->xkb)
		map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return; /* keys still arrive, without keysyms */
	/* the string is NUL-terminated within size (wl_keyboard says so) */
	struct xkb_keymap *km = xkb_keymap_new_from_buffer(ctx->xkb, map, strnlen(map, size),
			XKB_KEYMAP_FORMAT_TEXT_V1, XKB_KEYMAP_COMPILE_NO_FLAGS);
	munmap(map, size);
	if (!km)
		return;
	xkb_state_unref(ctx->xkb_state);
	xkb_keymap_unref(ctx->keymap);
	ctx->keymap = km;
	ctx->xkb_state = xkb_state_new(km);
}

static void k_enter(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s,
		struct wl_array *keys)
{
	struct smt_ctx *ctx = data;
	ctx->keyboard_focus = s ? smt__window_from_surface(ctx, s) : NULL;
	if (ctx->keyboard_focus)
		CALL(ctx, keyboard_focus, ctx->keyboard_focus, true);
}

static void k_leave(void *data, struct wl_keyboard *k, uint32_t serial, struct wl_surface *s)
{
	struct smt_ctx *ctx = data;
	if (ctx->keyboard_focus)
		CALL(ctx, keyboard_focus, ctx->keyboard_focus, false);
	ctx->keyboard_focus = NULL;
}

static void k_key(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t time, uint32_t key,
		uint32_t state)
{
	struct smt_ctx *ctx = data;
	char utf8[16] = "";
	uint32_t sym = 0;
	if (!ctx->keyboard_focus)
		return;
	if (ctx->xkb_state) {
		/* xkb keycodes are evdev codes + 8 */
		sym = xkb_state_key_get_one_sym(ctx->xkb_state, key + 8);
		xkb_state_key_get_utf8(ctx->xkb_state, key + 8, utf8, sizeof(utf8));
	}
	CALL(ctx, key, ctx->keyboard_focus, time, key, sym, utf8,
			state == WL_KEYBOARD_KEY_STATE_PRESSED);
}

static void k_modifiers(void *data, struct wl_keyboard *k, uint32_t serial, uint32_t dep,
		uint32_t lat, uint32_t lock, uint32_t group)
{
	struct smt_ctx *ctx = data;
	if (ctx->xkb_state)
		xkb_state_update_mask(ctx->xkb_state, dep, lat, lock, 0, 0, group);
}

static void k_repeat(void *data, struct wl_keyboard *k, int32_t rate, int32_t delay)
{
}

static const struct wl_keyboard_listener keyboard_listener = {
	.keymap = k_keymap,
	.enter = k_enter,
	.leave = k_leave,
	.key = k_key,
	.modifiers = k_modifiers,
	.repeat_info = k_repeat,
};

/* ---- seat ----------------------------------------------------------------- */

static void seat_caps(void *data, struct wl_seat *seat, uint32_t caps)
{
	struct smt_ctx *ctx = data;
	bool want_ptr = caps & WL_SEAT_CAPABILITY_POINTER;
	bool want_kbd = caps & WL_SEAT_CAPABILITY_KEYBOARD;
	if (want_ptr && !ctx->pointer) {
		ctx->pointer = wl_seat_get_pointer(seat);
		wl_pointer_add_listener(ctx->pointer, &pointer_listener, ctx);
	} else if (!want_ptr && ctx->pointer) {
		wl_pointer_destroy(ctx->pointer);
		ctx->pointer = NULL;
		ctx->pointer_focus = NULL;
	}
	if (want_kbd && !ctx->keyboard) {
		ctx->keyboard = wl_seat_get_keyboard(seat);
		wl_keyboard_add_listener(ctx->keyboard, &keyboard_listener, ctx);
	} else if (!want_kbd && ctx->keyboard) {
		wl_keyboard_destroy(ctx->keyboard);
		ctx->keyboard = NULL;
		ctx->keyboard_focus = NULL;
	}
}

static void seat_name(void *data, struct wl_seat *seat, const char *name)
{
}

static const struct wl_seat_listener seat_listener = { seat_caps, seat_name };

void smt__input_seat_bind(struct smt_ctx *ctx, uint32_t name, uint32_t version)
{
	/* v5: pointer frames and axis details; nothing newer is needed */
	ctx->seat = wl_registry_bind(
			ctx->registry, name, &wl_seat_interface, version < 5 ? version : 5);
	wl_seat_add_listener(ctx->seat, &seat_listener, ctx);
	ctx->xkb = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
}

void smt__input_fini(struct smt_ctx *ctx)
{
	/* wl_pointer/wl_keyboard.release appeared in v3, wl_seat.release in v5 */
	bool v3 = ctx->seat && wl_seat_get_version(ctx->seat) >= 3;
	if (ctx->pointer)
		v3 ? wl_pointer_release(ctx->pointer) : wl_pointer_destroy(ctx->pointer);
	if (ctx->keyboard)
		v3 ? wl_keyboard_release(ctx->keyboard) : wl_keyboard_destroy(ctx->keyboard);
	if (ctx->seat)
		wl_seat_get_version(ctx->seat) >= 5 ? wl_seat_release(ctx->seat) :
						      wl_seat_destroy(ctx->seat);
	xkb_state_unref(ctx->xkb_state);
	xkb_keymap_unref(ctx->keymap);
	xkb_context_unref(ctx->xkb);
}
