/* Unit tests for compositor/config (pure C, no compositor). */
#define _GNU_SOURCE
#include "compositor/config/config.h"
#include "tests/unit/unit_check.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------- */

struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void capture_begin(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(2);
	}
}

static void capture_end(struct capture *c)
{
	fclose(c->f);
	c->f = NULL;
}

static int count_lines(const char *s)
{
	int n = 0;
	for (; *s; s++) {
		n += *s == '\n';
	}
	return n;
}

static bool str_eq_nullable(const char *a, const char *b)
{
	if (!a || !b) {
		return a == b;
	}
	return strcmp(a, b) == 0;
}

/* Deep comparison; prints the first difference. */
static bool config_equal(const struct smtwc_config *a, const struct smtwc_config *b)
{
#define DIFF(what)                                               \
	do {                                                     \
		fprintf(stderr, "  config differs: %s\n", what); \
		return false;                                    \
	} while (0)
	if (a->modifier != b->modifier)
		DIFF("modifier");
	if (!str_eq_nullable(a->terminal, b->terminal))
		DIFF("terminal");
	if (!str_eq_nullable(a->cursor_theme, b->cursor_theme))
		DIFF("cursor_theme");
	if (a->cursor_size != b->cursor_size)
		DIFF("cursor_size");
	if (a->background != b->background)
		DIFF("background");
	if (a->border_width != b->border_width)
		DIFF("border_width");
	if (a->focused_border != b->focused_border)
		DIFF("focused_border");
	if (a->unfocused_border != b->unfocused_border)
		DIFF("unfocused_border");
	if (!str_eq_nullable(a->title_font, b->title_font))
		DIFF("title_font");
	if (a->title_height != b->title_height)
		DIFF("title_height");
	if (a->focused_title != b->focused_title || a->unfocused_title != b->unfocused_title ||
			a->focused_title_text != b->focused_title_text ||
			a->unfocused_title_text != b->unfocused_title_text)
		DIFF("title colours");
	const struct smtwc_keyboard_config *ka = &a->keyboard, *kb = &b->keyboard;
	if (!str_eq_nullable(ka->rules, kb->rules) || !str_eq_nullable(ka->model, kb->model) ||
			!str_eq_nullable(ka->layout, kb->layout) ||
			!str_eq_nullable(ka->variant, kb->variant) ||
			!str_eq_nullable(ka->options, kb->options))
		DIFF("keyboard names");
	if (ka->repeat_rate != kb->repeat_rate)
		DIFF("repeat_rate");
	if (ka->repeat_delay != kb->repeat_delay)
		DIFF("repeat_delay");
	if (a->binding_count != b->binding_count)
		DIFF("binding_count");
	for (size_t i = 0; i < a->binding_count; i++) {
		const struct smtwc_binding *x = &a->bindings[i], *y = &b->bindings[i];
		if (x->modifiers != y->modifiers || x->uses_mod != y->uses_mod ||
				x->keysym != y->keysym || x->action != y->action ||
				!str_eq_nullable(x->command, y->command))
			DIFF("binding");
	}
	if (a->startup_count != b->startup_count)
		DIFF("startup_count");
	for (size_t i = 0; i < a->startup_count; i++) {
		if (strcmp(a->startup[i], b->startup[i]) != 0)
			DIFF("startup");
	}
	if (a->output_count != b->output_count)
		DIFF("output_count");
	for (size_t i = 0; i < a->output_count; i++) {
		const struct smtwc_output_config *x = &a->outputs[i], *y = &b->outputs[i];
		if (strcmp(x->name, y->name) != 0 || x->has_mode != y->has_mode ||
				x->width != y->width || x->height != y->height ||
				x->refresh_mhz != y->refresh_mhz || x->has_scale != y->has_scale ||
				x->scale != y->scale || x->has_position != y->has_position ||
				x->x != y->x || x->y != y->y || x->has_enabled != y->has_enabled ||
				x->enabled != y->enabled || x->has_transform != y->has_transform ||
				x->transform != y->transform)
			DIFF("output");
	}
	const struct smtwc_scheduler_config *sa = &a->scheduler, *sb = &b->scheduler;
	if (sa->fifo != sb->fifo || sa->slice_ms != sb->slice_ms ||
			sa->lone_slice_ms != sb->lone_slice_ms ||
			sa->lone_after_ms != sb->lone_after_ms ||
			sa->priority_base != sb->priority_base ||
			sa->priority_min != sb->priority_min ||
			sa->priority_max != sb->priority_max || sa->input_boost != sb->input_boost)
		DIFF("scheduler");
	return true;
#undef DIFF
}

/* Loads text named "t" into a fresh config; returns the error count and the
 * messages (caller frees). */
static int load(struct smtwc_config *cfg, const char *text, char **messages)
{
	struct capture c;
	capture_begin(&c);
	CHECK(smtwc_config_init(cfg));
	int n = smtwc_config_load_string(cfg, "t", text, c.f);
	capture_end(&c);
	if (messages) {
		*messages = c.buf;
	} else {
		free(c.buf);
	}
	return n;
}

/* Text must produce exactly one error, on line `line`, containing `problem`,
 * and leave the configuration exactly at its defaults. */
static void expect_error_at(const char *text, int line, const char *problem, int src_line)
{
	struct smtwc_config cfg, def;
	char *msg;
	int n = load(&cfg, text, &msg);
	CHECK(smtwc_config_init(&def));
	char prefix[32];
	snprintf(prefix, sizeof(prefix), "t:%d: ", line);
	bool ok = n == 1 && count_lines(msg) == 1 && strncmp(msg, prefix, strlen(prefix)) == 0 &&
			strstr(msg, problem);
	bool same = config_equal(&cfg, &def);
	if (!ok || !same) {
		fprintf(stderr,
				"%s:%d: [%s] for input \"%s\": expected one error "
				"\"%s...%s\"%s, got %d: %s",
				__FILE__, src_line, current_test, text, prefix, problem,
				same ? "" : " and unchanged defaults", n, msg);
		failures++;
	}
	free(msg);
	smtwc_config_finish(&cfg);
	smtwc_config_finish(&def);
}

#define EXPECT_ERROR(text, line, problem) expect_error_at(text, line, problem, __LINE__)

static char *write_temp(const char *data, size_t len)
{
	char tmpl[] = "/tmp/smtwc-test-config-XXXXXX";
	int fd = mkstemp(tmpl);
	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	FILE *f = fdopen(fd, "w");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror("write temp");
		exit(2);
	}
	return strdup(tmpl);
}

/* ---- tests ---------------------------------------------------------------- */

