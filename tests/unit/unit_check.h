/*
 * The checks of the plain-C unit tests, one header for all of them: CHECK,
 * CHECK_INT and CHECK_STR print file, line, the test they belong to (set
 * current_test) and both sides, count, and go on (the test's main() exits
 * non-zero when `failures` is not 0); REQUIRE prints its message and ends
 * the test at once, for checks that later ones depend on.
 */
#ifndef SMT_UNIT_CHECK_H
#define SMT_UNIT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Unused by tests that only REQUIRE. */
__attribute__((unused)) static int failures;
__attribute__((unused)) static const char *current_test = "";

#define CHECK(cond)                                                                           \
	do {                                                                                  \
		if (!(cond)) {                                                                \
			fprintf(stderr, "%s:%d: [%s] check failed: %s\n", __FILE__, __LINE__, \
					current_test, #cond);                                 \
			failures++;                                                           \
		}                                                                             \
	} while (0)

#define CHECK_INT(a, b)                                                                    \
	do {                                                                               \
		long long a_ = (long long)(a), b_ = (long long)(b);                        \
		if (a_ != b_) {                                                            \
			fprintf(stderr,                                                    \
					"%s:%d: [%s] check failed: %s == %s "              \
					"(%lld vs %lld)\n",                                \
					__FILE__, __LINE__, current_test, #a, #b, a_, b_); \
			failures++;                                                        \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                           \
	do {                                                                      \
		const char *a_ = (a), *b_ = (b);                                  \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                          \
			fprintf(stderr,                                           \
					"%s:%d: [%s] check failed: %s == %s "     \
					"(\"%s\" vs \"%s\")\n",                   \
					__FILE__, __LINE__, current_test, #a, #b, \
					a_ ? a_ : "(null)", b_ ? b_ : "(null)");  \
			failures++;                                               \
		}                                                                 \
	} while (0)

#define REQUIRE(cond, ...)                                                                \
	do {                                                                              \
		if (!(cond)) {                                                            \
			fprintf(stderr, "%s:%d: [%s] required: %s: ", __FILE__, __LINE__, \
					current_test, #cond);                             \
			fprintf(stderr, __VA_ARGS__);                                     \
			fputc('\n', stderr);                                              \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

#endif
