/*
 * The JSON writer behind every control-socket answer (json_writer.h):
 * pure, so a malformed answer is a bug here, never a client's doing.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compositor/control/json_writer.h"

static void append(struct json_writer *w, const char *s, size_t n)
{
	if (w->failed) {
		return;
	}
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n + 1) {
			cap *= 2;
		}
		char *grown = realloc(w->data, cap);
		if (grown == NULL) {
			w->failed = true;
			return;
		}
		w->data = grown;
		w->cap = cap;
	}
	memcpy(w->data + w->len, s, n);
	w->len += n;
	w->data[w->len] = '\0';
}

static void appendf(struct json_writer *w, const char *fmt, ...)
{
	char buf[64];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(buf)) {
		append(w, buf, (size_t)n);
	}
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 0 if there is
 * none. Strings come from clients (app ids, titles) and from what a
 * control client typed: JSON must be UTF-8 whatever they hold. */
static size_t utf8_sequence_length(const unsigned char *p)
{
	unsigned char c = p[0];
	size_t n;
	uint32_t min, cp;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		min = 0x80;
		cp = c & 0x1fu;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		min = 0x800;
		cp = c & 0x0fu;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		min = 0x10000;
		cp = c & 0x07u;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) { /* also stops at the terminating NUL */
			return 0;
		}
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
		return 0;
	}
	return n;
}

static void append_escaped(struct json_writer *w, const char *s)
{
	append(w, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			char esc[2] = { '\\', (char)*p };
			append(w, esc, 2);
		} else if (*p < 0x20) {
			appendf(w, "\\u%04x", *p);
		} else if (*p < 0x80) {
			append(w, (const char *)p, 1);
		} else {
			size_t n = utf8_sequence_length(p);
			if (n == 0) {
				append(w, "\\ufffd", 6); /* a byte that is not UTF-8 */
			} else {
				append(w, (const char *)p, n);
				p += n - 1;
			}
		}
	}
	append(w, "\"", 1);
}

/* The separator and key every value starts with. */
static void begin_value(struct json_writer *w, const char *key)
{
	if (w->need_comma) {
		append(w, ",", 1);
	}
	if (key != NULL) {
		append_escaped(w, key);
		append(w, ":", 1);
	}
	w->need_comma = true;
}

void json_begin_object(struct json_writer *w)
{
	if (w->need_comma) {
		append(w, ",", 1);
	}
	append(w, "{", 1);
	w->need_comma = false;
}

void json_object_key(struct json_writer *w, const char *key)
{
	begin_value(w, key);
	append(w, "{", 1);
	w->need_comma = false;
}

void json_end_object(struct json_writer *w)
{
	append(w, "}", 1);
	w->need_comma = true;
}

void json_begin_array(struct json_writer *w, const char *key)
{
	begin_value(w, key);
	append(w, "[", 1);
	w->need_comma = false;
}

void json_end_array(struct json_writer *w)
{
	append(w, "]", 1);
	w->need_comma = true;
}

void json_string(struct json_writer *w, const char *key, const char *value)
{
	begin_value(w, key);
	if (value == NULL) {
		append(w, "null", 4);
	} else {
		append_escaped(w, value);
	}
}

void json_uint(struct json_writer *w, const char *key, uint64_t value)
{
	begin_value(w, key);
	appendf(w, "%" PRIu64, value);
}

void json_int(struct json_writer *w, const char *key, int64_t value)
{
	begin_value(w, key);
	appendf(w, "%" PRId64, value);
}

void json_double(struct json_writer *w, const char *key, double value)
{
	begin_value(w, key);
	appendf(w, "%.6g", value);
}

void json_bool(struct json_writer *w, const char *key, bool value)
{
	begin_value(w, key);
	append(w, value ? "true" : "false", value ? 4 : 5);
}

bool json_finish(struct json_writer *w)
{
	append(w, "\n", 1);
	return !w->failed;
}

void json_writer_free(struct json_writer *w)
{
	free(w->data);
	*w = (struct json_writer){ 0 };
}