static void test_defaults(void)
{
	current_test = "defaults";
	struct smtwc_config cfg;
	CHECK(smtwc_config_init(&cfg));
	CHECK_INT(cfg.modifier, SMTWC_MOD_LOGO);
	CHECK_STR(cfg.terminal, "foot");
	CHECK(cfg.cursor_theme == NULL);
	CHECK_INT(cfg.cursor_size, 24);
	CHECK_INT(cfg.background, 0x303040);
	CHECK_INT(cfg.border_width, 2);
	CHECK_INT(cfg.focused_border, 0x4c7899);
	CHECK_INT(cfg.unfocused_border, 0x3a3a3a);
	CHECK_STR(cfg.title_font, "sans 10");
	CHECK_INT(cfg.title_height, 0);
	CHECK_INT(cfg.focused_title, 0x285577);
	CHECK_INT(cfg.unfocused_title, 0x222222);
	CHECK_INT(cfg.focused_title_text, 0xffffff);
	CHECK_INT(cfg.unfocused_title_text, 0x888888);
	CHECK(cfg.keyboard.rules == NULL && cfg.keyboard.model == NULL &&
			cfg.keyboard.layout == NULL && cfg.keyboard.variant == NULL &&
			cfg.keyboard.options == NULL);
	CHECK_INT(cfg.keyboard.repeat_rate, 25);
	CHECK_INT(cfg.keyboard.repeat_delay, 600);
	CHECK_INT(cfg.startup_count, 0);
	CHECK_INT(cfg.output_count, 0);
	CHECK(smtwc_config_find_output(&cfg, "HEADLESS-1") == NULL);
	CHECK(!cfg.scheduler.fifo);
	/* every CPU this process may run on but the main thread's, at least 1 */
	cpu_set_t cpus;
	CHECK(sched_getaffinity(0, sizeof(cpus), &cpus) == 0);
	CHECK_INT(cfg.scheduler.workers, CPU_COUNT(&cpus) > 1 ? CPU_COUNT(&cpus) - 1 : 1);
	CHECK_INT(cfg.scheduler.slice_ms, 5);
	CHECK_INT(cfg.scheduler.lone_slice_ms, 15);
	CHECK_INT(cfg.scheduler.lone_after_ms, 1000);
	CHECK_INT(cfg.scheduler.priority_base, 0);
	CHECK_INT(cfg.scheduler.priority_min, -20);
	CHECK_INT(cfg.scheduler.priority_max, 20);
	CHECK_INT(cfg.scheduler.input_boost, 1);
	CHECK_INT(cfg.limits.client_fds, 96);
	CHECK_INT(cfg.limits.process_connections, 16);
	CHECK_INT(cfg.limits.first_window_reserve_mib, 64);
	CHECK_INT(cfg.limits.client_rings, 8);
	CHECK_INT(cfg.limits.client_pools, 32);
	CHECK_INT(cfg.limits.client_canvases, 1024);
	CHECK_INT(cfg.limits.client_surfaces, 4096);
	CHECK_INT(cfg.limits.client_fds_unread, 64);
	CHECK_INT(cfg.limits.process_canvases, 2048);
	CHECK_INT(cfg.limits.process_surfaces, 4096);
	CHECK_INT(cfg.limits.uid_canvases, 4096);
	CHECK_INT(cfg.limits.uid_surfaces, 8192);
	CHECK_INT(cfg.limits.uid_fds, 16384);
	CHECK_INT(cfg.limits.client_objects, 16384);
	CHECK_INT(cfg.limits.process_objects, 16384);
	CHECK_INT(cfg.limits.uid_objects, 32768);
	CHECK_INT(cfg.limits.first_window_reserve_objects, 1024);
	CHECK_INT(cfg.limits.uid_memory_mib, 1536);
	CHECK_INT(cfg.limits.uid_mappings, 12288);
	CHECK_INT(cfg.limits.uid_address_space_mib, 3145728);
	CHECK_INT(cfg.limits.first_window_reserve_surfaces, 64);
	CHECK_INT(cfg.limits.client_memory_mib, 256);
	CHECK_INT(cfg.limits.total_memory_mib, 2048);
	CHECK_INT(cfg.limits.fd_headroom, 256);
	CHECK_INT(cfg.limits.source_mime_types, 256);
	CHECK_INT(cfg.limits.source_mime_bytes, 65536);
	CHECK_INT(cfg.limits.surface_damage_rects, 64);
	CHECK_INT(cfg.limits.region_rects, 1024);
	CHECK_INT(cfg.limits.surface_cached_commits, 256);
	CHECK_INT(cfg.limits.surface_frame_callbacks, 64);
	CHECK_INT(cfg.limits.client_idle_inhibitors, 16);
	CHECK_INT(cfg.limits.client_screencopy_copies, 16);
	CHECK_INT(cfg.limits.frame_screencopy_copies, 1);
	CHECK_INT(cfg.limits.keymap_bytes, 262144);
	CHECK_INT(cfg.limits.keymap_includes, 16);
	CHECK_INT(cfg.limits.client_keymaps, 8);
	CHECK_INT(cfg.limits.keymap_compile_ms, 50);
	CHECK_INT(cfg.limits.keyboard_switches, 32);
	CHECK_INT(cfg.xwayland.sched_interval_ms, 5);
	CHECK_INT(cfg.xwayland.sched_max_ms, 15);
	CHECK_INT(cfg.xwayland.input_boost_us, 4000);
	CHECK_INT(cfg.xwayland.light_boost_pct, 25);
	CHECK_INT(cfg.xwayland.light_read_cap, 2048);

	CHECK_INT(cfg.binding_count, 7);
	const uint32_t L = SMTWC_MOD_LOGO, S = SMTWC_MOD_SHIFT;
	const struct {
		uint32_t mods;
		xkb_keysym_t sym;
		enum smtwc_action_kind action;
	} expected[] = {
		{ L, XKB_KEY_Return, SMTWC_ACTION_EXEC_TERMINAL },
		{ L | S, XKB_KEY_q, SMTWC_ACTION_CLOSE },
		{ L, XKB_KEY_Tab, SMTWC_ACTION_CYCLE },
		{ L | S, XKB_KEY_e, SMTWC_ACTION_QUIT },
		{ L, XKB_KEY_f, SMTWC_ACTION_FULLSCREEN },
		{ L, XKB_KEY_m, SMTWC_ACTION_MAXIMIZE },
		{ L, XKB_KEY_n, SMTWC_ACTION_MINIMIZE },
	};
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct smtwc_binding *b = smtwc_config_find_binding(
				&cfg, expected[i].mods, expected[i].sym);
		CHECK(b != NULL);
		if (b) {
			CHECK_INT(b->action, expected[i].action);
			CHECK(b->uses_mod);
			CHECK_INT(smtwc_binding_modifiers(&cfg, b), expected[i].mods);
		}
	}
	const struct smtwc_binding *b = smtwc_config_find_binding(&cfg, L, XKB_KEY_Return);
	CHECK(b && smtwc_binding_command(&cfg, b) &&
			strcmp(smtwc_binding_command(&cfg, b), "foot") == 0);
	b = smtwc_config_find_binding(&cfg, L | S, XKB_KEY_q);
	CHECK(b && smtwc_binding_command(&cfg, b) == NULL);
	/* unbound combos */
	CHECK(smtwc_config_find_binding(&cfg, L, XKB_KEY_q) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, 0, XKB_KEY_Return) == NULL);

	/* an empty file and comments only change nothing */
	struct smtwc_config def;
	CHECK(smtwc_config_init(&def));
	CHECK_INT(smtwc_config_load_string(&cfg, "t", "", stderr), 0);
	CHECK_INT(smtwc_config_load_string(&cfg, "t",
				  "# comment\n\n   \t\n  # indented comment\n[general]\n", stderr),
			0);
	CHECK(config_equal(&cfg, &def));
	smtwc_config_finish(&def);

	smtwc_config_finish(&cfg);
	smtwc_config_finish(&cfg); /* twice is safe */
	CHECK(cfg.bindings == NULL && cfg.terminal == NULL);
}

