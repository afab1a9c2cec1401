/*
 * smt-x11-present-depth: whether an X client can get a pixmap of a depth
 * whose rows Xwayland gives the compositor short (15 and 16: a wl_shm
 * buffer named XRGB8888 with 16-bit rows) attached to a window's surface.
 * Prints the depths the screen has visuals for ("visual-depths 24 32"),
 * then for each DEPTH argument creates a window of the root visual and a
 * pixmap of that depth, fills it and presents it (Present extension, the
 * one path by which Xwayland attaches a pixmap other than the window's
 * own): "DEPTH presented" or "DEPTH refused ERROR-CODE".
 */
#include <stdio.h>
#include <stdlib.h>
#include <xcb/present.h>
#include <xcb/xcb.h>

static void print_visual_depths(const xcb_screen_t *screen)
{
	printf("visual-depths");
	for (xcb_depth_iterator_t d = xcb_screen_allowed_depths_iterator(screen); d.rem;
			xcb_depth_next(&d)) {
		if (xcb_depth_visuals_length(d.data) > 0) {
			printf(" %d", d.data->depth);
		}
	}
	printf("\n");
}

static void present_depth(xcb_connection_t *c, xcb_screen_t *screen, int depth)
{
	xcb_window_t window = xcb_generate_id(c);
	uint32_t values[] = { screen->black_pixel };
	xcb_create_window(c, XCB_COPY_FROM_PARENT, window, screen->root, 0, 0, 200, 100, 0,
			XCB_WINDOW_CLASS_INPUT_OUTPUT, screen->root_visual, XCB_CW_BACK_PIXEL,
			values);
	xcb_map_window(c, window);
	xcb_pixmap_t pixmap = xcb_generate_id(c);
	xcb_generic_error_t *error = xcb_request_check(
			c, xcb_create_pixmap_checked(c, (uint8_t)depth, pixmap, window, 200, 100));
	if (error == NULL) {
		xcb_gcontext_t gc = xcb_generate_id(c);
		uint32_t fg[] = { 0x1f };
		xcb_create_gc(c, gc, pixmap, XCB_GC_FOREGROUND, fg);
		xcb_rectangle_t all = { 0, 0, 200, 100 };
		xcb_poly_fill_rectangle(c, pixmap, gc, 1, &all);
		error = xcb_request_check(c,
				xcb_present_pixmap_checked(c, window, pixmap, 1, 0, 0, 0, 0, 0, 0,
						0, 0, 0, 0, 0, 0, NULL));
	}
	if (error != NULL) {
		printf("%d refused %d\n", depth, error->error_code);
		free(error);
	} else {
		printf("%d presented\n", depth);
	}
	fflush(stdout);
}

int main(int argc, char *argv[])
{
	xcb_connection_t *c = xcb_connect(NULL, NULL);
	if (xcb_connection_has_error(c)) {
		fputs("smt-x11-present-depth: cannot connect to the X display\n", stderr);
		return 1;
	}
	xcb_screen_t *screen = xcb_setup_roots_iterator(xcb_get_setup(c)).data;
	const xcb_query_extension_reply_t *present = xcb_get_extension_data(c, &xcb_present_id);
	if (present == NULL || !present->present) {
		fputs("smt-x11-present-depth: no Present extension\n", stderr);
		return 1;
	}
	print_visual_depths(screen);
	for (int i = 1; i < argc; i++) {
		present_depth(c, screen, atoi(argv[i]));
	}
	xcb_disconnect(c);
	return 0;
}
