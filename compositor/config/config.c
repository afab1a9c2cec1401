/*
 * smtwc configuration: defaults, and loading a file or string line by line
 * into sections. The keys themselves are config_keys.c (tables) and
 * config_outputs.c, config_bindings.c; values config_values.c. See
 * config.h and docs/config.md.
 */
/* (the fuzzers compile with -D_GNU_SOURCE already) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "compositor/config/config_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <unistd.h>

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
	config_free_bindings(cfg);
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

/* The default of `workers` (docs/config.md): every CPU this process may
 * run on but the main thread's, at least one. */
static int config_default_workers(void)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ?
			CPU_COUNT(&set) :
			(int)sysconf(_SC_NPROCESSORS_ONLN);
	int workers = cpus - 1;
	return workers < 1 ? 1 : workers > SMTWC_WORKERS_MAX ? SMTWC_WORKERS_MAX : workers;
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
#define SCHED_DEFAULT_(key, field, def, min, max, check, param, unit) .field = def,
	cfg->scheduler = (struct smtwc_scheduler_config){ .fifo = SMT_SCHED_DEFAULT_FIFO,
		.workers = config_default_workers(),
		.worker_nice = SMTWC_WORKER_NICE_DEFAULT,
		SMT_SCHED_SETTINGS(SCHED_DEFAULT_) };
#undef SCHED_DEFAULT_
#define LIMITS_DEFAULT_(key, field, def, min, max) .field = def,
	cfg->limits = (struct smtwc_limits_config){ SMTWC_LIMITS_SETTINGS(LIMITS_DEFAULT_) };
#undef LIMITS_DEFAULT_
#define XWAYLAND_DEFAULT_(key, field, def, min, max) .field = def,
	cfg->xwayland = (struct smtwc_xwayland_config){ SMTWC_XWAYLAND_SETTINGS(
			XWAYLAND_DEFAULT_) };
#undef XWAYLAND_DEFAULT_

	cfg->terminal = strdup("foot");
	cfg->title_font = strdup("sans 10");
	if (!cfg->terminal || !cfg->title_font) {
		return false;
	}
	return config_add_default_bindings(cfg);
}

/* ---- messages ------------------------------------------------------------- */

