/*
 * smt-shm-geometry: an xdg toplevel showing a wl_shm buffer of a known
 * pattern through whatever geometry the surface state allows, for the
 * renderer's tests (occlusion culling and paint_direct against wlroots'
 * scene renderer, test_render_geometry): buffer_scale, a buffer
 * transform, a wp_viewporter crop and destination, a subsurface at any
 * offset (negative too), an opaque region, ARGB with translucent rows or
 * XRGB; with marker=1, the main buffer's pixels outside its crop are
 * magenta (0xff00ff, which the pattern never is: its blue stays under
 * 0x80), so a renderer that shows more of the buffer than the crop is seen.
 *
 *   smt-shm-geometry [size=WxH] [format=argb|xrgb] [scale=N] [transform=T]
 *                    [crop=X,Y,W,H] [dest=W,H] [opaque=1|X,Y,W,H]
 *                    [sub=X,Y,WxH] [subformat=argb|xrgb] [subcrop=X,Y,W,H]
 *                    [subdest=W,H] [marker=1]
 *
 * Sizes are the buffer's, in pixels; crop values may be fractional. Prints
 * "ready" once the compositor has shown the first frame (a frame callback
 * done), then waits; a line "shrink BYTES" on stdin truncates the main
 * buffer's pool file to that size and commits its whole damage again
 * (the pool shrunk under a buffer the compositor shows), then prints
 * "shrunk"; a line "punch" punches the main buffer's pool file into one
 * hole (its size kept) and commits its whole damage again (session 40: the
 * compositor's reads of holes), then prints "punched".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>
#include "viewporter-client-protocol.h"
#include "xdg-shell-client-protocol.h"

struct layer {
	int width, height;
	bool argb;
	double crop[4]; /* x, y, w, h; w 0: none */
	bool marker;    /* outside the crop magenta */
	double mark[4]; /* the crop in buffer pixels */
	int dest[2];    /* w, h; 0: none */
	int fd;
	size_t size;
	struct wl_surface *surface;
	struct wl_buffer *buffer;
};

struct app {
	struct wl_compositor *compositor;
	struct wl_subcompositor *subcompositor;
	struct wl_shm *shm;
	struct xdg_wm_base *wm_base;
	struct wp_viewporter *viewporter;
	struct layer main, sub;
	bool has_sub, configured, shown;
	int opaque[4]; /* x, y, w, h of the opaque region; w 0: none */
	int scale, transform, sub_x, sub_y;
};

/* Premultiplied ARGB: every fourth band of 8 rows at alpha 0x80 (so what
 * is under it shows through), the rest opaque; XRGB's alpha byte is 0x00
 * where ARGB would be translucent, which a renderer must ignore. */
static uint32_t pattern(int x, int y, bool argb, uint32_t seed)
{
	uint32_t r = (uint32_t)(x * 3 + (int)seed) & 0xff, g = (uint32_t)(y * 5) & 0xff,
		 b = (uint32_t)(x ^ y) & 0x7f;
	bool half = (y / 8) % 4 == 3;
	if (!half) {
		return 0xff000000u | r << 16 | g << 8 | b;
	}
	if (!argb) {
		return r << 16 | g << 8 | b;
	}
	return 0x80000000u | (r >> 1) << 16 | (g >> 1) << 8 | (b >> 1);
}

