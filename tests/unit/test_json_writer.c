/*
 * The control socket's JSON writer (compositor/control/json_writer.c):
 * every answer is JSON, also when a string in it is not UTF-8. App ids and
 * titles are what clients sent (libwayland does not check them), error
 * messages repeat what a control client typed; before this test a byte
 * like 0xff went out as it came and `smtctl windows --json`, the harness
 * and any JSON reader refused the whole answer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit_check.h"
#include "compositor/control/json_writer.h"

/* {"s":<value as the writer escapes it>}\n */
static void check_string(const char *name, const char *value, const char *expected)
{
	current_test = name;
	struct json_writer w = { 0 };
	json_begin_object(&w);
	json_string(&w, "s", value);
	json_end_object(&w);
	REQUIRE(json_finish(&w), "the answer could not be built");
	char want[256];
	snprintf(want, sizeof(want), "{\"s\":\"%s\"}\n", expected);
	CHECK_STR(w.data, want);
	json_writer_free(&w);
}

int main(void)
{
	check_string("ascii", "foot", "foot");
	check_string("escapes", "a\"b\\c\n\x01", "a\\\"b\\\\c\\u000a\\u0001");
	/* well-formed UTF-8 passes as it is: 2, 3 and 4 bytes */
	check_string("utf8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
			"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	check_string("utf8-edges", "\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf",
			"\xc2\x80\xef\xbf\xbf\xf4\x8f\xbf\xbf");
	/* each byte that starts no well-formed sequence becomes U+FFFD */
	check_string("stray", "\xff\xfe x \x80", "\\ufffd\\ufffd x \\ufffd");
	check_string("overlong", "\xc0\xaf\xe0\x80\xaf", "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd");
	check_string("surrogate", "\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd");
	check_string("past-10ffff", "\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd");
	check_string("truncated", "ab\xe2\x82", "ab\\ufffd\\ufffd");
	check_string("truncated-mid", "\xe2\x82x", "\\ufffd\\ufffdx");
	/* keys go through the same escaping */
	current_test = "key";
	struct json_writer w = { 0 };
	json_begin_object(&w);
	json_uint(&w, "k\xff", 1);
	json_end_object(&w);
	REQUIRE(json_finish(&w), "the answer could not be built");
	CHECK_STR(w.data, "{\"k\\ufffd\":1}\n");
	json_writer_free(&w);
	return failures != 0;
}
