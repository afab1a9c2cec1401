#include "xwayland-glue/stream/x11_answer_coalesce.h"

#include <string.h>

#define X_REPLY 1
#define X_DESTROY_NOTIFY 17
#define X_PROPERTY_NOTIFY 28
#define X_GENERIC_EVENT 35
#define X_MESSAGE 32u /* an event's or error's size, and a reply's least */

#define X_PROPERTY_NEW_VALUE 0

static uint32_t host_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t host_u16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

/* A message's whole length from its first 8 bytes. */
static uint64_t message_length(bool setup, const uint8_t *head)
{
	if (setup) {
		return 8 + 4 * (uint64_t)host_u16(head + 6);
	}
	uint8_t type = head[0] & 0x7f;
	if (type == X_REPLY || type == X_GENERIC_EVENT) {
		return X_MESSAGE + 4 * (uint64_t)host_u32(head + 4);
	}
	return X_MESSAGE;
}

/* True: the PropertyNotify at p is in s; otherwise, with add, put there
 * if there is room. */
static bool in_keys(struct x11_property_keys *s, const uint8_t *p, bool add)
{
	struct x11_property_key k = {
		.window = host_u32(p + 4),
		.atom = host_u32(p + 8),
		.state = p[16],
		.used = true,
	};
	uint32_t h = (k.window * 0x9e3779b1u) ^ (k.atom * 0x85ebca77u) ^ k.state;
	for (unsigned i = 0; i < X11_COALESCE_KEYS; i++) {
		struct x11_property_key *e = &s->slot[(h + i) % X11_COALESCE_KEYS];
		if (!e->used) {
			/* Keep a quarter free so that probes stay short. */
			if (add && s->used < X11_COALESCE_KEYS * 3 / 4) {
				*e = k;
				s->used++;
			}
			return false;
		}
		if (e->window == k.window && e->atom == k.atom && e->state == k.state) {
			return true;
		}
	}
	return false;
}

/* True: the PropertyNotify at p tells the window manager nothing new: it
 * repeats one of this write, or is a new value of one written since its
 * last request. Otherwise remembered for the rest of this write. */
static bool repeats(struct x11_property_keys *seen, struct x11_property_keys *unanswered,
		const uint8_t *p)
{
	if (in_keys(unanswered, p, false)) {
		return true;
	}
	return in_keys(seen, p, true);
}

static void leave_out(struct x11_coalesce_plan *plan, size_t at_in, size_t at_out)
{
	plan->left_out++;
	if (plan->nranges > 0) {
		struct x11_coalesce_range *last = &plan->range[plan->nranges - 1];
		if (last->at_in + last->len == at_in) {
			last->len += X_MESSAGE;
			return;
		}
	}
	plan->range[plan->nranges++] = (struct x11_coalesce_range){
		.at_in = at_in, .at_out = at_out, .len = X_MESSAGE
	};
}

/* The one walk: advances f over in[0..len); with out, copies what is kept
 * there and plans what is left out. */
static size_t walk(struct x11_answer_framer *f, const uint8_t *in, size_t len, uint8_t *out,
		struct x11_coalesce_plan *plan)
{
	struct x11_property_keys seen;
	if (out) {
		memset(&seen, 0, sizeof(seen));
	}
	size_t pos = 0, kept = 0;
	while (pos < len) {
		size_t take;
		if (f->left > 0) {
			take = f->left < len - pos ? (size_t)f->left : len - pos;
			f->left -= take;
		} else if (f->head_have > 0 || len - pos < 8) {
			/* A header split across writes: collect it, never leave it out. */
			take = 8u - f->head_have < len - pos ? 8u - f->head_have : len - pos;
			memcpy(f->head + f->head_have, in + pos, take);
			f->head_have = (uint8_t)(f->head_have + take);
			if (f->head_have == 8) {
				f->left = message_length(!f->setup_done, f->head) - 8;
				f->setup_done = true;
				f->head_have = 0;
			}
		} else {
			const uint8_t *m = in + pos;
			uint64_t whole = message_length(!f->setup_done, m);
			uint8_t type = m[0] & 0x7f;
			if (f->setup_done && type == X_DESTROY_NOTIFY) {
				/* The window's id may come back as another window. */
				if (out) {
					memset(&seen, 0, sizeof(seen));
				}
				memset(&f->unanswered, 0, sizeof(f->unanswered));
			}
			if (f->setup_done && out && type == X_PROPERTY_NOTIFY &&
					len - pos >= X_MESSAGE &&
					plan->nranges < X11_COALESCE_RANGES &&
					repeats(&seen, &f->unanswered, m)) {
				leave_out(plan, pos, kept);
				pos += X_MESSAGE;
				continue;
			}
			if (f->setup_done && !out && type == X_PROPERTY_NOTIFY &&
					len - pos >= X_MESSAGE) {
				/* Written, or left out as a repeat of one written
				 * (a new value or a deletion: each is keyed by its
				 * state). */
				in_keys(&f->unanswered, m, true);
			}
			f->setup_done = true;
			take = whole < len - pos ? (size_t)whole : len - pos;
			f->left = whole - take;
		}
		if (out) {
			memcpy(out + kept, in + pos, take);
		}
		kept += take;
		pos += take;
	}
	return kept;
}

size_t x11_coalesce(const struct x11_answer_framer *f, const uint8_t *in, size_t len, uint8_t *out,
		struct x11_coalesce_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	struct x11_answer_framer copy = *f;
	plan->kept = walk(&copy, in, len, out, plan);
	return plan->kept;
}

size_t x11_coalesce_consumed(const struct x11_coalesce_plan *plan, size_t written)
{
	size_t in = written;
	for (unsigned i = 0; i < plan->nranges && plan->range[i].at_out <= written; i++) {
		in += plan->range[i].len;
	}
	return in;
}

void x11_answer_framer_feed(struct x11_answer_framer *f, const uint8_t *in, size_t len)
{
	walk(f, in, len, NULL, NULL);
}

void x11_answer_framer_requests_read(struct x11_answer_framer *f)
{
	if (f->unanswered.used > 0) {
		memset(&f->unanswered, 0, sizeof(f->unanswered));
	}
}
