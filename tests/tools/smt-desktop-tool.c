/*
 * smt-desktop-tool: the desktop clients without a window that tests need
 * where Debian 12 has no program (no lswt, wlrctl or wlopm), one per verb,
 * each printing one line per event:
 *
 *   toplevels [--watch]        wlr-foreign-toplevel: prints
 *                              "toplevel TITLE|APP_ID|STATES|OUTPUTS|PARENT"
 *                              (PARENT: the parent window's title) for each
 *                              window and exits; with --watch, again on each
 *                              change ("closed TITLE" too) until killed.
 *   toplevels ACTION TITLE     sends ACTION (activate, minimize, unminimize,
 *                              maximize, unmaximize, fullscreen, close) to
 *                              the window titled TITLE, prints "sent ACTION"
 *                              and exits (status 1 without such a window).
 *   ime TEXT [--grab]          input-method-v2: each time it is activated,
 *                              commits TEXT once to the focused text field
 *                              ("activate", "deactivate", "unavailable");
 *                              with --grab it also grabs the keyboard and
 *                              prints "grab key CODE pressed|released".
 *                              Runs until killed.
 *   power on|off               wlr-output-power: sets every output's mode,
 *                              prints each "mode on|off" reported, exits 0
 *                              when every output reported the one asked for
 *                              in answer to the request.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wayland-client.h>
#include "input-method-unstable-v2-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"

enum {
	MAX_OUTPUTS = 16
};

struct tool {
	struct wl_display *display;
	struct wl_seat *seat;
	struct wl_output *outputs[MAX_OUTPUTS];
	int num_outputs;
	struct wl_registry *registry;
	struct zwlr_foreign_toplevel_manager_v1 *toplevels;
	struct wl_list toplevel_list; /* toplevel.link */
	struct zwp_input_method_manager_v2 *input_methods;
	struct zwlr_output_power_manager_v1 *power;
	const char *action, *action_title, *ime_text;
	bool action_sent;
	int power_replies; /* outputs that reported the mode asked for */
	uint32_t power_wanted;
	uint32_t ime_serial;
	bool ime_active, ime_was_active;
};

static void die(const char *what)
{
	fprintf(stderr, "smt-desktop-tool: %s\n", what);
	exit(1);
}

/* --- foreign toplevels ------------------------------------------------- */

struct toplevel {
	struct tool *tool;
	struct zwlr_foreign_toplevel_handle_v1 *handle;
	struct wl_list link; /* tool.toplevel_list */
	char *title, *app_id;
	char states[64];
	int outputs;
	struct toplevel *parent;
};

static void tl_title(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *title)
{
	struct toplevel *t = data;
	free(t->title);
	t->title = strdup(title);
}
static void tl_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *id)
{
	struct toplevel *t = data;
	free(t->app_id);
	t->app_id = strdup(id);
}
static void tl_output_enter(
		void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *output)
{
	((struct toplevel *)data)->outputs++;
}
static void tl_output_leave(
		void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *output)
{
	((struct toplevel *)data)->outputs--;
}
static void tl_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_array *states)
{
	struct toplevel *t = data;
	static const char *names[] = { "maximized", "minimized", "activated", "fullscreen" };
	t->states[0] = '\0';
	uint32_t *s;
	wl_array_for_each (s, states) {
		if (*s < 4) {
			if (t->states[0] != '\0') {
				strcat(t->states, ",");
			}
			strcat(t->states, names[*s]);
		}
	}
}

static void send_action(struct tool *tool, struct zwlr_foreign_toplevel_handle_v1 *h)
{
	const char *a = tool->action;
	if (strcmp(a, "activate") == 0) {
		zwlr_foreign_toplevel_handle_v1_activate(h, tool->seat);
	} else if (strcmp(a, "minimize") == 0) {
		zwlr_foreign_toplevel_handle_v1_set_minimized(h);
	} else if (strcmp(a, "unminimize") == 0) {
		zwlr_foreign_toplevel_handle_v1_unset_minimized(h);
	} else if (strcmp(a, "maximize") == 0) {
		zwlr_foreign_toplevel_handle_v1_set_maximized(h);
	} else if (strcmp(a, "unmaximize") == 0) {
		zwlr_foreign_toplevel_handle_v1_unset_maximized(h);
	} else if (strcmp(a, "fullscreen") == 0) {
		zwlr_foreign_toplevel_handle_v1_set_fullscreen(h, NULL);
	} else if (strcmp(a, "close") == 0) {
		zwlr_foreign_toplevel_handle_v1_close(h);
	}
}

