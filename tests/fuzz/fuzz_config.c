/*
 * libFuzzer target: the configuration parser, which is also the control
 * socket's `set KEY VALUE` entry point (control_requests.c wraps the
 * request as "[scheduler]\nKEY = VALUE\n" and hands it to the same parser).
 *
 * Input byte 0 selects the mode: even, the rest is a whole config file;
 * odd, the rest is "KEY VALUE" as a control request line and goes through
 * the same wrapping as answer_set(). Then the parsed config is queried
 * (bindings, outputs) so lookups over what the parser built run too.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compositor/config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	char *text = malloc(size);
	if (text == NULL)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	struct smtwc_config cfg;
	if (!smtwc_config_init(&cfg)) {
		free(text);
		return 0;
	}
	FILE *err = fopen("/dev/null", "w");
	if (data[0] & 1) {
		/* like answer_set(): KEY is the first word, VALUE the rest of the line */
		char *save = NULL;
		char *key = strtok_r(text, " \t\r\n", &save);
		char *value = key != NULL ? strtok_r(NULL, "\r\n", &save) : NULL;
		char *wrapped = NULL;
		if (key != NULL && value != NULL &&
				asprintf(&wrapped, "[scheduler]\n%s = %s\n", key, value) >= 0) {
			smtwc_config_load_string(&cfg, "set", wrapped, err);
			free(wrapped);
		}
	} else {
		smtwc_config_load_string(&cfg, "fuzz", text, err);
	}
	/* The lookups the compositor does with what the parser built. */
	smtwc_config_find_output(&cfg, "HEADLESS-1");
	smtwc_config_find_output(&cfg, "");
	for (uint32_t mods = 0; mods < 16; mods++)
		smtwc_config_find_binding(&cfg, mods * 0x11u, 0x61 + mods);
	if (err != NULL)
		fclose(err);
	smtwc_config_finish(&cfg);
	free(text);
	return 0;
}
