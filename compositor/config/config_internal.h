/*
 * What the config parser's files share (not part of the config API): the
 * parser's state and its messages, the text helpers every section uses,
 * the value parsers, and the key tables that drive [general], [keyboard],
 * [scheduler], [limits], [xwayland] and [output NAME].
 *
 * Every line is parsed into temporaries first and only assigned when it is
 * entirely valid, so a bad line never changes a setting.
 */
#ifndef SMTWC_CONFIG_INTERNAL_H
#define SMTWC_CONFIG_INTERNAL_H

#include "compositor/config/config.h"

#include <stdlib.h>
#include <string.h>

enum section {
	SECTION_NONE, /* before the first header */
	SECTION_SKIP, /* unknown or malformed header: lines are ignored */
	SECTION_GENERAL,
	SECTION_KEYBOARD,
	SECTION_BINDINGS,
	SECTION_STARTUP,
	SECTION_OUTPUT,
	SECTION_SCHEDULER,
	SECTION_LIMITS,
	SECTION_XWAYLAND,
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

/* Counts an error and prints "name:line: message" (at most
 * SMTWC_CONFIG_MAX_MESSAGES of them). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void config_report(struct parser *p, const char *fmt, ...);
void config_report_oom(struct parser *p);

/* ---- text helpers ---------------------------------------------------------- */

static inline bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline char ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static inline bool ascii_eq_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		if (ascii_lower(*a) != ascii_lower(*b)) {
			return false;
		}
	}
	return *a == *b;
}

/* Trims blanks on both ends, in place. */
static inline char *trim(char *s)
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
static inline char *strip_comment(char *value)
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

static inline bool grow(void **array, size_t *capacity, size_t count, size_t elem)
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

static inline const char *show(struct shown *out, const char *text)
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

/* ---- value parsers (locale independent; config_values.c) ------------------- */

/* An integer in [min, max], optional sign, nothing else. */
bool config_parse_int(const char *s, long min, long max, int *out);
/* "123" or "123.456"; the value in thousandths (rounded). */
bool config_parse_milli(const char *s, long max_whole, long *out);
/* "1.5", "2": a non-negative decimal number without exponent. */
bool config_parse_decimal(const char *s, long max_whole, double *out);
/* "#RRGGBB". */
bool config_parse_color(const char *s, uint32_t *out);
/* true/yes/on, false/no/off. */
bool config_parse_bool(const char *s, bool *out);
/* A modifier name; bit 0 means "Mod" (the configured modifier), accepted
 * only with allow_mod. */
bool config_parse_modifier_name(const char *s, bool allow_mod, uint32_t *bit);
/* WIDTHxHEIGHT[@HZ[Hz]]; edits value in place. mhz 0: no rate given. */
bool config_parse_mode(char *value, int *width, int *height, int *mhz);
/* normal, 90, ..., flipped-270. */
bool config_parse_transform(const char *value, enum smtwc_transform *out);

/* ---- keys (config_keys.c) -------------------------------------------------- */

enum key_type {
	KEY_STRING,
	KEY_INT,
	KEY_PRIORITY, /* int, also checked against the other priority keys */
	KEY_COLOR,
	KEY_MODIFIER,
	KEY_SCHEDULER_MODE,
	KEY_BOOL,
	KEY_SCALE,    /* double in (0, 10] */
	KEY_MODE,     /* three ints: width, height, refresh in mHz */
	KEY_POSITION, /* two ints: x, y */
	KEY_TRANSFORM,
};

struct key_def {
	const char *name;
	enum key_type type;
	size_t offset; /* of the value in the section's struct */
	long min, max; /* KEY_INT, KEY_PRIORITY */
	size_t has;    /* of a bool set true with the value; 0: none */
};

extern const struct key_def config_general_keys[];
extern const struct key_def config_keyboard_keys[];
extern const struct key_def config_scheduler_keys[];
extern const struct key_def config_limits_keys[];
extern const struct key_def config_xwayland_keys[];

/* Sets key (one of keys, a list ending with a NULL name) from value, in
 * the struct base(p) returns once the value is valid (NULL: out of
 * memory); section names the section in messages. Edits value. */
void config_set_key(struct parser *p, const char *section, const struct key_def *keys,
		const char *key, char *value, void *(*base)(struct parser *p));

/* ---- the other sections ---------------------------------------------------- */

/* [bindings] and [startup] lines (config_bindings.c). */
void config_binding_line(struct parser *p, char *key, char *value);
void config_startup_line(struct parser *p, const char *key, const char *value);
bool config_add_default_bindings(struct smtwc_config *cfg);
void config_free_bindings(struct smtwc_config *cfg);
/* [output NAME] lines (config_outputs.c). */
void config_output_line(struct parser *p, const char *key, char *value);

#endif
