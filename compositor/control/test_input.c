/*
 * The devices are created on first use and live as long as the backend;
 * the pen (a wlr_tablet_tool, which the tablet code of a backend would own)
 * is ours and goes at test_input_finish, telling its listeners first. So is
 * the pad: the headless backend announces its devices before their
 * buttons, rings and strips could be described, so it is made here, with
 * one button group, one ring and one strip, and destroyed at finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wlr/backend/headless.h>
#include <wlr/backend/multi.h>
#include <wlr/types/wlr_pointer.h>
#include <wlr/interfaces/wlr_input_device.h>
#include <wlr/interfaces/wlr_tablet_pad.h>
#include <wlr/types/wlr_tablet_pad.h>
#include <wlr/types/wlr_tablet_tool.h>
#include "compositor/control/test_input.h"

enum {
	PAD_BUTTONS = 3
};

struct smtwc_test_input {
	struct wlr_input_device *touchpad;
	struct wlr_input_device *tablet;
	struct wlr_tablet_tool pen;
	struct wlr_input_device *pad;
	struct wlr_tablet_pad_group pad_group;
	unsigned int pad_buttons[PAD_BUTTONS], pad_ring, pad_strip;
	uint32_t time_msec; /* event times: increasing, not the clock's */
};

static void find_headless(struct wlr_backend *backend, void *data)
{
	if (wlr_backend_is_headless(backend)) {
		*(struct wlr_backend **)data = backend;
	}
}

struct wlr_backend *test_input_headless_backend(struct smtwc_server *server)
{
	struct wlr_backend *headless = NULL;
	if (wlr_backend_is_multi(server->backend)) {
		wlr_multi_for_each_backend(server->backend, find_headless, &headless);
	} else {
		find_headless(server->backend, &headless);
	}
	return headless;
}

/* Announces a pad attached to the test tablet. */
static struct wlr_input_device *pad_create(struct smtwc_server *server, struct smtwc_test_input *ti)
{
	struct wlr_input_device *device = calloc(1, sizeof(*device));
	struct wlr_tablet_pad *pad = calloc(1, sizeof(*pad));
	if (device == NULL || pad == NULL) {
		free(device);
		free(pad);
		return NULL;
	}
	wlr_input_device_init(device, WLR_INPUT_DEVICE_TABLET_PAD, NULL, "smtwc test pad", 0, 0);
	wlr_tablet_pad_init(pad, NULL);
	device->tablet_pad = pad;
	struct wlr_tablet_pad_group *group = &ti->pad_group;
	for (unsigned int i = 0; i < PAD_BUTTONS; i++) {
		ti->pad_buttons[i] = i;
	}
	group->buttons = ti->pad_buttons;
	group->button_count = PAD_BUTTONS;
	group->rings = &ti->pad_ring;
	group->ring_count = 1;
	group->strips = &ti->pad_strip;
	group->strip_count = 1;
	group->mode_count = 1;
	wl_list_insert(&pad->groups, &group->link);
	pad->button_count = PAD_BUTTONS;
	pad->ring_count = 1;
	pad->strip_count = 1;
	wl_signal_emit(&server->backend->events.new_input, device);
	wl_signal_emit(&pad->events.attach_tablet, ti->tablet->tablet);
	return device;
}

static void pad_destroy(struct smtwc_test_input *ti)
{
	if (ti->pad == NULL) {
		return;
	}
	/* The group is ours; wlroots frees the pad and the device. */
	wl_list_remove(&ti->pad_group.link);
	wl_list_init(&ti->pad->tablet_pad->groups);
	wlr_input_device_destroy(ti->pad);
	ti->pad = NULL;
}

static struct smtwc_test_input *test_input_get(struct smtwc_server *server)
{
	if (server->test_input != NULL) {
		return server->test_input;
	}
	struct wlr_backend *headless = test_input_headless_backend(server);
	if (headless == NULL) {
		return NULL;
	}
	struct smtwc_test_input *ti = calloc(1, sizeof(*ti));
	if (ti == NULL) {
		return NULL;
	}
	ti->touchpad = wlr_headless_add_input_device(headless, WLR_INPUT_DEVICE_POINTER);
	ti->tablet = wlr_headless_add_input_device(headless, WLR_INPUT_DEVICE_TABLET_TOOL);
	if (ti->touchpad == NULL || ti->tablet == NULL) {
		free(ti);
		return NULL;
	}
	ti->pen.type = WLR_TABLET_TOOL_TYPE_PEN;
	ti->pen.hardware_serial = 1;
	ti->pen.pressure = true;
	wl_signal_init(&ti->pen.events.destroy);
	server->test_input = ti;
	return ti;
}

