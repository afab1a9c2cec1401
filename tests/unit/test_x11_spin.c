/*
 * The X server half's spin decision (xwayland-glue/stream/x11_spin.c) on a
 * fake clock: when it spins, what ends a spin, and the backoff after spins
 * that found nothing or lost the CPU.
 */
#include "tests/unit/unit_check.h"
#include "xwayland-glue/stream/x11_spin.h"

#define US 1000u

static const struct x11_spin_config cfg = {
	.budget_ns = 50 * US,
	.preempt_gap_ns = X11_SPIN_PREEMPT_GAP_NS,
};

/* One spin from `*now`: looks every `step` ns until `input_at` ns into the
 * spin (none if 0); returns how it ended and advances *now. */
static enum x11_spin_step spin_once(
		struct x11_spin *s, uint64_t *now, uint64_t step, uint64_t input_at)
{
	uint64_t start = *now;
	for (;;) {
		*now += step;
		bool input = input_at && *now - start >= input_at;
		enum x11_spin_step r = x11_spin_look(s, &cfg, *now, input);
		if (r != X11_SPIN_GO_ON)
			return r;
	}
}

/* How many chances in a row sleep at once (armed each time), then takes
 * the spin that follows. */
static unsigned skipped_chances(struct x11_spin *s, uint64_t *now)
{
	unsigned n = 0;
	while (!x11_spin_begin(s, &cfg, *now, true)) {
		n++;
		*now += 100 * US;
		if (n > 1000)
			break;
	}
	return n;
}

static void test_when(void)
{
	current_test = "when";
	struct x11_spin s = { 0 };
	struct x11_spin_config off = cfg;
	off.budget_ns = 0;
	CHECK(!x11_spin_begin(&s, &off, 1000, true));  /* SMT_X11RING_SPIN_US=0 */
	CHECK(!x11_spin_begin(&s, &cfg, 1000, false)); /* nobody streaming: idle */
	CHECK_INT(s.spins, 0);
	CHECK_INT(s.skipped, 0); /* unarmed chances are no skips */
	CHECK(x11_spin_begin(&s, &cfg, 1000, true));
	CHECK_INT(s.spins, 1);
}

static void test_found(void)
{
	current_test = "found";
	struct x11_spin s = { 0 };
	uint64_t now = 1000000;
	for (int i = 0; i < 10; i++) {
		CHECK(x11_spin_begin(&s, &cfg, now, true));
		CHECK_INT(spin_once(&s, &now, 500, 20 * US), X11_SPIN_FOUND);
	}
	CHECK_INT(s.found, 10);
	CHECK_INT(s.skipped, 0); /* spins that find input never back off */
	/* Spun about 20 us each (looks every 0.5 us). */
	CHECK(s.spun_ns >= 10 * 20 * US && s.spun_ns <= 10 * 21 * US);
}

static void test_missed_backoff(void)
{
	current_test = "missed backoff";
	struct x11_spin s = { 0 };
	uint64_t now = 1000000;
	/* Each miss doubles the chances that sleep at once, up to the max. */
	unsigned want[] = { 0, 1, 2, 4, 8, 16, 32, 64, 64, 64 };
	for (unsigned k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		CHECK_INT(skipped_chances(&s, &now), want[k]);
		uint64_t t0 = now;
		CHECK_INT(spin_once(&s, &now, 500, 0), X11_SPIN_MISSED);
		/* The budget, not longer than one look past it. */
		CHECK(now - t0 > cfg.budget_ns && now - t0 <= cfg.budget_ns + 500);
	}
	CHECK_INT(s.missed, 10);
	/* One spin that finds input ends the backoff. */
	CHECK_INT(skipped_chances(&s, &now), 64);
	CHECK_INT(spin_once(&s, &now, 500, 5 * US), X11_SPIN_FOUND);
	CHECK_INT(skipped_chances(&s, &now), 0);
	CHECK_INT(spin_once(&s, &now, 500, 0), X11_SPIN_MISSED);
	CHECK_INT(skipped_chances(&s, &now), 1); /* from the start again */
}

static void test_preempted(void)
{
	current_test = "preempted";
	struct x11_spin s = { 0 };
	uint64_t now = 1000000;
	CHECK(x11_spin_begin(&s, &cfg, now, true));
	CHECK_INT(x11_spin_look(&s, &cfg, now += 500, false), X11_SPIN_GO_ON);
	/* Descheduled for 3 ms (another task ran on this CPU): stop at once,
	 * not after another budget, and back off as after a miss. */
	CHECK_INT(x11_spin_look(&s, &cfg, now += 3000 * US, false), X11_SPIN_PREEMPTED);
	CHECK_INT(s.preempted, 1);
	CHECK_INT(skipped_chances(&s, &now), 1);
	/* A gap just under the limit is an ordinary look. */
	CHECK_INT(x11_spin_look(&s, &cfg, now += X11_SPIN_PREEMPT_GAP_NS, false), X11_SPIN_GO_ON);
	/* Input seen in the look after a gap: the client ran, it counts as
	 * found and ends the backoff. */
	CHECK_INT(x11_spin_look(&s, &cfg, now += 3000 * US, true), X11_SPIN_FOUND);
	CHECK_INT(skipped_chances(&s, &now), 0);
	/* Repeated preemption backs off like misses, up to the max. */
	for (int i = 0; i < 10; i++) {
		x11_spin_look(&s, &cfg, now += 3000 * US, false);
		skipped_chances(&s, &now);
	}
	CHECK_INT(s.skip, 0);
	CHECK_INT(s.backoff, X11_SPIN_BACKOFF_MAX);
}

static void test_clock_backwards(void)
{
	current_test = "clock backwards";
	struct x11_spin s = { 0 };
	uint64_t now = 1000000;
	CHECK(x11_spin_begin(&s, &cfg, now, true));
	/* No time passing: neither a gap nor the budget. */
	CHECK_INT(x11_spin_look(&s, &cfg, now - 5000, false), X11_SPIN_GO_ON);
	CHECK_INT(x11_spin_look(&s, &cfg, now + 1000, false), X11_SPIN_GO_ON);
}

int main(void)
{
	test_when();
	test_found();
	test_missed_backoff();
	test_preempted();
	test_clock_backwards();
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	return failures ? 1 : 0;
}
