/*
 * A tiny JSON writer for the control socket's answers: appends to a
 * growable buffer, escapes strings, and remembers whether a comma is due.
 * Pure (libc only).
 */
#ifndef SMTWC_JSON_WRITER_H
#define SMTWC_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_writer {
	char *data;
	size_t len, cap;
	bool failed; /* out of memory: the answer is dropped */
	bool need_comma;
};

void json_begin_object(struct json_writer *w);
void json_end_object(struct json_writer *w);
void json_begin_array(struct json_writer *w, const char *key);
void json_end_array(struct json_writer *w);
/* key may be NULL inside arrays. */
void json_object_key(struct json_writer *w, const char *key);
void json_string(struct json_writer *w, const char *key, const char *value);
void json_uint(struct json_writer *w, const char *key, uint64_t value);
void json_int(struct json_writer *w, const char *key, int64_t value);
void json_double(struct json_writer *w, const char *key, double value);
void json_bool(struct json_writer *w, const char *key, bool value);
/* Ends the answer with a newline; returns false if it could not be built. */
bool json_finish(struct json_writer *w);
void json_writer_free(struct json_writer *w);

#endif
