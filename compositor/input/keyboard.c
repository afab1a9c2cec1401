/*
 * Keyboards: the configured keymap and repeat rate, compositor key bindings
 * (matched before clients see the key), VT switching on a real session.
 */
#include <stdlib.h>
#include <wlr/backend/session.h>
#include <wlr/types/wlr_input_method_v2.h>
#include <wlr/types/wlr_keyboard.h>
#include <wlr/util/log.h>
#include <xkbcommon/xkbcommon.h>
#include "compositor/input/actions.h"
#include "compositor/input/idle.h"
#include "compositor/input/input_inhibit.h"
#include "compositor/input/keyboard.h"
#include "compositor/input/shortcuts_inhibit.h"
#include "compositor/input/text_input.h"

uint32_t keyboard_modifiers(struct smtwc_server *server)
{
	uint32_t mods = 0;
	struct smtwc_keyboard *kb;
	wl_list_for_each (kb, &server->keyboards, link) {
		mods |= wlr_keyboard_get_modifiers(kb->device->keyboard);
	}
	return mods;
}

uint32_t keyboards_with_keymap(struct smtwc_server *server)
{
	uint32_t n = 0;
	struct smtwc_keyboard *kb;
	wl_list_for_each (kb, &server->keyboards, link) {
		n += kb->device->keyboard->keymap != NULL;
	}
	return n;
}

static bool switch_vt(struct smtwc_server *server, xkb_keysym_t sym)
{
	if (sym < XKB_KEY_XF86Switch_VT_1 || sym > XKB_KEY_XF86Switch_VT_12) {
		return false;
	}
	if (server->session != NULL) {
		wlr_session_change_vt(server->session, sym - XKB_KEY_XF86Switch_VT_1 + 1);
	}
	return true;
}

/* Bindings match the keysym as translated by the current modifiers (so that
 * "Shift+q" arrives as Q) and, failing that, the raw level-one keysym. */
static bool handle_binding(struct smtwc_keyboard *kb, uint32_t keycode)
{
	struct smtwc_server *server = kb->server;
	struct wlr_keyboard *wlr_kb = kb->device->keyboard;
	uint32_t mods = wlr_keyboard_get_modifiers(wlr_kb);
	const xkb_keysym_t *syms;
	int nsyms = xkb_state_key_get_syms(wlr_kb->xkb_state, keycode, &syms);
	if (nsyms > 0 && wlr_log_get_verbosity() >= WLR_DEBUG) {
		char name[64];
		xkb_keysym_get_name(syms[0], name, sizeof(name));
		wlr_log(WLR_DEBUG, "key %s with modifiers 0x%x", name, mods);
	}
	/* A locker, or a client that asked for every key (a VM viewer), gets
	 * the compositor's combinations too; only VT switching stays ours. */
	bool bindings_off = input_inhibit_active(server) || shortcuts_inhibited(server);
	for (int i = 0; i < nsyms; i++) {
		if (switch_vt(server, syms[i])) {
			return true;
		}
		if (bindings_off) {
			continue;
		}
		const struct smtwc_binding *binding = smtwc_config_find_binding(
				&server->config, mods, syms[i]);
		if (binding != NULL) {
			action_run(server, binding);
			return true;
		}
	}
	if (bindings_off) {
		return false;
	}
	xkb_layout_index_t layout = xkb_state_key_get_layout(wlr_kb->xkb_state, keycode);
	nsyms = xkb_keymap_key_get_syms_by_level(wlr_kb->keymap, keycode, layout, 0, &syms);
	for (int i = 0; i < nsyms; i++) {
		const struct smtwc_binding *binding = smtwc_config_find_binding(
				&server->config, mods, syms[i]);
		if (binding != NULL) {
			action_run(server, binding);
			return true;
		}
	}
	return false;
}

/* Keys go only where a locker allows: a focus given before it took input,
 * or by a path that did not ask, is dropped here. */
static void keyboard_check_focus(struct smtwc_server *server)
{
	if (!input_inhibit_allows(server, server->seat->keyboard_state.focused_surface)) {
		wlr_seat_keyboard_notify_clear_focus(server->seat);
	}
}

static void keyboard_handle_modifiers(struct wl_listener *listener, void *data)
{
	struct smtwc_keyboard *kb = wl_container_of(listener, kb, modifiers);
	struct wlr_input_method_keyboard_grab_v2 *grab = text_input_keyboard_grab(
			kb->server, kb->device);
	if (grab != NULL) {
		wlr_input_method_keyboard_grab_v2_set_keyboard(grab, kb->device->keyboard);
		wlr_input_method_keyboard_grab_v2_send_modifiers(
				grab, &kb->device->keyboard->modifiers);
		return;
	}
	keyboard_check_focus(kb->server);
	/* One seat, several keyboards: the seat speaks for the last one used. */
	wlr_seat_set_keyboard(kb->server->seat, kb->device);
	wlr_seat_keyboard_notify_modifiers(kb->server->seat, &kb->device->keyboard->modifiers);
}

