/*
 * smt-x11-place: X windows that ask the window manager for a place, the
 * ways programs ask, and a watcher of where the X server puts top-level
 * windows (test x11_placement; docs/x11.md, "Where an X window is first
 * shown").
 *
 *   smt-x11-place HOW X Y WIDTH HEIGHT NAME
 *       maps a window named NAME (WM_NAME, and WM_CLASS instance and
 *       class) asking for X,Y WIDTHxHEIGHT by WM_NORMAL_HINTS (USPosition,
 *       USSize); HOW is
 *         create     created at X,Y with its size, the hints set, mapped
 *         configure  created at 0,0 1x1, the hints set, then what Xt's
 *                    shells do (xterm -geometry +X+Y): a ConfigureWindow
 *                    for half its size and one for its size, each waited
 *                    for (its ConfigureNotify), one for its place, mapped
 *         hints-late created at X,Y with its size, mapped, then the hints
 *                    set (ICCCM wants them before the map)
 *       prints "mapped WINDOW" (decimal) and waits to be killed.
 *   smt-x11-place watch
 *       selects SubstructureNotify on the root (any number of clients
 *       may), prints "watching" once the X server has it, then one line per
 *       event of a top-level window: "create|configure WINDOW X Y W H",
 *       "map WINDOW", "unmap WINDOW", "destroy WINDOW", until killed or the
 *       connection ends.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xcb/xcb.h>
#include <xcb/xcb_icccm.h>

static void usage(void)
{
	fprintf(stderr,
			"usage: smt-x11-place create|configure|hints-late X Y WIDTH HEIGHT NAME\n"
			"       smt-x11-place watch\n");
	exit(2);
}

static void set_position_hints(
		xcb_connection_t *c, xcb_window_t w, int x, int y, int width, int height)
{
	xcb_size_hints_t hints;
	memset(&hints, 0, sizeof(hints));
	xcb_icccm_size_hints_set_position(&hints, 1, x, y);
	xcb_icccm_size_hints_set_size(&hints, 1, width, height);
	xcb_icccm_set_wm_normal_hints(c, w, &hints);
}

static void set_names(xcb_connection_t *c, xcb_window_t w, const char *name)
{
	size_t n = strlen(name);
	xcb_icccm_set_wm_name(c, w, XCB_ATOM_STRING, 8, (uint32_t)n, name);
	char *class = malloc(2 * n + 2);
	if (class == NULL) {
		exit(1);
	}
	memcpy(class, name, n + 1);
	memcpy(class + n + 1, name, n + 1);
	xcb_icccm_set_wm_class(c, w, (uint32_t)(2 * n + 2), class);
	free(class);
}

/* Every request answered before what follows is printed. */
static void round_trip(xcb_connection_t *c)
{
	free(xcb_get_input_focus_reply(c, xcb_get_input_focus(c), NULL));
}

/* A size asked of the window manager, and its answer (Xt waits for it
 * before it asks for the next: XtMakeGeometryRequest). */
static void resize_and_wait(xcb_connection_t *c, xcb_window_t w, int width, int height)
{
	uint32_t size[] = { (uint32_t)width, (uint32_t)height };
	xcb_configure_window(c, w, XCB_CONFIG_WINDOW_WIDTH | XCB_CONFIG_WINDOW_HEIGHT, size);
	xcb_flush(c);
	xcb_generic_event_t *ev;
	while ((ev = xcb_wait_for_event(c)) != NULL) {
		const xcb_configure_notify_event_t *e = (const void *)ev;
		bool answered = (ev->response_type & 0x7f) == XCB_CONFIGURE_NOTIFY &&
				e->window == w && e->width == width && e->height == height;
		free(ev);
		if (answered) {
			return;
		}
	}
	fprintf(stderr, "smt-x11-place: X connection lost waiting for %dx%d\n", width, height);
	exit(1);
}

