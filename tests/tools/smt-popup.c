/*
 * smt-popup: an xdg toplevel that opens one xdg_popup (a menu, as a toolkit
 * would) at an anchor rectangle it chooses, with flip/slide constraint
 * adjustment. Tests use it to check that popups appear where the client
 * asks and stay on the output. The window is grey, the popup is orange;
 * it prints "popup X Y W H" for every popup configure.
 *
 * --extreme (after the six numbers; session 38's red team): the window
 * says its geometry is 2^31 - 1 pixels square (at 5,5) and the menu's anchor and
 * offset are near 2^31: values any client may send, which the compositor's
 * sums (borders, a popup's place on the outputs) must survive.
 * --extreme-menu: only the menu's anchor and offset.
 * --far-menu (session 39): the menu's anchor rectangle is the window's last
 * pixel, 2^31 - 2 across and down (no sum of wlroots' wraps), so the menu's
 * place in the window is 2^31 - 1: added to the window's place on the
 * outputs in 32 bits it overflows for any window not at 0,0.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>
#include "tests/tools/solid_buffer.h"
#include "xdg-shell-client-protocol.h"

struct app {
	struct wl_compositor *compositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wl_surface *window, *menu;
	struct xdg_surface *window_xdg, *menu_xdg;
	struct xdg_toplevel *toplevel;
	int width, height, menu_w, menu_h, anchor_x, anchor_y;
	bool menu_opened, done, extreme, extreme_window, far_menu;
};

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void menu_configure(
		void *data, struct xdg_popup *popup, int32_t x, int32_t y, int32_t w, int32_t h)
{
	printf("popup %d %d %d %d\n", x, y, w, h);
	fflush(stdout);
}
static void menu_done(void *data, struct xdg_popup *popup)
{
	puts("popup done");
	fflush(stdout);
}
static void menu_repositioned(void *data, struct xdg_popup *popup, uint32_t token)
{
}
static const struct xdg_popup_listener menu_listener = {
	menu_configure,
	menu_done,
	menu_repositioned,
};

static void menu_xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg, serial);
	wl_surface_attach(app->menu,
			solid_buffer(app->shm, app->menu_w, app->menu_h, 0xffff8000, "smt-popup"),
			0, 0);
	wl_surface_commit(app->menu);
}
static const struct xdg_surface_listener menu_xdg_listener = { menu_xdg_configure };

static void open_menu(struct app *app)
{
	struct xdg_positioner *pos = xdg_wm_base_create_positioner(app->wm_base);
	xdg_positioner_set_size(pos, app->menu_w, app->menu_h);
	if (app->extreme) {
		xdg_positioner_set_anchor_rect(pos, 2147483000, 2147483000, 600, 600);
		xdg_positioner_set_offset(pos, 2147483000, 2147483000);
	} else if (app->far_menu) {
		xdg_positioner_set_anchor_rect(pos, INT32_MAX - 1, INT32_MAX - 1, 1, 1);
	} else {
		xdg_positioner_set_anchor_rect(pos, app->anchor_x, app->anchor_y, 1, 1);
	}
	xdg_positioner_set_anchor(pos, XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT);
	xdg_positioner_set_gravity(pos, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
	xdg_positioner_set_constraint_adjustment(pos,
			XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X |
					XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y |
					XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X |
					XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y);
	app->menu = wl_compositor_create_surface(app->compositor);
	app->menu_xdg = xdg_wm_base_get_xdg_surface(app->wm_base, app->menu);
	xdg_surface_add_listener(app->menu_xdg, &menu_xdg_listener, app);
	struct xdg_popup *popup = xdg_surface_get_popup(app->menu_xdg, app->window_xdg, pos);
	xdg_popup_add_listener(popup, &menu_listener, app);
	xdg_positioner_destroy(pos);
	wl_surface_commit(app->menu);
}

static void window_xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg, serial);
	if (app->extreme_window) {
		/* (at 5,5: wlroots 0.15 intersects it with the surface, and
		 * its own sum 5 + 2^31 - 1 wraps to a box of any size) */
		xdg_surface_set_window_geometry(xdg, 5, 5, INT32_MAX, INT32_MAX);
	}
	wl_surface_attach(app->window,
			solid_buffer(app->shm, app->width, app->height, 0xff808080, "smt-popup"), 0,
			0);
	wl_surface_commit(app->window);
	if (!app->menu_opened) {
		app->menu_opened = true;
		open_menu(app);
	}
}
static const struct xdg_surface_listener window_xdg_listener = { window_xdg_configure };

static void toplevel_configure(
		void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
}
static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	((struct app *)data)->done = true;
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

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct app *app = data;
	if (strcmp(interface, wl_compositor_interface.name) == 0) {
		app->compositor = wl_registry_bind(registry, name, &wl_compositor_interface, 4);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	}
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n)
{
}
static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

static int parse_int(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v < 1 || v > 10000) {
		fprintf(stderr, "smt-popup: bad number '%s'\n", s);
		exit(2);
	}
	return (int)v;
}

int main(int argc, char *argv[])
{
	bool extreme_window = argc == 8 && strcmp(argv[7], "--extreme") == 0;
	bool extreme = extreme_window || (argc == 8 && strcmp(argv[7], "--extreme-menu") == 0);
	bool far_menu = argc == 8 && strcmp(argv[7], "--far-menu") == 0;
	if (argc != 7 && !extreme && !far_menu) {
		fputs("usage: smt-popup WIN_W WIN_H ANCHOR_X ANCHOR_Y MENU_W MENU_H "
		      "[--extreme|--extreme-menu|--far-menu]\n",
				stderr);
		return 2;
	}
	struct app app = {
		.width = parse_int(argv[1]),
		.height = parse_int(argv[2]),
		.anchor_x = parse_int(argv[3]),
		.anchor_y = parse_int(argv[4]),
		.menu_w = parse_int(argv[5]),
		.menu_h = parse_int(argv[6]),
		.extreme = extreme,
		.extreme_window = extreme_window,
		.far_menu = far_menu,
	};
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fputs("smt-popup: cannot connect to the Wayland display\n", stderr);
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(display);
	if (app.compositor == NULL || app.shm == NULL || app.wm_base == NULL) {
		fputs("smt-popup: missing wl_compositor, wl_shm or xdg_wm_base\n", stderr);
		return 1;
	}
	xdg_wm_base_add_listener(app.wm_base, &wm_base_listener, &app);
	app.window = wl_compositor_create_surface(app.compositor);
	app.window_xdg = xdg_wm_base_get_xdg_surface(app.wm_base, app.window);
	xdg_surface_add_listener(app.window_xdg, &window_xdg_listener, &app);
	app.toplevel = xdg_surface_get_toplevel(app.window_xdg);
	xdg_toplevel_add_listener(app.toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(app.toplevel, "smt-popup");
	wl_surface_commit(app.window);
	while (!app.done && wl_display_dispatch(display) != -1) {
	}
	return 0;
}
