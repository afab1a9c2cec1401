/*
 * hold-objects KIND N: N Wayland objects of one kind, made in bursts with
 * a round trip after each and held until killed, so that a test can set
 * what the compositor's heap grew (smtctl stats heap_in_use) beside what
 * the client's account says (smtctl accounts): every object a client
 * makes is to be charged what it costs (compositor/ring/object_usage.h).
 * Prints "HOLDING N KIND", or ends with the refusal (wl_display's
 * implementation error naming a limit: exit 0).
 *
 * KIND: subsurface (a surface and its wl_subsurface under one parent),
 * toplevel (a surface, its xdg_surface and xdg_toplevel with a server-side
 * decoration asked, committed once: a window not yet mapped), mapped (the same with a 1x1 wl_shm buffer:
 * a window shown, with its scene nodes), wide (the same 16384x1: its title
 * bar as wide), positioner (xdg_positioner),
 * viewport (a surface and its wp_viewport), data-device (a wl_data_device
 * of the seat), frame (a surface with a frame callback, never committed),
 * buffer (a 1x1 wl_buffer of one shared pool),
 * text-input (a zwp_text_input_v3 of the seat with a surrounding text of
 * LONG_TEXT bytes committed and another such text pending), named (a
 * toplevel not mapped whose title and app id are LONG_TEXT bytes each),
 * input-method (a zwp_input_method_v2 of the seat with a commit string
 * and a preedit string of LONG_TEXT bytes committed, and two more
 * pending), im-commits (one input method committing both strings N
 * times: what it holds must not grow),
 * kept-buffer (a 1x1
 * wl_buffer of its own one-page pool, the pool object destroyed at once),
 * pool (an smt_pool_v1 of one page on one ring), globals (every global
 * of the table below bound once more: N binds of each).
 */
#include "tests/tools/hostile/hostile.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "input-method-unstable-v2-client-protocol.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "pointer-gestures-unstable-v1-client-protocol.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "tablet-unstable-v2-client-protocol.h"
#include "text-input-unstable-v3-client-protocol.h"
#include "wlr-data-control-unstable-v1-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-foreign-unstable-v2-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

static struct {
	struct wl_subcompositor *subcompositor;
	struct xdg_wm_base *wm;
	struct zxdg_decoration_manager_v1 *decoration;
	struct wp_viewporter *viewporter;
	struct wl_data_device_manager *data;
	struct wl_shm *shm;
	struct wl_output *output;
	struct wp_presentation *presentation;
	struct wl_compositor *compositor;
	struct wl_seat *seat;
	struct smt_ring_manager_v1 *manager;
	void *others[14]; /* globals no kind stands on */
	struct wl_shm_pool *pool;
	struct zwp_text_input_manager_v3 *text_input;
	struct zwp_input_method_manager_v2 *input_method;
	struct zwlr_layer_shell_v1 *layer_shell;
	struct xdg_activation_v1 *activation;
	struct wl_registry *registry;
} g;

/* The longest string a Wayland message carries (4096 bytes, its header
 * and the string's length and padding taken off). */
#define LONG_TEXT 4000
static char long_text[LONG_TEXT + 1];

/* The globals the kinds stand on, and those the kind "globals" binds
 * again (every one a client of ours binds). */