static void tl_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *h)
{
	struct toplevel *t = data;
	const char *parent = t->parent != NULL && t->parent->title != NULL ? t->parent->title : "";
	printf("toplevel %s|%s|%s|%d|%s\n", t->title ? t->title : "", t->app_id ? t->app_id : "",
			t->states, t->outputs, parent);
	fflush(stdout);
	struct tool *tool = t->tool;
	if (tool->action != NULL && !tool->action_sent && t->title != NULL &&
			strcmp(t->title, tool->action_title) == 0) {
		tool->action_sent = true;
		send_action(tool, h);
		printf("sent %s\n", tool->action);
		fflush(stdout);
	}
}
static void toplevel_destroy(struct toplevel *t)
{
	struct toplevel *child;
	wl_list_for_each (child, &t->tool->toplevel_list, link) {
		if (child->parent == t) {
			child->parent = NULL;
		}
	}
	zwlr_foreign_toplevel_handle_v1_destroy(t->handle);
	wl_list_remove(&t->link);
	free(t->title);
	free(t->app_id);
	free(t);
}

static void tl_closed(void *data, struct zwlr_foreign_toplevel_handle_v1 *h)
{
	struct toplevel *t = data;
	printf("closed %s\n", t->title ? t->title : "");
	fflush(stdout);
	toplevel_destroy(t);
}
static void tl_parent(void *data, struct zwlr_foreign_toplevel_handle_v1 *h,
		struct zwlr_foreign_toplevel_handle_v1 *parent)
{
	struct toplevel *t = data;
	t->parent = parent != NULL ? zwlr_foreign_toplevel_handle_v1_get_user_data(parent) : NULL;
}
static const struct zwlr_foreign_toplevel_handle_v1_listener toplevel_listener = {
	tl_title,
	tl_app_id,
	tl_output_enter,
	tl_output_leave,
	tl_state,
	tl_done,
	tl_closed,
	tl_parent,
};

static void manager_toplevel(void *data, struct zwlr_foreign_toplevel_manager_v1 *m,
		struct zwlr_foreign_toplevel_handle_v1 *h)
{
	struct toplevel *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		die("out of memory");
	}
	t->tool = data;
	t->handle = h;
	wl_list_insert(&t->tool->toplevel_list, &t->link);
	zwlr_foreign_toplevel_handle_v1_add_listener(h, &toplevel_listener, t);
}
static void manager_finished(void *data, struct zwlr_foreign_toplevel_manager_v1 *m)
{
}
static const struct zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
	manager_toplevel,
	manager_finished,
};

/* --- input method ------------------------------------------------------ */

static void im_activate(void *data, struct zwp_input_method_v2 *im)
{
	((struct tool *)data)->ime_active = true;
}
static void im_deactivate(void *data, struct zwp_input_method_v2 *im)
{
	((struct tool *)data)->ime_active = false;
}
static void im_surrounding(void *data, struct zwp_input_method_v2 *im, const char *text,
		uint32_t cursor, uint32_t anchor)
{
}
static void im_cause(void *data, struct zwp_input_method_v2 *im, uint32_t cause)
{
}
static void im_content_type(
		void *data, struct zwp_input_method_v2 *im, uint32_t hint, uint32_t purpose)
{
}
/* State changes take effect on done; the commit must carry their count.
 * The text is committed once per activation, as a user composing it once
 * would; later state updates from the field (cursor moves) commit nothing. */
static void im_done(void *data, struct zwp_input_method_v2 *im)
{
	struct tool *tool = data;
	tool->ime_serial++;
	if (tool->ime_active == tool->ime_was_active) {
		return;
	}
	tool->ime_was_active = tool->ime_active;
	if (tool->ime_active) {
		zwp_input_method_v2_commit_string(im, tool->ime_text);
		zwp_input_method_v2_commit(im, tool->ime_serial);
		/* "activate" says the text is on its way: a test that ends the
		 * tool once it reads the line must not lose the commit still
		 * queued here (ASan beside two busy loops, session 39: foot
		 * read an empty line). */
		wl_display_flush(tool->display);
	}
	puts(tool->ime_active ? "activate" : "deactivate");
	fflush(stdout);
}
static void im_unavailable(void *data, struct zwp_input_method_v2 *im)
{
	puts("unavailable");
	fflush(stdout);
	exit(1);
}
static const struct zwp_input_method_v2_listener input_method_listener = {
	im_activate,
	im_deactivate,
	im_surrounding,
	im_cause,
	im_content_type,
	im_done,
	im_unavailable,
};

