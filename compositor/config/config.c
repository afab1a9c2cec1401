/*
 * smtwc configuration parser. See config.h and docs/config.md.
 *
 * Every line is parsed into temporaries first and only assigned when it is
 * entirely valid, so a bad line never changes a setting.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------ */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool ascii_eq_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		if (ascii_lower(*a) != ascii_lower(*b)) {
			return false;
		}
	}
	return *a == *b;
}

/* Trims blanks on both ends, in place. */
static char *trim(char *s)
{
	while (is_blank(*s)) {
		s++;
	}
	size_t n = strlen(s);
	while (n > 0 && is_blank(s[n - 1])) {
		s[--n] = '\0';
	}
	return s;
}

/* Removes an inline comment from a value: a '#' preceded by a blank. A '#'
 * starting the value is a comment only if a blank or the end follows it, so
 * colours such as #303040 work. */
static char *strip_comment(char *value)
{
	while (is_blank(*value)) {
		value++;
	}
	if (value[0] == '#' && (value[1] == '\0' || is_blank(value[1]))) {
		value[0] = '\0';
		return value;
	}
	if (value[0] != '\0') {
		for (char *c = value + 1; *c; c++) {
			if (*c == '#' && is_blank(c[-1])) {
				*c = '\0';
				break;
			}
		}
	}
	return trim(value);
}

static bool grow(void **array, size_t *capacity, size_t count, size_t elem)
{
	if (count < *capacity) {
		return true;
	}
	size_t cap = *capacity ? *capacity * 2 : 8;
	if (cap < *capacity || cap > SIZE_MAX / elem) {
		return false;
	}
	void *a = realloc(*array, cap * elem);
	if (!a) {
		return false;
	}
	*array = a;
	*capacity = cap;
	return true;
}

/* Bounded, printable copy of user text for messages. */
struct shown {
	char buf[80];
};

