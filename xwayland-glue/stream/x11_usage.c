/* The per-client time of x11_usage.h. */
#include "xwayland-glue/stream/x11_usage.h"

static void roll(struct x11_usage *u, uint64_t now)
{
	uint64_t epoch = now / X11_USAGE_WINDOW_NS;
	if (epoch == u->epoch)
		return;
	u->prev_ns = epoch == u->epoch + 1 ? u->cur_ns : 0;
	u->cur_ns = 0;
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

void x11_usage_add(struct x11_usage_sum *s, const struct x11_usage *u, uint64_t now)
{
	uint64_t r = x11_usage_recent(u, now);
	if (r == 0)
		return;
	s->total_ns += r;
	s->used++;
}

bool x11_usage_light(const struct x11_usage *u, const struct x11_usage_sum *s, unsigned pct,
		uint64_t now)
{
	if (pct == 0 || s->used < 2)
		return false; /* alone (or nobody busy): nobody to be served ahead of */
	if (u->first_ns == 0 || now - u->first_ns < X11_USAGE_WINDOW_NS)
		return false;
	/* mine < pct% of total / used, in integers: a client's recent time is
	 * at most 3 windows and pct <= 100, so nothing overflows */
	return x11_usage_recent(u, now) * 100 * s->used < s->total_ns * pct;
}