static void grab_keymap(void *data, struct zwp_input_method_keyboard_grab_v2 *grab, uint32_t format,
		int32_t fd, uint32_t size)
{
	close(fd);
}
static void grab_key(void *data, struct zwp_input_method_keyboard_grab_v2 *grab, uint32_t serial,
		uint32_t time, uint32_t key, uint32_t state)
{
	printf("grab key %u %s\n", key, state ? "pressed" : "released");
	fflush(stdout);
}
static void grab_modifiers(void *data, struct zwp_input_method_keyboard_grab_v2 *grab,
		uint32_t serial, uint32_t depressed, uint32_t latched, uint32_t locked,
		uint32_t group)
{
}
static void grab_repeat_info(void *data, struct zwp_input_method_keyboard_grab_v2 *grab,
		int32_t rate, int32_t delay)
{
}
static const struct zwp_input_method_keyboard_grab_v2_listener grab_listener = {
	grab_keymap,
	grab_key,
	grab_modifiers,
	grab_repeat_info,
};

/* --- output power ------------------------------------------------------ */

static void power_mode(void *data, struct zwlr_output_power_v1 *power, uint32_t mode)
{
	struct tool *tool = data;
	printf("mode %s\n", mode == ZWLR_OUTPUT_POWER_V1_MODE_ON ? "on" : "off");
	fflush(stdout);
	if (mode == tool->power_wanted) {
		tool->power_replies++;
	}
}
static void power_failed(void *data, struct zwlr_output_power_v1 *power)
{
	puts("failed");
	fflush(stdout);
	exit(1);
}
static const struct zwlr_output_power_v1_listener power_listener = { power_mode, power_failed };

/* --- set-up ------------------------------------------------------------ */

static void registry_global(void *data, struct wl_registry *registry, uint32_t name,
		const char *interface, uint32_t version)
{
	struct tool *t = data;
	if (strcmp(interface, wl_seat_interface.name) == 0 && t->seat == NULL) {
		t->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
	} else if (strcmp(interface, wl_output_interface.name) == 0 &&
			t->num_outputs < MAX_OUTPUTS) {
		t->outputs[t->num_outputs++] = wl_registry_bind(
				registry, name, &wl_output_interface, 1);
	} else if (strcmp(interface, zwlr_foreign_toplevel_manager_v1_interface.name) == 0) {
		t->toplevels = wl_registry_bind(registry, name,
				&zwlr_foreign_toplevel_manager_v1_interface,
				version < 3 ? version : 3);
	} else if (strcmp(interface, zwp_input_method_manager_v2_interface.name) == 0) {
		t->input_methods = wl_registry_bind(
				registry, name, &zwp_input_method_manager_v2_interface, 1);
	} else if (strcmp(interface, zwlr_output_power_manager_v1_interface.name) == 0) {
		t->power = wl_registry_bind(
				registry, name, &zwlr_output_power_manager_v1_interface, 1);
	}
}
static void registry_global_remove(void *d, struct wl_registry *r, uint32_t n)
{
}
static const struct wl_registry_listener registry_listener = {
	registry_global,
	registry_global_remove,
};

/* Everything the verbs that return made, so that leak checkers see none. */
static void tool_finish(struct tool *tool)
{
	struct toplevel *t, *tmp;
	wl_list_for_each_safe (t, tmp, &tool->toplevel_list, link) {
		toplevel_destroy(t);
	}
	if (tool->toplevels != NULL) {
		zwlr_foreign_toplevel_manager_v1_destroy(tool->toplevels);
	}
	if (tool->input_methods != NULL) {
		zwp_input_method_manager_v2_destroy(tool->input_methods);
	}
	if (tool->power != NULL) {
		zwlr_output_power_manager_v1_destroy(tool->power);
	}
	for (int i = 0; i < tool->num_outputs; i++) {
		wl_output_destroy(tool->outputs[i]);
	}
	if (tool->seat != NULL) {
		wl_seat_destroy(tool->seat);
	}
	wl_registry_destroy(tool->registry);
	wl_display_disconnect(tool->display);
}