static const char *show(struct shown *out, const char *text)
{
	const size_t max = 64;
	size_t i = 0;
	for (; text[i] && i < max; i++) {
		unsigned char c = (unsigned char)text[i];
		out->buf[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (text[i]) {
		memcpy(out->buf + i, "...", 4);
	} else {
		out->buf[i] = '\0';
	}
	return out->buf;
}

/* ---- value parsers (locale independent) ----------------------------------- */

static bool parse_int(const char *s, long min, long max, int *out)
{
	bool negative = false;
	if (*s == '-' || *s == '+') {
		negative = *s == '-';
		s++;
	}
	if (!is_digit(*s)) {
		return false;
	}
	long v = 0;
	for (; is_digit(*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > 100000000L) {
			return false;
		}
	}
	if (*s != '\0') {
		return false;
	}
	if (negative) {
		v = -v;
	}
	if (v < min || v > max) {
		return false;
	}
	*out = (int)v;
	return true;
}

/* "123" or "123.456"; returns the value in thousandths (rounded). */
static bool parse_milli(const char *s, long max_whole, long *out)
{
	if (!is_digit(*s)) {
		return false;
	}
	long whole = 0;
	for (; is_digit(*s); s++) {
		whole = whole * 10 + (*s - '0');
		if (whole > max_whole) {
			return false;
		}
	}
	long frac = 0;
	int digits = 0;
	bool round_up = false;
	if (*s == '.') {
		s++;
		if (!is_digit(*s)) {
			return false;
		}
		for (; is_digit(*s); s++) {
			if (digits < 3) {
				frac = frac * 10 + (*s - '0');
			} else if (digits == 3) {
				round_up = *s >= '5';
			}
			digits++;
		}
	}
	if (*s != '\0') {
		return false;
	}
	for (int i = digits; i < 3; i++) {
		frac *= 10;
	}
	*out = whole * 1000 + frac + (round_up ? 1 : 0);
	return true;
}

/* "1.5", "2": a non-negative decimal number without exponent. */
static bool parse_decimal(const char *s, long max_whole, double *out)
{
	if (!is_digit(*s)) {
		return false;
	}
	double v = 0;
	long whole = 0;
	for (; is_digit(*s); s++) {
		whole = whole * 10 + (*s - '0');
		if (whole > max_whole) {
			return false;
		}
	}
	v = (double)whole;
	if (*s == '.') {
		s++;
		if (!is_digit(*s)) {
			return false;
		}
		double unit = 0.1;
		for (; is_digit(*s); s++) {
			v += (*s - '0') * unit;
			unit /= 10;
		}
	}
	if (*s != '\0') {
		return false;
	}
	*out = v;
	return true;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	c = ascii_lower(c);
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	return -1;
}

static bool parse_color(const char *s, uint32_t *out)
{
	if (s[0] != '#') {
		return false;
	}
	uint32_t v = 0;
	for (int i = 1; i <= 6; i++) {
		int h = hex_value(s[i]);
		if (h < 0) {
			return false;
		}
		v = v << 4 | (uint32_t)h;
	}
	if (s[7] != '\0') {
		return false;
	}
	*out = v;
	return true;
}

static bool parse_bool(const char *s, bool *out)
{
	if (ascii_eq_nocase(s, "true") || ascii_eq_nocase(s, "yes") ||
			ascii_eq_nocase(s, "on")) {
		*out = true;
		return true;
	}
	if (ascii_eq_nocase(s, "false") || ascii_eq_nocase(s, "no") ||
			ascii_eq_nocase(s, "off")) {
		*out = false;
		return true;
	}
	return false;
}

/* Modifier names; bit 0 means "Mod" (the configured modifier). */
static const struct {
	const char *name;
	uint32_t bit;
} modifier_names[] = {
	{"mod", 0},
	{"logo", SMTWC_MOD_LOGO},
	{"super", SMTWC_MOD_LOGO},
	{"mod4", SMTWC_MOD_LOGO},
	{"alt", SMTWC_MOD_ALT},
	{"mod1", SMTWC_MOD_ALT},
	{"ctrl", SMTWC_MOD_CTRL},
	{"control", SMTWC_MOD_CTRL},
	{"shift", SMTWC_MOD_SHIFT},
	{"mod3", SMTWC_MOD_MOD3},
	{"mod5", SMTWC_MOD_MOD5},
};

static bool parse_modifier_name(const char *s, bool allow_mod, uint32_t *bit)
{
	for (size_t i = 0; i < sizeof(modifier_names) / sizeof(modifier_names[0]); i++) {
		if (ascii_eq_nocase(s, modifier_names[i].name)) {
			if (modifier_names[i].bit == 0 && !allow_mod) {
				return false;
			}
			*bit = modifier_names[i].bit;
			return true;
		}
	}
	return false;
}

static const char *const transform_names[] = {
	[SMTWC_TRANSFORM_NORMAL] = "normal",
	[SMTWC_TRANSFORM_90] = "90",
	[SMTWC_TRANSFORM_180] = "180",
	[SMTWC_TRANSFORM_270] = "270",
	[SMTWC_TRANSFORM_FLIPPED] = "flipped",
	[SMTWC_TRANSFORM_FLIPPED_90] = "flipped-90",
	[SMTWC_TRANSFORM_FLIPPED_180] = "flipped-180",
	[SMTWC_TRANSFORM_FLIPPED_270] = "flipped-270",
};

static const char *const action_names[] = {
	[SMTWC_ACTION_NONE] = "none",
	[SMTWC_ACTION_EXEC] = "exec",
	[SMTWC_ACTION_EXEC_TERMINAL] = "exec-terminal",
	[SMTWC_ACTION_CLOSE] = "close",
	[SMTWC_ACTION_CYCLE] = "cycle",
	[SMTWC_ACTION_QUIT] = "quit",
	[SMTWC_ACTION_MAXIMIZE] = "maximize",
	[SMTWC_ACTION_FULLSCREEN] = "fullscreen",
	[SMTWC_ACTION_MINIMIZE] = "minimize",
};

#define ACTION_LIST "exec, exec-terminal, close, cycle, quit, maximize, " \
	"fullscreen, minimize, none"

const char *smtwc_action_name(enum smtwc_action_kind action)
{
	if ((size_t)action < sizeof(action_names) / sizeof(action_names[0])) {
		return action_names[action];
	}
	return "unknown";
}

/* ---- bindings ------------------------------------------------------------- */

static void binding_free(struct smtwc_binding *b)
{
	free(b->command);
	b->command = NULL;
}

/* Takes ownership of b->command (also on failure). A binding with the same
 * combo (as written) is replaced. */
static bool add_binding(struct smtwc_config *cfg, struct smtwc_binding b)
{
	for (size_t i = 0; i < cfg->binding_count; i++) {
		struct smtwc_binding *old = &cfg->bindings[i];
		if (old->modifiers == b.modifiers && old->uses_mod == b.uses_mod &&
				old->keysym == b.keysym) {
			binding_free(old);
			memmove(old, old + 1,
				(cfg->binding_count - i - 1) * sizeof(*old));
			cfg->binding_count--;
			break;
		}
	}
	if (!grow((void **)&cfg->bindings, &cfg->binding_capacity,
			cfg->binding_count, sizeof(*cfg->bindings))) {
		binding_free(&b);
		return false;
	}
	cfg->bindings[cfg->binding_count++] = b;
	return true;
}

uint32_t smtwc_binding_modifiers(const struct smtwc_config *cfg,
	const struct smtwc_binding *binding)
{
	return binding->modifiers | (binding->uses_mod ? cfg->modifier : 0);
}

const char *smtwc_binding_command(const struct smtwc_config *cfg,
	const struct smtwc_binding *binding)
{
	switch (binding->action) {
	case SMTWC_ACTION_EXEC:
		return binding->command;
	case SMTWC_ACTION_EXEC_TERMINAL:
		return cfg->terminal;
	default:
		return NULL;
	}
}

const struct smtwc_binding *smtwc_config_find_binding(
	const struct smtwc_config *cfg, uint32_t modifiers, xkb_keysym_t keysym)
{
	modifiers &= ~SMTWC_MOD_IGNORED;
	keysym = xkb_keysym_to_lower(keysym);
	for (size_t i = cfg->binding_count; i > 0; i--) {
		const struct smtwc_binding *b = &cfg->bindings[i - 1];
		if (b->keysym == keysym &&
				smtwc_binding_modifiers(cfg, b) == modifiers) {
			return b->action == SMTWC_ACTION_NONE ? NULL : b;
		}
	}
	return NULL;
}

const struct smtwc_output_config *smtwc_config_find_output(
	const struct smtwc_config *cfg, const char *name)
{
	const struct smtwc_output_config *wildcard = NULL;
	for (size_t i = 0; i < cfg->output_count; i++) {
		const struct smtwc_output_config *o = &cfg->outputs[i];
		if (name && strcmp(o->name, name) == 0) {
			return o;
		}
		if (strcmp(o->name, "*") == 0) {
			wildcard = o;
		}
	}
	return wildcard;
}

void smtwc_color_to_rgba(uint32_t rgb, float rgba[4])
{
	rgba[0] = (float)((rgb >> 16) & 0xff) / 255.0f;
	rgba[1] = (float)((rgb >> 8) & 0xff) / 255.0f;
	rgba[2] = (float)(rgb & 0xff) / 255.0f;
	rgba[3] = 1.0f;
}

/* ---- init / finish -------------------------------------------------------- */

void smtwc_config_finish(struct smtwc_config *cfg)
{
	free(cfg->terminal);
	free(cfg->cursor_theme);
	free(cfg->title_font);
	free(cfg->keyboard.rules);
	free(cfg->keyboard.model);
	free(cfg->keyboard.layout);
	free(cfg->keyboard.variant);
	free(cfg->keyboard.options);
	for (size_t i = 0; i < cfg->binding_count; i++) {
		binding_free(&cfg->bindings[i]);
	}
	free(cfg->bindings);
	for (size_t i = 0; i < cfg->startup_count; i++) {
		free(cfg->startup[i]);
	}
	free(cfg->startup);
	for (size_t i = 0; i < cfg->output_count; i++) {
		free(cfg->outputs[i].name);
	}
	free(cfg->outputs);
	memset(cfg, 0, sizeof(*cfg));
}

bool smtwc_config_init(struct smtwc_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->modifier = SMTWC_MOD_LOGO;
	cfg->cursor_theme = NULL;
	cfg->cursor_size = 24;
	cfg->background = 0x303040;
	cfg->border_width = 2;
	cfg->focused_border = 0x4c7899;
	cfg->unfocused_border = 0x3a3a3a;
	/* sway 1.7's title bar colours. */
	cfg->focused_title = 0x285577;
	cfg->unfocused_title = 0x222222;
	cfg->focused_title_text = 0xffffff;
	cfg->unfocused_title_text = 0x888888;
	cfg->keyboard.repeat_rate = 25;
	cfg->keyboard.repeat_delay = 600;
	cfg->scheduler = (struct smtwc_scheduler_config){
		.fifo = false,
		.slice_ms = 5,
		.lone_slice_ms = 15,
		.lone_after_ms = 1000,
		.priority_base = 0,
		.priority_min = -20,
		.priority_max = 20,
		.input_boost = 1,
		.fifo_commands = 10,
		.idle_praise_ms = 0,
		.input_boost_interval_ms = 0,
	};
	cfg->limits = (struct smtwc_limits_config){
		.client_fds = 64,
		.client_rings = 8,
		.client_pools = 32,
		.client_memory_mib = 256,
		.total_memory_mib = 2048,
		.fd_headroom = 256,
	};

	cfg->terminal = strdup("foot");
	cfg->title_font = strdup("sans 10");
	if (!cfg->terminal || !cfg->title_font) {
		return false;
	}
	static const struct {
		uint32_t modifiers;
		xkb_keysym_t keysym;
		enum smtwc_action_kind action;
	} defaults[] = {
		{0, XKB_KEY_Return, SMTWC_ACTION_EXEC_TERMINAL},
		{SMTWC_MOD_SHIFT, XKB_KEY_q, SMTWC_ACTION_CLOSE},
		{0, XKB_KEY_Tab, SMTWC_ACTION_CYCLE},
		{SMTWC_MOD_SHIFT, XKB_KEY_e, SMTWC_ACTION_QUIT},
		{0, XKB_KEY_f, SMTWC_ACTION_FULLSCREEN},
		{0, XKB_KEY_m, SMTWC_ACTION_MAXIMIZE},
		{0, XKB_KEY_n, SMTWC_ACTION_MINIMIZE},
	};
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		struct smtwc_binding b = {
			.modifiers = defaults[i].modifiers,
			.uses_mod = true,
			.keysym = defaults[i].keysym,
			.action = defaults[i].action,
			.command = NULL,
		};
		if (!add_binding(cfg, b)) {
			return false;
		}
	}
	return true;
}

/* ---- parser --------------------------------------------------------------- */

enum section {
	SECTION_NONE,    /* before the first header */
	SECTION_SKIP,    /* unknown or malformed header: lines are ignored */
	SECTION_GENERAL,
	SECTION_KEYBOARD,
	SECTION_BINDINGS,
	SECTION_STARTUP,
	SECTION_OUTPUT,
	SECTION_SCHEDULER,
	SECTION_LIMITS,
};

struct parser {
	struct smtwc_config *cfg;
	const char *name;
	FILE *errors;
	unsigned long line;
	int error_count;
	enum section section;
	char *output_name; /* current [output NAME] */

	/* priority-min <= priority-base <= priority-max is checked at the end
	 * of the load, since the three keys can come in any order. */
	int saved_priority[3];
	unsigned long priority_line; /* 0: no priority key seen */
};

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void report(struct parser *p, const char *fmt, ...)
{
	p->error_count++;
	if (!p->errors) {
		return;
	}
	if (p->error_count > SMTWC_CONFIG_MAX_MESSAGES) {
		if (p->error_count == SMTWC_CONFIG_MAX_MESSAGES + 1) {
			fprintf(p->errors, "%s: too many errors, not showing more\n",
				p->name);
		}
		return;
	}
	if (p->line > 0) {
		fprintf(p->errors, "%s:%lu: ", p->name, p->line);
	} else {
		fprintf(p->errors, "%s: ", p->name);
	}
	va_list ap;
	va_start(ap, fmt);
	vfprintf(p->errors, fmt, ap);
	va_end(ap);
	fputc('\n', p->errors);
}

static void report_oom(struct parser *p)
{
	report(p, "out of memory");
}

/* Table-driven keys of [general], [keyboard], [scheduler] and [limits]. */
enum key_type {
	KEY_STRING,
	KEY_INT,
	KEY_PRIORITY, /* int, also checked against the other priority keys */
	KEY_COLOR,
	KEY_MODIFIER,
	KEY_SCHEDULER_MODE,
};

struct key_def {
	const char *name;
	enum key_type type;
	size_t offset;
	long min, max;
};

#define FIELD(f) offsetof(struct smtwc_config, f)

static const struct key_def general_keys[] = {
	{"modifier", KEY_MODIFIER, FIELD(modifier), 0, 0},
	{"terminal", KEY_STRING, FIELD(terminal), 0, 0},
	{"cursor-theme", KEY_STRING, FIELD(cursor_theme), 0, 0},
	{"cursor-size", KEY_INT, FIELD(cursor_size), 1, 512},
	{"background", KEY_COLOR, FIELD(background), 0, 0},
	{"border-width", KEY_INT, FIELD(border_width), 0, 100},
	{"focused-border", KEY_COLOR, FIELD(focused_border), 0, 0},
	{"unfocused-border", KEY_COLOR, FIELD(unfocused_border), 0, 0},
	{"title-font", KEY_STRING, FIELD(title_font), 0, 0},
	{"title-height", KEY_INT, FIELD(title_height), 0, 200},
	{"focused-title", KEY_COLOR, FIELD(focused_title), 0, 0},
	{"unfocused-title", KEY_COLOR, FIELD(unfocused_title), 0, 0},
	{"focused-title-text", KEY_COLOR, FIELD(focused_title_text), 0, 0},
	{"unfocused-title-text", KEY_COLOR, FIELD(unfocused_title_text), 0, 0},
	{NULL, KEY_INT, 0, 0, 0},
};

static const struct key_def keyboard_keys[] = {
	{"layout", KEY_STRING, FIELD(keyboard.layout), 0, 0},
	{"model", KEY_STRING, FIELD(keyboard.model), 0, 0},
	{"rules", KEY_STRING, FIELD(keyboard.rules), 0, 0},
	{"variant", KEY_STRING, FIELD(keyboard.variant), 0, 0},
	{"options", KEY_STRING, FIELD(keyboard.options), 0, 0},
	{"repeat-rate", KEY_INT, FIELD(keyboard.repeat_rate), 0, 1000},
	{"repeat-delay", KEY_INT, FIELD(keyboard.repeat_delay), 0, 10000},
	{NULL, KEY_INT, 0, 0, 0},
};

static const struct key_def scheduler_keys[] = {
	{"mode", KEY_SCHEDULER_MODE, FIELD(scheduler.fifo), 0, 0},
	{"slice-ms", KEY_INT, FIELD(scheduler.slice_ms), 1, 1000},
	{"lone-slice-ms", KEY_INT, FIELD(scheduler.lone_slice_ms), 1, 1000},
	{"lone-after-ms", KEY_INT, FIELD(scheduler.lone_after_ms), 0, 60000},
	{"priority-base", KEY_PRIORITY, FIELD(scheduler.priority_base), -20, 20},
	{"priority-min", KEY_PRIORITY, FIELD(scheduler.priority_min), -20, 20},
	{"priority-max", KEY_PRIORITY, FIELD(scheduler.priority_max), -20, 20},
	{"input-boost", KEY_INT, FIELD(scheduler.input_boost), 0, 20},
	{"fifo-commands", KEY_INT, FIELD(scheduler.fifo_commands), 1, 100000},
	{"idle-praise-ms", KEY_INT, FIELD(scheduler.idle_praise_ms), 0, 60000},
	{"input-boost-interval-ms", KEY_INT, FIELD(scheduler.input_boost_interval_ms), 0, 60000},
	{NULL, KEY_INT, 0, 0, 0},
};

static const struct key_def limits_keys[] = {
	{"client-fds", KEY_INT, FIELD(limits.client_fds), 3, 1000000},
	{"client-rings", KEY_INT, FIELD(limits.client_rings), 1, 100000},
	{"client-pools", KEY_INT, FIELD(limits.client_pools), 1, 100000},
	{"client-memory-mib", KEY_INT, FIELD(limits.client_memory_mib), 1, 1048576},
	{"total-memory-mib", KEY_INT, FIELD(limits.total_memory_mib), 1, 1048576},
	{"fd-headroom", KEY_INT, FIELD(limits.fd_headroom), 16, 1000000},
	{NULL, KEY_INT, 0, 0, 0},
};

static void report_unknown_key(struct parser *p, const char *key,
	const char *section, const struct key_def *keys)
{
	char list[512];
	size_t used = 0;
	list[0] = '\0';
	for (const struct key_def *k = keys; k->name; k++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s",
			used ? ", " : "", k->name);
		if (n < 0 || (size_t)n >= sizeof(list) - used) {
			break;
		}
		used += (size_t)n;
	}
	struct shown s;
	report(p, "unknown key '%s' in [%s] (expected %s)", show(&s, key),
		section, list);
}

