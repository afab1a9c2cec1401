/*
 * The spin decision of x11_spin.h: backoff after spins that found nothing
 * or were descheduled, reset by one that found input.
 */
#include "xwayland-glue/stream/x11_spin.h"

bool x11_spin_begin(struct x11_spin *s, const struct x11_spin_config *cfg, uint64_t now, bool armed)
{
	if (cfg->budget_ns == 0 || !armed)
		return false;
	if (s->skip > 0) {
		s->skip--;
		s->skipped++;
		return false;
	}
	s->spins++;
	s->start_ns = s->last_ns = now;
	return true;
}

static void back_off(struct x11_spin *s)
{
	s->skip = s->backoff ? s->backoff : 1u;
	s->backoff = s->skip >= X11_SPIN_BACKOFF_MAX / 2 ? X11_SPIN_BACKOFF_MAX : s->skip * 2u;
}

enum x11_spin_step x11_spin_look(
		struct x11_spin *s, const struct x11_spin_config *cfg, uint64_t now, bool input)
{
	/* A clock that went backwards is treated as no time passing. */
	uint64_t gap = now > s->last_ns ? now - s->last_ns : 0;
	uint64_t spun = now > s->start_ns ? now - s->start_ns : 0;
	s->last_ns = now > s->last_ns ? now : s->last_ns;
	if (input) {
		/* Found, even right after being descheduled: the client ran. */
		s->found++;
		s->spun_ns += spun;
		s->skip = 0;
		s->backoff = 0;
		return X11_SPIN_FOUND;
	}
	if (gap > cfg->preempt_gap_ns) {
		s->preempted++;
		s->spun_ns += spun;
		back_off(s);
		return X11_SPIN_PREEMPTED;
	}
	if (spun > cfg->budget_ns) {
		s->missed++;
		s->spun_ns += spun;
		back_off(s);
		return X11_SPIN_MISSED;
	}
	return X11_SPIN_GO_ON;
}