static void swipe(struct smtwc_test_input *ti, uint32_t fingers, double dx, double dy)
{
	struct wlr_pointer *p = ti->touchpad->pointer;
	struct wlr_event_pointer_swipe_begin begin = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.fingers = fingers,
	};
	wl_signal_emit(&p->events.swipe_begin, &begin);
	struct wlr_event_pointer_swipe_update update = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.fingers = fingers,
		.dx = dx,
		.dy = dy,
	};
	wl_signal_emit(&p->events.swipe_update, &update);
	struct wlr_event_pointer_swipe_end end = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.cancelled = false,
	};
	wl_signal_emit(&p->events.swipe_end, &end);
}

static void pinch(struct smtwc_test_input *ti, uint32_t fingers, double scale)
{
	struct wlr_pointer *p = ti->touchpad->pointer;
	struct wlr_event_pointer_pinch_begin begin = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.fingers = fingers,
	};
	wl_signal_emit(&p->events.pinch_begin, &begin);
	struct wlr_event_pointer_pinch_update update = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.fingers = fingers,
		.scale = scale,
	};
	wl_signal_emit(&p->events.pinch_update, &update);
	struct wlr_event_pointer_pinch_end end = {
		.device = ti->touchpad,
		.time_msec = ++ti->time_msec,
		.cancelled = false,
	};
	wl_signal_emit(&p->events.pinch_end, &end);
}

static void stroke(struct smtwc_server *server, struct smtwc_test_input *ti, double x, double y)
{
	struct wlr_box *layout = wlr_output_layout_get_box(server->output_layout, NULL);
	double w = layout->width > 0 ? layout->width : 1,
	       h = layout->height > 0 ? layout->height : 1;
	double nx = (x - layout->x) / w, ny = (y - layout->y) / h;
	double mx = (x + 10 - layout->x) / w, my = (y + 10 - layout->y) / h;
	struct wlr_tablet *tablet = ti->tablet->tablet;
	struct wlr_event_tablet_tool_proximity in = {
		.device = ti->tablet,
		.tool = &ti->pen,
		.time_msec = ++ti->time_msec,
		.x = nx,
		.y = ny,
		.state = WLR_TABLET_TOOL_PROXIMITY_IN,
	};
	wl_signal_emit(&tablet->events.proximity, &in);
	struct wlr_event_tablet_tool_tip down = {
		.device = ti->tablet,
		.tool = &ti->pen,
		.time_msec = ++ti->time_msec,
		.x = nx,
		.y = ny,
		.state = WLR_TABLET_TOOL_TIP_DOWN,
	};
	wl_signal_emit(&tablet->events.tip, &down);
	struct wlr_event_tablet_tool_axis move = {
		.device = ti->tablet,
		.tool = &ti->pen,
		.time_msec = ++ti->time_msec,
		.updated_axes = WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y |
				WLR_TABLET_TOOL_AXIS_PRESSURE,
		.x = mx,
		.y = my,
		.dx = mx - nx,
		.dy = my - ny,
		.pressure = 0.5,
	};
	wl_signal_emit(&tablet->events.axis, &move);
	struct wlr_event_tablet_tool_tip up = {
		.device = ti->tablet,
		.tool = &ti->pen,
		.time_msec = ++ti->time_msec,
		.x = mx,
		.y = my,
		.state = WLR_TABLET_TOOL_TIP_UP,
	};
	wl_signal_emit(&tablet->events.tip, &up);
	struct wlr_event_tablet_tool_proximity out = {
		.device = ti->tablet,
		.tool = &ti->pen,
		.time_msec = ++ti->time_msec,
		.x = mx,
		.y = my,
		.state = WLR_TABLET_TOOL_PROXIMITY_OUT,
	};
	wl_signal_emit(&tablet->events.proximity, &out);
}