static void set_table_key(struct parser *p, const char *section,
	const struct key_def *keys, const char *key, const char *value)
{
	const struct key_def *k = keys;
	while (k->name && strcmp(k->name, key) != 0) {
		k++;
	}
	if (!k->name) {
		report_unknown_key(p, key, section, keys);
		return;
	}
	char *field = (char *)p->cfg + k->offset;
	struct shown s;
	switch (k->type) {
	case KEY_STRING: {
		char *copy = strdup(value);
		if (!copy) {
			report_oom(p);
			return;
		}
		char **str = (char **)(void *)field;
		free(*str);
		*str = copy;
		return;
	}
	case KEY_INT:
	case KEY_PRIORITY: {
		int v;
		if (!parse_int(value, k->min, k->max, &v)) {
			report(p, "invalid value '%s' for '%s' (expected an integer "
				"from %ld to %ld)", show(&s, value), k->name,
				k->min, k->max);
			return;
		}
		*(int *)(void *)field = v;
		if (k->type == KEY_PRIORITY) {
			p->priority_line = p->line;
		}
		return;
	}
	case KEY_COLOR: {
		uint32_t c;
		if (!parse_color(value, &c)) {
			report(p, "invalid colour '%s' for '%s' (expected #RRGGBB)",
				show(&s, value), k->name);
			return;
		}
		*(uint32_t *)(void *)field = c;
		return;
	}
	case KEY_MODIFIER: {
		uint32_t bit;
		if (!parse_modifier_name(value, false, &bit)) {
			report(p, "invalid modifier '%s' (expected logo, alt, ctrl, "
				"shift, mod3, mod5)", show(&s, value));
			return;
		}
		*(uint32_t *)(void *)field = bit;
		return;
	}
	case KEY_SCHEDULER_MODE: {
		bool fifo;
		if (ascii_eq_nocase(value, "fair")) {
			fifo = false;
		} else if (ascii_eq_nocase(value, "fifo")) {
			fifo = true;
		} else {
			report(p, "invalid scheduler mode '%s' (expected fair, fifo)",
				show(&s, value));
			return;
		}
		*(bool *)(void *)field = fifo;
		return;
	}
	}
}