static void test_all_keys(void)
{
	current_test = "all keys";
	const char *text = "# full configuration\n"
			   "[general]\n"
			   "modifier = alt\n"
			   "terminal = xterm -e tmux\n"
			   "cursor-theme = Adwaita\n"
			   "cursor-size = 32\n"
			   "background = #102030\n"
			   "border-width = 0\n"
			   "focused-border = #AbCdEf\n"
			   "unfocused-border = #000001\n"
			   "title-font = DejaVu Sans Bold 11\n"
			   "title-height = 30\n"
			   "focused-title = #010203\n"
			   "unfocused-title = #040506\n"
			   "focused-title-text = #070809\n"
			   "unfocused-title-text = #0a0b0c\n"
			   "\n"
			   "[keyboard]\n"
			   "layout = us,de\n"
			   "model = pc105\n"
			   "rules = evdev\n"
			   "variant = ,nodeadkeys\n"
			   "options = grp:alt_shift_toggle,ctrl:nocaps\n"
			   "repeat-rate = 40\n"
			   "repeat-delay = 250\n"
			   "\n"
			   "[bindings]\n"
			   "Mod+Shift+Return = exec foot --server\n"
			   "Ctrl+Alt+Delete = quit\n"
			   "Super+Control+Mod3+Mod5+F1 = close\n"
			   "Mod4+Mod1+x = exec-terminal\n"
			   "\n"
			   "[startup]\n"
			   "exec = swaybg -c '#000000'\n"
			   "exec = foot\n"
			   "\n"
			   "[output HEADLESS-1]\n"
			   "mode = 1920x1080@59.94\n"
			   "scale = 1.5\n"
			   "position = -1280, 40\n"
			   "enabled = false\n"
			   "transform = flipped-270\n"
			   "\n"
			   "[scheduler]\n"
			   "mode = fifo\n"
			   "workers = 3\n"
			   "slice-ms = 1\n"
			   "lone-slice-ms = 1000\n"
			   "lone-after-ms = 250\n"
			   "priority-base = 5\n"
			   "priority-min = 5\n"
			   "priority-max = 10\n"
			   "input-boost = 20\n"
			   "\n"
			   "[limits]\n"
			   "client-fds = 20\n"
			   "client-rings = 2\n"
			   "client-pools = 1\n"
			   "client-canvases = 7\n"
			   "client-surfaces = 9\n"
			   "uid-surfaces = 11\n"
			   "client-memory-mib = 16\n"
			   "total-memory-mib = 100\n"
			   "fd-headroom = 64\n"
			   "surface-damage-rects = 0\n"
			   "source-mime-types = 12\n"
			   "\n"
			   "[xwayland]\n"
			   "sched-interval-ms = 3\n"
			   "sched-max-ms = 30\n"
			   "input-boost-us = 0\n"
			   "light-boost-pct = 10\n"
			   "light-read-cap = 0\n";
	struct smtwc_config cfg;
	char *msg;
	CHECK_INT(load(&cfg, text, &msg), 0);
	CHECK_STR(msg, "");
	free(msg);

	CHECK_INT(cfg.modifier, SMTWC_MOD_ALT);
	CHECK_STR(cfg.terminal, "xterm -e tmux");
	CHECK_STR(cfg.cursor_theme, "Adwaita");
	CHECK_INT(cfg.cursor_size, 32);
	CHECK_INT(cfg.background, 0x102030);
	CHECK_INT(cfg.border_width, 0);
	CHECK_STR(cfg.title_font, "DejaVu Sans Bold 11");
	CHECK_INT(cfg.title_height, 30);
	CHECK_INT(cfg.focused_title, 0x010203);
	CHECK_INT(cfg.unfocused_title, 0x040506);
	CHECK_INT(cfg.focused_title_text, 0x070809);
	CHECK_INT(cfg.unfocused_title_text, 0x0a0b0c);
	CHECK_INT(cfg.focused_border, 0xabcdef);
	CHECK_INT(cfg.unfocused_border, 0x000001);

	CHECK_STR(cfg.keyboard.layout, "us,de");
	CHECK_STR(cfg.keyboard.model, "pc105");
	CHECK_STR(cfg.keyboard.rules, "evdev");
	CHECK_STR(cfg.keyboard.variant, ",nodeadkeys");
	CHECK_STR(cfg.keyboard.options, "grp:alt_shift_toggle,ctrl:nocaps");
	CHECK_INT(cfg.keyboard.repeat_rate, 40);
	CHECK_INT(cfg.keyboard.repeat_delay, 250);

	const uint32_t A = SMTWC_MOD_ALT, S = SMTWC_MOD_SHIFT, C = SMTWC_MOD_CTRL;
	CHECK_INT(cfg.binding_count, 11);
	const struct smtwc_binding *b = smtwc_config_find_binding(&cfg, A | S, XKB_KEY_Return);
	CHECK(b && b->action == SMTWC_ACTION_EXEC);
	CHECK(b && b->command && strcmp(b->command, "foot --server") == 0);
	b = smtwc_config_find_binding(&cfg, C | A, XKB_KEY_Delete);
	CHECK(b && b->action == SMTWC_ACTION_QUIT && !b->uses_mod);
	b = smtwc_config_find_binding(
			&cfg, SMTWC_MOD_LOGO | C | SMTWC_MOD_MOD3 | SMTWC_MOD_MOD5, XKB_KEY_F1);
	CHECK(b && b->action == SMTWC_ACTION_CLOSE);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_LOGO | A, XKB_KEY_x);
	CHECK(b && b->action == SMTWC_ACTION_EXEC_TERMINAL);
	CHECK(b && strcmp(smtwc_binding_command(&cfg, b), "xterm -e tmux") == 0);
	/* the defaults follow modifier = alt */
	b = smtwc_config_find_binding(&cfg, A, XKB_KEY_Return);
	CHECK(b && b->action == SMTWC_ACTION_EXEC_TERMINAL);
	CHECK(smtwc_config_find_binding(&cfg, SMTWC_MOD_LOGO, XKB_KEY_Return) == NULL);

	CHECK_INT(cfg.startup_count, 2);
	if (cfg.startup_count == 2) {
		/* '#' not preceded by a blank is not a comment */
		CHECK_STR(cfg.startup[0], "swaybg -c '#000000'");
		CHECK_STR(cfg.startup[1], "foot");
	}

	CHECK_INT(cfg.output_count, 1);
	const struct smtwc_output_config *o = smtwc_config_find_output(&cfg, "HEADLESS-1");
	CHECK(o != NULL);
	if (o) {
		CHECK_STR(o->name, "HEADLESS-1");
		CHECK(o->has_mode && o->width == 1920 && o->height == 1080);
		CHECK_INT(o->refresh_mhz, 59940);
		CHECK(o->has_scale && o->scale == 1.5);
		CHECK(o->has_position && o->x == -1280 && o->y == 40);
		CHECK(o->has_enabled && !o->enabled);
		CHECK(o->has_transform && o->transform == SMTWC_TRANSFORM_FLIPPED_270);
	}
	CHECK(smtwc_config_find_output(&cfg, "headless-1") == NULL);

	CHECK(cfg.scheduler.fifo);
	CHECK_INT(cfg.scheduler.workers, 3);
	CHECK_INT(cfg.scheduler.slice_ms, 1);
	CHECK_INT(cfg.scheduler.lone_slice_ms, 1000);
	CHECK_INT(cfg.scheduler.lone_after_ms, 250);
	CHECK_INT(cfg.scheduler.priority_base, 5);
	CHECK_INT(cfg.scheduler.priority_min, 5);
	CHECK_INT(cfg.scheduler.priority_max, 10);
	CHECK_INT(cfg.scheduler.input_boost, 20);
	CHECK_INT(cfg.limits.client_fds, 20);
	CHECK_INT(cfg.limits.client_rings, 2);
	CHECK_INT(cfg.limits.client_pools, 1);
	CHECK_INT(cfg.limits.client_canvases, 7);
	CHECK_INT(cfg.limits.client_surfaces, 9);
	CHECK_INT(cfg.limits.uid_surfaces, 11);
	CHECK_INT(cfg.limits.client_memory_mib, 16);
	CHECK_INT(cfg.limits.total_memory_mib, 100);
	CHECK_INT(cfg.limits.fd_headroom, 64);
	CHECK_INT(cfg.limits.surface_damage_rects, 0);
	CHECK_INT(cfg.limits.source_mime_types, 12);
	CHECK_INT(cfg.xwayland.sched_interval_ms, 3);
	CHECK_INT(cfg.xwayland.sched_max_ms, 30);
	CHECK_INT(cfg.xwayland.input_boost_us, 0);
	CHECK_INT(cfg.xwayland.light_boost_pct, 10);
	CHECK_INT(cfg.xwayland.light_read_cap, 0);
	smtwc_config_finish(&cfg);
}

