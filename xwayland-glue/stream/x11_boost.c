/* The grant and credit of x11_boost.h. */
#include "xwayland-glue/stream/x11_boost.h"

bool x11_boost_input(struct x11_boost *b, const struct x11_boost_config *cfg, uint64_t now)
{
	if (cfg->credit_ns == 0)
		return false;
	if (b->grants > 0 && now - b->last_grant_ns < cfg->gap_ns)
		return false;
	/* What the old grant spent so far is charged to it. */
	x11_boost_favoured(b, now, false);
	b->credit_ns = cfg->credit_ns;
	b->expires_ns = now + cfg->window_ns;
	b->last_grant_ns = now;
	b->grants++;
	b->light = false;
	return true;
}

bool x11_boost_light(struct x11_boost *b, const struct x11_boost_config *cfg, uint64_t now)
{
	if (cfg->credit_ns == 0 || x11_boost_live(b, now))
		return false;
	x11_boost_favoured(b, now, false);
	b->credit_ns = cfg->credit_ns;
	b->expires_ns = now + cfg->window_ns;
	b->light_grants++;
	b->light = true;
	return true;
}

bool x11_boost_live(const struct x11_boost *b, uint64_t now)
{
	return b->credit_ns > 0 && now < b->expires_ns;
}

bool x11_boost_favoured(struct x11_boost *b, uint64_t now, bool pending)
{
	bool was = b->pending_since != 0;
	if (b->pending_since) {
		uint64_t spent = now - b->pending_since;
		if (spent > b->credit_ns)
			spent = b->credit_ns;
		b->credit_ns -= spent;
		b->favoured_ns += spent;
		b->pending_since = 0;
	}
	if (!pending)
		return false;
	if (!x11_boost_live(b, now)) {
		if (was)
			b->lapsed++;
		return false;
	}
	b->pending_since = now;
	return true;
}

bool x11_boost_served(struct x11_boost *b, uint64_t now)
{
	if (b->pending_since)
		b->served++;
	x11_boost_favoured(b, now, false);
	if (!b->light || !x11_boost_live(b, now))
		return false;
	b->light_served++;
	return true;
}

void x11_boost_end(struct x11_boost *b)
{
	b->pending_since = 0;
	b->credit_ns = 0;
}

void x11_boost_hold(struct x11_boost *b)
{
	b->pending_since = 0;
}

uint64_t x11_boost_deadline(const struct x11_boost *b, uint64_t now)
{
	if (!x11_boost_live(b, now))
		return 0;
	uint64_t end = now + b->credit_ns;
	return end < b->expires_ns ? end : b->expires_ns;
}

bool x11_boost_share_left(
		struct x11_boost_share *s, const struct x11_boost_config *cfg, uint64_t now)
{
	const int64_t cap = (int64_t)(2 * cfg->credit_ns);
	if (!s->started) {
		s->started = true;
		s->tokens_ns = cap;
	} else if (cfg->gap_ns > 0) {
		/* elapsed * credit / gap, without overflow for long gaps */
		uint64_t elapsed = now - s->last_ns;
		uint64_t add = elapsed / cfg->gap_ns * cfg->credit_ns +
				elapsed % cfg->gap_ns * cfg->credit_ns / cfg->gap_ns;
		s->tokens_ns = add >= (uint64_t)(cap - s->tokens_ns) ? cap :
								       s->tokens_ns + (int64_t)add;
	}
	s->last_ns = now;
	return s->tokens_ns > 0;
}

void x11_boost_share_spend(struct x11_boost_share *s, uint64_t ns)
{
	/* The whole hold is owed, even past what was left: a check that finds
	 * a sliver of time must not buy a whole hold. A debt is bounded by how
	 * long one hold can last (the X server's next read or wake-up). */
	const int64_t floor = -(int64_t)1000000000;
	int64_t n = ns > 1000000000u ? 1000000000 : (int64_t)ns;
	s->tokens_ns = s->tokens_ns - n < floor ? floor : s->tokens_ns - n;
}

bool x11_boost_share_spare(const struct x11_boost_share *s, const struct x11_boost_config *cfg)
{
	return s->tokens_ns > (int64_t)cfg->credit_ns;
}
