/*
 * [output NAME] sections: one struct smtwc_output_config per name (created
 * by its first valid key), set through the same key table machinery as the
 * other sections, and the lookup the output code uses.
 */
#include "compositor/config/config_internal.h"

#include <assert.h>

#define OUTPUT(f) offsetof(struct smtwc_output_config, f)

/* KEY_MODE and KEY_POSITION store consecutive ints. */
static_assert(OUTPUT(height) == OUTPUT(width) + sizeof(int) &&
				OUTPUT(refresh_mhz) == OUTPUT(width) + 2 * sizeof(int),
		"mode ints");
static_assert(OUTPUT(y) == OUTPUT(x) + sizeof(int), "position ints");

static const struct key_def output_keys[] = {
	{ "mode", KEY_MODE, OUTPUT(width), 0, 0, OUTPUT(has_mode) },
	{ "scale", KEY_SCALE, OUTPUT(scale), 0, 0, OUTPUT(has_scale) },
	{ "position", KEY_POSITION, OUTPUT(x), 0, 0, OUTPUT(has_position) },
	{ "enabled", KEY_BOOL, OUTPUT(enabled), 0, 0, OUTPUT(has_enabled) },
	{ "transform", KEY_TRANSFORM, OUTPUT(transform), 0, 0, OUTPUT(has_transform) },
	{ NULL, KEY_INT, 0, 0, 0, 0 },
};

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

/* The output of the current section, created on first use (NULL: out of
 * memory). */
static void *current_output(struct parser *p)
{
	struct smtwc_config *cfg = p->cfg;
	for (size_t i = 0; i < cfg->output_count; i++) {
		if (strcmp(cfg->outputs[i].name, p->output_name) == 0) {
			return &cfg->outputs[i];
		}
	}
	char *name = strdup(p->output_name);
	if (!name ||
			!grow((void **)&cfg->outputs, &cfg->output_capacity, cfg->output_count,
					sizeof(*cfg->outputs))) {
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

void config_output_line(struct parser *p, const char *key, char *value)
{
	/* The section as messages name it, e.g. "output HDMI-A-1" (the name
	 * comes from one line, so it fits). */
	char section[SMTWC_CONFIG_MAX_LINE + sizeof("output ")];
	snprintf(section, sizeof(section), "output %s", p->output_name);
	config_set_key(p, section, output_keys, key, value, current_output);
}