static void test_values(void)
{
	current_test = "values";
	struct smtwc_config cfg;
	const struct smtwc_output_config *o;

	/* every modifier name and transform */
	const struct {
		const char *name;
		uint32_t bit;
	} mods[] = {
		{ "logo", SMTWC_MOD_LOGO },
		{ "Super", SMTWC_MOD_LOGO },
		{ "alt", SMTWC_MOD_ALT },
		{ "CTRL", SMTWC_MOD_CTRL },
		{ "control", SMTWC_MOD_CTRL },
		{ "shift", SMTWC_MOD_SHIFT },
		{ "mod3", SMTWC_MOD_MOD3 },
		{ "mod5", SMTWC_MOD_MOD5 },
	};
	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char text[64];
		snprintf(text, sizeof(text), "[general]\nmodifier = %s\n", mods[i].name);
		CHECK_INT(load(&cfg, text, NULL), 0);
		CHECK_INT(cfg.modifier, mods[i].bit);
		smtwc_config_finish(&cfg);
	}
	const char *transforms[] = { "normal", "90", "180", "270", "flipped", "flipped-90",
		"flipped-180", "flipped-270" };
	for (int i = 0; i < 8; i++) {
		char text[64];
		snprintf(text, sizeof(text), "[output X]\ntransform = %s\n", transforms[i]);
		CHECK_INT(load(&cfg, text, NULL), 0);
		o = smtwc_config_find_output(&cfg, "X");
		CHECK(o && o->has_transform && (int)o->transform == i);
		CHECK(o && !o->has_mode && !o->has_scale && !o->has_position && !o->has_enabled);
		smtwc_config_finish(&cfg);
	}

	/* modes */
	const struct {
		const char *mode;
		int w, h, mhz;
	} modes[] = {
		{ "1280x720", 1280, 720, 0 },
		{ "1920x1080@60", 1920, 1080, 60000 },
		{ "1920x1080@60Hz", 1920, 1080, 60000 },
		{ "1920x1080@59.94", 1920, 1080, 59940 },
		{ "800x600@75.0", 800, 600, 75000 },
		{ "800x600@59.9996", 800, 600, 60000 },
		{ "800x600@143.9124", 800, 600, 143912 },
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char text[64];
		snprintf(text, sizeof(text), "[output X]\nmode = %s\n", modes[i].mode);
		CHECK_INT(load(&cfg, text, NULL), 0);
		o = smtwc_config_find_output(&cfg, "X");
		CHECK(o && o->has_mode);
		if (o) {
			CHECK_INT(o->width, modes[i].w);
			CHECK_INT(o->height, modes[i].h);
			CHECK_INT(o->refresh_mhz, modes[i].mhz);
		}
		smtwc_config_finish(&cfg);
	}

	/* scale bounds, booleans, inline comments, whitespace, CRLF */
	CHECK_INT(load(&cfg,
				  "[output A]\r\n"
				  "scale = 10\r\n"
				  "enabled = true   # on\r\n"
				  "  position=0,0\r\n"
				  "[output B] # comment after a header\n"
				  "\tscale\t=\t0.25\t\n"
				  "[general]\n"
				  "background = #303041   # a comment\n"
				  "terminal = foot # the terminal\n"
				  "cursor-theme =Adwaita#not-a-comment\n",
				  NULL),
			0);
	o = smtwc_config_find_output(&cfg, "A");
	CHECK(o && o->scale == 10.0 && o->has_enabled && o->enabled && o->has_position &&
			o->x == 0 && o->y == 0);
	o = smtwc_config_find_output(&cfg, "B");
	CHECK(o && o->has_scale && o->scale == 0.25);
	CHECK_INT(cfg.background, 0x303041);
	CHECK_STR(cfg.terminal, "foot");
	CHECK_STR(cfg.cursor_theme, "Adwaita#not-a-comment");
	smtwc_config_finish(&cfg);

	/* later values win; duplicate output sections merge */
	CHECK_INT(load(&cfg,
				  "[general]\nborder-width = 3\nborder-width = 4\n"
				  "[output A]\nscale = 2\n[output B]\nscale = 3\n"
				  "[output A]\nmode = 640x480\n",
				  NULL),
			0);
	CHECK_INT(cfg.border_width, 4);
	CHECK_INT(cfg.output_count, 2);
	o = smtwc_config_find_output(&cfg, "A");
	CHECK(o && o->has_scale && o->scale == 2.0 && o->has_mode && o->width == 640);
	smtwc_config_finish(&cfg);

	/* priorities may be given in any order */
	CHECK_INT(load(&cfg,
				  "[scheduler]\npriority-base = 15\n"
				  "priority-min = 10\n",
				  NULL),
			0);
	CHECK_INT(cfg.scheduler.priority_base, 15);
	CHECK_INT(cfg.scheduler.priority_min, 10);
	smtwc_config_finish(&cfg);

	CHECK_STR(smtwc_action_name(SMTWC_ACTION_MINIMIZE), "minimize");
	CHECK_STR(smtwc_action_name(SMTWC_ACTION_NONE), "none");
	float rgba[4];
	smtwc_color_to_rgba(0xff0033, rgba);
	CHECK(rgba[0] == 1.0f && rgba[1] == 0.0f && rgba[2] == 0.2f && rgba[3] == 1.0f);
}