static int place(xcb_connection_t *c, xcb_screen_t *screen, const char *how, int x, int y,
		int width, int height, const char *name)
{
	bool configure = strcmp(how, "configure") == 0;
	bool hints_late = strcmp(how, "hints-late") == 0;
	if (!configure && !hints_late && strcmp(how, "create") != 0) {
		usage();
	}
	xcb_window_t w = xcb_generate_id(c);
	uint32_t values[] = { screen->white_pixel };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, w, screen->root, configure ? 0 : (int16_t)x,
			configure ? 0 : (int16_t)y, configure ? 1 : (uint16_t)width,
			configure ? 1 : (uint16_t)height, 0, XCB_WINDOW_CLASS_INPUT_OUTPUT,
			screen->root_visual, XCB_CW_BACK_PIXEL, values);
	set_names(c, w, name);
	if (!hints_late) {
		set_position_hints(c, w, x, y, width, height);
	}
	if (configure) {
		uint32_t mask[] = { XCB_EVENT_MASK_STRUCTURE_NOTIFY };
		xcb_change_window_attributes(c, w, XCB_CW_EVENT_MASK, mask);
		resize_and_wait(c, w, width / 2, height / 2);
		resize_and_wait(c, w, width, height);
		uint32_t at[] = { (uint32_t)x, (uint32_t)y };
		xcb_configure_window(c, w, XCB_CONFIG_WINDOW_X | XCB_CONFIG_WINDOW_Y, at);
	}
	xcb_map_window(c, w);
	if (hints_late) {
		set_position_hints(c, w, x, y, width, height);
	}
	round_trip(c);
	printf("mapped %u\n", (unsigned)w);
	fflush(stdout);
	xcb_generic_event_t *ev;
	while ((ev = xcb_wait_for_event(c)) != NULL) {
		free(ev);
	}
	return 0;
}

static void print_event(const xcb_generic_event_t *ev)
{
	switch (ev->response_type & 0x7f) {
	case XCB_CREATE_NOTIFY: {
		const xcb_create_notify_event_t *e = (const void *)ev;
		printf("create %u %d %d %u %u\n", (unsigned)e->window, e->x, e->y, e->width,
				e->height);
		break;
	}
	case XCB_CONFIGURE_NOTIFY: {
		const xcb_configure_notify_event_t *e = (const void *)ev;
		printf("configure %u %d %d %u %u\n", (unsigned)e->window, e->x, e->y, e->width,
				e->height);
		break;
	}
	case XCB_MAP_NOTIFY:
		printf("map %u\n", (unsigned)((const xcb_map_notify_event_t *)ev)->window);
		break;
	case XCB_UNMAP_NOTIFY:
		printf("unmap %u\n", (unsigned)((const xcb_unmap_notify_event_t *)ev)->window);
		break;
	case XCB_DESTROY_NOTIFY:
		printf("destroy %u\n", (unsigned)((const xcb_destroy_notify_event_t *)ev)->window);
		break;
	default:
		return;
	}
	fflush(stdout);
}

static int watch(xcb_connection_t *c, xcb_screen_t *screen)
{
	uint32_t mask[] = { XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY };
	xcb_change_window_attributes(c, screen->root, XCB_CW_EVENT_MASK, mask);
	round_trip(c);
	printf("watching\n");
	fflush(stdout);
	xcb_generic_event_t *ev;
	while ((ev = xcb_wait_for_event(c)) != NULL) {
		print_event(ev);
		free(ev);
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool watching = argc == 2 && strcmp(argv[1], "watch") == 0;
	if (!watching && argc != 7) {
		usage();
	}
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fprintf(stderr, "smt-x11-place: cannot connect to the X display\n");
		return 1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	int rc = watching ? watch(c, screen) :
			    place(c, screen, argv[1], atoi(argv[2]), atoi(argv[3]), atoi(argv[4]),
					    atoi(argv[5]), argv[6]);
	xcb_disconnect(c);
	return rc;
}
