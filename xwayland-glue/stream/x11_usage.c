/* The per-client time of x11_usage.h. */
#include "xwayland-glue/stream/x11_usage.h"

static void roll(struct x11_usage *u, uint64_t now)
{
	uint64_t epoch = now / X11_USAGE_WINDOW_NS;
	if (epoch == u->epoch)
		return;
	bool next = epoch == u->epoch + 1;
	u->prev_ns = next ? u->cur_ns : 0;
	u->idle_prev_ns = next ? u->idle_cur_ns : 0;
	u->cur_ns = 0;
	u->idle_cur_ns = 0;
	u->epoch = epoch;
}

void x11_usage_charge(struct x11_usage *u, uint64_t now, uint64_t ns)
{
	roll(u, now);
	if (u->first_ns == 0)
		u->first_ns = now;
	/* a stall longer than a window (the X server stopped) says nothing
	 * of the client; it also keeps every sum far from overflowing */
	if (ns > X11_USAGE_WINDOW_NS)
		ns = X11_USAGE_WINDOW_NS;
	u->cur_ns += ns;
	u->total_ns += ns;
}

uint64_t x11_usage_recent(const struct x11_usage *u, uint64_t now)
{
	uint64_t epoch = now / X11_USAGE_WINDOW_NS;
	if (epoch == u->epoch)
		return u->cur_ns + u->prev_ns;
	return epoch == u->epoch + 1 ? u->cur_ns : 0;
}

/* The part of the span [from, now) in the window before now's and in
 * now's own. */
static void span_parts(uint64_t from, uint64_t now, uint64_t *prev, uint64_t *cur)
{
	uint64_t start = now / X11_USAGE_WINDOW_NS * X11_USAGE_WINDOW_NS;
	uint64_t before = start >= X11_USAGE_WINDOW_NS ? start - X11_USAGE_WINDOW_NS : 0;
	*cur = now - (from > start ? from : start);
	*prev = from < start ? start - (from > before ? from : before) : 0;
}

void x11_usage_idle(struct x11_usage *u, uint64_t now)
{
	if (u->idle_since == 0)
		u->idle_since = now;
}

void x11_usage_waiting(struct x11_usage *u, uint64_t now)
{
	if (u->idle_since == 0 || now < u->idle_since)
		return;
	roll(u, now);
	uint64_t prev, cur;
	span_parts(u->idle_since, now, &prev, &cur);
	u->idle_prev_ns += prev;
	u->idle_cur_ns += cur;
	u->idle_total_ns += now - u->idle_since;
	u->idle_since = 0;
}

uint64_t x11_usage_idle_recent(const struct x11_usage *u, uint64_t now)
{
	uint64_t epoch = now / X11_USAGE_WINDOW_NS;
	uint64_t ended = epoch == u->epoch    ? u->idle_cur_ns + u->idle_prev_ns :
			epoch == u->epoch + 1 ? u->idle_cur_ns :
						0;
	if (u->idle_since == 0 || now < u->idle_since)
		return ended;
	uint64_t prev, cur;
	span_parts(u->idle_since, now, &prev, &cur);
	return ended + prev + cur;
}

void x11_usage_add(struct x11_usage_sum *s, const struct x11_usage *u, uint64_t now)
{
	if (x11_usage_recent(u, now) > 0)
		s->used++;
}

/* Some client other than u used time lately: someone to be served ahead
 * of. */
static bool not_alone(const struct x11_usage *u, const struct x11_usage_sum *s, uint64_t now)
{
	return s->used > (x11_usage_recent(u, now) > 0 ? 1u : 0u);
}

bool x11_usage_light(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now)
{
	uint64_t mine = x11_usage_recent(u, now);
	if (pct == 0 || !not_alone(u, s, now))
		return false; /* alone (or nobody busy): nobody to be served ahead of */
	if (u->first_ns == 0 || now - u->first_ns < X11_USAGE_WINDOW_NS)
		return false;
	uint64_t idle = x11_usage_idle_recent(u, now);
	if (mine == 0 && idle == 0) {
		/* Waiting with requests unread for two whole windows (refused
		 * grants: the light share spent, a full table): that says
		 * nothing of the program, and `0 < 0` judged it heavy until
		 * it was read (session 42). Judge it by the last windows it
		 * was charged or idle in, as they were kept: a flooder's show
		 * its use, a light program's its idleness; none, not light. */
		mine = u->cur_ns + u->prev_ns;
		idle = u->idle_cur_ns + u->idle_prev_ns;
	}
	/* mine < pct% of idle, in integers: both are at most a few windows
	 * and pct <= 100, so nothing overflows */
	return mine * 100 < idle * pct;
}

bool x11_usage_newcomer(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now)
{
	/* only in the window x11_usage_light cannot judge: a program that
	 * floods in short turns (the forked gamer's processes) stays under
	 * the budget for many of them */
	bool young = u->first_ns == 0 || now - u->first_ns < X11_USAGE_WINDOW_NS;
	return pct != 0 && young && u->total_ns < X11_USAGE_NEW_BUDGET_NS && not_alone(u, s, now);
}