/* "Mod+Shift+q" -> modifiers, uses_mod, keysym. Edits combo in place;
 * whole is the combo as written, for messages. */
static bool parse_combo(struct parser *p, char *combo, const char *whole,
	struct smtwc_binding *out)
{
	struct shown s;
	uint32_t modifiers = 0;
	bool uses_mod = false;
	char *part = combo;
	for (;;) {
		char *plus = strchr(part, '+');
		if (plus) {
			*plus = '\0';
		}
		char *name = trim(part);
		if (*name == '\0') {
			report(p, "empty part in key combination '%s'", whole);
			return false;
		}
		if (!plus) {
			xkb_keysym_t sym = xkb_keysym_from_name(name,
				XKB_KEYSYM_CASE_INSENSITIVE);
			if (sym == XKB_KEY_NoSymbol) {
				report(p, "unknown key '%s' in '%s' (expected an xkb "
					"keysym name such as Return, a, F1)",
					show(&s, name), whole);
				return false;
			}
			out->modifiers = modifiers;
			out->uses_mod = uses_mod;
			out->keysym = xkb_keysym_to_lower(sym);
			return true;
		}
		uint32_t bit;
		if (!parse_modifier_name(name, true, &bit)) {
			report(p, "unknown modifier '%s' in '%s' (expected Mod, Logo, "
				"Super, Alt, Ctrl, Control, Shift, Mod3, Mod5)",
				show(&s, name), whole);
			return false;
		}
		if (bit == 0) {
			uses_mod = true;
		} else {
			modifiers |= bit;
		}
		part = plus + 1;
	}
}

