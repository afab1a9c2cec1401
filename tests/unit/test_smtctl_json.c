/*
 * smtctl's reading of the control socket's answers (clients/smtctl_json.c)
 * against what the compositor's own writer (compositor/control/json_writer.c)
 * makes of strings clients chose. Before, smtctl split the client list at
 * the next '}' wherever it stood: an app id holding `}{"pid":...` added a
 * made-up row to `smtctl clients` (session 24's red team); an escaped
 * ESC reached the terminal as text, a raw C1 one as itself.
 */
#include <stdlib.h>
#include <string.h>

#include "clients/smtctl_json.h"
#include "compositor/control/json_writer.h"
#include "tests/unit/unit_check.h"

struct rows {
	unsigned n;
	char pid[8][32];
	char app_id[8][256];
};

static void collect(const char *obj, void *data)
{
	struct rows *r = data;
	if (r->n < 8) {
		strcpy(r->pid[r->n], "absent");
		strcpy(r->app_id[r->n], "absent");
		const char *v = smtctl_json_member(obj, "pid");
		if (v)
			smtctl_json_text(v, r->pid[r->n], sizeof(r->pid[0]));
		v = smtctl_json_member(obj, "app_id");
		if (v)
			smtctl_json_text(v, r->app_id[r->n], sizeof(r->app_id[0]));
	}
	r->n++;
}

/* A "clients" answer as the compositor writes it, one client per app id. */
static char *clients_answer(const char *const *app_ids, int n)
{
	struct json_writer w = { 0 };
	json_begin_object(&w);
	json_begin_array(&w, "clients");
	for (int i = 0; i < n; i++) {
		json_begin_object(&w);
		json_int(&w, "pid", 100 + i);
		json_string(&w, "app_id", app_ids[i]);
		json_string(&w, "transport", "ring");
		json_uint(&w, "slices", 7);
		json_end_object(&w);
	}
	json_end_array(&w);
	json_end_object(&w);
	REQUIRE(json_finish(&w), "the answer could not be built");
	return w.data;
}

/* App ids that try to add rows or end the list: each stays one cell of its
 * own row, exactly as the client set it. */
static void test_spoofed_rows(void)
{
	current_test = "spoofed rows";
	const char *const ids[] = {
		"evil\"}{\"pid\":4242,\"app_id\":\"spoof\"}{\"x\":\"",
		"a}{b],[c]}",
		NULL,
		"\\\"},{\"pid\":1}]}",
		"plain",
	};
	char *answer = clients_answer(ids, 5);
	struct rows r = { 0 };
	smtctl_json_each_object(smtctl_json_member(answer, "clients"), collect, &r);
	CHECK_INT(r.n, 5);
	for (unsigned i = 0; i < 5 && i < r.n; i++) {
		char pid[16];
		snprintf(pid, sizeof(pid), "%u", 100 + i);
		CHECK_STR(r.pid[i], pid);
		CHECK_STR(r.app_id[i], ids[i] ? ids[i] : "null");
	}
	/* no member is found inside a string, nor an error in a client's */
	CHECK(smtctl_json_member(answer, "pid") == NULL);
	CHECK(smtctl_json_member(answer, "error") == NULL);
	free(answer);
}

static void check_text(const char *name, const char *json, size_t out_len, const char *want)
{
	current_test = name;
	char out[256];
	REQUIRE(out_len <= sizeof(out), "out_len");
	CHECK(smtctl_json_text(json, out, out_len));
	CHECK_STR(out, want);
}