static void test_errors(void)
{
	current_test = "errors";
	/* general */
	EXPECT_ERROR("[general]\nmodifier = hyper\n", 2,
			"invalid modifier 'hyper' (expected logo, alt, ctrl, shift, mod3, mod5)");
	EXPECT_ERROR("[general]\nmodifier = mod\n", 2, "invalid modifier 'mod'");
	EXPECT_ERROR("[general]\nterminal =\n", 2, "missing value for 'terminal'");
	EXPECT_ERROR("[general]\nterminal = # comment\n", 2, "missing value for 'terminal'");
	EXPECT_ERROR("[general]\ncursor-theme =   \n", 2, "missing value");
	EXPECT_ERROR("[general]\ncursor-size = 0\n", 2,
			"invalid value '0' for 'cursor-size' (expected an integer from 1 to 512)");
	EXPECT_ERROR("[general]\ncursor-size = 24px\n", 2, "invalid value '24px'");
	EXPECT_ERROR("[general]\ncursor-size = 99999999999999999999\n", 2, "invalid value");
	EXPECT_ERROR("[general]\ncursor-size = 0x18\n", 2, "invalid value");
	EXPECT_ERROR("[general]\nbackground = 303040\n", 2,
			"invalid colour '303040' for 'background' (expected #RRGGBB)");
	EXPECT_ERROR("[general]\nbackground = #30304\n", 2, "invalid colour");
	EXPECT_ERROR("[general]\nbackground = #3030400\n", 2, "invalid colour");
	EXPECT_ERROR("[general]\nfocused-border = #zzzzzz\n", 2, "invalid colour");
	EXPECT_ERROR("[general]\nunfocused-border = red\n", 2, "invalid colour");
	EXPECT_ERROR("[general]\nborder-width = -1\n", 2,
			"invalid value '-1' for 'border-width' (expected an integer from 0 to 100)");
	EXPECT_ERROR("[general]\ncolour = red\n", 2,
			"unknown key 'colour' in [general] (expected modifier, terminal, "
			"cursor-theme, cursor-size, background, border-width, "
			"focused-border, unfocused-border, title-font, title-height, focused-title, "
			"unfocused-title, focused-title-text, unfocused-title-text)");
	EXPECT_ERROR("[general]\nModifier = alt\n", 2, "unknown key 'Modifier'");
	/* keyboard */
	EXPECT_ERROR("[keyboard]\nrepeat-rate = fast\n", 2,
			"invalid value 'fast' for 'repeat-rate'");
	EXPECT_ERROR("[keyboard]\nrepeat-delay = -5\n", 2, "invalid value '-5' for 'repeat-delay'");
	EXPECT_ERROR("[keyboard]\nlayout =\n", 2, "missing value for 'layout'");
	EXPECT_ERROR("[keyboard]\nkeymap = us\n", 2,
			"unknown key 'keymap' in [keyboard] (expected layout, model, rules, "
			"variant, options, repeat-rate, repeat-delay)");
	/* bindings */
	EXPECT_ERROR("# my bindings\n\n[bindings]\nMod+q = clsoe\n", 4,
			"unknown action 'clsoe' (expected exec, exec-terminal, close, cycle, "
			"quit, maximize, fullscreen, minimize, none)");
	EXPECT_ERROR("[bindings]\nMod+x = exec\n", 2, "action 'exec' needs a command");
	EXPECT_ERROR("[bindings]\nMod+x = exec   # comment\n", 2, "action 'exec' needs a command");
	EXPECT_ERROR("[bindings]\nMod+x = close now\n", 2,
			"action 'close' takes no argument (got 'now')");
	EXPECT_ERROR("[bindings]\nHyper+x = close\n", 2, "unknown modifier 'Hyper' in 'Hyper+x'");
	EXPECT_ERROR("[bindings]\nMod+Caps+x = close\n", 2, "unknown modifier 'Caps'");
	EXPECT_ERROR("[bindings]\nMod2+x = close\n", 2, "unknown modifier 'Mod2'");
	EXPECT_ERROR("[bindings]\nMod+nosuchkey = close\n", 2,
			"unknown key 'nosuchkey' in 'Mod+nosuchkey'");
	EXPECT_ERROR("[bindings]\nMod+Shift = close\n", 2, "unknown key 'Shift'");
	EXPECT_ERROR("[bindings]\nMod+ = close\n", 2, "empty part in key combination 'Mod+'");
	EXPECT_ERROR("[bindings]\nMod++x = close\n", 2, "empty part");
	EXPECT_ERROR("[bindings]\nMod+Return\n", 2, "expected 'key = value', got 'Mod+Return'");
	EXPECT_ERROR("[bindings]\n = close\n", 2, "missing key before '='");
	EXPECT_ERROR("[bindings]\nMod+n =\n", 2, "missing value for 'Mod+n'");
	/* startup */
	EXPECT_ERROR("[startup]\nrun = foot\n", 2,
			"unknown key 'run' in [startup] (expected exec)");
	EXPECT_ERROR("[startup]\nexec =\n", 2, "missing value for 'exec'");
	/* outputs: no output section is created by bad lines */
	const char *bad_modes[] = { "1920x", "x1080", "1920", "1920x1080@", "0x1080", "1920x0",
		"-1920x1080", "1920x+1080", "1920x1080@0", "1920x1080@-60", "1920x1080@60.5.5",
		"1920x1080@.5", "1920x1080@60.", "1920X1080", "1920 x 1080", "99999x1080",
		"1920x1080@2000", "auto", "1920x1080@60Hzz" };
	for (size_t i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]); i++) {
		char text[96], problem[96];
		snprintf(text, sizeof(text), "[output X]\nmode = %s\n", bad_modes[i]);
		snprintf(problem, sizeof(problem),
				"invalid mode '%s' (expected "
				"WIDTHxHEIGHT or WIDTHxHEIGHT@HZ",
				bad_modes[i]);
		EXPECT_ERROR(text, 2, problem);
	}
	const char *bad_scales[] = { "0", "0.0", "10.001", "11", "-1", "abc", "nan", "inf", "1e0",
		"1,5", ".5", "1." };
	for (size_t i = 0; i < sizeof(bad_scales) / sizeof(bad_scales[0]); i++) {
		char text[96], problem[96];
		snprintf(text, sizeof(text), "[output X]\nscale = %s\n", bad_scales[i]);
		snprintf(problem, sizeof(problem),
				"invalid scale '%s' (expected a "
				"number greater than 0 and at most 10)",
				bad_scales[i]);
		EXPECT_ERROR(text, 2, problem);
	}
	const char *bad_positions[] = { "1", "1,", ",1", "1,2,3", "a,b", "1;2", "2000000,0" };
	for (size_t i = 0; i < sizeof(bad_positions) / sizeof(bad_positions[0]); i++) {
		char text[96], problem[96];
		snprintf(text, sizeof(text), "[output X]\nposition = %s\n", bad_positions[i]);
		snprintf(problem, sizeof(problem),
				"invalid position '%s' "
				"(expected X,Y",
				bad_positions[i]);
		EXPECT_ERROR(text, 2, problem);
	}
	EXPECT_ERROR("[output X]\nenabled = maybe\n", 2,
			"invalid value 'maybe' for 'enabled' (expected true, false)");
	EXPECT_ERROR("[output X]\ntransform = 45\n", 2,
			"invalid transform '45' (expected normal, 90, 180, 270, flipped, "
			"flipped-90, flipped-180, flipped-270)");
	EXPECT_ERROR("[output X]\nrotate = 90\n", 2,
			"unknown key 'rotate' in [output X] (expected mode, scale, position, "
			"enabled, transform)");
	EXPECT_ERROR("[output]\nscale = 2\n", 1,
			"missing output name in [output] (use [output *] for every output)");
	/* scheduler */
	EXPECT_ERROR("[scheduler]\nmode = rr\n", 2,
			"invalid scheduler mode 'rr' (expected fair, fifo)");
	EXPECT_ERROR("[scheduler]\nworkers = 65\n", 2, "invalid value '65'");
	EXPECT_ERROR("[scheduler]\nslice-ms = 0\n", 2,
			"invalid value '0' for 'slice-ms' (expected an integer from 1 to 1000)");
	EXPECT_ERROR("[scheduler]\nslice-ms = 1001\n", 2, "invalid value '1001'");
	EXPECT_ERROR("[scheduler]\nlone-slice-ms = 0\n", 2,
			"for 'lone-slice-ms' (expected an integer from 1 to 1000)");
	EXPECT_ERROR("[scheduler]\nlone-after-ms = -1\n", 2,
			"invalid value '-1' for 'lone-after-ms'");
	EXPECT_ERROR("[scheduler]\ninput-boost = 21\n", 2,
			"invalid value '21' for 'input-boost' (expected an integer from 0 to 20)");
	EXPECT_ERROR("[scheduler]\npriority-base = 21\n", 2,
			"'priority-base' (expected an integer from -20 to 20)");
	EXPECT_ERROR("[scheduler]\npriority-min = -21\n", 2,
			"invalid value '-21' for 'priority-min'");
	EXPECT_ERROR("[scheduler]\npriority-max = 100\n", 2, "'priority-max'");
	EXPECT_ERROR("[scheduler]\npriority-min = 5\n", 2,
			"priority-min (5) <= priority-base (0) <= priority-max (20) does not hold");
	EXPECT_ERROR("[scheduler]\npriority-max = 3\npriority-base = 4\n\n", 3, "does not hold");
	EXPECT_ERROR("[scheduler]\npriority-min = 1\npriority-max = -1\n"
		     "priority-base = 0\n",
			4, "priority-min (1) <= priority-base (0)");
	EXPECT_ERROR("[scheduler]\nquantum = 5\n", 2,
			"unknown key 'quantum' in [scheduler] (expected mode, workers, worker-nice, "
			"slice-ms, lone-slice-ms, lone-after-ms, priority-base, priority-min, "
			"priority-max, input-boost, fifo-commands, idle-praise-ms, "
			"input-boost-interval-ms, boost-lane)");
	EXPECT_ERROR("[limits]\nclient-fds = 2\n", 2,
			"invalid value '2' for 'client-fds' (expected an integer from 3 to 1000000)");
	EXPECT_ERROR("[limits]\nrings = 2\n", 2,
			"unknown key 'rings' in [limits] (expected client-fds, client-fds-in-flight, "
			"client-fds-unread, client-rings, "
			"client-pools, client-canvases, client-surfaces, client-objects, client-memory-mib, "
			"client-mappings, "
			"client-address-space-mib, "
			"process-connections, process-fds, process-memory-mib, process-mappings, "
			"process-address-space-mib, process-canvases, process-surfaces, process-objects, "
			"uid-connections, "
			"uid-fds, uid-memory-mib, uid-mappings, uid-address-space-mib, "
			"uid-canvases, uid-surfaces, uid-objects, total-connections, "
			"total-memory-mib, total-mappings, total-address-space-mib, "
			"first-window-reserve-mib, first-window-reserve-fds, "
			"first-window-reserve-surfaces, first-window-reserve-objects, fd-headroom, "
			"source-mime-types, source-mime-bytes, surface-damage-rects, region-rects, "
			"surface-cached-commits, surface-frame-callbacks, client-idle-inhibitors, "
			"client-screencopy-copies, frame-screencopy-copies, keymap-bytes, keymap-includes, "
			"client-keymaps, keymap-compile-ms, keyboard-switches, "
			"x11-client-windows, x11-windows, x11-first-windows, x11-client-selection-transfers, "
			"x11-selection-transfers, x11-client-pastes)");
	EXPECT_ERROR("[xwayland]\nsched-interval-ms = 0\n", 2,
			"invalid value '0' for 'sched-interval-ms' (expected an integer from 1 to 1000)");
	EXPECT_ERROR("[xwayland]\nsched-interval = 2\n", 2,
			"unknown key 'sched-interval' in [xwayland] (expected sched-interval-ms, "
			"sched-max-ms, input-boost-us, light-boost-pct, light-read-cap)");
	EXPECT_ERROR("[xwayland]\ninput-boost-us = 100001\n", 2,
			"invalid value '100001' for 'input-boost-us' (expected an integer from 0 to "
			"100000)");
	EXPECT_ERROR("[xwayland]\nlight-boost-pct = 101\n", 2,
			"invalid value '101' for 'light-boost-pct' (expected an integer from 0 to "
			"100)");
	EXPECT_ERROR("[xwayland]\nlight-read-cap = 16385\n", 2,
			"invalid value '16385' for 'light-read-cap' (expected an integer from 0 to "
			"16384)");
	/* structure */
	EXPECT_ERROR("modifier = alt\n", 1, "'modifier' is outside of any section");
	EXPECT_ERROR("[colours]\nbackground = #ffffff\nnonsense\n", 1,
			"unknown section '[colours]' (expected general, keyboard, bindings, "
			"startup, output NAME, scheduler, limits, xwayland)");
	EXPECT_ERROR("[General]\nmodifier = alt\n", 1, "unknown section '[General]'");
	EXPECT_ERROR("[outputs X]\nscale = 2\n", 1, "unknown section '[outputs X]'");
	EXPECT_ERROR("[general\nmodifier = alt\n", 1, "missing ']' in section header '[general'");
	EXPECT_ERROR("[general] modifier = alt\nmodifier = alt\n", 1,
			"unexpected text 'modifier = alt' after section header");
	EXPECT_ERROR("[general]\njunk\n", 2, "expected 'key = value', got 'junk'");
	/* control characters are not echoed */
	EXPECT_ERROR("[general]\nterminal\033[31m\n", 2, "got 'terminal?[31m'");

	/* a bad line is skipped, loading goes on, a later good line applies */
	struct smtwc_config cfg;
	char *msg;
	int n = load(&cfg,
			"[general]\n"
			"border-width = 3\n"
			"border-width = wide\n"
			"modifier = hyper\n"
			"[nope]\n"
			"terminal = ignored\n"
			"[bindings]\n"
			"Mod+q = clsoe\n"
			"Mod+w = close\n"
			"[general]\n"
			"terminal = xterm\n",
			&msg);
	CHECK_INT(n, 4);
	CHECK_INT(count_lines(msg), 4);
	CHECK(strstr(msg, "t:3: invalid value 'wide'") != NULL);
	CHECK(strstr(msg, "t:4: invalid modifier 'hyper'") != NULL);
	CHECK(strstr(msg, "t:5: unknown section '[nope]'") != NULL);
	CHECK(strstr(msg, "t:8: unknown action 'clsoe'") != NULL);
	CHECK_INT(cfg.border_width, 3);
	CHECK_INT(cfg.modifier, SMTWC_MOD_LOGO);
	CHECK_STR(cfg.terminal, "xterm");
	CHECK(smtwc_config_find_binding(&cfg, SMTWC_MOD_LOGO, XKB_KEY_q) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, SMTWC_MOD_LOGO, XKB_KEY_w) != NULL);
	free(msg);
	smtwc_config_finish(&cfg);

	/* NULL error stream: still counted; NULL name */
	CHECK(smtwc_config_init(&cfg));
	CHECK_INT(smtwc_config_load_string(&cfg, NULL, "x = y\n[a]\n", NULL), 2);
	struct capture c;
	capture_begin(&c);
	CHECK_INT(smtwc_config_load_string(&cfg, NULL, "x = y\n", c.f), 1);
	capture_end(&c);
	CHECK(strncmp(c.buf, "<string>:1: ", 12) == 0);
	free(c.buf);
	smtwc_config_finish(&cfg);

	/* many errors: all counted, the output is bounded */
	size_t size = 300 * 16 + 16;
	char *text = malloc(size);
	CHECK(text != NULL);
	if (text) {
		size_t used = 0;
		used += (size_t)snprintf(text, size, "[general]\n");
		for (int i = 0; i < 300; i++) {
			used += (size_t)snprintf(text + used, size - used, "bad%d = 1\n", i);
		}
		n = load(&cfg, text, &msg);
		CHECK_INT(n, 300);
		CHECK_INT(count_lines(msg), SMTWC_CONFIG_MAX_MESSAGES + 1);
		CHECK(strstr(msg, "t: too many errors, not showing more\n") != NULL);
		free(msg);
		smtwc_config_finish(&cfg);
		free(text);
	}
}