static void add_binding_line(struct parser *p, char *key, char *value)
{
	struct smtwc_binding b = {0};
	/* Parse the action first: parse_combo edits key in place. */
	char *word = value;
	char *rest = value;
	while (*rest && !is_blank(*rest)) {
		rest++;
	}
	if (*rest) {
		*rest++ = '\0';
		rest = trim(rest);
	}
	size_t n = sizeof(action_names) / sizeof(action_names[0]);
	size_t i = 0;
	while (i < n && !ascii_eq_nocase(word, action_names[i])) {
		i++;
	}
	struct shown s;
	if (i == n) {
		report(p, "unknown action '%s' (expected " ACTION_LIST ")",
			show(&s, word));
		return;
	}
	b.action = (enum smtwc_action_kind)i;
	if (b.action == SMTWC_ACTION_EXEC) {
		if (*rest == '\0') {
			report(p, "action 'exec' needs a command");
			return;
		}
	} else if (*rest != '\0') {
		report(p, "action '%s' takes no argument (got '%s')",
			action_names[i], show(&s, rest));
		return;
	}
	struct shown whole;
	if (!parse_combo(p, key, show(&whole, key), &b)) {
		return;
	}
	if (b.action == SMTWC_ACTION_EXEC) {
		b.command = strdup(rest);
		if (!b.command) {
			report_oom(p);
			return;
		}
	}
	if (!add_binding(p->cfg, b)) {
		report_oom(p);
	}
}

