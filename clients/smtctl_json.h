/*
 * Reading the control socket's answers (smtctl): just enough JSON, exact.
 *
 * The answers carry strings that clients chose (app ids, titles), so
 * nothing is found by searching the text for a key or a brace: values are
 * walked by the grammar (strings with their escapes, nested objects and
 * arrays), and a string shown in a table is decoded and has its control
 * characters replaced, so that it can neither add a row nor move the
 * terminal's cursor. Pure (libc only), unit-tested with the compositor's
 * own writer (tests/unit/test_smtctl_json.c).
 */
#ifndef SMTCTL_JSON_H
#define SMTCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* Where the JSON value at p (after any white space) ends, or NULL when it
 * is cut short or is not a value. */
const char *smtctl_json_skip(const char *p);

/* The value of `key` among the members of the object at obj (never inside
 * their values), or NULL (also when obj is NULL or not an object). */
const char *smtctl_json_member(const char *obj, const char *key);

/* Calls fn for each element of the array at `array` that is an object, in
 * order; stops at the end of the array or at anything malformed. */
void smtctl_json_each_object(
		const char *array, void (*fn)(const char *obj, void *data), void *data);

/* The value at v as text to show, in out (out_len > 0): a string decoded
 * (escapes, \uXXXX as UTF-8), every control character (C0, DEL, C1) as
 * '?', cut to at most out_len - 1 bytes on a character boundary; a number
 * or literal as written. False, and out empty, when v is NULL or not a
 * value. */
bool smtctl_json_text(const char *v, char *out, size_t out_len);

/* Characters (code points) in the UTF-8 text s: the columns it takes in a
 * table, and how many bytes its first `columns` characters span. */
size_t smtctl_text_columns(const char *s);
size_t smtctl_text_prefix(const char *s, size_t columns);

#endif