static struct hostile_global globals[] = {
	{ &wl_subcompositor_interface, 1, (void **)&g.subcompositor, 0 },
	{ &xdg_wm_base_interface, 1, (void **)&g.wm, 0 },
	{ &zxdg_decoration_manager_v1_interface, 1, (void **)&g.decoration, 0 },
	{ &wp_viewporter_interface, 1, (void **)&g.viewporter, 0 },
	{ &wl_data_device_manager_interface, 3, (void **)&g.data, 0 },
	{ &wl_shm_interface, 1, (void **)&g.shm, 0 },
	{ &wl_output_interface, 1, (void **)&g.output, 0 },
	{ &wp_presentation_interface, 1, (void **)&g.presentation, 0 },
	{ &wl_compositor_interface, 4, (void **)&g.compositor, 0 },
	{ &wl_seat_interface, 1, (void **)&g.seat, 0 },
	{ &smt_ring_manager_v1_interface, 1, (void **)&g.manager, 0 },
	{ &zwp_idle_inhibit_manager_v1_interface, 1, &g.others[0], 0 },
	{ &zwp_input_method_manager_v2_interface, 1, (void **)&g.input_method, 0 },
	{ &zwp_keyboard_shortcuts_inhibit_manager_v1_interface, 1, &g.others[1], 0 },
	{ &zwp_pointer_constraints_v1_interface, 1, &g.others[2], 0 },
	{ &zwp_pointer_gestures_v1_interface, 1, &g.others[3], 0 },
	{ &zwp_primary_selection_device_manager_v1_interface, 1, &g.others[4], 0 },
	{ &zwp_relative_pointer_manager_v1_interface, 1, &g.others[5], 0 },
	{ &zwp_tablet_manager_v2_interface, 1, &g.others[6], 0 },
	{ &zwp_text_input_manager_v3_interface, 1, (void **)&g.text_input, 0 },
	{ &zwlr_data_control_manager_v1_interface, 1, &g.others[7], 0 },
	{ &zwlr_foreign_toplevel_manager_v1_interface, 1, &g.others[8], 0 },
	{ &zwlr_layer_shell_v1_interface, 1, (void **)&g.layer_shell, 0 },
	{ &zwlr_output_power_manager_v1_interface, 1, &g.others[9], 0 },
	{ &zwlr_screencopy_manager_v1_interface, 1, &g.others[10], 0 },
	{ &zwlr_virtual_pointer_manager_v1_interface, 1, &g.others[11], 0 },
	{ &xdg_activation_v1_interface, 1, (void **)&g.activation, 0 },
	{ &zxdg_exporter_v2_interface, 1, &g.others[12], 0 },
	{ &zxdg_importer_v2_interface, 1, &g.others[13], 0 },
};
#define GLOBALS (sizeof(globals) / sizeof(globals[0]))

/* Every global of the table bound once more (objects the client keeps). */
static void bind_again(void)
{
	for (size_t i = 0; i < GLOBALS; i++) {
		if (globals[i].name != 0) {
			wl_registry_bind(g.registry, globals[i].name, globals[i].interface,
					globals[i].version);
		}
	}
}

/* A wl_buffer whose pool object is destroyed at once: libwayland keeps
 * the pool (and its one-page mapping) for the buffer. */
static void kept_buffer(void)
{
	int fd = make_memfd(4096, 0);
	struct wl_shm_pool *pool = wl_shm_create_pool(g.shm, fd, 4096);
	close(fd);
	wl_shm_pool_create_buffer(pool, 0, 1, 1, 4, WL_SHM_FORMAT_ARGB8888);
	wl_shm_pool_destroy(pool);
}

/* An smt_pool_v1 of one page on the connection's ring (made at the first). */
static void ring_pool(struct hostile *h)
{
	static uint32_t id;
	if (h->ring == NULL) {
		create_good_ring(h, 4096);
	}
	int fd = make_pool_memfd(4096);
	smt_ring_v1_create_pool(h->ring, ++id, fd, 4096);
	close(fd);
}

static void wm_ping(void *data, struct xdg_wm_base *wm, uint32_t serial)
{
	xdg_wm_base_pong(wm, serial);
}

static const struct xdg_wm_base_listener wm_listener = { .ping = wm_ping };

/* Acknowledges every configure, as a window does before it commits. */
static void xdg_configure(void *data, struct xdg_surface *xs, uint32_t serial)
{
	xdg_surface_ack_configure(xs, serial);
}

static const struct xdg_surface_listener xdg_listener = { .configure = xdg_configure };

/* Buffers 1 pixel high of one pool, every one at offset 0 (at most
 * WIDE_PIXELS wide). */
#define WIDE_PIXELS 16384
static struct wl_buffer *row_buffer(int width)
{
	if (g.pool == NULL) {
		int fd = make_memfd(WIDE_PIXELS * 4, 0);
		g.pool = wl_shm_create_pool(g.shm, fd, WIDE_PIXELS * 4);
		close(fd);
	}
	return wl_shm_pool_create_buffer(g.pool, 0, width, 1, width * 4, WL_SHM_FORMAT_ARGB8888);
}