static void test_bindings(void)
{
	current_test = "bindings";
	struct smtwc_config cfg;
	const struct smtwc_binding *b;
	const uint32_t L = SMTWC_MOD_LOGO, S = SMTWC_MOD_SHIFT;

	/* replacing a default keeps a single entry */
	CHECK_INT(load(&cfg,
				  "[bindings]\nMod+Return = exec xterm\n"
				  "Mod+Shift+q = exec kill-it\nMod+Shift+q = cycle\n",
				  NULL),
			0);
	CHECK_INT(cfg.binding_count, 7);
	b = smtwc_config_find_binding(&cfg, L, XKB_KEY_Return);
	CHECK(b && b->action == SMTWC_ACTION_EXEC);
	CHECK(b && strcmp(smtwc_binding_command(&cfg, b), "xterm") == 0);
	b = smtwc_config_find_binding(&cfg, L | S, XKB_KEY_q);
	CHECK(b && b->action == SMTWC_ACTION_CYCLE && b->command == NULL);
	smtwc_config_finish(&cfg);

	/* removal with none, also when written with another spelling */
	CHECK_INT(load(&cfg,
				  "[bindings]\nMod+n = none\nLogo+m = none\n"
				  "mod+SHIFT+Q = NONE\n",
				  NULL),
			0);
	CHECK(smtwc_config_find_binding(&cfg, L, XKB_KEY_n) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, L, XKB_KEY_m) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, L | S, XKB_KEY_q) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, L, XKB_KEY_f) != NULL);
	smtwc_config_finish(&cfg);

	/* an explicit spelling of the same keys overrides too (latest wins) */
	CHECK_INT(load(&cfg, "[bindings]\nSuper+Return = exec a\n", NULL), 0);
	b = smtwc_config_find_binding(&cfg, L, XKB_KEY_Return);
	CHECK(b && b->action == SMTWC_ACTION_EXEC && strcmp(b->command, "a") == 0);
	smtwc_config_finish(&cfg);

	/* terminal is resolved at lookup time, whatever the order */
	CHECK_INT(load(&cfg,
				  "[bindings]\nCtrl+t = exec-terminal\n"
				  "[general]\nterminal = xterm\nmodifier = ctrl\n",
				  NULL),
			0);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_CTRL, XKB_KEY_Return);
	CHECK(b && strcmp(smtwc_binding_command(&cfg, b), "xterm") == 0);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_CTRL, XKB_KEY_t);
	CHECK(b && strcmp(smtwc_binding_command(&cfg, b), "xterm") == 0);
	CHECK(smtwc_config_find_binding(&cfg, L, XKB_KEY_Return) == NULL);
	smtwc_config_finish(&cfg);

	/* case-insensitive keysyms and modifiers, spaces around '+' */
	CHECK_INT(load(&cfg,
				  "[bindings]\nMOD + shift + RETURN = exec a b  c\n"
				  "ctrl+alt+A = quit\nmod5+f12 = close\n",
				  NULL),
			0);
	b = smtwc_config_find_binding(&cfg, L | S, XKB_KEY_Return);
	CHECK(b && b->command && strcmp(b->command, "a b  c") == 0);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_CTRL | SMTWC_MOD_ALT, XKB_KEY_a);
	CHECK(b && b->action == SMTWC_ACTION_QUIT);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_CTRL | SMTWC_MOD_ALT, XKB_KEY_A);
	CHECK(b && b->action == SMTWC_ACTION_QUIT);
	b = smtwc_config_find_binding(&cfg, SMTWC_MOD_MOD5, XKB_KEY_F12);
	CHECK(b && b->action == SMTWC_ACTION_CLOSE);
	/* shifted keysym (Q) finds Mod+Shift+q */
	b = smtwc_config_find_binding(&cfg, L | S, XKB_KEY_Q);
	CHECK(b && b->action == SMTWC_ACTION_CLOSE);
	smtwc_config_finish(&cfg);

	/* modifier masking: Caps Lock and Num Lock are ignored, others not */
	CHECK(smtwc_config_init(&cfg));
	b = smtwc_config_find_binding(&cfg, L | SMTWC_MOD_CAPS | SMTWC_MOD_MOD2, XKB_KEY_Return);
	CHECK(b && b->action == SMTWC_ACTION_EXEC_TERMINAL);
	b = smtwc_config_find_binding(&cfg, L | SMTWC_MOD_CAPS, XKB_KEY_f);
	CHECK(b && b->action == SMTWC_ACTION_FULLSCREEN);
	CHECK(smtwc_config_find_binding(&cfg, L | S, XKB_KEY_Return) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, L | SMTWC_MOD_ALT, XKB_KEY_Return) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, SMTWC_MOD_CAPS, XKB_KEY_Return) == NULL);
	CHECK(smtwc_config_find_binding(&cfg, L | SMTWC_MOD_MOD3, XKB_KEY_Return) == NULL);
	smtwc_config_finish(&cfg);
}