static void add_startup_line(struct parser *p, const char *key,
	const char *value)
{
	struct shown s;
	if (strcmp(key, "exec") != 0) {
		report(p, "unknown key '%s' in [startup] (expected exec)",
			show(&s, key));
		return;
	}
	struct smtwc_config *cfg = p->cfg;
	char *copy = strdup(value);
	if (!copy || !grow((void **)&cfg->startup, &cfg->startup_capacity,
			cfg->startup_count, sizeof(*cfg->startup))) {
		free(copy);
		report_oom(p);
		return;
	}
	cfg->startup[cfg->startup_count++] = copy;
}

static struct smtwc_output_config *current_output(struct parser *p)
{
	struct smtwc_config *cfg = p->cfg;
	for (size_t i = 0; i < cfg->output_count; i++) {
		if (strcmp(cfg->outputs[i].name, p->output_name) == 0) {
			return &cfg->outputs[i];
		}
	}
	char *name = strdup(p->output_name);
	if (!name || !grow((void **)&cfg->outputs, &cfg->output_capacity,
			cfg->output_count, sizeof(*cfg->outputs))) {
		free(name);
		return NULL;
	}
	struct smtwc_output_config *o = &cfg->outputs[cfg->output_count++];
	memset(o, 0, sizeof(*o));
	o->name = name;
	o->enabled = true;
	o->scale = 1.0;
	return o;
}

static bool parse_mode(char *value, int *width, int *height, int *mhz)
{
	char *x = strchr(value, 'x');
	if (!x) {
		return false;
	}
	*x = '\0';
	char *h = x + 1;
	char *at = strchr(h, '@');
	char *hz = NULL;
	if (at) {
		*at = '\0';
		hz = at + 1;
	}
	if (value[0] == '+' || value[0] == '-' || h[0] == '+' || h[0] == '-' ||
			!parse_int(value, 1, 16384, width) ||
			!parse_int(h, 1, 16384, height)) {
		return false;
	}
	*mhz = 0;
	if (hz) {
		size_t n = strlen(hz);
		if (n > 2 && ascii_eq_nocase(hz + n - 2, "hz")) {
			hz[n - 2] = '\0';
		}
		long m;
		if (!parse_milli(hz, 1000, &m) || m <= 0 || m > 1000000) {
			return false;
		}
		*mhz = (int)m;
	}
	return true;
}

