/*
 * Charging what a client holds to it and to the compositor's total under
 * limits (resource_usage.h), so no client takes what the others need.
 */
#include <stdio.h>

#include "resource_usage.h"

bool smt_usage_charge(struct smt_usage *u, enum smt_resource r, uint64_t n,
		      struct smt_usage_refusal *why)
{
	for (struct smt_usage *level = u; level; level = level->parent) {
		uint64_t max = level->max[r], used = level->used[r];
		if (max != 0 && (n > max || used > max - n)) {
			if (why)
				*why = (struct smt_usage_refusal){
					.resource = r, .total = level->is_total,
					.max = max, .used = used, .asked = n,
				};
			return false;
		}
	}
	for (struct smt_usage *level = u; level; level = level->parent)
		level->used[r] += n;
	return true;
}

void smt_usage_release(struct smt_usage *u, enum smt_resource r, uint64_t n)
{
	for (struct smt_usage *level = u; level; level = level->parent)
		level->used[r] -= n < level->used[r] ? n : level->used[r];
}

void smt_usage_describe(const struct smt_usage_refusal *why, char *buf, size_t len)
{
	static const char *const names[SMT_RES_COUNT] = {
		[SMT_RES_FDS] = "fds", [SMT_RES_RINGS] = "rings",
		[SMT_RES_POOLS] = "pools", [SMT_RES_MEMORY] = "memory-mib",
		[SMT_RES_CANVASES] = "canvases",
	};
	const char *unit = why->resource == SMT_RES_MEMORY ? " bytes" : "";
	uint64_t shown = why->resource == SMT_RES_MEMORY ? why->max >> 20 : why->max;
	snprintf(buf, len, "limit %s-%s=%llu reached: %llu%s in use, %llu more asked",
		 why->total ? "total" : "client", names[why->resource],
		 (unsigned long long)shown, (unsigned long long)why->used, unit,
		 (unsigned long long)why->asked);
}