void config_report(struct parser *p, const char *fmt, ...)
{
	p->error_count++;
	if (!p->errors) {
		return;
	}
	if (p->error_count > SMTWC_CONFIG_MAX_MESSAGES) {
		if (p->error_count == SMTWC_CONFIG_MAX_MESSAGES + 1) {
			fprintf(p->errors, "%s: too many errors, not showing more\n", p->name);
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

void config_report_oom(struct parser *p)
{
	config_report(p, "out of memory");
}

/* ---- lines and sections --------------------------------------------------- */

#define SECTION_LIST                                          \
	"general, keyboard, bindings, startup, output NAME, " \
	"scheduler, limits, xwayland"

/* The sections by name; those whose lines are keys of struct smtwc_config
 * have their key table ([output NAME] is parsed apart). */
static const struct {
	const char *name;
	enum section section;
	const struct key_def *keys;
} sections[] = {
	{ "general", SECTION_GENERAL, config_general_keys },
	{ "keyboard", SECTION_KEYBOARD, config_keyboard_keys },
	{ "bindings", SECTION_BINDINGS, NULL },
	{ "startup", SECTION_STARTUP, NULL },
	{ "scheduler", SECTION_SCHEDULER, config_scheduler_keys },
	{ "limits", SECTION_LIMITS, config_limits_keys },
	{ "xwayland", SECTION_XWAYLAND, config_xwayland_keys },
};

static void parse_section(struct parser *p, char *line)
{
	struct shown s;
	free(p->output_name);
	p->output_name = NULL;
	p->section = SECTION_SKIP;

	char *close = strchr(line, ']');
	if (!close) {
		config_report(p, "missing ']' in section header '%s'", show(&s, line));
		return;
	}
	*close = '\0';
	char *after = trim(close + 1);
	if (*after != '\0' && *after != '#') {
		config_report(p, "unexpected text '%s' after section header", show(&s, after));
		return;
	}
	char *name = trim(line + 1);
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (strcmp(name, sections[i].name) == 0) {
			p->section = sections[i].section;
			return;
		}
	}
	if (strncmp(name, "output", 6) == 0 && (name[6] == '\0' || is_blank(name[6]))) {
		char *output = trim(name + 6);
		if (*output == '\0') {
			config_report(p,
					"missing output name in [output] (use [output *] "
					"for every output)");
			return;
		}
		p->output_name = strdup(output);
		if (!p->output_name) {
			config_report_oom(p);
			return;
		}
		p->section = SECTION_OUTPUT;
		return;
	}
	config_report(p, "unknown section '[%s]' (expected " SECTION_LIST ")", show(&s, name));
}

/* The sections whose keys are fields of struct smtwc_config itself. */
static void *whole_config(struct parser *p)
{
	return p->cfg;
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
		config_report(p, "expected 'key = value', got '%s'", show(&sh, strip_comment(s)));
		return;
	}
	*eq = '\0';
	char *key = trim(s);
	char *value = strip_comment(eq + 1);
	if (*key == '\0') {
		config_report(p, "missing key before '='");
		return;
	}
	if (p->section == SECTION_NONE) {
		config_report(p,
				"'%s' is outside of any section (start with a header "
				"such as [general])",
				show(&sh, key));
		return;
	}
	if (*value == '\0') {
		config_report(p, "missing value for '%s'", show(&sh, key));
		return;
	}
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		if (sections[i].section == p->section && sections[i].keys != NULL) {
			config_set_key(p, sections[i].name, sections[i].keys, key, value,
					whole_config);
			return;
		}
	}
	switch (p->section) {
	case SECTION_BINDINGS:
		config_binding_line(p, key, value);
		break;
	case SECTION_STARTUP:
		config_startup_line(p, key, value);
		break;
	case SECTION_OUTPUT:
		config_output_line(p, key, value);
		break;
	default: /* NONE and SKIP are handled above, the rest by their keys */
		break;
	}
}

static int load_buffer(struct smtwc_config *cfg, const char *name, const char *data, size_t len,
		FILE *errors)
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
			config_report(&p, "line is too long (%zu bytes, at most %d allowed)", n,
					SMTWC_CONFIG_MAX_LINE);
			continue;
		}
		if (memchr(start, '\0', n)) {
			config_report(&p, "line contains a NUL byte");
			continue;
		}
		memcpy(buf, start, n);
		buf[n] = '\0';
		parse_line(&p, buf);
	}

	if (p.priority_line > 0 &&
			!(sched->priority_min <= sched->priority_base &&
					sched->priority_base <= sched->priority_max)) {
		p.line = p.priority_line;
		config_report(&p,
				"priority-min (%d) <= priority-base (%d) <= "
				"priority-max (%d) does not hold; keeping %d, %d, %d",
				sched->priority_min, sched->priority_base, sched->priority_max,
				p.saved_priority[1], p.saved_priority[0], p.saved_priority[2]);
		sched->priority_base = p.saved_priority[0];
		sched->priority_min = p.saved_priority[1];
		sched->priority_max = p.saved_priority[2];
	}

	free(p.output_name);
	return p.error_count;
}

int smtwc_config_load_string(
		struct smtwc_config *cfg, const char *name, const char *text, FILE *errors)
{
	return load_buffer(cfg, name, text, strlen(text), errors);
}

int smtwc_config_load_file(struct smtwc_config *cfg, const char *path, FILE *errors)
{
	struct parser p = { .name = path, .errors = errors };
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT || errno == ENOTDIR) {
			return 0;
		}
		config_report(&p, "cannot open: %s; using defaults", strerror(errno));
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
				config_report(&p, "out of memory; using defaults");
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
		config_report(&p, "read error: %s; using defaults", strerror(errno));
	} else if (len > SMTWC_CONFIG_MAX_FILE_SIZE) {
		config_report(&p, "file is larger than %d bytes; using defaults",
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