static void set_output_key(struct parser *p, const char *key, char *value)
{
	struct shown s;
	struct shown orig;
	show(&orig, value); /* parsers below edit value in place */
	bool has_mode = false, has_scale = false, has_position = false;
	bool has_enabled = false, has_transform = false;
	int width = 0, height = 0, mhz = 0, x = 0, y = 0;
	double scale = 1.0;
	bool enabled = true;
	int transform = 0;

	if (strcmp(key, "mode") == 0) {
		if (!parse_mode(value, &width, &height, &mhz)) {
			report(p, "invalid mode '%s' (expected WIDTHxHEIGHT or "
				"WIDTHxHEIGHT@HZ, e.g. 1920x1080@60)", orig.buf);
			return;
		}
		has_mode = true;
	} else if (strcmp(key, "scale") == 0) {
		if (!parse_decimal(value, 1000, &scale) || !(scale > 0) ||
				scale > 10) {
			report(p, "invalid scale '%s' (expected a number greater "
				"than 0 and at most 10)", orig.buf);
			return;
		}
		has_scale = true;
	} else if (strcmp(key, "position") == 0) {
		char *comma = strchr(value, ',');
		if (comma) {
			*comma = '\0';
		}
		if (!comma || !parse_int(trim(value), -1000000, 1000000, &x) ||
				!parse_int(trim(comma + 1), -1000000, 1000000, &y)) {
			report(p, "invalid position '%s' (expected X,Y, e.g. 1280,0)",
				orig.buf);
			return;
		}
		has_position = true;
	} else if (strcmp(key, "enabled") == 0) {
		if (!parse_bool(value, &enabled)) {
			report(p, "invalid value '%s' for 'enabled' (expected true, "
				"false)", orig.buf);
			return;
		}
		has_enabled = true;
	} else if (strcmp(key, "transform") == 0) {
		size_t n = sizeof(transform_names) / sizeof(transform_names[0]);
		while (transform < (int)n &&
				!ascii_eq_nocase(value, transform_names[transform])) {
			transform++;
		}
		if (transform == (int)n) {
			report(p, "invalid transform '%s' (expected normal, 90, 180, "
				"270, flipped, flipped-90, flipped-180, flipped-270)",
				orig.buf);
			return;
		}
		has_transform = true;
	} else {
		report(p, "unknown key '%s' in [output %s] (expected mode, scale, "
			"position, enabled, transform)", show(&s, key),
			p->output_name);
		return;
	}

	struct smtwc_output_config *o = current_output(p);
	if (!o) {
		report_oom(p);
		return;
	}
	if (has_mode) {
		o->has_mode = true;
		o->width = width;
		o->height = height;
		o->refresh_mhz = mhz;
	}
	if (has_scale) {
		o->has_scale = true;
		o->scale = scale;
	}
	if (has_position) {
		o->has_position = true;
		o->x = x;
		o->y = y;
	}
	if (has_enabled) {
		o->has_enabled = true;
		o->enabled = enabled;
	}
	if (has_transform) {
		o->has_transform = true;
		o->transform = (enum smtwc_transform)transform;
	}
}

#define SECTION_LIST "general, keyboard, bindings, startup, output NAME, " \
	"scheduler, limits"

static void parse_section(struct parser *p, char *line)
{
	struct shown s;
	free(p->output_name);
	p->output_name = NULL;
	p->section = SECTION_SKIP;

	char *close = strchr(line, ']');
	if (!close) {
		report(p, "missing ']' in section header '%s'", show(&s, line));
		return;
	}
	*close = '\0';
	char *after = trim(close + 1);
	if (*after != '\0' && *after != '#') {
		report(p, "unexpected text '%s' after section header",
			show(&s, after));
		return;
	}
	char *name = trim(line + 1);
	static const struct {
		const char *name;
		enum section section;
	} sections[] = {
		{"general", SECTION_GENERAL},
		{"keyboard", SECTION_KEYBOARD},
		{"bindings", SECTION_BINDINGS},
		{"startup", SECTION_STARTUP},
		{"scheduler", SECTION_SCHEDULER},
		{"limits", SECTION_LIMITS},
	};
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (strcmp(name, sections[i].name) == 0) {
			p->section = sections[i].section;
			return;
		}
	}
	if (strncmp(name, "output", 6) == 0 &&
			(name[6] == '\0' || is_blank(name[6]))) {
		char *output = trim(name + 6);
		if (*output == '\0') {
			report(p, "missing output name in [output] (use [output *] "
				"for every output)");
			return;
		}
		p->output_name = strdup(output);
		if (!p->output_name) {
			report_oom(p);
			return;
		}
		p->section = SECTION_OUTPUT;
		return;
	}
	report(p, "unknown section '[%s]' (expected " SECTION_LIST ")",
		show(&s, name));
}

/* line: NUL-terminated copy of one line without its newline. */
static void parse_line(struct parser *p, char *line)
{
	char *s = trim(line);
	if (*s == '\0' || *s == '#') {
		return;
	}
	if (*s == '[') {
		parse_section(p, s);
		return;
	}
	if (p->section == SECTION_SKIP) {
		return;
	}
	struct shown sh;
	char *eq = strchr(s, '=');
	if (!eq) {
		report(p, "expected 'key = value', got '%s'",
			show(&sh, strip_comment(s)));
		return;
	}
	*eq = '\0';
	char *key = trim(s);
	char *value = strip_comment(eq + 1);
	if (*key == '\0') {
		report(p, "missing key before '='");
		return;
	}
	if (p->section == SECTION_NONE) {
		report(p, "'%s' is outside of any section (start with a header "
			"such as [general])", show(&sh, key));
		return;
	}
	if (*value == '\0') {
		report(p, "missing value for '%s'", show(&sh, key));
		return;
	}
	switch (p->section) {
	case SECTION_GENERAL:
		set_table_key(p, "general", general_keys, key, value);
		break;
	case SECTION_KEYBOARD:
		set_table_key(p, "keyboard", keyboard_keys, key, value);
		break;
	case SECTION_SCHEDULER:
		set_table_key(p, "scheduler", scheduler_keys, key, value);
		break;
	case SECTION_LIMITS:
		set_table_key(p, "limits", limits_keys, key, value);
		break;
	case SECTION_BINDINGS:
		add_binding_line(p, key, value);
		break;
	case SECTION_STARTUP:
		add_startup_line(p, key, value);
		break;
	case SECTION_OUTPUT:
		set_output_key(p, key, value);
		break;
	case SECTION_NONE:
	case SECTION_SKIP:
		break;
	}
}

