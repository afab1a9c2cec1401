/* Table of converted request sequences; see errtab.h. */
#include "xwayland-glue/shim/errtab.h"

#include <stdlib.h>
#include <string.h>

void xshim_errtab_init(struct xshim_errtab *t, uint32_t max_ranges)
{
	memset(t, 0, sizeof(*t));
	t->max = max_ranges ? max_ranges : 1;
}

void xshim_errtab_finish(struct xshim_errtab *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

static struct xshim_errtab_range *at(const struct xshim_errtab *t, uint32_t i)
{
	return &t->v[(t->start + i) % t->cap];
}

static void drop_oldest(struct xshim_errtab *t)
{
	t->start = (t->start + 1) % t->cap;
	t->count--;
}

/* False only when there is no array at all (out of memory). */
static bool make_room(struct xshim_errtab *t)
{
	if (t->count == t->max) {
		drop_oldest(t);
		t->dropped++;
		return true;
	}
	if (t->count < t->cap)
		return true;
	uint32_t cap = t->cap ? t->cap * 2 : 16;
	if (cap > t->max)
		cap = t->max;
	struct xshim_errtab_range *v = malloc((size_t)cap * sizeof(*v));
	if (!v) { /* keep working with what we have: lose the oldest */
		if (t->count == 0)
			return false;
		drop_oldest(t);
		t->dropped++;
		return true;
	}
	for (uint32_t i = 0; i < t->count; i++)
		v[i] = *at(t, i);
	free(t->v);
	t->v = v;
	t->cap = cap;
	t->start = 0;
	return true;
}

void xshim_errtab_add(struct xshim_errtab *t, uint32_t seq, uint8_t major)
{
	if (t->count) {
		struct xshim_errtab_range *last = at(t, t->count - 1);
		if (last->major == major && seq == last->last + 1) {
			last->last = seq;
			return;
		}
	}
	if (!make_room(t))
		return;
	*at(t, t->count) = (struct xshim_errtab_range){ seq, seq, major };
	t->count++;
}

void xshim_errtab_own(struct xshim_errtab *t, uint32_t seq)
{
	if (t->count) {
		struct xshim_errtab_range *last = at(t, t->count - 1);
		if (seq == last->last + 1)
			last->last = seq;
	}
}

uint8_t xshim_errtab_lookup(const struct xshim_errtab *t, uint32_t seq)
{
	for (uint32_t i = t->count; i-- > 0;) {
		const struct xshim_errtab_range *r = at(t, i);
		if ((int32_t)(seq - r->last) > 0)
			return 0; /* newer than everything from here back */
		if ((int32_t)(seq - r->first) >= 0)
			return r->major;
	}
	return 0;
}

void xshim_errtab_prune(struct xshim_errtab *t, uint32_t seen)
{
	while (t->count) {
		struct xshim_errtab_range *r = at(t, 0);
		if ((int32_t)(r->last - seen) < 0) {
			drop_oldest(t);
		} else {
			if ((int32_t)(r->first - seen) < 0)
				r->first = seen;
			break;
		}
	}
}
