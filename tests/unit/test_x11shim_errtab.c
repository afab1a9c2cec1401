/* Unit tests for the X11 shim's table of converted requests (xwayland-glue/shim/errtab.c). */
#include "xwayland-glue/shim/errtab.h"
#include "tests/unit/unit_check.h"

#include <stdio.h>

static void test_ranges(void)
{
	current_test = "ranges";
	struct xshim_errtab t;
	xshim_errtab_init(&t, 16);
	xshim_errtab_add(&t, 5, 72);
	xshim_errtab_add(&t, 6, 72);
	xshim_errtab_add(&t, 7, 72);
	CHECK_INT(t.count, 1); /* consecutive conversions: one range */
	CHECK_INT(xshim_errtab_lookup(&t, 4), 0);
	CHECK_INT(xshim_errtab_lookup(&t, 6), 72);
	CHECK_INT(xshim_errtab_lookup(&t, 8), 0);
	xshim_errtab_add(&t, 9, 72); /* request 8 was someone else's */
	CHECK_INT(t.count, 2);
	CHECK_INT(xshim_errtab_lookup(&t, 8), 0);
	xshim_errtab_own(&t, 10);     /* a fence joins the range... */
	xshim_errtab_add(&t, 11, 72); /* ...so the next conversion extends it */
	CHECK_INT(t.count, 2);
	xshim_errtab_add(&t, 12, 73); /* another core request: new range */
	CHECK_INT(t.count, 3);
	CHECK_INT(xshim_errtab_lookup(&t, 11), 72);
	CHECK_INT(xshim_errtab_lookup(&t, 12), 73);
	xshim_errtab_own(&t, 20); /* not adjacent: ignored */
	CHECK_INT(xshim_errtab_lookup(&t, 20), 0);
	xshim_errtab_finish(&t);
}

static void test_prune(void)
{
	current_test = "prune";
	struct xshim_errtab t;
	xshim_errtab_init(&t, 16);
	for (uint32_t s = 5; s <= 7; s++)
		xshim_errtab_add(&t, s, 72);
	xshim_errtab_add(&t, 9, 73);
	/* An event with sequence 7 was dequeued: errors for 5 and 6 would have
	 * come before it; 7 itself may still fail after its events. */
	xshim_errtab_prune(&t, 7);
	CHECK_INT(xshim_errtab_lookup(&t, 5), 0);
	CHECK_INT(xshim_errtab_lookup(&t, 6), 0);
	CHECK_INT(xshim_errtab_lookup(&t, 7), 72);
	xshim_errtab_prune(&t, 9);
	CHECK_INT(t.count, 1);
	CHECK_INT(xshim_errtab_lookup(&t, 9), 73);
	xshim_errtab_prune(&t, 10);
	CHECK_INT(t.count, 0);
	xshim_errtab_finish(&t);
}

static void test_bound(void)
{
	current_test = "bound";
	struct xshim_errtab t;
	xshim_errtab_init(&t, 4);
	for (uint32_t i = 0; i < 10; i++)
		xshim_errtab_add(&t, 100 + 2 * i, 72); /* gaps: one range each */
	CHECK_INT(t.count, 4);
	CHECK_INT(t.dropped, 6);
	CHECK_INT(xshim_errtab_lookup(&t, 100), 0); /* forgotten */
	CHECK_INT(xshim_errtab_lookup(&t, 118), 72);
	CHECK_INT(xshim_errtab_lookup(&t, 112), 72);
	xshim_errtab_finish(&t);
}

static void test_wrap(void)
{
	current_test = "wrap";
	struct xshim_errtab t;
	xshim_errtab_init(&t, 16);
	xshim_errtab_add(&t, 0xfffffffeu, 72);
	xshim_errtab_add(&t, 0xffffffffu, 72);
	xshim_errtab_add(&t, 0, 72);
	xshim_errtab_add(&t, 1, 72);
	CHECK_INT(t.count, 1);
	CHECK_INT(xshim_errtab_lookup(&t, 0xffffffffu), 72);
	CHECK_INT(xshim_errtab_lookup(&t, 1), 72);
	CHECK_INT(xshim_errtab_lookup(&t, 2), 0);
	xshim_errtab_prune(&t, 0);
	CHECK_INT(xshim_errtab_lookup(&t, 0xffffffffu), 0);
	CHECK_INT(xshim_errtab_lookup(&t, 0), 72);
	xshim_errtab_finish(&t);
}

int main(void)
{
	test_ranges();
	test_prune();
	test_bound();
	test_wrap();
	if (failures) {
		fprintf(stderr, "test_x11shim_errtab: %d check(s) failed\n", failures);
		return 1;
	}
	printf("test_x11shim_errtab: all checks passed\n");
	return 0;
}