static void make_buffer(struct app *app, struct layer *l, uint32_t seed)
{
	l->size = (size_t)l->width * (size_t)l->height * 4;
	l->fd = memfd_create("smt-shm-geometry", MFD_CLOEXEC);
	if (l->fd < 0 || ftruncate(l->fd, (off_t)l->size) != 0) {
		perror("smt-shm-geometry: memfd");
		exit(1);
	}
	uint32_t *px = mmap(NULL, l->size, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
	if (px == MAP_FAILED) {
		perror("smt-shm-geometry: mmap");
		exit(1);
	}
	for (int y = 0; y < l->height; y++) {
		for (int x = 0; x < l->width; x++) {
			bool outside = l->marker && l->crop[2] > 0 &&
					(x < l->mark[0] - 1 || y < l->mark[1] - 1 ||
							x > l->mark[0] + l->mark[2] ||
							y > l->mark[1] + l->mark[3]);
			px[(size_t)y * (size_t)l->width + (size_t)x] = outside ?
					0xffff00ffu :
					pattern(x, y, l->argb, seed);
		}
	}
	munmap(px, l->size);
	struct wl_shm_pool *pool = wl_shm_create_pool(app->shm, l->fd, (int32_t)l->size);
	l->buffer = wl_shm_pool_create_buffer(pool, 0, l->width, l->height, l->width * 4,
			l->argb ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888);
	wl_shm_pool_destroy(pool);
}

static void apply_viewport(struct app *app, struct layer *l)
{
	if (l->crop[2] <= 0 && l->dest[0] <= 0) {
		return;
	}
	if (app->viewporter == NULL) {
		fputs("smt-shm-geometry: no wp_viewporter\n", stderr);
		exit(1);
	}
	struct wp_viewport *vp = wp_viewporter_get_viewport(app->viewporter, l->surface);
	if (l->crop[2] > 0) {
		wp_viewport_set_source(vp, wl_fixed_from_double(l->crop[0]),
				wl_fixed_from_double(l->crop[1]), wl_fixed_from_double(l->crop[2]),
				wl_fixed_from_double(l->crop[3]));
	}
	if (l->dest[0] > 0) {
		wp_viewport_set_destination(vp, l->dest[0], l->dest[1]);
	}
}

static void frame_done(void *data, struct wl_callback *cb, uint32_t time)
{
	struct app *app = data;
	wl_callback_destroy(cb);
	app->shown = true;
}
static const struct wl_callback_listener frame_listener = { frame_done };

static void xdg_configure(void *data, struct xdg_surface *xdg, uint32_t serial)
{
	struct app *app = data;
	xdg_surface_ack_configure(xdg, serial);
	if (app->configured) {
		wl_surface_commit(app->main.surface);
		return;
	}
	app->configured = true;
	wl_surface_set_buffer_scale(app->main.surface, app->scale);
	wl_surface_set_buffer_transform(app->main.surface, app->transform);
	if (app->opaque[2] > 0) {
		struct wl_region *region = wl_compositor_create_region(app->compositor);
		wl_region_add(region, app->opaque[0], app->opaque[1], app->opaque[2],
				app->opaque[3]);
		wl_surface_set_opaque_region(app->main.surface, region);
		wl_region_destroy(region);
	}
	wl_surface_attach(app->main.surface, app->main.buffer, 0, 0);
	wl_surface_damage_buffer(app->main.surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_callback_add_listener(wl_surface_frame(app->main.surface), &frame_listener, app);
	wl_surface_commit(app->main.surface);
}
static const struct xdg_surface_listener xdg_listener = { xdg_configure };

static void wm_base_ping(void *data, struct xdg_wm_base *base, uint32_t serial)
{
	xdg_wm_base_pong(base, serial);
}
static const struct xdg_wm_base_listener wm_base_listener = { wm_base_ping };

static void toplevel_configure(
		void *d, struct xdg_toplevel *t, int32_t w, int32_t h, struct wl_array *states)
{
}
static void toplevel_close(void *data, struct xdg_toplevel *t)
{
	exit(0);
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
	} else if (strcmp(interface, wl_subcompositor_interface.name) == 0) {
		app->subcompositor = wl_registry_bind(
				registry, name, &wl_subcompositor_interface, 1);
	} else if (strcmp(interface, wl_shm_interface.name) == 0) {
		app->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
	} else if (strcmp(interface, xdg_wm_base_interface.name) == 0) {
		app->wm_base = wl_registry_bind(registry, name, &xdg_wm_base_interface, 1);
	} else if (strcmp(interface, wp_viewporter_interface.name) == 0) {
		app->viewporter = wl_registry_bind(registry, name, &wp_viewporter_interface, 1);
	}
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n)
{
}
static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

static void usage(const char *what)
{
	fprintf(stderr, "smt-shm-geometry: bad argument '%s' (see the file's comment)\n", what);
	exit(2);
}

static void parse_size(const char *v, int *w, int *h, const char *arg)
{
	if (sscanf(v, "%dx%d", w, h) != 2 || *w < 1 || *h < 1 || *w > 4096 || *h > 4096) {
		usage(arg);
	}
}

static void parse_crop(const char *v, double crop[4], const char *arg)
{
	if (sscanf(v, "%lf,%lf,%lf,%lf", &crop[0], &crop[1], &crop[2], &crop[3]) != 4 ||
			crop[2] <= 0 || crop[3] <= 0) {
		usage(arg);
	}
}

static void parse_args(struct app *app, int argc, char *argv[])
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		const char *eq = strchr(arg, '=');
		if (eq == NULL) {
			usage(arg);
		}
		const char *v = eq + 1;
		size_t key = (size_t)(eq - arg);
#define IS(name) (key == strlen(name) && strncmp(arg, name, key) == 0)
		if (IS("size")) {
			parse_size(v, &app->main.width, &app->main.height, arg);
		} else if (IS("format")) {
			app->main.argb = strcmp(v, "argb") == 0;
		} else if (IS("subformat")) {
			app->sub.argb = strcmp(v, "argb") == 0;
		} else if (IS("scale")) {
			app->scale = atoi(v);
		} else if (IS("transform")) {
			app->transform = atoi(v);
		} else if (IS("marker")) {
			app->main.marker = atoi(v) != 0;
		} else if (IS("opaque")) {
			if (strcmp(v, "1") == 0) {
				app->opaque[2] = app->opaque[3] = 100000;
			} else if (sscanf(v, "%d,%d,%d,%d", &app->opaque[0], &app->opaque[1],
						   &app->opaque[2], &app->opaque[3]) != 4) {
				usage(arg);
			}
		} else if (IS("crop")) {
			parse_crop(v, app->main.crop, arg);
		} else if (IS("subcrop")) {
			parse_crop(v, app->sub.crop, arg);
		} else if (IS("dest")) {
			if (sscanf(v, "%d,%d", &app->main.dest[0], &app->main.dest[1]) != 2) {
				usage(arg);
			}
		} else if (IS("subdest")) {
			if (sscanf(v, "%d,%d", &app->sub.dest[0], &app->sub.dest[1]) != 2) {
				usage(arg);
			}
		} else if (IS("sub")) {
			char size[32];
			if (sscanf(v, "%d,%d,%31s", &app->sub_x, &app->sub_y, size) != 3) {
				usage(arg);
			}
			parse_size(size, &app->sub.width, &app->sub.height, arg);
			app->has_sub = true;
		} else {
			usage(arg);
		}
#undef IS
	}
	if (app->scale < 1 || app->scale > 4 || app->transform < 0 || app->transform > 7) {
		usage("scale or transform");
	}
}