static void make_toplevel(struct hostile *h, int map_width, bool named)
{
	struct wl_surface *s = wl_compositor_create_surface(h->compositor);
	struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(g.wm, s);
	xdg_surface_add_listener(xs, &xdg_listener, NULL);
	struct xdg_toplevel *top = xdg_surface_get_toplevel(xs);
	xdg_toplevel_set_title(top, named ? long_text : "hold-objects");
	if (named) {
		xdg_toplevel_set_app_id(top, long_text);
	}
	if (g.decoration != NULL) {
		/* drawn by the compositor: a title bar as wide as the window */
		zxdg_toplevel_decoration_v1_set_mode(
				zxdg_decoration_manager_v1_get_toplevel_decoration(
						g.decoration, top),
				ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
	}
	wl_surface_commit(s);
	if (map_width > 0) {
		/* the initial configure is acknowledged by the next round trip's
		 * dispatch; the buffer goes with a commit after it */
		wl_display_roundtrip(h->display);
		wl_surface_attach(s, row_buffer(map_width), 0, 0);
		wl_surface_commit(s);
	}
}

/* One object of the kind (with what it stands on); false: unknown kind
 * or its global missing. */
static bool make_one(struct hostile *h, const char *kind, struct wl_surface *parent)
{
	if (strcmp(kind, "subsurface") == 0 && g.subcompositor != NULL) {
		wl_subcompositor_get_subsurface(g.subcompositor,
				wl_compositor_create_surface(h->compositor), parent);
	} else if (strcmp(kind, "toplevel") == 0 && g.wm != NULL) {
		make_toplevel(h, 0, false);
	} else if (strcmp(kind, "mapped") == 0 && g.wm != NULL && g.shm != NULL) {
		make_toplevel(h, 1, false);
	} else if (strcmp(kind, "wide") == 0 && g.wm != NULL && g.shm != NULL) {
		make_toplevel(h, WIDE_PIXELS, false);
	} else if (strcmp(kind, "positioner") == 0 && g.wm != NULL) {
		xdg_wm_base_create_positioner(g.wm);
	} else if (strcmp(kind, "viewport") == 0 && g.viewporter != NULL) {
		wp_viewporter_get_viewport(
				g.viewporter, wl_compositor_create_surface(h->compositor));
	} else if (strcmp(kind, "data-device") == 0 && g.data != NULL && h->seat != NULL) {
		wl_data_device_manager_get_data_device(g.data, h->seat);
	} else if (strcmp(kind, "frame") == 0) {
		wl_surface_frame(wl_compositor_create_surface(h->compositor));
	} else if (strcmp(kind, "buffer") == 0 && g.shm != NULL) {
		row_buffer(1);
	} else if (strcmp(kind, "input-method") == 0 && g.input_method != NULL && h->seat != NULL) {
		struct zwp_input_method_v2 *im = zwp_input_method_manager_v2_get_input_method(
				g.input_method, h->seat);
		for (int k = 0; k < 2; k++) {
			zwp_input_method_v2_commit_string(im, long_text);
			zwp_input_method_v2_set_preedit_string(im, long_text, 0, 0);
			if (k == 0) {
				zwp_input_method_v2_commit(im, 0);
			}
		}
	} else if (strcmp(kind, "im-commits") == 0 && g.input_method != NULL && h->seat != NULL) {
		static struct zwp_input_method_v2 *im;
		if (im == NULL) {
			im = zwp_input_method_manager_v2_get_input_method(g.input_method, h->seat);
		}
		zwp_input_method_v2_commit_string(im, long_text);
		zwp_input_method_v2_set_preedit_string(im, long_text, 0, 0);
		zwp_input_method_v2_commit(im, 0);
	} else if (strcmp(kind, "layer") == 0 && g.layer_shell != NULL) {
		zwlr_layer_shell_v1_get_layer_surface(g.layer_shell,
				wl_compositor_create_surface(h->compositor), NULL,
				ZWLR_LAYER_SHELL_V1_LAYER_TOP, long_text);
	} else if (strcmp(kind, "token-churn") == 0 && g.activation != NULL) {
		static struct xdg_activation_token_v1 *token;
		if (token == NULL) {
			token = xdg_activation_v1_get_activation_token(g.activation);
		}
		xdg_activation_token_v1_set_app_id(token, long_text);
	} else if (strcmp(kind, "title-churn") == 0 && g.wm != NULL) {
		static struct xdg_toplevel *top;
		if (top == NULL) {
			struct wl_surface *s = wl_compositor_create_surface(h->compositor);
			struct xdg_surface *xs = xdg_wm_base_get_xdg_surface(g.wm, s);
			xdg_surface_add_listener(xs, &xdg_listener, NULL);
			top = xdg_surface_get_toplevel(xs);
			wl_surface_commit(s);
		}
		static unsigned seq;
		long_text[0] = (char)('a' + seq++ % 26);
		xdg_toplevel_set_title(top, long_text);
		xdg_toplevel_set_app_id(top, long_text);
	} else if (strcmp(kind, "surrounding-churn") == 0 && g.text_input != NULL &&
			h->seat != NULL) {
		static struct zwp_text_input_v3 *ti;
		if (ti == NULL) {
			ti = zwp_text_input_manager_v3_get_text_input(g.text_input, h->seat);
		}
		zwp_text_input_v3_set_surrounding_text(ti, long_text, 0, 0);
		zwp_text_input_v3_commit(ti);
	} else if (strcmp(kind, "named") == 0 && g.wm != NULL) {
		make_toplevel(h, 0, true);
	} else if (strcmp(kind, "text-input") == 0 && g.text_input != NULL && h->seat != NULL) {
		struct zwp_text_input_v3 *ti = zwp_text_input_manager_v3_get_text_input(
				g.text_input, h->seat);
		zwp_text_input_v3_set_surrounding_text(ti, long_text, 0, 0);
		zwp_text_input_v3_commit(ti);
		zwp_text_input_v3_set_surrounding_text(ti, long_text, 0, 0);
	} else if (strcmp(kind, "kept-buffer") == 0 && g.shm != NULL) {
		kept_buffer();
	} else if (strcmp(kind, "pool") == 0) {
		ring_pool(h);
	} else if (strcmp(kind, "globals") == 0) {
		bind_again();
	} else {
		return false;
	}
	return true;
}

int case_hold_objects(struct hostile *h, const char *kind, int n)
{
	memset(long_text, 'x', LONG_TEXT);
	g.registry = bind_globals(h, globals, GLOBALS);
	if (g.registry == NULL) {
		return 1;
	}
	if (g.wm != NULL) {
		xdg_wm_base_add_listener(g.wm, &wm_listener, NULL);
	}
	struct wl_surface *parent = wl_compositor_create_surface(h->compositor);
	for (int i = 1; i <= n; i++) {
		if (!make_one(h, kind, parent)) {
			fprintf(stderr, "smt-hostile: hold-objects: unknown kind %s or no global\n",
					kind);
			return 2;
		}
		/* (kinds with long strings: one round trip each, as 100 of
		 * them fill the socket) */
		bool long_strings = strcmp(kind, "named") == 0 || strcmp(kind, "text-input") == 0 ||
				strncmp(kind, "i", 1) == 0 || strstr(kind, "churn") != NULL ||
				strcmp(kind, "layer") == 0;
		if ((long_strings || i % 100 == 0 || i == n) &&
				wl_display_roundtrip(h->display) < 0) {
			printf("%s before the refusal: about %d\n", kind, i);
			return expect_error(h, &wl_display_interface,
					       WL_DISPLAY_ERROR_IMPLEMENTATION) ?
					0 :
					1;
		}
	}
	/* a mapped window's first frame has come and gone (its callbacks
	 * and damage settled) before the accounts are read */
	wl_display_roundtrip(h->display);
	printf("HOLDING %d %s\n", n, kind);
	fflush(stdout);
	while (wl_display_dispatch(h->display) >= 0) {
	}
	return 0;
}
