/*
 * The config file's value parsers: integers, thousandths, decimals,
 * colours, booleans, modifier names, modes and transforms. Locale
 * independent (no strtol/strtod), so a config reads the same everywhere.
 */
#include "compositor/config/config_internal.h"

bool config_parse_int(const char *s, long min, long max, int *out)
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

bool config_parse_milli(const char *s, long max_whole, long *out)
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

bool config_parse_decimal(const char *s, long max_whole, double *out)
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

bool config_parse_color(const char *s, uint32_t *out)
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

bool config_parse_bool(const char *s, bool *out)
{
	if (ascii_eq_nocase(s, "true") || ascii_eq_nocase(s, "yes") || ascii_eq_nocase(s, "on")) {
		*out = true;
		return true;
	}
	if (ascii_eq_nocase(s, "false") || ascii_eq_nocase(s, "no") || ascii_eq_nocase(s, "off")) {
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
	{ "mod", 0 },
	{ "logo", SMTWC_MOD_LOGO },
	{ "super", SMTWC_MOD_LOGO },
	{ "mod4", SMTWC_MOD_LOGO },
	{ "alt", SMTWC_MOD_ALT },
	{ "mod1", SMTWC_MOD_ALT },
	{ "ctrl", SMTWC_MOD_CTRL },
	{ "control", SMTWC_MOD_CTRL },
	{ "shift", SMTWC_MOD_SHIFT },
	{ "mod3", SMTWC_MOD_MOD3 },
	{ "mod5", SMTWC_MOD_MOD5 },
};

bool config_parse_modifier_name(const char *s, bool allow_mod, uint32_t *bit)
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

bool config_parse_mode(char *value, int *width, int *height, int *mhz)
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
			!config_parse_int(value, 1, SMTWC_OUTPUT_MAX_SIDE, width) ||
			!config_parse_int(h, 1, SMTWC_OUTPUT_MAX_SIDE, height)) {
		return false;
	}
	*mhz = 0;
	if (hz) {
		size_t n = strlen(hz);
		if (n > 2 && ascii_eq_nocase(hz + n - 2, "hz")) {
			hz[n - 2] = '\0';
		}
		long m;
		if (!config_parse_milli(hz, 1000, &m) || m <= 0 ||
				m > SMTWC_OUTPUT_MAX_REFRESH_MHZ) {
			return false;
		}
		*mhz = (int)m;
	}
	return true;
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

bool config_parse_transform(const char *value, enum smtwc_transform *out)
{
	size_t n = sizeof(transform_names) / sizeof(transform_names[0]);
	for (size_t i = 0; i < n; i++) {
		if (ascii_eq_nocase(value, transform_names[i])) {
			*out = (enum smtwc_transform)i;
			return true;
		}
	}
	return false;
}