static void test_outputs(void)
{
	current_test = "outputs";
	struct smtwc_config cfg;
	const struct smtwc_output_config *o;
	CHECK_INT(load(&cfg,
				  "[output *]\nscale = 2\n[output DP-1]\n"
				  "scale = 1.5\n[output  Some Monitor 1 ]\nenabled = off\n",
				  NULL),
			0);
	o = smtwc_config_find_output(&cfg, "DP-1");
	CHECK(o && strcmp(o->name, "DP-1") == 0 && o->scale == 1.5);
	o = smtwc_config_find_output(&cfg, "HDMI-A-1");
	CHECK(o && strcmp(o->name, "*") == 0 && o->scale == 2.0);
	o = smtwc_config_find_output(&cfg, "Some Monitor 1");
	CHECK(o && o->has_enabled && !o->enabled);
	smtwc_config_finish(&cfg);

	CHECK_INT(load(&cfg, "[output DP-1]\nscale = 1.5\n", NULL), 0);
	CHECK(smtwc_config_find_output(&cfg, "HDMI-A-1") == NULL);
	smtwc_config_finish(&cfg);

	/* a section without valid keys creates nothing */
	CHECK_INT(load(&cfg, "[output *]\nscale = 2\n[output DP-1]\n", NULL), 0);
	o = smtwc_config_find_output(&cfg, "DP-1");
	CHECK(o && strcmp(o->name, "*") == 0);
	smtwc_config_finish(&cfg);
}