static int load_buffer(struct smtwc_config *cfg, const char *name,
	const char *data, size_t len, FILE *errors)
{
	struct parser p = {
		.cfg = cfg,
		.name = name ? name : "<string>",
		.errors = errors,
		.section = SECTION_NONE,
	};
	struct smtwc_scheduler_config *sched = &cfg->scheduler;
	p.saved_priority[0] = sched->priority_base;
	p.saved_priority[1] = sched->priority_min;
	p.saved_priority[2] = sched->priority_max;

	char buf[SMTWC_CONFIG_MAX_LINE + 1];
	size_t pos = 0;
	while (pos < len) {
		p.line++;
		const char *start = data + pos;
		const char *nl = memchr(start, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - start) : len - pos;
		pos += n + (nl ? 1 : 0);
		if (n > SMTWC_CONFIG_MAX_LINE) {
			report(&p, "line is too long (%zu bytes, at most %d allowed)",
				n, SMTWC_CONFIG_MAX_LINE);
			continue;
		}
		if (memchr(start, '\0', n)) {
			report(&p, "line contains a NUL byte");
			continue;
		}
		memcpy(buf, start, n);
		buf[n] = '\0';
		parse_line(&p, buf);
	}

	if (p.priority_line > 0 && !(sched->priority_min <= sched->priority_base &&
			sched->priority_base <= sched->priority_max)) {
		p.line = p.priority_line;
		report(&p, "priority-min (%d) <= priority-base (%d) <= "
			"priority-max (%d) does not hold; keeping %d, %d, %d",
			sched->priority_min, sched->priority_base,
			sched->priority_max, p.saved_priority[1],
			p.saved_priority[0], p.saved_priority[2]);
		sched->priority_base = p.saved_priority[0];
		sched->priority_min = p.saved_priority[1];
		sched->priority_max = p.saved_priority[2];
	}

	free(p.output_name);
	return p.error_count;
}

int smtwc_config_load_string(struct smtwc_config *cfg, const char *name,
	const char *text, FILE *errors)
{
	return load_buffer(cfg, name, text, strlen(text), errors);
}

int smtwc_config_load_file(struct smtwc_config *cfg, const char *path,
	FILE *errors)
{
	struct parser p = {.name = path, .errors = errors};
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR) {
			return 0;
		}
		report(&p, "cannot open: %s; using defaults", strerror(errno));
		return p.error_count;
	}

	/* Read at most MAX_FILE_SIZE + 1 bytes: one more means too large. */
	const size_t limit = (size_t)SMTWC_CONFIG_MAX_FILE_SIZE + 1;
	char *data = NULL;
	size_t len = 0, capacity = 0;
	for (;;) {
		if (len == capacity) {
			if (capacity == limit) {
				break;
			}
			size_t cap = capacity ? capacity * 2 : 4096;
			if (cap > limit) {
				cap = limit;
			}
			char *d = realloc(data, cap);
			if (!d) {
				report(&p, "out of memory; using defaults");
				goto out;
			}
			data = d;
			capacity = cap;
		}
		size_t n = fread(data + len, 1, capacity - len, f);
		len += n;
		if (n == 0) {
			break;
		}
	}
	if (ferror(f)) {
		report(&p, "read error: %s; using defaults", strerror(errno));
	} else if (len > SMTWC_CONFIG_MAX_FILE_SIZE) {
		report(&p, "file is larger than %d bytes; using defaults",
			SMTWC_CONFIG_MAX_FILE_SIZE);
	} else {
		p.error_count = load_buffer(cfg, path, data, len, errors);
	}
out:
	free(data);
	fclose(f);
	return p.error_count;
}

char *smtwc_config_default_path(void)
{
	const char *suffix = "/smtwc/config";
	const char *base = getenv("XDG_CONFIG_HOME");
	if (!base || base[0] != '/') {
		/* unset, empty or relative: the XDG spec says to ignore it */
		const char *home = getenv("HOME");
		if (!home || home[0] == '\0') {
			return NULL;
		}
		base = home;
		suffix = "/.config/smtwc/config";
	}
	size_t n = strlen(base) + strlen(suffix) + 1;
	char *path = malloc(n);
	if (path) {
		snprintf(path, n, "%s%s", base, suffix);
	}
	return path;
}