/* The main buffer committed again with its whole damage, after its file
 * changed under it; then `said` on stdout. */
static void recommit(struct app *app, const char *said)
{
	wl_surface_attach(app->main.surface, app->main.buffer, 0, 0);
	wl_surface_damage_buffer(app->main.surface, 0, 0, INT32_MAX, INT32_MAX);
	wl_surface_commit(app->main.surface);
	puts(said);
	fflush(stdout);
}

static void shrink(struct app *app, long bytes)
{
	if (bytes < 0 || ftruncate(app->main.fd, (off_t)bytes) != 0) {
		perror("smt-shm-geometry: ftruncate");
		exit(1);
	}
	recommit(app, "shrunk");
}

static void punch(struct app *app)
{
	if (fallocate(app->main.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			    (off_t)app->main.size) != 0) {
		perror("smt-shm-geometry: fallocate");
		exit(1);
	}
	recommit(app, "punched");
}

int main(int argc, char *argv[])
{
	struct app app = { .main = { .width = 300, .height = 200, .argb = true },
		.sub = { .argb = true },
		.scale = 1 };
	parse_args(&app, argc, argv);
	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fputs("smt-shm-geometry: cannot connect to the Wayland display\n", stderr);
		return 1;
	}
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &app);
	wl_display_roundtrip(display);
	if (app.compositor == NULL || app.subcompositor == NULL || app.shm == NULL ||
			app.wm_base == NULL) {
		fputs("smt-shm-geometry: missing a core global or xdg_wm_base\n", stderr);
		return 1;
	}
	xdg_wm_base_add_listener(app.wm_base, &wm_base_listener, &app);
	/* The crop is in surface coordinates: buffer pixels are scale times
	 * as many, and turned by the transform (marker=1 knows 0 and 180). */
	for (int i = 0; i < 4; i++) {
		app.main.mark[i] = app.main.crop[i] * app.scale;
	}
	if (app.transform == WL_OUTPUT_TRANSFORM_180) {
		app.main.mark[0] = app.main.width - app.main.mark[0] - app.main.mark[2];
		app.main.mark[1] = app.main.height - app.main.mark[1] - app.main.mark[3];
	} else if (app.main.marker && app.transform != WL_OUTPUT_TRANSFORM_NORMAL) {
		usage("marker=1 with a transform other than 0 or 2");
	}
	make_buffer(&app, &app.main, 0);
	app.main.surface = wl_compositor_create_surface(app.compositor);
	apply_viewport(&app, &app.main);
	if (app.has_sub) {
		make_buffer(&app, &app.sub, 101);
		app.sub.surface = wl_compositor_create_surface(app.compositor);
		struct wl_subsurface *sub = wl_subcompositor_get_subsurface(
				app.subcompositor, app.sub.surface, app.main.surface);
		wl_subsurface_set_position(sub, app.sub_x, app.sub_y);
		wl_subsurface_set_desync(sub);
		apply_viewport(&app, &app.sub);
		wl_surface_attach(app.sub.surface, app.sub.buffer, 0, 0);
		wl_surface_commit(app.sub.surface);
	}
	struct xdg_surface *xdg = xdg_wm_base_get_xdg_surface(app.wm_base, app.main.surface);
	xdg_surface_add_listener(xdg, &xdg_listener, &app);
	struct xdg_toplevel *toplevel = xdg_surface_get_toplevel(xdg);
	xdg_toplevel_add_listener(toplevel, &toplevel_listener, &app);
	xdg_toplevel_set_title(toplevel, "smt-shm-geometry");
	wl_surface_commit(app.main.surface);

	bool said_ready = false, stdin_open = true;
	char line[64];
	size_t used = 0;
	for (;;) {
		if (app.shown && !said_ready) {
			said_ready = true;
			puts("ready");
			fflush(stdout);
		}
		while (wl_display_prepare_read(display) != 0) {
			wl_display_dispatch_pending(display);
		}
		wl_display_flush(display);
		struct pollfd fds[2] = { { wl_display_get_fd(display), POLLIN, 0 },
			{ stdin_open ? STDIN_FILENO : -1, POLLIN, 0 } };
		if (poll(fds, 2, -1) < 0) {
			wl_display_cancel_read(display);
			continue;
		}
		if (fds[0].revents & POLLIN) {
			if (wl_display_read_events(display) < 0) {
				return 1;
			}
		} else {
			wl_display_cancel_read(display);
		}
		if (fds[0].revents & (POLLERR | POLLHUP)) {
			return 1;
		}
		if (wl_display_dispatch_pending(display) < 0) {
			return 1;
		}
		if (fds[1].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(STDIN_FILENO, line + used, sizeof(line) - 1 - used);
			if (n <= 0) {
				stdin_open = false; /* (no more commands: keeps showing) */
				continue;
			}
			used += (size_t)n;
			line[used] = '\0';
			char *nl = strchr(line, '\n');
			if (nl != NULL) {
				*nl = '\0';
				long bytes;
				if (sscanf(line, "shrink %ld", &bytes) == 1) {
					shrink(&app, bytes);
				} else if (strcmp(line, "punch") == 0) {
					punch(&app);
				}
				used = 0;
			} else if (used == sizeof(line) - 1) {
				used = 0;
			}
		}
	}
}
