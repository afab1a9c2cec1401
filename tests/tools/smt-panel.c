/*
 * smt-panel: a minimal wlr-layer-shell client for tests and for trying the
 * layer shell by hand: a solid-colour bar anchored to an edge, optionally
 * reserving an exclusive zone and asking for keyboard focus. It prints
 * "configured WxH" when the compositor has sized it, and every key it
 * receives as "key CODE", so tests can see where focus went.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>
#include "tests/tools/solid_buffer.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"

struct panel {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct wl_seat *seat;
	struct zwlr_layer_shell_v1 *layer_shell;
	struct wl_surface *surface;
	struct zwlr_layer_surface_v1 *layer_surface;
	uint32_t color;
	bool closed;
};

static void usage(void)
{
	fputs("usage: smt-panel [--anchor top|bottom|left|right|fill] [--size N]\n"
	      "                 [--exclusive N] [--color RRGGBB]\n"
	      "                 [--layer background|bottom|top|overlay]\n"
	      "                 [--keyboard none|exclusive|on-demand]\n",
			stderr);
	exit(2);
}

static void draw(struct panel *p, uint32_t width, uint32_t height)
{
	struct wl_buffer *buffer = solid_buffer(
			p->shm, (int)width, (int)height, 0xff000000u | p->color, "smt-panel");
	wl_surface_attach(p->surface, buffer, 0, 0);
	wl_surface_damage(p->surface, 0, 0, (int32_t)width, (int32_t)height);
	wl_surface_commit(p->surface);
}

static void layer_configure(void *data, struct zwlr_layer_surface_v1 *ls, uint32_t serial,
		uint32_t width, uint32_t height)
{
	struct panel *p = data;
	zwlr_layer_surface_v1_ack_configure(ls, serial);
	draw(p, width ? width : 1, height ? height : 1);
	printf("configured %ux%u\n", width, height);
	fflush(stdout);
}

static void layer_closed(void *data, struct zwlr_layer_surface_v1 *ls)
{
	((struct panel *)data)->closed = true;
}

static const struct zwlr_layer_surface_v1_listener layer_listener = {
	.configure = layer_configure,
	.closed = layer_closed,
};

static void kb_keymap(void *d, struct wl_keyboard *k, uint32_t f, int32_t fd, uint32_t s)
{
	close(fd);
}
static void kb_enter(void *d, struct wl_keyboard *k, uint32_t s, struct wl_surface *sf,
		struct wl_array *keys)
{
	puts("keyboard enter");
	fflush(stdout);
}
static void kb_leave(void *d, struct wl_keyboard *k, uint32_t s, struct wl_surface *sf)
{
	puts("keyboard leave");
	fflush(stdout);
}
static void kb_key(void *d, struct wl_keyboard *k, uint32_t s, uint32_t t, uint32_t key,
		uint32_t state)
{
	if (state == WL_KEYBOARD_KEY_STATE_PRESSED) {
		printf("key %u\n", key);
		fflush(stdout);
	}
}
static void kb_modifiers(void *d, struct wl_keyboard *k, uint32_t s, uint32_t a, uint32_t b,
		uint32_t c, uint32_t g)
{
}
static void kb_repeat(void *d, struct wl_keyboard *k, int32_t r, int32_t del)
{
}
static const struct wl_keyboard_listener keyboard_listener = {
	kb_keymap,
	kb_enter,
	kb_leave,
	kb_key,
	kb_modifiers,
	kb_repeat,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct panel *p = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		p->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		p->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, wl_seat_interface.name) == 0 && p->seat == NULL) {
		p->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface, zwlr_layer_shell_v1_interface.name) == 0) {
		p->layer_shell = wl_registry_bind(registry, name, &zwlr_layer_shell_v1_interface,
				version < 4 ? version : 4);
	}
}

static void registry_global_remove(void *data, struct wl_registry *r, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

static uint32_t parse_enum(
		const char *value, const char *const names[], const uint32_t values[], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(value, names[i]) == 0) {
			return values[i];
		}
	}
	usage();
	return 0;
}

int main(int argc, char *argv[])
{
	struct panel p = { .color = 0xc03030 };
	static const char *const anchors[] = { "top", "bottom", "left", "right", "fill" };
	static const uint32_t anchor_bits[] = {
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT | ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT | ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM,
		ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
				ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
	};
	static const char *const layers[] = { "background", "bottom", "top", "overlay" };
	static const uint32_t layer_values[] = { 0, 1, 2, 3 };
	static const char *const keyboards[] = { "none", "exclusive", "on-demand" };
	static const uint32_t keyboard_values[] = { 0, 1, 2 };
	uint32_t anchor = anchor_bits[0], layer = 2, keyboard = 0;
	long size = 30, exclusive = 0;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc) {
			usage();
		}
		const char *opt = argv[i], *val = argv[++i];
		char *end = NULL;
		if (strcmp(opt, "--anchor") == 0) {
			anchor = parse_enum(val, anchors, anchor_bits, 5);
		} else if (strcmp(opt, "--layer") == 0) {
			layer = parse_enum(val, layers, layer_values, 4);
		} else if (strcmp(opt, "--keyboard") == 0) {
			keyboard = parse_enum(val, keyboards, keyboard_values, 3);
		} else if (strcmp(opt, "--size") == 0) {
			size = strtol(val, &end, 10);
		} else if (strcmp(opt, "--exclusive") == 0) {
			exclusive = strtol(val, &end, 10);
		} else if (strcmp(opt, "--color") == 0) {
			p.color = (uint32_t)strtoul(val, &end, 16) & 0xffffff;
		} else {
			usage();
		}
		if (end != NULL && (*end != '\0' || end == val)) {
			usage();
		}
	}
	if (size < 0 || size > 10000 || exclusive < -1 || exclusive > 10000) {
		usage();
	}
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fputs("smt-panel: cannot connect to the Wayland display\n", stderr);
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &p);
	wl_display_roundtrip(display);
	if (p.compositor == NULL || p.shm == NULL || p.layer_shell == NULL) {
		fputs("smt-panel: the compositor lacks wl_compositor, wl_shm or layer-shell\n",
				stderr);
		return 1;
	}
	if (p.seat != NULL) {
		wl_keyboard_add_listener(wl_seat_get_keyboard(p.seat), &keyboard_listener, &p);
	}
	p.surface = wl_compositor_create_surface(p.compositor);
	p.layer_surface = zwlr_layer_shell_v1_get_layer_surface(
			p.layer_shell, p.surface, NULL, layer, "smt-panel");
	bool horizontal = anchor == anchor_bits[0] || anchor == anchor_bits[1];
	bool fill = anchor == anchor_bits[4];
	zwlr_layer_surface_v1_set_size(p.layer_surface, fill || horizontal ? 0 : (uint32_t)size,
			fill || !horizontal ? 0 : (uint32_t)size);
	zwlr_layer_surface_v1_set_anchor(p.layer_surface, anchor);
	zwlr_layer_surface_v1_set_exclusive_zone(p.layer_surface, (int32_t)exclusive);
	zwlr_layer_surface_v1_set_keyboard_interactivity(p.layer_surface, keyboard);
	zwlr_layer_surface_v1_add_listener(p.layer_surface, &layer_listener, &p);
	wl_surface_commit(p.surface);
	while (!p.closed && wl_display_dispatch(display) != -1) {
	}
	return 0;
}
