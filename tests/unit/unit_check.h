/*
 * The checks of the plain-C unit tests: each failed check prints file, line,
 * the test it belongs to (set current_test) and both sides, and counts; the
 * test's main() exits non-zero when `failures` is not 0.
 */
#ifndef SMT_UNIT_CHECK_H
#define SMT_UNIT_CHECK_H

#include <stdio.h>
#include <string.h>

static int failures;
static const char *current_test = "";

#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, \
				__LINE__, current_test, #cond); \
			failures++; \
		} \
	} while (0)

#define CHECK_INT(a, b) \
	do { \
		long long a_ = (long long)(a), b_ = (long long)(b); \
		if (a_ != b_) { \
			fprintf(stderr, "%s:%d: [%s] check failed: %s == %s " \
				"(%lld vs %lld)\n", __FILE__, __LINE__, current_test, \
				#a, #b, a_, b_); \
			failures++; \
		} \
	} while (0)

#define CHECK_STR(a, b) \
	do { \
		const char *a_ = (a), *b_ = (b); \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
			fprintf(stderr, "%s:%d: [%s] check failed: %s == %s " \
				"(\"%s\" vs \"%s\")\n", __FILE__, __LINE__, \
				current_test, #a, #b, a_ ? a_ : "(null)", \
				b_ ? b_ : "(null)"); \
			failures++; \
		} \
	} while (0)

#endif