/* Presses and releases a pad button, turns the ring to an angle and
 * slides the strip to a position (0..1), each a finger's. */
static void pad_use(struct smtwc_test_input *ti, unsigned int button, double ring, double strip)
{
	struct wlr_tablet_pad *pad = ti->pad->tablet_pad;
	struct wlr_event_tablet_pad_button press = {
		.time_msec = ++ti->time_msec,
		.button = button,
		.state = WLR_BUTTON_PRESSED,
	};
	wl_signal_emit(&pad->events.button, &press);
	struct wlr_event_tablet_pad_button release = {
		.time_msec = ++ti->time_msec,
		.button = button,
		.state = WLR_BUTTON_RELEASED,
	};
	wl_signal_emit(&pad->events.button, &release);
	struct wlr_event_tablet_pad_ring turn = {
		.time_msec = ++ti->time_msec,
		.source = WLR_TABLET_PAD_RING_SOURCE_FINGER,
		.ring = 0,
		.position = ring,
	};
	wl_signal_emit(&pad->events.ring, &turn);
	struct wlr_event_tablet_pad_strip slide = {
		.time_msec = ++ti->time_msec,
		.source = WLR_TABLET_PAD_STRIP_SOURCE_FINGER,
		.strip = 0,
		.position = strip,
	};
	wl_signal_emit(&pad->events.strip, &slide);
}

static void answer_ok(struct json_writer *w)
{
	json_begin_object(w);
	json_bool(w, "ok", true);
	json_end_object(w);
}

static void answer_error(struct json_writer *w, const char *message)
{
	json_begin_object(w);
	json_string(w, "error", message);
	json_end_object(w);
}

void test_input_answer(struct smtwc_server *server, const char *what, const char *args,
		struct json_writer *w)
{
	const char *usage = "usage: input swipe FINGERS DX DY | input pinch FINGERS SCALE | "
			    "input tablet X Y | input pad BUTTON RING-DEGREES STRIP-POSITION";
	unsigned fingers, button;
	double c;
	double a, b;
	char end;
	args = args != NULL ? args : "";
	bool is_swipe = strcmp(what, "swipe") == 0 &&
			sscanf(args, "%u %lf %lf %c", &fingers, &a, &b, &end) == 3;
	bool is_pinch = strcmp(what, "pinch") == 0 &&
			sscanf(args, "%u %lf %c", &fingers, &a, &end) == 2;
	bool is_tablet = strcmp(what, "tablet") == 0 &&
			sscanf(args, "%lf %lf %c", &a, &b, &end) == 2;
	bool is_pad = strcmp(what, "pad") == 0 &&
			sscanf(args, "%u %lf %lf %c", &button, &a, &c, &end) == 3;
	if (!is_swipe && !is_pinch && !is_tablet && !is_pad) {
		answer_error(w, usage);
		return;
	}
	if (is_pad && (button >= PAD_BUTTONS || !(a >= 0 && a < 360) || !(c >= 0 && c <= 1))) {
		answer_error(w, "BUTTON must be 0 to 2, RING-DEGREES 0 to 360, STRIP-POSITION 0 to 1");
		return;
	}
	if ((is_swipe || is_pinch) && (fingers < 1 || fingers > 5)) {
		answer_error(w, "FINGERS must be 1 to 5");
		return;
	}
	struct smtwc_test_input *ti = test_input_get(server);
	if (ti == NULL) {
		answer_error(w, "input needs the headless backend");
		return;
	}
	if (is_swipe) {
		swipe(ti, fingers, a, b);
	} else if (is_pinch) {
		pinch(ti, fingers, a);
	} else if (is_tablet) {
		stroke(server, ti, a, b);
	} else {
		if (ti->pad == NULL && (ti->pad = pad_create(server, ti)) == NULL) {
			answer_error(w, "out of memory");
			return;
		}
		pad_use(ti, button, a, c);
	}
	answer_ok(w);
}

void test_input_finish(struct smtwc_server *server)
{
	struct smtwc_test_input *ti = server->test_input;
	if (ti == NULL) {
		return;
	}
	pad_destroy(ti);
	wl_signal_emit(&ti->pen.events.destroy, &ti->pen);
	free(ti);
	server->test_input = NULL;
}