static void usage(void)
{
	fputs("usage: smt-desktop-tool toplevels [--watch | ACTION TITLE] | ime TEXT [--grab] |\n"
	      "       power on|off\n",
			stderr);
	exit(2);
}

int main(int argc, char *argv[])
{
	if (argc < 2) {
		usage();
	}
	struct tool tool = { 0 };
	const char *verb = argv[1];
	tool.display = wl_display_connect(NULL);
	if (tool.display == NULL) {
		die("cannot connect to the Wayland display");
	}
	wl_list_init(&tool.toplevel_list);
	tool.registry = wl_display_get_registry(tool.display);
	wl_registry_add_listener(tool.registry, &registry_listener, &tool);
	wl_display_roundtrip(tool.display);
	bool watch = argc == 3 && strcmp(argv[2], "--watch") == 0;
	if (strcmp(verb, "toplevels") == 0 && (argc == 2 || argc == 4 || watch)) {
		if (tool.toplevels == NULL || tool.seat == NULL) {
			die("no zwlr_foreign_toplevel_manager_v1");
		}
		if (argc == 4) {
			tool.action = argv[2];
			tool.action_title = argv[3];
		}
		zwlr_foreign_toplevel_manager_v1_add_listener(
				tool.toplevels, &manager_listener, &tool);
		if (!watch) {
			/* The handles, then their first state and done events; then
			 * what the action caused has reached the compositor. */
			wl_display_roundtrip(tool.display);
			wl_display_roundtrip(tool.display);
			wl_display_roundtrip(tool.display);
			int status = tool.action == NULL || tool.action_sent ? 0 : 1;
			tool_finish(&tool);
			return status;
		}
	} else if (strcmp(verb, "ime") == 0 &&
			(argc == 3 || (argc == 4 && strcmp(argv[3], "--grab") == 0))) {
		if (tool.input_methods == NULL || tool.seat == NULL) {
			die("no zwp_input_method_manager_v2");
		}
		tool.ime_text = argv[2];
		struct zwp_input_method_v2 *im = zwp_input_method_manager_v2_get_input_method(
				tool.input_methods, tool.seat);
		zwp_input_method_v2_add_listener(im, &input_method_listener, &tool);
		if (argc == 4) {
			zwp_input_method_keyboard_grab_v2_add_listener(
					zwp_input_method_v2_grab_keyboard(im), &grab_listener,
					&tool);
		}
		wl_display_roundtrip(tool.display);
		puts("ready");
		fflush(stdout);
	} else if (strcmp(verb, "power") == 0 && argc == 3 &&
			(strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
		if (tool.power == NULL) {
			die("no zwlr_output_power_manager_v1");
		}
		tool.power_wanted = strcmp(argv[2], "on") == 0 ? ZWLR_OUTPUT_POWER_V1_MODE_ON :
								 ZWLR_OUTPUT_POWER_V1_MODE_OFF;
		struct zwlr_output_power_v1 *powers[MAX_OUTPUTS];
		for (int i = 0; i < tool.num_outputs; i++) {
			powers[i] = zwlr_output_power_manager_v1_get_output_power(
					tool.power, tool.outputs[i]);
			zwlr_output_power_v1_add_listener(powers[i], &power_listener, &tool);
		}
		/* Each output reports its current mode first, then the new one
		 * once the compositor has applied it. */
		wl_display_roundtrip(tool.display);
		tool.power_replies = 0;
		for (int i = 0; i < tool.num_outputs; i++) {
			zwlr_output_power_v1_set_mode(powers[i], tool.power_wanted);
		}
		wl_display_roundtrip(tool.display);
		int status = tool.power_replies == tool.num_outputs ? 0 : 1;
		for (int i = 0; i < tool.num_outputs; i++) {
			zwlr_output_power_v1_destroy(powers[i]);
		}
		tool_finish(&tool);
		return status;
	} else {
		usage();
	}
	while (wl_display_dispatch(tool.display) != -1) {
	}
	return 0;
}