static void test_long_lines(void)
{
	current_test = "long lines";
	struct smtwc_config cfg;
	char *msg;
	/* exactly SMTWC_CONFIG_MAX_LINE bytes: accepted */
	const char *prefix = "terminal = ";
	size_t max = SMTWC_CONFIG_MAX_LINE;
	size_t size = 3 * max + 256;
	char *text = malloc(size);
	CHECK(text != NULL);
	if (!text) {
		return;
	}
	size_t used = (size_t)snprintf(text, size, "[general]\n%s", prefix);
	size_t fill = max - strlen(prefix);
	memset(text + used, 'x', fill);
	used += fill;
	used += (size_t)snprintf(text + used, size - used, "\n");
	CHECK_INT(load(&cfg, text, &msg), 0);
	CHECK(cfg.terminal && strlen(cfg.terminal) == fill);
	free(msg);
	smtwc_config_finish(&cfg);

	/* one byte more: an error for that line only; line numbers go on */
	used = (size_t)snprintf(text, size, "[general]\n%s", prefix);
	memset(text + used, 'y', fill + 1);
	used += fill + 1;
	used += (size_t)snprintf(text + used, size - used, "\nborder-width = 7\n%s", prefix);
	memset(text + used, 'z', 2 * max); /* last line, no newline */
	used += 2 * max;
	text[used] = '\0';
	CHECK_INT(load(&cfg, text, &msg), 2);
	CHECK(strstr(msg, "t:2: line is too long (4097 bytes, at most 4096 allowed)"));
	CHECK(strstr(msg, "t:4: line is too long"));
	CHECK_STR(cfg.terminal, "foot");
	CHECK_INT(cfg.border_width, 7);
	free(msg);
	smtwc_config_finish(&cfg);

	/* long binding combos and values are fine and messages are bounded */
	used = (size_t)snprintf(text, size, "[bindings]\nMod+");
	memset(text + used, 'k', 4000);
	used += 4000;
	used += (size_t)snprintf(text + used, size - used, " = close\n");
	CHECK_INT(load(&cfg, text, &msg), 1);
	CHECK(strstr(msg, "t:2: unknown key 'kkkk") != NULL);
	CHECK(strlen(msg) < 400);
	free(msg);
	smtwc_config_finish(&cfg);
	free(text);
}

static void test_files(void)
{
	current_test = "files";
	struct smtwc_config cfg, def;
	CHECK(smtwc_config_init(&def));
	struct capture c;

	/* missing file: no error, defaults */
	CHECK(smtwc_config_init(&cfg));
	capture_begin(&c);
	CHECK_INT(smtwc_config_load_file(&cfg, "/nonexistent-smtwc-dir/smtwc/config", c.f), 0);
	CHECK_INT(smtwc_config_load_file(&cfg, "/etc/passwd/config", c.f), 0);
	capture_end(&c);
	CHECK_STR(c.buf, "");
	free(c.buf);
	CHECK(config_equal(&cfg, &def));

	/* a directory: one error, defaults */
	capture_begin(&c);
	CHECK_INT(smtwc_config_load_file(&cfg, "/tmp", c.f), 1);
	capture_end(&c);
	CHECK(strncmp(c.buf, "/tmp: ", 6) == 0 && strstr(c.buf, "using defaults"));
	CHECK_INT(count_lines(c.buf), 1);
	free(c.buf);
	CHECK(config_equal(&cfg, &def));

	/* a real file, with a NUL byte on line 3 */
	static const char data[] = "[general]\nborder-width = 9\nterminal = a\0b\n"
				   "[bindings]\nMod+Return = clsoe\n";
	char *path = write_temp(data, sizeof(data) - 1);
	capture_begin(&c);
	CHECK_INT(smtwc_config_load_file(&cfg, path, c.f), 2);
	capture_end(&c);
	char expect[128];
	snprintf(expect, sizeof(expect), "%s:3: line contains a NUL byte\n", path);
	CHECK(strstr(c.buf, expect) != NULL);
	snprintf(expect, sizeof(expect), "%s:5: unknown action 'clsoe'", path);
	CHECK(strstr(c.buf, expect) != NULL);
	free(c.buf);
	CHECK_INT(cfg.border_width, 9);
	CHECK_STR(cfg.terminal, "foot");

	/* unreadable: one error, nothing changes (root can read anything) */
	if (geteuid() != 0 && chmod(path, 0) == 0) {
		smtwc_config_finish(&cfg);
		CHECK(smtwc_config_init(&cfg));
		capture_begin(&c);
		CHECK_INT(smtwc_config_load_file(&cfg, path, c.f), 1);
		capture_end(&c);
		snprintf(expect, sizeof(expect), "%s: cannot open: ", path);
		CHECK(strncmp(c.buf, expect, strlen(expect)) == 0);
		CHECK_INT(count_lines(c.buf), 1);
		free(c.buf);
		CHECK(config_equal(&cfg, &def));
	}
	unlink(path);
	free(path);
	smtwc_config_finish(&cfg);

	/* too large: one error, nothing applied */
	size_t big = SMTWC_CONFIG_MAX_FILE_SIZE + 10;
	char *bigdata = malloc(big);
	CHECK(bigdata != NULL);
	if (bigdata) {
		memset(bigdata, '\n', big);
		memcpy(bigdata, "[general]\nborder-width = 9\n", 27);
		path = write_temp(bigdata, big);
		CHECK(smtwc_config_init(&cfg));
		capture_begin(&c);
		CHECK_INT(smtwc_config_load_file(&cfg, path, c.f), 1);
		capture_end(&c);
		CHECK(strstr(c.buf, "file is larger than") != NULL);
		free(c.buf);
		CHECK(config_equal(&cfg, &def));
		smtwc_config_finish(&cfg);
		unlink(path);
		free(path);
		/* exactly at the limit is fine */
		path = write_temp(bigdata, SMTWC_CONFIG_MAX_FILE_SIZE);
		CHECK(smtwc_config_init(&cfg));
		CHECK_INT(smtwc_config_load_file(&cfg, path, stderr), 0);
		CHECK_INT(cfg.border_width, 9);
		smtwc_config_finish(&cfg);
		unlink(path);
		free(path);
		free(bigdata);
	}
	smtwc_config_finish(&def);
}

static void test_default_path(void)
{
	current_test = "default path";
	char *p;
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	p = smtwc_config_default_path();
	CHECK_STR(p, "/xdg/smtwc/config");
	free(p);
	setenv("XDG_CONFIG_HOME", "", 1);
	p = smtwc_config_default_path();
	CHECK_STR(p, "/home/u/.config/smtwc/config");
	free(p);
	setenv("XDG_CONFIG_HOME", "relative/dir", 1);
	p = smtwc_config_default_path();
	CHECK_STR(p, "/home/u/.config/smtwc/config");
	free(p);
	unsetenv("XDG_CONFIG_HOME");
	p = smtwc_config_default_path();
	CHECK_STR(p, "/home/u/.config/smtwc/config");
	free(p);
	unsetenv("HOME");
	CHECK(smtwc_config_default_path() == NULL);
}

int main(void)
{
	test_defaults();
	test_all_keys();
	test_values();
	test_errors();
	test_bindings();
	test_outputs();
	test_long_lines();
	test_files();
	test_default_path();
	if (failures) {
		fprintf(stderr, "test_config: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_config: all checks passed\n");
	return 0;
}
