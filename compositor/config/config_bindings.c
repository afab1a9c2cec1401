/*
 * The list sections: [bindings] (key combination -> action, looked up on
 * every key press) and [startup] (commands run once), and the default
 * bindings.
 */
#include "compositor/config/config_internal.h"

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

#define ACTION_LIST                                           \
	"exec, exec-terminal, close, cycle, quit, maximize, " \
	"fullscreen, minimize, none"

const char *smtwc_action_name(enum smtwc_action_kind action)
{
	if ((size_t)action < sizeof(action_names) / sizeof(action_names[0])) {
		return action_names[action];
	}
	return "unknown";
}

static void binding_free(struct smtwc_binding *b)
{
	free(b->command);
	b->command = NULL;
}

/* Takes ownership of b->command (also on failure). A binding with the same
 * combo (as written) is replaced. */
bool config_add_binding(struct smtwc_config *cfg, struct smtwc_binding b)
{
	for (size_t i = 0; i < cfg->binding_count; i++) {
		struct smtwc_binding *old = &cfg->bindings[i];
		if (old->modifiers == b.modifiers && old->uses_mod == b.uses_mod &&
				old->keysym == b.keysym) {
			binding_free(old);
			memmove(old, old + 1, (cfg->binding_count - i - 1) * sizeof(*old));
			cfg->binding_count--;
			break;
		}
	}
	if (!grow((void **)&cfg->bindings, &cfg->binding_capacity, cfg->binding_count,
			    sizeof(*cfg->bindings))) {
		binding_free(&b);
		return false;
	}
	cfg->bindings[cfg->binding_count++] = b;
	return true;
}

void config_free_bindings(struct smtwc_config *cfg)
{
	for (size_t i = 0; i < cfg->binding_count; i++) {
		binding_free(&cfg->bindings[i]);
	}
	free(cfg->bindings);
}

bool config_add_default_bindings(struct smtwc_config *cfg)
{
	static const struct {
		uint32_t modifiers;
		xkb_keysym_t keysym;
		enum smtwc_action_kind action;
	} defaults[] = {
		{ 0, XKB_KEY_Return, SMTWC_ACTION_EXEC_TERMINAL },
		{ SMTWC_MOD_SHIFT, XKB_KEY_q, SMTWC_ACTION_CLOSE },
		{ 0, XKB_KEY_Tab, SMTWC_ACTION_CYCLE },
		{ SMTWC_MOD_SHIFT, XKB_KEY_e, SMTWC_ACTION_QUIT },
		{ 0, XKB_KEY_f, SMTWC_ACTION_FULLSCREEN },
		{ 0, XKB_KEY_m, SMTWC_ACTION_MAXIMIZE },
		{ 0, XKB_KEY_n, SMTWC_ACTION_MINIMIZE },
	};
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		struct smtwc_binding b = {
			.modifiers = defaults[i].modifiers,
			.uses_mod = true,
			.keysym = defaults[i].keysym,
			.action = defaults[i].action,
			.command = NULL,
		};
		if (!config_add_binding(cfg, b)) {
			return false;
		}
	}
	return true;
}

uint32_t smtwc_binding_modifiers(
		const struct smtwc_config *cfg, const struct smtwc_binding *binding)
{
	return binding->modifiers | (binding->uses_mod ? cfg->modifier : 0);
}

const char *smtwc_binding_command(
		const struct smtwc_config *cfg, const struct smtwc_binding *binding)
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
		if (b->keysym == keysym && smtwc_binding_modifiers(cfg, b) == modifiers) {
			return b->action == SMTWC_ACTION_NONE ? NULL : b;
		}
	}
	return NULL;
}

/* "Mod+Shift+q" -> modifiers, uses_mod, keysym. Edits combo in place;
 * whole is the combo as written, for messages. */
static bool parse_combo(struct parser *p, char *combo, const char *whole, struct smtwc_binding *out)
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
			config_report(p, "empty part in key combination '%s'", whole);
			return false;
		}
		if (!plus) {
			xkb_keysym_t sym = xkb_keysym_from_name(name, XKB_KEYSYM_CASE_INSENSITIVE);
			if (sym == XKB_KEY_NoSymbol) {
				config_report(p,
						"unknown key '%s' in '%s' (expected an xkb "
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
		if (!config_parse_modifier_name(name, true, &bit)) {
			config_report(p,
					"unknown modifier '%s' in '%s' (expected Mod, Logo, "
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

void config_binding_line(struct parser *p, char *key, char *value)
{
	struct smtwc_binding b = { 0 };
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
		config_report(p, "unknown action '%s' (expected " ACTION_LIST ")", show(&s, word));
		return;
	}
	b.action = (enum smtwc_action_kind)i;
	if (b.action == SMTWC_ACTION_EXEC) {
		if (*rest == '\0') {
			config_report(p, "action 'exec' needs a command");
			return;
		}
	} else if (*rest != '\0') {
		config_report(p, "action '%s' takes no argument (got '%s')", action_names[i],
				show(&s, rest));
		return;
	}
	struct shown whole;
	if (!parse_combo(p, key, show(&whole, key), &b)) {
		return;
	}
	if (b.action == SMTWC_ACTION_EXEC) {
		b.command = strdup(rest);
		if (!b.command) {
			config_report_oom(p);
			return;
		}
	}
	if (!config_add_binding(p->cfg, b)) {
		config_report_oom(p);
	}
}

void config_startup_line(struct parser *p, const char *key, const char *value)
{
	struct shown s;
	if (strcmp(key, "exec") != 0) {
		config_report(p, "unknown key '%s' in [startup] (expected exec)", show(&s, key));
		return;
	}
	struct smtwc_config *cfg = p->cfg;
	char *copy = strdup(value);
	if (!copy ||
			!grow((void **)&cfg->startup, &cfg->startup_capacity, cfg->startup_count,
					sizeof(*cfg->startup))) {
		free(copy);
		config_report_oom(p);
		return;
	}
	cfg->startup[cfg->startup_count++] = copy;
}
