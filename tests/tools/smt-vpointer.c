// smt-vpointer: drive a wlr virtual pointer from the command line.
//
//   smt-vpointer [--extent WxH] ACTION...
//
// Actions run in order; each one is followed by a frame and a round trip, so
// when the program returns the compositor has processed everything:
//   move X Y          absolute move to layout coordinates (X, Y)
//   rel DX DY         relative motion
//   down BUTTON       press left|right|middle
//   up BUTTON         release
//   click BUTTON      press then release
//   scroll DY         DY wheel steps, positive scrolls down
//   sleep MS          wait MS milliseconds
//
// Absolute positions are sent with motion_absolute over an extent: by default
// the bounding box of all outputs (assumed side by side, at their current
// modes divided by their scale), 1280x720 if there are none; --extent
// overrides it.
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wayland-client.h>

#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

#define BTN_LEFT_CODE 0x110
#define BTN_RIGHT_CODE 0x111
#define BTN_MIDDLE_CODE 0x112

#define MAX_COORD 1000000L   // absolute positions and extents
#define MAX_REL 100000.0     // relative motion per action
#define MAX_SLEEP_MS 600000L // 10 minutes
#define MAX_SCROLL 10000L    // wheel steps per action
#define MAX_OUTPUTS 32

enum action_kind {
	ACT_MOVE,
	ACT_REL,
	ACT_DOWN,
	ACT_UP,
	ACT_CLICK,
	ACT_SCROLL,
	ACT_SLEEP
};

struct action {
	enum action_kind kind;
	long a, b;     // move: x y; button: code; scroll: steps; sleep: ms
	double dx, dy; // rel
};

struct output_info {
	struct wl_output *wl_output;
	int32_t width, height; // current mode
	int32_t scale;
	int32_t transform;
};

struct state {
	struct wl_seat *seat;
	struct zwlr_virtual_pointer_manager_v1 *manager;
	struct output_info outputs[MAX_OUTPUTS];
	int n_outputs;
};

static const char *prog = "smt-vpointer";

static void usage(FILE *f)
{
	fprintf(f,
			"usage: %s [--extent WxH] ACTION...\n"
			"actions (run in order, each followed by frame + roundtrip):\n"
			"  move X Y        absolute move to layout coordinates\n"
			"  rel DX DY       relative motion\n"
			"  down BUTTON     press a button (left|right|middle)\n"
			"  up BUTTON       release a button\n"
			"  click BUTTON    press and release a button\n"
			"  scroll DY       scroll DY wheel steps (negative: up)\n"
			"  sleep MS        wait MS milliseconds\n"
			"--extent WxH sets the area absolute moves map to (default: bounding box of\n"
			"all outputs side by side, or 1280x720 without outputs)\n",
			prog);
}

__attribute__((format(printf, 1, 2))) static _Noreturn void usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, "run '%s --help' for usage\n", prog);
	exit(2);
}

static bool parse_long(const char *s, long min, long max, long *out)
{
	if (s == NULL || *s == '\0') {
		return false;
	}
	errno = 0;
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

static bool parse_double(const char *s, double min, double max, double *out)
{
	if (s == NULL || *s == '\0') {
		return false;
	}
	errno = 0;
	char *end = NULL;
	double v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || v < min || v > max) {
		return false;
	}
	*out = v;
	return true;
}

static bool parse_button(const char *s, long *code)
{
	if (s == NULL) {
		return false;
	}
	if (strcmp(s, "left") == 0) {
		*code = BTN_LEFT_CODE;
	} else if (strcmp(s, "right") == 0) {
		*code = BTN_RIGHT_CODE;
	} else if (strcmp(s, "middle") == 0) {
		*code = BTN_MIDDLE_CODE;
	} else {
		return false;
	}
	return true;
}

static bool parse_extent(const char *s, long *w, long *h)
{
	if (s == NULL) {
		return false;
	}
	const char *x = strchr(s, 'x');
	if (x == NULL || x == s || (size_t)(x - s) >= 16) {
		return false;
	}
	char wbuf[16];
	memcpy(wbuf, s, (size_t)(x - s));
	wbuf[x - s] = '\0';
	return parse_long(wbuf, 1, MAX_COORD, w) && parse_long(x + 1, 1, MAX_COORD, h);
}

static uint32_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

// wl_output listener: only the current mode, scale and transform matter.
static void output_geometry(void *data, struct wl_output *o, int32_t x, int32_t y, int32_t pw,
		int32_t ph, int32_t subpixel, const char *make, const char *model,
		int32_t transform)
{
	struct output_info *info = data;
	info->transform = transform;
}

static void output_mode(void *data, struct wl_output *o, uint32_t flags, int32_t width,
		int32_t height, int32_t refresh)
{
	struct output_info *info = data;
	if (flags & WL_OUTPUT_MODE_CURRENT) {
		info->width = width;
		info->height = height;
	}
}

static void output_done(void *data, struct wl_output *o)
{
}