static void keyboard_handle_key(struct wl_listener *listener, void *data)
{
	struct smtwc_keyboard *kb = wl_container_of(listener, kb, key);
	struct smtwc_server *server = kb->server;
	struct wlr_event_keyboard_key *event = data;
	uint32_t keycode = event->keycode + 8; /* evdev to xkb */
	idle_notify_activity(server);
	if (event->state == WL_KEYBOARD_KEY_STATE_PRESSED && handle_binding(kb, keycode)) {
		return;
	}
	/* An input method composing text sees keys before the client. */
	struct wlr_input_method_keyboard_grab_v2 *grab = text_input_keyboard_grab(
			server, kb->device);
	if (grab != NULL) {
		wlr_input_method_keyboard_grab_v2_set_keyboard(grab, kb->device->keyboard);
		wlr_input_method_keyboard_grab_v2_send_key(
				grab, event->time_msec, event->keycode, event->state);
		return;
	}
	keyboard_check_focus(server);
	wlr_seat_set_keyboard(server->seat, kb->device);
	wlr_seat_keyboard_notify_key(server->seat, event->time_msec, event->keycode, event->state);
	struct wlr_seat_client *focused = server->seat->keyboard_state.focused_client;
	if (focused != NULL) {
		/* The seed's input boost: whoever gets the key answers it first. */
		wl_signal_emit(&server->events.client_input, focused->client);
	}
}

static void keyboard_handle_destroy(struct wl_listener *listener, void *data)
{
	struct smtwc_keyboard *kb = wl_container_of(listener, kb, destroy);
	wl_list_remove(&kb->modifiers.link);
	wl_list_remove(&kb->key.link);
	wl_list_remove(&kb->destroy.link);
	wl_list_remove(&kb->link);
	free(kb);
}

static bool keyboard_apply_config(struct smtwc_server *server, struct wlr_keyboard *keyboard)
{
	const struct smtwc_config *cfg = &server->config;
	struct xkb_rule_names rules = {
		.rules = cfg->keyboard.rules,
		.model = cfg->keyboard.model,
		.layout = cfg->keyboard.layout,
		.variant = cfg->keyboard.variant,
		.options = cfg->keyboard.options,
	};
	struct xkb_context *context = xkb_context_new(XKB_CONTEXT_NO_FLAGS);
	if (context == NULL) {
		return false;
	}
	struct xkb_keymap *keymap = xkb_keymap_new_from_names(
			context, &rules, XKB_KEYMAP_COMPILE_NO_FLAGS);
	if (keymap == NULL) {
		wlr_log(WLR_ERROR,
				"keyboard layout '%s' (variant '%s', options '%s') "
				"cannot be compiled; using the default layout",
				rules.layout ? rules.layout : "",
				rules.variant ? rules.variant : "",
				rules.options ? rules.options : "");
		keymap = xkb_keymap_new_from_names(context, NULL, XKB_KEYMAP_COMPILE_NO_FLAGS);
	}
	bool ok = keymap != NULL && wlr_keyboard_set_keymap(keyboard, keymap);
	xkb_keymap_unref(keymap);
	xkb_context_unref(context);
	wlr_keyboard_set_repeat_info(
			keyboard, cfg->keyboard.repeat_rate, cfg->keyboard.repeat_delay);
	return ok;
}

void keyboard_attach(
		struct smtwc_server *server, struct wlr_input_device *device, bool apply_keymap)
{
	struct smtwc_keyboard *kb = calloc(1, sizeof(*kb));
	if (kb == NULL) {
		return;
	}
	kb->server = server;
	kb->device = device;
	if (apply_keymap && !keyboard_apply_config(server, device->keyboard)) {
		wlr_log(WLR_ERROR, "keyboard %s: no usable keymap", device->name);
	}
	kb->modifiers.notify = keyboard_handle_modifiers;
	wl_signal_add(&device->keyboard->events.modifiers, &kb->modifiers);
	kb->key.notify = keyboard_handle_key;
	wl_signal_add(&device->keyboard->events.key, &kb->key);
	kb->destroy.notify = keyboard_handle_destroy;
	wl_signal_add(&device->events.destroy, &kb->destroy);
	wl_list_insert(&server->keyboards, &kb->link);
	/* A virtual keyboard has no keymap until its client sends one; making
	 * it the seat's keyboard now would send clients a keymap without an fd
	 * and break their connection. Its first key or modifier event does it. */
	if (device->keyboard->keymap != NULL) {
		wlr_seat_set_keyboard(server->seat, device);
	}
}