/* Strings decoded; whatever would steer a terminal shown as '?'. */
static void test_text(void)
{
	/* through the writer: ESC sequences and BEL become \u001b, \u0007 */
	struct json_writer w = { 0 };
	json_string(&w, NULL, "\x1b[2J\x1b]0;title\x07 ok\tx\n");
	REQUIRE(json_finish(&w), "the string could not be built");
	check_text("controls", w.data, 256, "?[2J?]0;title? ok?x?");
	json_writer_free(&w);
	/* a C1 control (U+009B, CSI) the writer passes as UTF-8, and DEL */
	check_text("c1",
			"\"a\xc2\x9b"
			"b\x7f\"",
			256, "a?b?");
	check_text("utf8", "\"caf\xc3\xa9 \xe2\x82\xac\"", 256, "caf\xc3\xa9 \xe2\x82\xac");
	check_text("escapes", "\"q\\\"b\\\\s\\/\"", 256, "q\"b\\s/");
	check_text("fffd", "\"\\ufffd\"", 256, "\xef\xbf\xbd");
	check_text("pair", "\"\\ud83d\\ude00\"", 256, "\xf0\x9f\x98\x80");
	check_text("lone surrogate", "\"\\ud83dx\"", 256, "?x");
	check_text("bad hex", "\"\\u12g4\"", 256, "?12g4");
	check_text("nul", "\"a\\u0000b\"", 256, "a?b");
	/* cut on a character boundary, never inside one */
	check_text("cut",
			"\"ab\xe2\x82\xac"
			"cd\"",
			6, "ab\xe2\x82\xac");
	check_text("cut before",
			"\"ab\xe2\x82\xac"
			"cd\"",
			5, "ab");
	check_text("number", " 12.5e3,", 256, "12.5e3");
	check_text("null", "null}", 256, "null");

	current_test = "not a value";
	char out[8] = "x";
	CHECK(!smtctl_json_text(NULL, out, sizeof(out)));
	CHECK_STR(out, "");
	CHECK(!smtctl_json_text("\"cut short", out, sizeof(out)));
	CHECK(!smtctl_json_text("\"ends in a backslash\\", out, sizeof(out)));
	CHECK(!smtctl_json_text("}", out, sizeof(out)));
}

/* Members by the grammar: keys at the object's own level only. */
static void test_members(void)
{
	current_test = "members";
	const char *obj = "{\"a\":\"\\\"pid\\\":5\",\"o\":{\"pid\":1,\"x\":[1,{\"pid\":3}]},"
			  " \"pid\" : 2 ,\"s\":\"}\"}";
	char out[32];
	CHECK(smtctl_json_text(smtctl_json_member(obj, "pid"), out, sizeof(out)));
	CHECK_STR(out, "2");
	CHECK(smtctl_json_text(smtctl_json_member(obj, "s"), out, sizeof(out)));
	CHECK_STR(out, "}");
	CHECK(smtctl_json_text(
			smtctl_json_member(smtctl_json_member(obj, "o"), "pid"), out, sizeof(out)));
	CHECK_STR(out, "1");
	CHECK(smtctl_json_member(obj, "x") == NULL);
	CHECK(smtctl_json_member(obj, "pi") == NULL);
	CHECK(smtctl_json_member("[1]", "pid") == NULL);
	CHECK(smtctl_json_member(NULL, "pid") == NULL);
	CHECK(smtctl_json_member("{\"a\":\"open", "pid") == NULL);

	/* an answer cut short: the whole objects before the cut, nothing after,
	 * never a byte past its end (ASan) */
	current_test = "cut answer";
	const char *whole = "{\"clients\":[{\"pid\":1},7,{\"pid\":2,\"app_id\":\"x}{\"}]}";
	for (size_t len = 0; len <= strlen(whole); len++) {
		char *cut = malloc(len + 1);
		memcpy(cut, whole, len);
		cut[len] = '\0';
		struct rows r = { 0 };
		smtctl_json_each_object(smtctl_json_member(cut, "clients"), collect, &r);
		size_t first = strlen("{\"clients\":[{\"pid\":1}");
		size_t second = strlen(whole) - strlen("]}");
		CHECK_INT(r.n, (len >= first) + (len >= second));
		free(cut);
	}
}

static void test_columns(void)
{
	current_test = "columns";
	const char *s = "\xc3\xa9\xe2\x82\xac"
			"x";
	CHECK_INT(smtctl_text_columns(s), 3);
	CHECK_INT(smtctl_text_prefix(s, 0), 0);
	CHECK_INT(smtctl_text_prefix(s, 1), 2);
	CHECK_INT(smtctl_text_prefix(s, 2), 5);
	CHECK_INT(smtctl_text_prefix(s, 3), 6);
	CHECK_INT(smtctl_text_prefix(s, 16), 6);
}

int main(void)
{
	test_spoofed_rows();
	test_text();
	test_members();
	test_columns();
	return failures != 0;
}