static void output_scale(void *data, struct wl_output *o, int32_t factor)
{
	struct output_info *info = data;
	info->scale = factor;
}

static const struct wl_output_listener output_listener = {
	.geometry = output_geometry,
	.mode = output_mode,
	.done = output_done,
	.scale = output_scale,
};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct state *st = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 && st->seat == NULL) {
		st->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface, zwlr_virtual_pointer_manager_v1_interface.name) == 0) {
		st->manager = wl_registry_bind(
				registry, name, &zwlr_virtual_pointer_manager_v1_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			st->n_outputs < MAX_OUTPUTS) {
		struct output_info *info = &st->outputs[st->n_outputs++];
		info->scale = 1;
		info->wl_output = wl_registry_bind(
				registry, name, &wl_output_interface, version < 2 ? version : 2);
		wl_output_add_listener(info->wl_output, &output_listener, info);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

// Consumes the arguments of the action at argv[*i] and advances *i.
static void parse_action(int argc, char **argv, int *i, struct action *act)
{
	const char *name = argv[*i];
	const char *a1 = *i + 1 < argc ? argv[*i + 1] : NULL;
	const char *a2 = *i + 2 < argc ? argv[*i + 2] : NULL;
	memset(act, 0, sizeof(*act));
	if (strcmp(name, "move") == 0) {
		act->kind = ACT_MOVE;
		if (!parse_long(a1, 0, MAX_COORD, &act->a) ||
				!parse_long(a2, 0, MAX_COORD, &act->b)) {
			usage_error("%s: expects two integers X Y (0..1000000)", name);
		}
		*i += 3;
	} else if (strcmp(name, "rel") == 0) {
		act->kind = ACT_REL;
		if (!parse_double(a1, -MAX_REL, MAX_REL, &act->dx) ||
				!parse_double(a2, -MAX_REL, MAX_REL, &act->dy)) {
			usage_error("%s: expects two numbers DX DY (-100000..100000)", name);
		}
		*i += 3;
	} else if (strcmp(name, "down") == 0 || strcmp(name, "up") == 0 ||
			strcmp(name, "click") == 0) {
		act->kind = name[0] == 'd' ? ACT_DOWN : name[0] == 'u' ? ACT_UP : ACT_CLICK;
		if (!parse_button(a1, &act->a)) {
			usage_error("%s: expects a button: left, right or middle", name);
		}
		*i += 2;
	} else if (strcmp(name, "scroll") == 0) {
		act->kind = ACT_SCROLL;
		if (!parse_long(a1, -MAX_SCROLL, MAX_SCROLL, &act->a)) {
			usage_error("%s: expects an integer number of wheel steps DY (-10000..10000)",
					name);
		}
		*i += 2;
	} else if (strcmp(name, "sleep") == 0) {
		act->kind = ACT_SLEEP;
		if (!parse_long(a1, 0, MAX_SLEEP_MS, &act->a)) {
			usage_error("%s: expects milliseconds MS (0..600000)", name);
		}
		*i += 2;
	} else {
		usage_error("unknown action '%s'", name);
	}
}

static void compute_extent(const struct state *st, long *w, long *h)
{
	long total_w = 0, max_h = 0;
	for (int i = 0; i < st->n_outputs; i++) {
		const struct output_info *o = &st->outputs[i];
		long ow = o->width, oh = o->height;
		if (ow <= 0 || oh <= 0) {
			continue;
		}
		if (o->transform & 1) { // 90 and 270 degree transforms swap axes
			long t = ow;
			ow = oh;
			oh = t;
		}
		long scale = o->scale > 0 ? o->scale : 1;
		ow /= scale;
		oh /= scale;
		total_w += ow;
		if (oh > max_h) {
			max_h = oh;
		}
	}
	if (total_w <= 0 || max_h <= 0 || total_w > MAX_COORD || max_h > MAX_COORD) {
		total_w = 1280;
		max_h = 720;
	}
	*w = total_w;
	*h = max_h;
}

static void check_display(struct wl_display *display, const char *what)
{
	int err = wl_display_get_error(display);
	if (err == 0) {
		return;
	}
	if (err == EPROTO) {
		const struct wl_interface *iface = NULL;
		uint32_t id = 0;
		uint32_t code = wl_display_get_protocol_error(display, &iface, &id);
		fprintf(stderr, "%s: %s: protocol error %u on %s@%u\n", prog, what, code,
				iface ? iface->name : "?", id);
	} else {
		fprintf(stderr, "%s: %s: connection error: %s\n", prog, what, strerror(err));
	}
	exit(1);
}

static void send_button(struct zwlr_virtual_pointer_v1 *ptr, long code, bool pressed)
{
	zwlr_virtual_pointer_v1_button(ptr, now_ms(), (uint32_t)code,
			pressed ? WL_POINTER_BUTTON_STATE_PRESSED :
				  WL_POINTER_BUTTON_STATE_RELEASED);
	zwlr_virtual_pointer_v1_frame(ptr);
}

int main(int argc, char **argv)
{
	long extent_w = 0, extent_h = 0;
	bool have_extent = false;
	int first = 1;

	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--extent") == 0) {
		if (argc < 3 || !parse_extent(argv[2], &extent_w, &extent_h)) {
			usage_error("--extent: expects WxH, e.g. 1280x720 (1..1000000 each)");
		}
		have_extent = true;
		first = 3;
	}
	if (first >= argc) {
		usage(stderr);
		return 2;
	}

	// Parse everything before connecting so a typo does nothing at all.
	size_t n_actions = 0;
	struct action *actions = calloc((size_t)argc, sizeof(*actions));
	if (actions == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	for (int i = first; i < argc;) {
		parse_action(argc, argv, &i, &actions[n_actions++]);
	}

	struct wl_display *display = wl_display_connect(NULL);
	if (display == NULL) {
		fprintf(stderr, "%s: cannot connect to the Wayland display '%s': %s\n", prog,
				getenv("WAYLAND_DISPLAY") ? getenv("WAYLAND_DISPLAY") : "wayland-0",
				strerror(errno));
		free(actions);
		return 1;
	}
	struct state st = { 0 };
	struct wl_registry *registry = wl_display_get_registry(display);
	wl_registry_add_listener(registry, &registry_listener, &st);
	if (wl_display_roundtrip(display) < 0 || wl_display_roundtrip(display) < 0) {
		check_display(display, "registry");
	}
	if (st.manager == NULL) {
		fprintf(stderr, "%s: the compositor does not offer %s\n", prog,
				zwlr_virtual_pointer_manager_v1_interface.name);
		free(actions);
		wl_display_disconnect(display);
		return 1;
	}
	if (!have_extent) {
		compute_extent(&st, &extent_w, &extent_h);
	}

	struct zwlr_virtual_pointer_v1 *ptr =
			zwlr_virtual_pointer_manager_v1_create_virtual_pointer(st.manager, st.seat);
	if (wl_display_roundtrip(display) < 0) {
		check_display(display, "create_virtual_pointer");
	}

	for (size_t k = 0; k < n_actions; k++) {
		const struct action *act = &actions[k];
		switch (act->kind) {
		case ACT_MOVE:
			if (act->a > extent_w || act->b > extent_h) {
				fprintf(stderr, "%s: move %ld %ld is outside the %ldx%ld extent\n",
						prog, act->a, act->b, extent_w, extent_h);
				free(actions);
				wl_display_disconnect(display);
				return 2;
			}
			zwlr_virtual_pointer_v1_motion_absolute(ptr, now_ms(), (uint32_t)act->a,
					(uint32_t)act->b, (uint32_t)extent_w, (uint32_t)extent_h);
			zwlr_virtual_pointer_v1_frame(ptr);
			break;
		case ACT_REL:
			zwlr_virtual_pointer_v1_motion(ptr, now_ms(), wl_fixed_from_double(act->dx),
					wl_fixed_from_double(act->dy));
			zwlr_virtual_pointer_v1_frame(ptr);
			break;
		case ACT_DOWN:
			send_button(ptr, act->a, true);
			break;
		case ACT_UP:
			send_button(ptr, act->a, false);
			break;
		case ACT_CLICK:
			send_button(ptr, act->a, true);
			if (wl_display_roundtrip(display) < 0) {
				check_display(display, "click");
			}
			send_button(ptr, act->a, false);
			break;
		case ACT_SCROLL:
			zwlr_virtual_pointer_v1_axis_source(ptr, WL_POINTER_AXIS_SOURCE_WHEEL);
			zwlr_virtual_pointer_v1_axis_discrete(ptr, now_ms(),
					WL_POINTER_AXIS_VERTICAL_SCROLL,
					wl_fixed_from_int((int)act->a * 15), (int32_t)act->a);
			zwlr_virtual_pointer_v1_frame(ptr);
			break;
		case ACT_SLEEP:
			sleep_ms(act->a);
			zwlr_virtual_pointer_v1_frame(ptr);
			break;
		}
		if (wl_display_roundtrip(display) < 0) {
			check_display(display, "action");
		}
	}

	zwlr_virtual_pointer_v1_destroy(ptr);
	zwlr_virtual_pointer_manager_v1_destroy(st.manager);
	for (int i = 0; i < st.n_outputs; i++) {
		if (wl_output_get_version(st.outputs[i].wl_output) >= 3) {
			wl_output_release(st.outputs[i].wl_output);
		} else {
			wl_output_destroy(st.outputs[i].wl_output);
		}
	}
	if (st.seat != NULL) {
		wl_seat_destroy(st.seat);
	}
	wl_registry_destroy(registry);
	if (wl_display_roundtrip(display) < 0) {
		check_display(display, "destroy");
	}
	wl_display_disconnect(display);
	free(actions);
	return 0;
}
