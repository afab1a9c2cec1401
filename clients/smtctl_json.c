/* The answer reader of smtctl_json.h. */
#include "clients/smtctl_json.h"

#include <stdint.h>
#include <string.h>

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The end of the string whose opening quote is at p, or NULL. */
static const char *skip_string(const char *p)
{
	for (p++; *p != '\0'; p++) {
		if (*p == '\\') {
			if (p[1] == '\0')
				return NULL;
			p++;
		} else if (*p == '"') {
			return p + 1;
		}
	}
	return NULL;
}

static bool scalar_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == '-' || c == '+' ||
			c == '.' || c == 'E';
}

const char *smtctl_json_skip(const char *p)
{
	p = skip_space(p);
	if (*p == '"')
		return skip_string(p);
	if (*p == '{' || *p == '[') {
		/* Counted, not recursed: strings are skipped whole, so only the
		 * answer's own brackets count. */
		size_t depth = 0;
		while (*p != '\0') {
			if (*p == '"') {
				p = skip_string(p);
				if (p == NULL)
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[') {
				depth++;
			} else if (*p == '}' || *p == ']') {
				if (--depth == 0)
					return p + 1;
			}
			p++;
		}
		return NULL;
	}
	const char *start = p;
	while (scalar_char(*p))
		p++;
	return p == start ? NULL : p;
}

const char *smtctl_json_member(const char *obj, const char *key)
{
	if (obj == NULL)
		return NULL;
	const char *p = skip_space(obj);
	if (*p != '{')
		return NULL;
	p = skip_space(p + 1);
	size_t klen = strlen(key);
	while (*p == '"') {
		const char *end = skip_string(p);
		if (end == NULL)
			return NULL;
		bool match = (size_t)(end - p) == klen + 2 && strncmp(p + 1, key, klen) == 0;
		p = skip_space(end);
		if (*p != ':')
			return NULL;
		p = skip_space(p + 1);
		if (match)
			return p;
		p = smtctl_json_skip(p);
		if (p == NULL)
			return NULL;
		p = skip_space(p);
		if (*p != ',')
			return NULL; /* the object's end: not there */
		p = skip_space(p + 1);
	}
	return NULL;
}

void smtctl_json_each_object(const char *array, void (*fn)(const char *obj, void *data), void *data)
{
	if (array == NULL)
		return;
	const char *p = skip_space(array);
	if (*p != '[')
		return;
	p = skip_space(p + 1);
	while (*p != '\0' && *p != ']') {
		const char *end = smtctl_json_skip(p);
		if (end == NULL)
			return;
		if (*p == '{')
			fn(p, data);
		p = skip_space(end);
		if (*p == ',')
			p = skip_space(p + 1);
		else if (*p != ']')
			return;
	}
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The 4 hex digits at p, or -1. */
static long hex4(const char *p)
{
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_value(p[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* cp as UTF-8 into buf; a control character or a lone surrogate as '?'. */
static size_t encode(uint32_t cp, char *buf)
{
	if (is_control(cp) || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
		buf[0] = '?';
		return 1;
	}
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* One character of the string body at *p (before `end`, the closing
 * quote), decoded into buf; advances *p. */
static size_t decode_one(const char **p, const char *end, char *buf)
{
	const unsigned char *s = (const unsigned char *)*p;
	if (*s != '\\') {
		/* raw UTF-8 (the writer's is well formed): a sequence at once,
		 * so that a cut never splits it; a C1 control as '?' */
		size_t n = *s >= 0xf0 ? 4 : *s >= 0xe0 ? 3 : *s >= 0xc0 ? 2 : 1;
		if (n > (size_t)(end - *p))
			n = (size_t)(end - *p);
		*p += n;
		if (n == 1)
			return encode(*s >= 0x80 ? 0xfffd : *s, buf);
		if (n == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
			return encode(s[1], buf);
		memcpy(buf, s, n);
		return n;
	}
	if (end - *p < 2) {
		*p = end;
		return encode('?', buf);
	}
	char c = (*p)[1];
	*p += 2;
	switch (c) {
	case '"':
	case '\\':
	case '/':
		return encode((uint32_t)c, buf);
	case 'u': {
		long hi = end - *p >= 4 ? hex4(*p) : -1;
		if (hi < 0)
			return encode('?', buf);
		*p += 4;
		uint32_t cp = (uint32_t)hi;
		if (cp >= 0xd800 && cp <= 0xdbff && end - *p >= 6 && (*p)[0] == '\\' &&
				(*p)[1] == 'u') {
			long lo = hex4(*p + 2);
			if (lo >= 0xdc00 && lo <= 0xdfff) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + ((uint32_t)lo - 0xdc00);
				*p += 6;
			}
		}
		return encode(cp, buf);
	}
	default: /* \b \f \n \r \t, and what JSON does not have */
		return encode(0, buf);
	}
}

bool smtctl_json_text(const char *v, char *out, size_t out_len)
{
	out[0] = '\0';
	if (v == NULL)
		return false;
	v = skip_space(v);
	const char *end = smtctl_json_skip(v);
	if (end == NULL)
		return false;
	size_t n = 0;
	if (*v != '"') {
		for (; v < end && n + 1 < out_len; v++)
			out[n++] = is_control((unsigned char)*v) ? '?' : *v;
		out[n] = '\0';
		return true;
	}
	const char *p = v + 1, *body_end = end - 1;
	while (p < body_end) {
		char buf[4];
		size_t k = decode_one(&p, body_end, buf);
		if (n + k + 1 > out_len)
			break; /* never half a character */
		memcpy(out + n, buf, k);
		n += k;
	}
	out[n] = '\0';
	return true;
}

size_t smtctl_text_columns(const char *s)
{
	size_t n = 0;
	for (; *s != '\0'; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

size_t smtctl_text_prefix(const char *s, size_t columns)
{
	size_t i = 0, seen = 0;
	for (; s[i] != '\0'; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && seen++ == columns)
			break;
	}
	return i;
}
