/*
 * The key tables of [general], [keyboard], [scheduler], [limits] and
 * [xwayland], and the one function that sets any table-driven key ([output
 * NAME] uses it too, with its own table in config_outputs.c): find the key,
 * parse the value into a temporary, then store it. Scheduler, limit and
 * Xwayland keys come from the setting lists (sched_settings.h, config.h),
 * which also hold their defaults and ranges.
 */
#include "compositor/config/config_internal.h"

#define FIELD(f) offsetof(struct smtwc_config, f)

const struct key_def config_general_keys[] = {
	{ "modifier", KEY_MODIFIER, FIELD(modifier), 0, 0, 0 },
	{ "terminal", KEY_STRING, FIELD(terminal), 0, 0, 0 },
	{ "cursor-theme", KEY_STRING, FIELD(cursor_theme), 0, 0, 0 },
	{ "cursor-size", KEY_INT, FIELD(cursor_size), 1, 512, 0 },
	{ "background", KEY_COLOR, FIELD(background), 0, 0, 0 },
	{ "border-width", KEY_INT, FIELD(border_width), 0, 100, 0 },
	{ "focused-border", KEY_COLOR, FIELD(focused_border), 0, 0, 0 },
	{ "unfocused-border", KEY_COLOR, FIELD(unfocused_border), 0, 0, 0 },
	{ "title-font", KEY_STRING, FIELD(title_font), 0, 0, 0 },
	{ "title-height", KEY_INT, FIELD(title_height), 0, 200, 0 },
	{ "focused-title", KEY_COLOR, FIELD(focused_title), 0, 0, 0 },
	{ "unfocused-title", KEY_COLOR, FIELD(unfocused_title), 0, 0, 0 },
	{ "focused-title-text", KEY_COLOR, FIELD(focused_title_text), 0, 0, 0 },
	{ "unfocused-title-text", KEY_COLOR, FIELD(unfocused_title_text), 0, 0, 0 },
	{ NULL, KEY_INT, 0, 0, 0, 0 },
};

const struct key_def config_keyboard_keys[] = {
	{ "layout", KEY_STRING, FIELD(keyboard.layout), 0, 0, 0 },
	{ "model", KEY_STRING, FIELD(keyboard.model), 0, 0, 0 },
	{ "rules", KEY_STRING, FIELD(keyboard.rules), 0, 0, 0 },
	{ "variant", KEY_STRING, FIELD(keyboard.variant), 0, 0, 0 },
	{ "options", KEY_STRING, FIELD(keyboard.options), 0, 0, 0 },
	{ "repeat-rate", KEY_INT, FIELD(keyboard.repeat_rate), 0, 1000, 0 },
	{ "repeat-delay", KEY_INT, FIELD(keyboard.repeat_delay), 0, 10000, 0 },
	{ NULL, KEY_INT, 0, 0, 0, 0 },
};

#define SCHED_KEY_(key, cfg, def, min, max, check, param, unit) \
	{ key, KEY_##check, FIELD(scheduler.cfg), min, max, 0 },
const struct key_def config_scheduler_keys[] = {
	{ "mode", KEY_SCHEDULER_MODE, FIELD(scheduler.fifo), 0, 0, 0 },
	{ "workers", KEY_INT, FIELD(scheduler.workers), 0, SMTWC_WORKERS_MAX, 0 },
	{ "worker-nice", KEY_INT, FIELD(scheduler.worker_nice), 0, SMTWC_WORKER_NICE_MAX, 0 },
	SMT_SCHED_SETTINGS(SCHED_KEY_){ NULL, KEY_INT, 0, 0, 0, 0 },
};
#undef SCHED_KEY_

#define LIMITS_KEY_(key, field, def, min, max) { key, KEY_INT, FIELD(limits.field), min, max, 0 },
const struct key_def config_limits_keys[] = {
	SMTWC_LIMITS_SETTINGS(LIMITS_KEY_){ NULL, KEY_INT, 0, 0, 0, 0 },
};
#undef LIMITS_KEY_

#define XWAYLAND_KEY_(key, field, def, min, max) \
	{ key, KEY_INT, FIELD(xwayland.field), min, max, 0 },
const struct key_def config_xwayland_keys[] = {
	SMTWC_XWAYLAND_SETTINGS(XWAYLAND_KEY_){ NULL, KEY_INT, 0, 0, 0, 0 },
};
#undef XWAYLAND_KEY_

static void report_unknown_key(
		struct parser *p, const char *key, const char *section, const struct key_def *keys)
{
	char list[2048]; /* [limits] has about 50 keys, 1,100 bytes of names */
	size_t used = 0;
	list[0] = '\0';
	for (const struct key_def *k = keys; k->name; k++) {
		int n = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
				k->name);
		if (n < 0 || (size_t)n >= sizeof(list) - used) {
			break;
		}
		used += (size_t)n;
	}
	struct shown s;
	config_report(p, "unknown key '%s' in [%s] (expected %s)", show(&s, key), section, list);
}

/* A parsed value, before it is stored. */
union key_value {
	char *string;
	int integer;
	uint32_t u32;
	bool boolean;
	double real;
	int ints[3];
	enum smtwc_transform transform;
};

/* 0, or -1 after reporting why value is not one of k's. orig: value as
 * written (the mode and position parsers edit value). */
static int parse_value(struct parser *p, const struct key_def *k, char *value, const char *orig,
		union key_value *v)
{
	switch (k->type) {
	case KEY_STRING:
		v->string = strdup(value);
		if (!v->string) {
			config_report_oom(p);
			return -1;
		}
		return 0;
	case KEY_INT:
	case KEY_PRIORITY:
		if (!config_parse_int(value, k->min, k->max, &v->integer)) {
			config_report(p,
					"invalid value '%s' for '%s' (expected an integer "
					"from %ld to %ld)",
					orig, k->name, k->min, k->max);
			return -1;
		}
		return 0;
	case KEY_COLOR:
		if (!config_parse_color(value, &v->u32)) {
			config_report(p, "invalid colour '%s' for '%s' (expected #RRGGBB)", orig,
					k->name);
			return -1;
		}
		return 0;
	case KEY_MODIFIER:
		if (!config_parse_modifier_name(value, false, &v->u32)) {
			config_report(p,
					"invalid modifier '%s' (expected logo, alt, ctrl, "
					"shift, mod3, mod5)",
					orig);
			return -1;
		}
		return 0;
	case KEY_SCHEDULER_MODE:
		if (ascii_eq_nocase(value, "fair")) {
			v->boolean = false;
		} else if (ascii_eq_nocase(value, "fifo")) {
			v->boolean = true;
		} else {
			config_report(p, "invalid scheduler mode '%s' (expected fair, fifo)", orig);
			return -1;
		}
		return 0;
	case KEY_BOOL:
		if (!config_parse_bool(value, &v->boolean)) {
			config_report(p,
					"invalid value '%s' for '%s' (expected true, "
					"false)",
					orig, k->name);
			return -1;
		}
		return 0;
	case KEY_SCALE:
		if (!config_parse_decimal(value, 1000, &v->real) || !(v->real > 0) ||
				v->real > SMTWC_OUTPUT_MAX_SCALE) {
			config_report(p,
					"invalid scale '%s' (expected a number greater "
					"than 0 and at most 10)",
					orig);
			return -1;
		}
		return 0;
	case KEY_MODE:
		if (!config_parse_mode(value, &v->ints[0], &v->ints[1], &v->ints[2])) {
			config_report(p,
					"invalid mode '%s' (expected WIDTHxHEIGHT or "
					"WIDTHxHEIGHT@HZ, e.g. 1920x1080@60)",
					orig);
			return -1;
		}
		return 0;
	case KEY_POSITION: {
		char *comma = strchr(value, ',');
		if (comma) {
			*comma = '\0';
		}
		if (!comma || !config_parse_int(trim(value), -1000000, 1000000, &v->ints[0]) ||
				!config_parse_int(
						trim(comma + 1), -1000000, 1000000, &v->ints[1])) {
			config_report(p, "invalid position '%s' (expected X,Y, e.g. 1280,0)", orig);
			return -1;
		}
		return 0;
	}
	case KEY_TRANSFORM:
		if (!config_parse_transform(value, &v->transform)) {
			config_report(p,
					"invalid transform '%s' (expected normal, 90, 180, "
					"270, flipped, flipped-90, flipped-180, flipped-270)",
					orig);
			return -1;
		}
		return 0;
	}
	return -1;
}

static void store_value(const struct key_def *k, char *base, const union key_value *v)
{
	void *field = base + k->offset;
	switch (k->type) {
	case KEY_STRING: {
		char **str = field;
		free(*str);
		*str = v->string;
		break;
	}
	case KEY_INT:
	case KEY_PRIORITY:
		*(int *)field = v->integer;
		break;
	case KEY_COLOR:
	case KEY_MODIFIER:
		*(uint32_t *)field = v->u32;
		break;
	case KEY_SCHEDULER_MODE:
	case KEY_BOOL:
		*(bool *)field = v->boolean;
		break;
	case KEY_SCALE:
		*(double *)field = v->real;
		break;
	case KEY_MODE:
		memcpy(field, v->ints, 3 * sizeof(int));
		break;
	case KEY_POSITION:
		memcpy(field, v->ints, 2 * sizeof(int));
		break;
	case KEY_TRANSFORM:
		*(enum smtwc_transform *)field = v->transform;
		break;
	}
	if (k->has) {
		*(bool *)(void *)(base + k->has) = true;
	}
}

void config_set_key(struct parser *p, const char *section, const struct key_def *keys,
		const char *key, char *value, void *(*base)(struct parser *p))
{
	const struct key_def *k = keys;
	while (k->name && strcmp(k->name, key) != 0) {
		k++;
	}
	if (!k->name) {
		report_unknown_key(p, key, section, keys);
		return;
	}
	struct shown orig;
	show(&orig, value);
	union key_value v;
	if (parse_value(p, k, value, orig.buf, &v) < 0) {
		return;
	}
	char *target = base(p);
	if (!target) {
		if (k->type == KEY_STRING) {
			free(v.string);
		}
		config_report_oom(p);
		return;
	}
	store_value(k, target, &v);
	if (k->type == KEY_PRIORITY) {
		p->priority_line = p->line;
	}
}
